import type { TableSchema } from './table-schema.js';

/**
 * The table a FROM name reads: by name or alias, or as a wildcard family (`events_*`, whose
 * `_TABLE_SUFFIX` is then a column), the part of it under a longer prefix (`events_2024*`:
 * the tables whose suffix starts with `prefix`, and `_TABLE_SUFFIX` is what follows it, as
 * BigQuery matches the wildcard) or one table of it (`events_20240131`, with its suffix).
 */
export function findTable(
  tables: ReadonlyMap<string, TableSchema>,
  name: string,
): { table: TableSchema; wildcard: boolean; suffix?: string; prefix?: string } | undefined {
  const lower = name.toLowerCase();
  const table = tables.get(lower);
  if (table) return { table, wildcard: table.tableSuffix !== undefined && lower.endsWith('*') };
  for (const [alias, family] of tables) {
    if (!family.tableSuffix || !alias.endsWith('*')) continue;
    const prefix = alias.slice(0, -1);
    if (!lower.startsWith(prefix) || lower.length === prefix.length) continue;
    return lower.endsWith('*')
      ? { table: family, wildcard: true, prefix: name.slice(prefix.length, -1) }
      : { table: family, wildcard: false, suffix: name.slice(prefix.length) };
  }
  return undefined;
}
