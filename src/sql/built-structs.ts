import { quoteIdent } from './table-schema.js';
import { unsupported } from './unsupported.js';

/**
 * A STRUCT the query builds (`STRUCT(...)`, `STRUCT<...>(...)`, `SELECT AS STRUCT`), or an element
 * of an array or of a repeated record taken whole (objectSql), is one value, which BigQuery
 * answers as one object, where a log source's stored object stands for a repeated record and is
 * answered as an array of one (backends/duckdb/rows.ts). DuckDB has one STRUCT type for both, so
 * such a value carries one more field, named `$object` (a name BigQuery's field names cannot
 * have), which the rows decoder drops as it answers the object.
 *
 * The mark is in the value itself, so DuckDB carries it wherever the value goes: through IF, CASE,
 * COALESCE, aggregates (ANY_VALUE, ARRAY_AGG), a CTE's or subquery's column, an array and its
 * UNNEST, with no type inference here; and a stored record passed through the same expressions
 * keeps no mark and stays an array. Its fields are read as any STRUCT's (`.a`), and two marked
 * STRUCTs of one type compare, group and DISTINCT as their fields do (the mark is TRUE in both).
 * DuckDB's common type of two of them is found field by field, as BigQuery's supertype of
 * STRUCT<a INT64> and STRUCT<a FLOAT64> is STRUCT<a FLOAT64> (a one-member UNION, the mark this
 * replaced, took the first one's type and rounded 1.5 to 2).
 */
export const objectMark = '$object';

/** `struct_pack(a := x, ...)` of these fields (a name and its value's SQL), marked as a built STRUCT. */
export function builtStructSql(fields: readonly { readonly name: string; readonly sql: string }[]): string {
  if (fields.some((field) => field.name.toLowerCase() === objectMark))
    throw unsupported(`a STRUCT field named ${objectMark} (the translator's mark of a built STRUCT)`);
  const items = fields.map((field) => `${quoteIdent(field.name)} := ${field.sql}`);
  return `struct_pack(${[...items, `${quoteIdent(objectMark)} := TRUE`].join(', ')})`;
}

/**
 * A STRUCT value answered as one object: an element of an array or of a repeated record taken
 * whole, which BigQuery answers as the STRUCT it is. struct_update adds the mark, or keeps it on
 * a value that has it (an element of an array of built STRUCTs); NULL stays NULL.
 */
export function objectSql(value: string): string {
  return `(CASE WHEN ${value} IS NULL THEN NULL ELSE struct_update(${value}, ${quoteIdent(objectMark)} := TRUE) END)`;
}
