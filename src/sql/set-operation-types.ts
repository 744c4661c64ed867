import type { Expr, SetExpr } from './ast.js';
import { type Ast, variant } from './bigquery-ast.js';
import { builtStructSql } from './built-structs.js';
import {
  isListSqlType,
  isStructSqlType,
  quoteIdent,
  type SqlType,
  type StructSqlType,
  unknownType,
} from './table-schema.js';
import { unsupported } from './unsupported.js';

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
 * built STRUCT's mark comes after its fields). A STRUCT of other arity than the left's (of a
 * known type, or a STRUCT or tuple either side writes in its SELECT list) is refused with
 * BigQuery's words, as is a side of another column count (BigQuery checks the count first:
 * zetasql/analyzer/resolver_query.cc, CheckSameColumnNumber; set_operation_resolver_base.cc).
 * Undefined when nothing is rebuilt, or when the left side's column types are not all known:
 * then DuckDB's own unification stands, as before.
 */
export function withLeftFieldNames(
  right: { readonly sql: string; readonly types: OutputTypes; readonly body?: SetExpr | undefined },
  left: { readonly types: OutputTypes; readonly body?: SetExpr | undefined },
  operation: { readonly sql: string; readonly rightIndex: number },
): string | undefined {
  const [leftTypes, rightTypes] = [left.types, right.types];
  if (leftTypes && rightTypes && leftTypes.length !== rightTypes.length) {
    const count = (n: number) => `${n} column${n === 1 ? '' : 's'}`;
    throw bigQueryRefusal(
      `${operation.sql} of queries of other column counts`,
      `Queries in ${operation.sql} have mismatched column count; query 1 has ${count(leftTypes.length)}, query ${operation.rightIndex} has ${count(rightTypes.length)}`,
    );
  }
  const leftArities = left.body && writtenArities(left.body);
  const rightArities = right.body && writtenArities(right.body);
  const incompatible = (index: number) => () => {
    const types = [
      typeText(leftTypes?.[index], leftArities?.[index]),
      typeText(rightTypes?.[index], rightArities?.[index]),
    ];
    return bigQueryRefusal(
      `${operation.sql} of STRUCTs of other field counts`,
      `Column ${index + 1} in ${operation.sql} has incompatible types: ${types.join(', ')}`,
    );
  };
  // A STRUCT column's field count, from its type or as the SELECT list writes it.
  const arity = (type: SqlType | undefined, written: number | undefined) =>
    isStructSqlType(type) && !type.repeated ? Object.keys(type.struct).length : written;
  const columns = Math.max(leftArities?.length ?? 0, leftTypes?.length ?? 0);
  for (let index = 0; index < columns; index++) {
    const leftArity = arity(leftTypes?.[index], leftArities?.[index]);
    const rightArity = arity(rightTypes?.[index], rightArities?.[index]);
    if (leftArity !== undefined && rightArity !== undefined && leftArity !== rightArity)
      throw incompatible(index)();
  }
  if (!leftTypes) return undefined;
  let renamed = false;
  const items = leftTypes.map((leftType, index) => {
    const value = `(#${index + 1})`;
    const coerced = renamedTo(value, rightTypes?.[index], leftType, 0, incompatible(index));
    renamed ||= coerced !== undefined;
    return coerced ?? value;
  });
  return renamed ? `SELECT ${items.join(', ')} FROM (${right.sql})` : undefined;
}

/** A refusal in BigQuery's own words (`details.reason`, kept by atNode and for a caller's SQL). */
function bigQueryRefusal(construct: string, reason: string): Error {
  const error = unsupported(construct);
  (error.details as Record<string, unknown>).reason = reason;
  return error;
}

/**
 * The number of fields of each column a SELECT writes as a STRUCT (`STRUCT('blue', 'square')`,
 * `(1, 2)`), whose type the translator does not know when a field is anonymous; undefined for a
 * column of another form, and for a side that is no plain SELECT list.
 */
