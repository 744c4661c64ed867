import { andTerms, compoundParts, type Expr } from './ast.js';
import { type Ast, calledName, variant } from './bigquery-ast.js';

/**
 * Conditions on a wildcard table's `_TABLE_SUFFIX` alone that every row the WHERE keeps meets,
 * spelled bare or with `rangeName`: each term ANDed at the top of the WHERE that reads nothing
 * but the suffix, literals and parameters (`_TABLE_SUFFIX BETWEEN @start AND @end`, `= @day`,
 * `IN ('a', 'b')`, `REGEXP_EXTRACT(_TABLE_SUFFIX, '[0-9]+') BETWEEN ...`), or the bound such a term
 * implies: `a AND b` the bounds of either, `a OR b` one of each branch's (`(x AND _TABLE_SUFFIX =
 * '1') OR (y AND _TABLE_SUFFIX = '2')` keeps the days '1' and '2'; a branch without one bounds
 * nothing). from-clause.ts filters the table by them before anything is joined to it, as BigQuery
 * reads only the daily tables they select: DuckDB pushes such a filter into the scan, whose zone
 * maps skip every other day's row groups, but not through the dependent join a `CROSS JOIN
 * UNNEST(event_params)` after the table is planned as (at 1M events one day's `FROM events_*,
 * UNNEST(event_params)` read all 30 days: 0.9 s of CPU against 0.15 s). The WHERE is kept whole,
 * so filtering the table first keeps the same rows, the table being the first of its FROM item
 * and no RIGHT or FULL join following it.
 */
export function suffixTerms(where: Expr | undefined, rangeName: string): Expr[] {
  return andTerms(where).flatMap((term) => {
    const bound = impliedBound(term as Ast, rangeName);
    return bound === undefined ? [] : [bound];
  });
}

/** A condition on the suffix alone that holds wherever `node` is TRUE, or undefined. */
function impliedBound(node: Ast, rangeName: string): Ast | undefined {
  if (node.Nested) return impliedBound(node.Nested, rangeName);
  const binary = node.BinaryOp;
  if (binary?.op === 'And' || binary?.op === 'Or') {
    const left = impliedBound(binary.left, rangeName);
    const right = impliedBound(binary.right, rangeName);
    if (binary.op === 'Or') return left && right && { Nested: { BinaryOp: { left, op: 'Or', right } } };
    return left && right ? { BinaryOp: { left, op: 'And', right } } : (left ?? right);
  }
  let readsSuffix = false;
  const onlySuffix = readsOnly(node, (expression) => {
    if (!isSuffix(expression, rangeName)) return String(expression.Identifier?.value ?? '').startsWith('@');
    readsSuffix = true;
    return true;
  });
  return onlySuffix && readsSuffix ? node : undefined;
}

const comparisons = new Set(['Eq', 'NotEq', 'Lt', 'LtEq', 'Gt', 'GtEq', 'And', 'Or', 'StringConcat']);

/**
 * String functions that answer the same for the same arguments and raise no error for any text a
 * suffix holds: a term of them is as safe to test on every day's rows as the WHERE it stays in.
 */
const pureFunctions = new Set([
  'concat',
  'ends_with',
  'left',
  'length',
  'lower',
  'lpad',
  'ltrim',
  'regexp_contains',
  'regexp_extract',
  'regexp_replace',
  'replace',
  'reverse',
  'right',
  'rpad',
  'rtrim',
  'starts_with',
  'strpos',
  'substr',
  'substring',
  'trim',
  'upper',
]);

/**
 * Whether `node` is built of literals, names `name` accepts, comparisons, AND/OR/NOT, BETWEEN,
 * IN lists, LIKE, IS [NOT] NULL, casts to STRING or SAFE_CAST, and calls of pureFunctions.
 */
