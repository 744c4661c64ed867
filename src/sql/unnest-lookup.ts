import { compoundParts, type Expr, type Query, type Select } from './ast.js';
import { numberLiteral, variant } from './bigquery-ast.js';
import { raiseSql } from './raised-errors.js';
import { rowWise, ungrouped } from './row-wise.js';
import { isListSqlType, isStructSqlType, type SqlType, unknownType } from './table-schema.js';
import type { TranslationContext } from './translation-context.js';
import { arrayPathUnnest } from './unnest-sql.js';

// The lambdas' parameters: names no saved query's column is likely to share (a column of that
// name would be hidden inside them).
const element = '"__qg_element"';
const values = '"__qg_values"';

/**
 * `(SELECT value.int_value FROM UNNEST(event_params) WHERE key = 'ga_session_id')`, the commonest
 * GA4 idiom, as list functions over the row's own array: `list_filter` keeps the elements the
 * WHERE keeps, `list_transform` computes the SELECT item of each. As a subquery DuckDB plans it
 * as a dependent join, hashing every row's whole array to join the answers back: at 1M events
 * a week's `SUM` of one parameter took 8-9 s that the list functions do in 0.4 s. The answer is
 * the subquery's, as BigQuery defines it
 * (https://cloud.google.com/bigquery/docs/reference/standard-sql/subqueries#scalar_subquery_concepts):
 * NULL when no element is kept (or the array is NULL), the one value when one is, and a runtime
 * error ("Scalar subquery produced more than one element") when more are; with `LIMIT 1`, the
 * first kept. Only this shape, over an array column whose element is a known STRUCT (its fields
 * are names in the SELECT item and WHERE): one SELECT item and WHERE of the element alone (no
 * subquery, aggregate or window), no GROUP BY, DISTINCT, ORDER BY, WITH OFFSET or join.
 * Undefined for any other subquery, which stays a subquery.
 */
export function unnestLookupSql(query: Query, context: TranslationContext): string | undefined {
  const lookup = lookupOf(query, context);
  if (!lookup) return undefined;
  const { array, inner, value, selection } = lookup;
  const kept = selection ? `list_filter(${array}, ${element} -> ${inner.expr(selection)})` : array;
  const answers = `list_transform(${kept}, ${element} -> ${inner.expr(value)})`;
  if (lookup.limitOne) return `${answers}[1]`;
  return `list_transform([${answers}], ${values} -> CASE WHEN len(${values}) > 1 THEN ${raiseSql("'Scalar subquery produced more than one element'")} ELSE ${values}[1] END)[1]`;
}

/**
 * The type of such a subquery's answer, its SELECT item's: known, a CAST of it (`CAST((SELECT
 * value.int_value ...) AS STRING)`) is written for that type rather than for any.
 */
export function unnestLookupType(query: Query, context: TranslationContext): SqlType | undefined {
  const lookup = lookupOf(query, context);
  return lookup?.inner.valueType(lookup.value);
}

/** The parts of a subquery of the shape unnestLookupSql takes, its element bound in a scope of its own. */
function lookupOf(
  query: Query,
  context: TranslationContext,
):
  | { array: string; inner: TranslationContext; value: Expr; selection?: Expr | undefined; limitOne: boolean }
  | undefined {
  const limitOne = query.limit_clause === undefined ? false : isLimitOne(query);
  if (query.with || query.order_by || limitOne === undefined) return undefined;
  const select = 'Select' in query.body ? query.body.Select : undefined;
  if (!select || select.value_table_mode || !ungrouped(select)) return undefined;
  const [item, ...moreItems] = select.projection;
  if (!item || moreItems.length > 0) return undefined;
  const value: Expr | undefined =
    'UnnamedExpr' in item ? item.UnnamedExpr : 'ExprWithAlias' in item ? item.ExprWithAlias.expr : undefined;
  if (!value || !rowWise(select.selection ? [value, select.selection] : [value])) return undefined;
  const scoped = elementScope(select, context);
  if (!scoped) return undefined;
  return { ...scoped, value, selection: select.selection, limitOne };
}

/**
 * The array of a SELECT whose one FROM item is `UNNEST(path) [AS alias]` over an array of known
 * STRUCTs, and a scope where the alias (BigQuery names an UNNEST without one after its path's
 * last part) stands for the lambdas' element, its fields bare names as in the subquery.
 */
function elementScope(
  select: Select,
  context: TranslationContext,
): { array: string; inner: TranslationContext } | undefined {
  const [from, ...moreFrom] = select.from;
  if (!from || moreFrom.length > 0 || from.joins.length > 0) return undefined;
  const unnest =
    'UNNEST' in from.relation ? from.relation.UNNEST : arrayPathUnnest(from.relation, context.scope);
  if (!unnest || unnest.with_offset || unnest.with_ordinality || unnest.array_exprs.length !== 1)
    return undefined;
  const parts = compoundParts(unnest.array_exprs[0] as Expr);
  if (!parts) return undefined;
  const array = context.resolveName(parts);
  if (!isListSqlType(array.type) || !isStructSqlType(array.type.list)) return undefined;
  const scope = context.scope.child();
  scope.bind(unnest.alias?.name?.value ?? (parts.at(-1) as string), {
    kind: 'object',
    path: element,
    type: array.type.list,
  });
  return { array: array.sql, inner: context.within(scope) };
}

/**
 * The type of `ARRAY(SELECT AS STRUCT a, b AS c FROM UNNEST(items) ...)` or `ARRAY(SELECT x FROM
 * UNNEST(items) ...)` over an array of known STRUCTs: an ARRAY of the STRUCT of its items, or of
 * its one item, typed where they are, so that TO_JSON_STRING of it knows what it writes.
 */
export function arraySubqueryType(query: Query, context: TranslationContext): SqlType | undefined {
  const select = 'Select' in query.body ? query.body.Select : undefined;
  if (query.with || !select || !ungrouped(select)) return undefined;
  const scoped = elementScope(select, context);
  if (!scoped) return undefined;
  const items = select.projection.map((item) =>
    'UnnamedExpr' in item
      ? { name: compoundParts(item.UnnamedExpr)?.at(-1), expr: item.UnnamedExpr }
      : 'ExprWithAlias' in item
        ? { name: item.ExprWithAlias.alias.value as string | undefined, expr: item.ExprWithAlias.expr }
        : undefined,
  );
  const [only] = items;
  if (!select.value_table_mode && items.length === 1 && only) {
    const type = scoped.inner.valueType(only.expr);
    return type === undefined ? undefined : { list: type };
  }
  if (select.value_table_mode !== 'AsStruct') return undefined;
  const struct: Record<string, SqlType> = {};
  for (const item of items) {
    if (item?.name === undefined) return undefined;
    struct[item.name] = scoped.inner.valueType(item.expr) ?? unknownType;
  }
  return { list: { struct } };
}

/** Of a query with a LIMIT: true for `LIMIT 1` alone, undefined for any other. */
function isLimitOne({ limit_clause }: Query): true | undefined {
  if (!limit_clause) return undefined;
  const [kind, limit] = variant(limit_clause);
  return kind === 'LimitOffset' && !limit?.offset && numberLiteral(limit?.limit) === 1 ? true : undefined;
}