function writtenArities(body: SetExpr): (number | undefined)[] | undefined {
  const [kind, node] = variant(body);
  if (kind !== 'Select' || node.value_table_mode) return undefined;
  const arities: (number | undefined)[] = [];
  for (const item of node.projection) {
    const [itemKind, itemNode] = variant(item);
    if (itemKind === 'UnnamedExpr') arities.push(structArity(itemNode));
    else if (itemKind === 'ExprWithAlias') arities.push(structArity(itemNode.expr));
    else return undefined;
  }
  return arities;
}

function structArity(expression: Expr): number | undefined {
  const node = expression as Ast;
  if (node.Nested) return structArity(node.Nested);
  if (Array.isArray(node.Tuple)) return node.Tuple.length;
  if (node.Struct) return Math.max(node.Struct.fields.length, node.Struct.values.length);
  return undefined;
}

/** A type as BigQuery writes it in its messages, as far as the translator knows it. */
function typeText(type: SqlType | undefined, arity?: number): string {
  if (isListSqlType(type)) return `ARRAY<${typeText(type.list)}>`;
  if (isStructSqlType(type))
    return `STRUCT<${Object.entries(type.struct)
      .map(([name, field]) => `${name}${field === unknownType ? '' : ` ${typeText(field)}`}`)
      .join(', ')}>`;
  if (type === undefined || type === unknownType)
    return arity === undefined ? 'an unknown type' : `STRUCT of ${arity} field${arity === 1 ? '' : 's'}`;
  return bigQueryNames[type] ?? type;
}

const bigQueryNames: Readonly<Record<string, string>> = {
  VARCHAR: 'STRING',
  BLOB: 'BYTES',
  BIGINT: 'INT64',
  DOUBLE: 'FLOAT64',
  BOOLEAN: 'BOOL',
  'TIMESTAMP WITH TIME ZONE': 'DATETIME',
};

/** `value` (of type `from`, undefined when not known) with the field names of `to`, or undefined when it keeps its own. */
function renamedTo(
  value: string,
  from: SqlType | undefined,
  to: SqlType | undefined,
  depth: number,
  incompatible: () => Error,
): string | undefined {
  const known = from !== undefined && from !== unknownType;
  if (isListSqlType(to) && (!known || isListSqlType(from))) {
    const element = `"$e${depth}"`;
    const renamed = renamedTo(
      element,
      isListSqlType(from) ? from.list : undefined,
      to.list,
      depth + 1,
      incompatible,
    );
    return renamed && `list_transform(${value}, ${element} -> ${renamed})`;
  }
  if (!isStructSqlType(to) || to.repeated) return undefined;
  if (known && (!isStructSqlType(from) || from.repeated)) return undefined;
  const fromFields = known ? Object.entries((from as StructSqlType).struct) : undefined;
  // BigQuery refuses a set operation of STRUCTs of different arity, at any depth.
  if (fromFields && fromFields.length !== Object.keys(to.struct).length) throw incompatible();
  let renamed = !fromFields;
  const fields = Object.entries(to.struct).map(([name, type], index) => {
    const [fromName, fromType] = fromFields?.[index] ?? [undefined, undefined];
    const field =
      fromName === undefined
        ? `struct_extract_at(${value}, ${index + 1})`
        : `${value}.${quoteIdent(fromName)}`;
    const inner =
      type === unknownType ? undefined : renamedTo(field, fromType, type, depth + 1, incompatible);
    renamed ||= inner !== undefined || fromName?.toLowerCase() !== name.toLowerCase();
    return { name, sql: inner ?? field };
  });
  if (!renamed) return undefined;
  // Marked as built, as the left side's STRUCTs of other names are (STRUCT(...)): a row of the
  // right side then compares equal to the same row of the left (UNION DISTINCT, EXCEPT).
  return `(CASE WHEN ${value} IS NULL THEN NULL ELSE ${builtStructSql(fields)} END)`;
}
