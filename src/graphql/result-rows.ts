import type { ColumnType, EngineValue, QueryResult, ResultRow } from '../engines/query-engine.js';

/** A result row with its column types at hand. */
export interface TypedRow {
  readonly row: ResultRow;
  readonly typeOf: (column: string) => ColumnType | undefined;
}

/**
 * Maps a result's rows to a field's shape once per result: a cached result is shared by every
 * call that hits it, so the mapping is remembered with it and dropped together with it.
 */
export function createRowMapper<T>(map: (row: TypedRow) => T): (result: QueryResult) => readonly T[] {
  const mapped = new WeakMap<QueryResult, readonly T[]>();
  return (result) => {
    let rows = mapped.get(result);
    if (!rows) {
      const types = new Map(result.columns.map((column) => [column.name, column.type]));
      const typeOf = (column: string) => types.get(column);
      rows = result.rows.map((row) => map({ row, typeOf }));
      mapped.set(result, rows);
    }
    return rows;
  };
}

/** INT64 as a GraphQL number; counts and milliseconds stay far below 2^53. */
export function numberValue(value: EngineValue | undefined): number | null {
  if (typeof value === 'number') return value;
  if (typeof value === 'bigint') return Number(value);
  return null;
}

export function textValue(value: EngineValue | undefined): string | null {
  if (value === null || value === undefined) return null;
  return typeof value === 'string' ? value : String(value);
}
