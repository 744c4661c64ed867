import { quoteIdent } from '../sql/table-schema.js';

/**
 * The typed shape of a log record's `metadata`, as stored by the embedded engine. Nested JSON
 * objects are plain STRUCTs and JSON arrays are LISTs (faster to query than BigQuery's
 * list-of-struct layout or JSON columns); logically every object is still a BigQuery repeated
 * record, which the translator and the result decoder keep up.
 */
export type ScalarType = 'VARCHAR' | 'BIGINT' | 'DOUBLE' | 'BOOLEAN';
export type StructType = { readonly struct: Readonly<Record<string, FieldType>> };
export type ListType = { readonly list: FieldType };
export type FieldType = ScalarType | StructType | ListType;

export function isStructType(type: FieldType): type is StructType {
  return typeof type === 'object' && 'struct' in type;
}

export function isListType(type: FieldType): type is ListType {
  return typeof type === 'object' && 'list' in type;
}

/** DuckDB's spelling of a field type, e.g. `STRUCT("status_code" BIGINT)`. */
export function duckdbType(type: FieldType): string {
  if (typeof type === 'string') return type;
  if (isListType(type)) return `${duckdbType(type.list)}[]`;
  const fields = Object.entries(type.struct).map(([name, t]) => `${quoteIdent(name)} ${duckdbType(t)}`);
  return `STRUCT(${fields.join(', ')})`;
}

export { quoteIdent } from '../sql/table-schema.js';
