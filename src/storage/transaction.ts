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

/**
 * `statements` in one transaction, in order, sent to DuckDB in one call (it stops at the first
 * that fails; the transaction is then rolled back). Each call waits for the main thread to take
 * its answer, so a writer's transaction is one call, not one per statement.
 */
export async function runInTransaction(
  connection: DuckDBConnection,
  statements: readonly string[],
): Promise<void> {
  try {
    await connection.run(['BEGIN TRANSACTION', ...statements, 'COMMIT'].join(';\n'));
  } catch (error) {
    // DuckDB may have rolled back already (a failed COMMIT): the second rollback's error is noise.
    await connection.run('ROLLBACK').catch(() => undefined);
    throw error;
  }
}
