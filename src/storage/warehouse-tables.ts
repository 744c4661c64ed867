import type { DuckDBConnection } from '@duckdb/node-api';
import { duckdbColumnType } from '../endpoints/table-columns.js';
import type { TableSource } from '../endpoints/table-source.js';
import { quoteIdent } from '../sql/table-schema.js';

/**
 * The embedded store's table of each table source: real typed columns (see table-columns.ts for
 * the type map), named as the source, so queries read them as BigQuery reads the warehouse's.
 */

export function createWarehouseTableStatement(source: TableSource): string {
  const columns = source.columns.map((column) => `${quoteIdent(column.name)} ${duckdbColumnType(column)}`);
  return `CREATE TABLE IF NOT EXISTS ${quoteIdent(source.name)} (${columns.join(', ')})`;
}

/**
 * Creates the table of every table source that lacks one. A table made earlier with other
 * columns or types is refused, naming the difference: querygate never rewrites a team's data to
 * fit a changed declaration (drop the table or declare it as it is).
 */
export async function ensureWarehouseTables(
  connection: DuckDBConnection,
  sources: readonly TableSource[],
): Promise<void> {
  for (const source of sources) {
    await connection.run(createWarehouseTableStatement(source));
    const result = await connection.run(`SELECT * FROM ${quoteIdent(source.name)} LIMIT 0`);
    const stored = result.columnNames().map((name, i) => `${name} ${result.columnType(i).toString()}`);
    const probe = await connection.run(
      `SELECT * FROM (SELECT ${source.columns
        .map((column) => `CAST(NULL AS ${duckdbColumnType(column)}) AS ${quoteIdent(column.name)}`)
        .join(', ')}) LIMIT 0`,
    );
    const declared = probe.columnNames().map((name, i) => `${name} ${probe.columnType(i).toString()}`);
    if (stored.join(', ') !== declared.join(', '))
      throw new Error(
        `Table ${quoteIdent(source.name)} in the store has columns (${stored.join(', ')}); sources.yaml declares (${declared.join(', ')})`,
      );
  }
}
