import { type DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';

/**
 * Opens a store file with DuckDB alone (replaying its WAL, as DuckDB does; no querygate code, so
 * what it finds is independent of the code under test), runs `read`, and closes it.
 */
export async function readStoreFile<T>(
  file: string,
  read: (connection: DuckDBConnection) => Promise<T>,
): Promise<T> {
  const instance = await DuckDBInstance.create(file, {
    autoinstall_known_extensions: 'false',
    autoload_known_extensions: 'false',
  });
  const connection = await instance.connect();
  try {
    return await read(connection);
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

/** The values of a query's first column, as text. */
export async function firstColumnText(connection: DuckDBConnection, sql: string): Promise<Set<string>> {
  const reader = await connection.runAndReadAll(sql);
  return new Set(reader.getRows().map(([value]) => String(value)));
}
