import type { DuckDBConnection } from '@duckdb/node-api';

/**
 * The rows plain DuckDB answers for `sql` (the expected side of a test: the same data laid out as
 * BigQuery holds it), integers as the engine's JSON rows give them: numbers, not BIGINT text.
 */
export async function plainRows(
  connection: DuckDBConnection,
  sql: string,
): Promise<Record<string, unknown>[]> {
  const reader = await connection.runAndReadAll(sql);
  return reader
    .getRowObjectsJson()
    .map((row) =>
      Object.fromEntries(
        Object.entries(row).map(([key, value]) => [
          key,
          typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value,
        ]),
      ),
    );
}
