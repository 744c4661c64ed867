import { builtStructSql } from './built-structs.js';
import {
  isListSqlType,
  isStructSqlType,
  quoteIdent,
  type SqlType,
  type StructSqlType,
  unknownType,
} from './table-schema.js';

/** The types of a query's output columns in order (anonymous ones too); undefined when not all are known. */
export type OutputTypes = readonly (SqlType | undefined)[] | undefined;

/**
 * The right side of a set operation with its STRUCT columns given the left side's field names.
 *
 * Why: BigQuery coerces each column of a UNION, INTERSECT or EXCEPT to the first query's type,
 * STRUCT fields by position, named as the first query names them. The docs' examples build
 * their rows so (`SELECT STRUCT('blue' AS color, 'round' AS shape) AS info UNION ALL SELECT
 * STRUCT('blue', 'square')`). DuckDB unifies two STRUCTs by field name instead: the second row
 * came back with `color` and `shape` NULL and a field `_field_1` of its own.
 *
 * Where the left side's column is a STRUCT (at any depth, through arrays), the right side's value
 * is rebuilt with the left's names, field by field in order, unless its own type is known to
 * have the same names; the rest of the side is read as it is. A field of a right side whose type
 * is not known (an anonymous field's STRUCT) is read by its position (`struct_extract_at`; a
 * built STRUCT's mark comes after its fields): of fewer fields DuckDB refuses the query, as
 * BigQuery does; of more (which BigQuery refuses too) the first ones are read. Undefined when nothing is rebuilt, or when the left side's column types are not
 * all known: then DuckDB's own unification stands, as before.
 */
export function withLeftFieldNames(
  right: string,
  leftTypes: OutputTypes,
  rightTypes: OutputTypes,
): string | undefined {
  if (!leftTypes || (rightTypes && leftTypes.length !== rightTypes.length)) return undefined;
  let renamed = false;
  const items = leftTypes.map((leftType, index) => {
    const value = `(#${index + 1})`;
    const coerced = renamedTo(value, rightTypes?.[index], leftType, 0);
    renamed ||= coerced !== undefined;
    return coerced ?? value;
  });
  return renamed ? `SELECT ${items.join(', ')} FROM (${right})` : undefined;
}

/** `value` (of type `from`, undefined when not known) with the field names of `to`, or undefined when it keeps its own. */
function renamedTo(
  value: string,
  from: SqlType | undefined,
  to: SqlType | undefined,
  depth: number,
): string | undefined {
  const known = from !== undefined && from !== unknownType;
  if (isListSqlType(to) && (!known || isListSqlType(from))) {
    const element = `"$e${depth}"`;
    const renamed = renamedTo(element, isListSqlType(from) ? from.list : undefined, to.list, depth + 1);
    return renamed && `list_transform(${value}, ${element} -> ${renamed})`;
  }
  if (!isStructSqlType(to) || to.repeated) return undefined;
  if (known && (!isStructSqlType(from) || from.repeated)) return undefined;
  const fromFields = known ? Object.entries((from as StructSqlType).struct) : undefined;
  // BigQuery refuses a UNION of STRUCTs of different arity; DuckDB says so in its own words.
  if (fromFields && fromFields.length !== Object.keys(to.struct).length) return undefined;
  let renamed = !fromFields;
  const fields = Object.entries(to.struct).map(([name, type], index) => {
    const [fromName, fromType] = fromFields?.[index] ?? [undefined, undefined];
    const field =
      fromName === undefined
        ? `struct_extract_at(${value}, ${index + 1})`
        : `${value}.${quoteIdent(fromName)}`;
    const inner = type === unknownType ? undefined : renamedTo(field, fromType, type, depth + 1);
    renamed ||= inner !== undefined || fromName?.toLowerCase() !== name.toLowerCase();
    return { name, sql: inner ?? field };
  });
  if (!renamed) return undefined;
  // Marked as built, as the left side's STRUCTs of other names are (STRUCT(...)): a row of the
  // right side then compares equal to the same row of the left (UNION DISTINCT, EXCEPT).
  return `(CASE WHEN ${value} IS NULL THEN NULL ELSE ${builtStructSql(fields)} END)`;
}
