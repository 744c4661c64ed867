import type { DuckDBConnection } from '@duckdb/node-api';
import { duckdbColumnType } from '../endpoints/table-columns.js';
import type { TableSource } from '../endpoints/table-source.js';
import { quoteIdent } from '../sql/table-schema.js';
import { migrateWarehouseTables, type TableMigration } from './table-migration.js';

/**
 * The embedded store's table of each table source: real typed columns (see table-columns.ts for
 * the type map), named as the source, so queries read them as BigQuery reads the warehouse's.
 */

export function createWarehouseTableStatement(source: TableSource): string {
  const columns = source.columns.map((column) => `${quoteIdent(column.name)} ${duckdbColumnType(column)}`);
  return `CREATE TABLE IF NOT EXISTS ${quoteIdent(source.name)} (${columns.join(', ')})`;
}

/**
 * Creates the table of every table source that lacks one, and brings the others to their
 * declarations as a BigQuery schema update would (see table-migration.ts): a table made earlier
 * with columns a schema update cannot turn into the declared ones is refused, naming each.
 */
export async function ensureWarehouseTables(
  connection: DuckDBConnection,
  sources: readonly TableSource[],
): Promise<TableMigration[]> {
  for (const source of sources) await connection.run(createWarehouseTableStatement(source));
  return migrateWarehouseTables(connection, sources);
}
