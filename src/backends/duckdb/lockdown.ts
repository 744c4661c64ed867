import type { DuckDBConnection } from '@duckdb/node-api';

/** What a locked-down DuckDB instance may still reach outside its own files. */
export interface DuckDbLockdown {
  /**
   * Directories DuckDB may still read (the log writer's batch files, which it loads with
   * read_json). Everything else outside the database's own files is refused by DuckDB itself.
   */
  readonly allowedDirectories: readonly string[];
}

/**
 * Turns DuckDB's external access off and locks its configuration, for the whole instance:
 * DuckDB has no per-connection switch, and the store's own work needs no file beyond its batch
 * directory. This is the wall under the sandbox's checks and the translator's rules: should a
 * caller's SQL ever get past them, DuckDB still refuses files (read_csv, COPY, a path in FROM),
 * extensions (INSTALL/LOAD from disk), ATTACH of a file, and any SET, including one that would
 * turn access back on. Run it last, after every setting the server needs is in place.
 */
export async function lockDownDuckDb(connection: DuckDBConnection, lockdown: DuckDbLockdown): Promise<void> {
  const directories = lockdown.allowedDirectories.map((dir) => `'${dir.replaceAll("'", "''")}'`);
  await connection.run(`SET GLOBAL allowed_directories = [${directories.join(', ')}]`);
  await connection.run('SET GLOBAL enable_external_access = false');
  await connection.run('SET GLOBAL lock_configuration = true');
}
