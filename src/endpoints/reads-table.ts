import type { SavedQuery } from '../engines/query-engine.js';
import { tablesNamed } from '../sql/tables-named.js';
import { type TableSource, tableSourceNames } from './table-source.js';

/**
 * Whether a saved query reads a table source: names it by any of its names, or (for a wildcard
 * family) names one of its day tables or a longer prefix (`events_20240725`, `events_2024*`).
 * A text that does not parse reads nothing it could answer from.
 */
export function readsTableSource(query: Pick<SavedQuery, 'sql'>, source: TableSource): boolean {
  let named: string[];
  try {
    named = tablesNamed(query.sql);
  } catch {
    return false;
  }
  const names = tableSourceNames(source);
  return named.some((table) =>
    names.some((name) => (name.endsWith('*') ? table.startsWith(name.slice(0, -1)) : table === name)),
  );
}
