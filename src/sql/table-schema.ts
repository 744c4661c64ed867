/**
 * What the translator knows of the tables a query may read. The caller (the engine) reads it from
 * the store when an endpoint loads, so every field ingestion has added can be addressed; `sql/`
 * never reads the store itself.
 */

/** A column's type: a DuckDB scalar type name, a STRUCT (a BigQuery record) or a LIST (an array). */
export type SqlType = string | StructSqlType | { readonly list: SqlType };

export type StructSqlType = {
  readonly struct: Readonly<Record<string, SqlType>>;
  /**
   * Of a record in a table's columns (TableSchema): every row the table holds has it, so its
   * path is never NULL there (the store knows, see storage/present-records.ts). A CROSS JOIN
   * UNNEST over it drops no row of the table, and needs no filter saying so.
   */
  readonly present?: boolean | undefined;
  /**
   * Of a record in a table's columns: its STRING fields whose every stored value is NULL or 1-18
   * ASCII digits (the store knows, see storage/present-records.ts), which a CAST to INT64 reads
   * as BigQuery does with no check of the text (sql/string-to-int64.ts).
   */
  readonly integerTexts?: ReadonlySet<string> | undefined;
  /**
   * The value is an element of a repeated record taken whole (repeated-records.ts,
   * objectSql), answered as one object: a STRUCT whose fields are read.
   */
  readonly element?: boolean | undefined;
  /**
   * Of a log source's stored object, which stands for a REPEATED RECORD (Logflare's layout): as
   * in BigQuery, its fields are read from its elements (UNNEST, a subscript), never from it.
   */
  readonly repeated?: boolean | undefined;
};

/**
 * The type of a field of a STRUCT the query builds (`STRUCT(x AS a, COUNT(*) AS n)`) where the
 * translator cannot tell it: the field can be named, and what follows it is left to DuckDB.
 */
export const unknownType = '?';

export interface TableSchema {
  /** The table's name in the store, which is also the name queries use for it. */
  readonly name: string;
  /** Other names queries may use for the same table (the Logs Explorer's `edge_logs`, ...). */
  readonly aliases?: readonly string[] | undefined;
  /**
   * Of a wildcard family (an alias ending with `*`, `analytics_1.events_*`): the column that holds
   * each row's `_TABLE_SUFFIX`. A name of the family with a suffix (`events_20240131`) reads the
   * rows of that suffix.
   */
  readonly tableSuffix?: { readonly column: string } | undefined;
  readonly columns: Readonly<Record<string, SqlType>>;
  /** Columns no row of the table holds NULL in (the store knows, see storage/present-records.ts). */
  readonly notNull?: readonly string[] | undefined;
}

export function isStructSqlType(type: SqlType | undefined): type is StructSqlType {
  return typeof type === 'object' && 'struct' in type;
}

/** An element of a repeated record (`repeated`): a STRUCT whose fields are read. */
export function elementOf<T extends SqlType | undefined>(type: T): T {
  if (!isStructSqlType(type) || !type.repeated) return type;
  const { repeated: _, ...element }: StructSqlType = type;
  return element as T;
}

export function isListSqlType(type: SqlType | undefined): type is { readonly list: SqlType } {
  return typeof type === 'object' && 'list' in type;
}

/**
 * The field of a STRUCT named `name`, compared case-insensitively as BigQuery and DuckDB compare
 * field names; its spelling in the type is returned with it.
 */
export function structField(
  type: StructSqlType,
  name: string,
): { readonly name: string; readonly type: SqlType } | undefined {
  if (Object.hasOwn(type.struct, name)) return { name, type: type.struct[name] as SqlType };
  const lower = name.toLowerCase();
  for (const [field, fieldType] of Object.entries(type.struct)) {
    if (field.toLowerCase() === lower) return { name: field, type: fieldType };
  }
  return undefined;
}

export function quoteIdent(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}
