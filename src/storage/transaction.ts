import type { DuckDBConnection } from '@duckdb/node-api';

/**
 * `work` in one transaction on `connection`: committed if it resolves, rolled back if it throws
 * (after a failed COMMIT DuckDB has already rolled back; the second rollback's error is noise).
 */
export async function inTransaction<T>(connection: DuckDBConnection, work: () => Promise<T>): Promise<T> {
  await connection.run('BEGIN TRANSACTION');
  try {
    const result = await work();
    await connection.run('COMMIT');
    return result;
  } catch (error) {
    await connection.run('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

/** `statements` in one transaction, in order. */
export function runInTransaction(connection: DuckDBConnection, statements: readonly string[]): Promise<void> {
  return inTransaction(connection, async () => {
    for (const statement of statements) await connection.run(statement);
  });
}
