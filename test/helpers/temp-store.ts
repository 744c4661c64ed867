import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { createDuckDbEngine } from '../../src/backends/duckdb/engine.js';
import type { QueryEngine } from '../../src/engines/query-engine.js';
import { queriesDir } from '../../src/paths.js';
import { type Database, openDatabase } from '../../src/storage/database.js';
import { createLogWriter, type LogWriter, type LogWriterOptions } from '../../src/storage/log-writer.js';
import { logSources } from './shipped-sources.js';

/** A real log store in a temporary directory: its DuckDB file, its writer and a connection to look with. */
export interface TempStore {
  readonly dir: string;
  readonly db: Database;
  readonly writer: LogWriter;
  readonly connection: DuckDBConnection;
  /** Closes the writer, the connection and the database, then removes the directory. */
  close(): Promise<void>;
}

/** Opens a store at `<tmp>/<prefix>XXXX/logs.duckdb` with its source tables (the shipped nine unless `options` say else) created. */
export async function openTempStore(
  prefix: string,
  options: Partial<LogWriterOptions> = {},
): Promise<TempStore> {
  const dir = await mkdtemp(join(tmpdir(), prefix));
  const db = await openDatabase(join(dir, 'logs.duckdb'));
  const writer = createLogWriter(db, { sources: logSources, ...options });
  await writer.ready();
  const connection = await db.connect();
  return {
    dir,
    db,
    writer,
    connection,
    async close() {
      await writer.close();
      connection.closeSync();
      db.close();
      await rm(dir, { recursive: true, force: true });
    },
  };
}

/**
 * An engine over a temp store's log tables, as the server makes one (waiting for the commits of
 * acknowledged records), with no saved queries.
 */
export function storeEngine(
  store: TempStore,
  options: Partial<Parameters<typeof createDuckDbEngine>[0]> = {},
): Promise<QueryEngine> {
  return createDuckDbEngine({
    database: store.db,
    sources: logSources,
    queries: [],
    queriesDir,
    timeoutMs: 10_000,
    acknowledgedCommits: () => store.writer.committed(),
    ...options,
  });
}