function readsOnly(node: Ast, name: (expression: Ast) => boolean): boolean {
  const reads = (child: Ast) => readsOnly(child, name);
  const [kind, payload] = variant(node);
  switch (kind) {
    case 'Identifier':
    case 'CompoundIdentifier':
      return name(node);
    case 'Value':
      return true;
    case 'Nested':
    case 'IsNull':
    case 'IsNotNull':
      return reads(payload);
    case 'UnaryOp':
      return payload.op === 'Not' && reads(payload.expr);
    case 'BinaryOp':
      return comparisons.has(payload.op) && reads(payload.left) && reads(payload.right);
    case 'Between':
      return reads(payload.expr) && reads(payload.low) && reads(payload.high);
    case 'InList':
      return reads(payload.expr) && payload.list.every(reads);
    case 'Like':
      return payload.escape_char === undefined && reads(payload.expr) && reads(payload.pattern);
    case 'Cast':
      return (
        (payload.kind === 'SafeCast' || variant(payload.data_type)[0] === 'String') && reads(payload.expr)
      );
    case 'Function': {
      const name = calledName(node);
      if (!name || !pureFunctions.has(name) || payload.over || payload.filter || payload.null_treatment)
        return false;
      const [argsKind, list] = variant(payload.args);
      return (
        argsKind === 'List' &&
        list.clauses.length === 0 &&
        list.duplicate_treatment === undefined &&
        list.args.every((arg: Ast) => {
          const [argKind, argNode] = variant(arg);
          return argKind === 'Unnamed' && argNode.Expr !== undefined && reads(argNode.Expr);
        })
      );
    }
    default:
      return false;
  }
}

function isSuffix(expression: Ast, rangeName: string): boolean {
  const parts = compoundParts(expression as Expr);
  if (!parts) return false;
  const [first, second, ...rest] = parts.map((part) => part.toLowerCase());
  return (
    rest.length === 0 &&
    (second === undefined
      ? first === '_table_suffix'
      : first === rangeName.toLowerCase() && second === '_table_suffix')
  );
}

/**
 * The terms ANDed at the top of the WHERE that read nothing but columns of the first table of the
 * FROM (`columns`, bare or with `rangeName`), literals and parameters, through what readsOnly
 * allows, where the rest of the FROM is UNNESTs of that table's arrays (`others` their aliases):
 * from-clause.ts filters the table by them and the WHERE drops them. Their value is the table
 * row's on every row an UNNEST join makes of it, so they keep the same rows before the join as
 * after. DuckDB reads `FROM t CROSS JOIN UNNEST(t.a)` as a select-list unnest, one pass, only
 * when no filter sits above the join: with `WHERE event_name = 'page_view'` there it hashed every
 * row's whole list to join the elements back (ga4.pageview-paths for the month at 1M events:
 * 15 s of CPU, 8 s once the filter moved).
 */
export function tableTerms(
  where: Expr | undefined,
  rangeName: string,
  columns: ReadonlyMap<string, unknown>,
  others: ReadonlySet<string>,
): Expr[] {
  const range = rangeName.toLowerCase();
  const isColumn = (expression: Ast) => {
    const parts = compoundParts(expression as Expr)?.map((part) => part.toLowerCase());
    const [first, second] = parts ?? [];
    if (first === undefined || others.has(first)) return false;
    if (parts?.length === 1 && first.startsWith('@')) return true;
    return first === range ? second !== undefined && columns.has(second) : columns.has(first);
  };
  return andTerms(where).filter((term) => readsOnly(term as Ast, isColumn));
}

/** `where` without the terms ANDed at its top that `removed` holds; undefined when none is left. */
export function withoutTerms(where: Expr | undefined, removed: readonly Expr[]): Expr | undefined {
  const kept = andTerms(where).filter((term) => !removed.includes(term));
  if (kept.length === andTerms(where).length) return where;
  // Each term in parentheses: andTerms took off those around an OR.
  return kept.reduce<Expr | undefined>((all, term) => {
    const nested = { Nested: term } as Expr;
    return all === undefined ? nested : ({ BinaryOp: { left: all, op: 'And', right: nested } } as Expr);
  }, undefined);
}
