import type { Ast } from './bigquery-ast.js';
import { numberLiteral, stringLiteral, variant } from './bigquery-ast.js';
import { duckdbJsonPath } from './rules/json.js';
import { quoteString } from './rules/rule.js';
import type { SqlType } from './table-schema.js';
import { unsupported } from './unsupported.js';

/**
 * BigQuery's JSON type on the embedded engine. A table source's JSON column is a DuckDB JSON
 * column, and BigQuery's operations on a JSON value have DuckDB forms of the same meaning:
 * `j.a` and `j['a']` read a member (SQL NULL when there is none, a JSON null when it holds
 * null), `j[0]` an element, and JSON_QUERY of a JSON value is JSON again. Which expressions are
 * JSON is read from the store's schema and from the text (`JSON '...'`, PARSE_JSON, JSON_QUERY
 * of a JSON value), as BigQuery types them.
 */
export const jsonType = 'JSON';

export function isJsonType(type: SqlType | undefined): boolean {
  return type === jsonType;
}

/** `j.name` on a JSON value. */
export function jsonMemberSql(json: string, name: string): string {
  return `json_extract(${json}, ${quoteString(duckdbJsonPath(`$."${name.replaceAll('"', '\\"')}"`))})`;
}

/**
 * `j['name']` and `j[0]` on a JSON value: a string reads a member, an integer an element (from 0,
 * as JSONPath counts); a negative index reads nothing.
 */
export function jsonSubscriptSql(json: string, subscript: Ast): string {
  const index = subscript.Index?.index;
  if (!index) throw unsupported('slices of a JSON value');
  const name = stringLiteral(index);
  if (name !== undefined) return jsonMemberSql(json, name);
  const position = numberLiteral(index);
  if (position === undefined || !Number.isInteger(position))
    throw unsupported('a JSON subscript other than a literal string or integer');
  return position < 0 ? 'CAST(NULL AS JSON)' : `json_extract(${json}, '$[${position}]')`;
}

/** The functions whose result is JSON whatever their arguments. */
const jsonMaking = new Set(['parse_json', 'to_json', 'json_object', 'json_array']);

/** The functions whose result is JSON when their first argument is (JSON_QUERY of JSON is JSON). */
const jsonPreserving = new Set([
  'json_query',
  'json_extract',
  'json_set',
  'json_remove',
  'json_strip_nulls',
  'json_array_append',
  'json_array_insert',
]);

/**
 * Whether an expression is a BigQuery JSON value, as far as the text and the schema tell:
 * `typeOf` gives the type of a name or access chain from one.
 */
export function isJsonValued(expression: Ast, typeOf: (node: Ast) => SqlType | undefined): boolean {
  const [kind, node] = variant(expression);
  if (kind === 'Nested') return isJsonValued(node, typeOf);
  if (kind === 'TypedString') return node.data_type === 'JSON';
  if (kind === 'Function') {
    const name = (node.name as Ast[])
      .map((part) => variant(part)[1].value)
      .join('.')
      .toLowerCase()
      .replace(/^safe\./, '');
    if (jsonMaking.has(name)) return true;
    const first = node.args?.List?.args?.[0]?.Unnamed?.Expr;
    return jsonPreserving.has(name) && first !== undefined && isJsonValued(first, typeOf);
  }
  // Every member and element of a JSON value is JSON: a chain from a computed JSON value
  // (`JSON '...'.a[0]`) is JSON; one from a name is typed by following it.
  if (kind === 'CompoundFieldAccess' && !node.root.Identifier && !node.root.CompoundIdentifier)
    return isJsonValued(node.root, typeOf);
  if (kind === 'Identifier' || kind === 'CompoundIdentifier' || kind === 'CompoundFieldAccess')
    return isJsonType(typeOf(expression));
  return false;
}

/**
 * BigQuery's JSON is neither groupable nor orderable ("Grouping by expressions of type JSON is not
 * allowed", "ORDER BY does not support expressions of type JSON";
 * https://cloud.google.com/bigquery/docs/reference/standard-sql/data-types), while DuckDB groups and
 * sorts JSON as its text; so `GROUP BY json_payload` is refused at load rather than answered.
 */
export function refuseJsonKey(
  clause: 'GROUP BY' | 'ORDER BY',
  expression: Ast,
  typeOf: (node: Ast) => SqlType | undefined,
): void {
  // A name the FROM clause does not hold (an ORDER BY over a UNION's output columns, which the
  // translation orders by name) is not known to be JSON: left to the translation as before.
  const known = (node: Ast) => {
    try {
      return typeOf(node);
    } catch {
      return undefined;
    }
  };
  if (!isJsonValued(expression, known)) return;
  throw unsupported(
    `${clause} a JSON value (BigQuery's JSON is not ${clause === 'GROUP BY' ? 'groupable' : 'orderable'}; use JSON_VALUE, STRING or INT64 of it)`,
  );
}
