import type { TableSource } from '../../src/endpoints/table-source.js';
import type { Database } from '../../src/storage/database.js';
import { createTableWriter } from '../../src/storage/table-writer.js';

/**
 * The fake BigQuery's tabledata.insertAll into the warehouse's own tables (table sources): the
 * rows land in the store's table of the source, where the fake's queries read them, as streamed
 * rows are visible to queries on BigQuery. A day table of a wildcard family (`events_20240131`)
 * takes rows whose suffix column is set to its suffix, which is how the store holds
 * `_TABLE_SUFFIX`. Rows are written as BigQuery's JSON forms are read (querygate's own loading
 * path, as the fake's tables were loaded); a field the table lacks is refused per row, as BigQuery
 * refuses it.
 */
export interface WarehouseRowTarget {
  readonly source: TableSource;
  /** The day table's suffix, for a table of a wildcard family. */
  readonly suffix?: string;
}

/** The warehouse table `project.dataset.table` names, if it is one of `tables`. */
export function warehouseTarget(
  tables: readonly TableSource[],
  qualified: string,
): WarehouseRowTarget | undefined {
  const lower = qualified.toLowerCase();
  for (const source of tables) {
    const name = source.warehouseName?.toLowerCase();
    if (!name) continue;
    if (name === lower) return { source };
    if (name.endsWith('*') && lower.startsWith(name.slice(0, -1)) && lower.length > name.length - 1)
      return { source, suffix: qualified.slice(name.length - 1) };
  }
  return undefined;
}

/** Stores the rows (all or none); throws with BigQuery's message when DuckDB refuses them. */
export async function insertWarehouseRows(
  database: Pick<Database, 'connect'>,
  target: WarehouseRowTarget,
  rows: readonly Record<string, unknown>[],
): Promise<void> {
  const suffixColumn = target.source.tableSuffix?.column;
  const stored =
    target.suffix !== undefined && suffixColumn
      ? rows.map((row) => ({ ...row, [suffixColumn]: target.suffix }))
      : rows;
  const writer = await createTableWriter(database, [target.source]);
  try {
    await writer.write(target.source.name, stored);
  } finally {
    await writer.close();
  }
}
