import { andTerms, compoundParts, type Expr } from './ast.js';
import type { Ast } from './bigquery-ast.js';

const comparisons = new Set(['Eq', 'Lt', 'LtEq', 'Gt', 'GtEq']);

/**
 * The terms ANDed at the top of a WHERE that bound a wildcard table's `_TABLE_SUFFIX` by
 * literals or parameters (`_TABLE_SUFFIX BETWEEN @start AND @end`, `= @day`, `>= '20240301'`,
 * `IN ('a', 'b')`), spelled bare or with `rangeName`. from-clause.ts filters the table by them
 * before anything is joined to it, as BigQuery reads only the daily tables they select: DuckDB
 * pushes such a filter into the scan, whose zone maps skip every other day's row groups, but not
 * through the dependent join a `CROSS JOIN UNNEST(event_params)` after the table is planned as
 * (at 1M events one day's `FROM events_*, UNNEST(event_params)` read all 30 days: 0.9 s of CPU
 * against 0.15 s). The terms stay in the WHERE too; filtering the table first keeps the same
 * rows, the table being the first of its FROM item and no RIGHT or FULL join following it.
 */
export function suffixTerms(where: Expr | undefined, rangeName: string): Expr[] {
  return andTerms(where).filter((term) => {
    const node = term as Ast;
    if (node.Between)
      return (
        !node.Between.negated &&
        isSuffix(node.Between.expr, rangeName) &&
        isConstant(node.Between.low) &&
        isConstant(node.Between.high)
      );
    if (node.InList)
      return (
        !node.InList.negated && isSuffix(node.InList.expr, rangeName) && node.InList.list.every(isConstant)
      );
    const binary = node.BinaryOp;
    if (!binary || !comparisons.has(binary.op)) return false;
    return (
      (isSuffix(binary.left, rangeName) && isConstant(binary.right)) ||
      (isConstant(binary.left) && isSuffix(binary.right, rangeName))
    );
  });
}

function isSuffix(expression: Expr, rangeName: string): boolean {
  const parts = compoundParts(expression);
  if (!parts) return false;
  const [first, second, ...rest] = parts.map((part) => part.toLowerCase());
  return (
    rest.length === 0 &&
    (second === undefined
      ? first === '_table_suffix'
      : first === rangeName.toLowerCase() && second === '_table_suffix')
  );
}

/** A literal or a query parameter (which the parser reads as a name starting with @). */
function isConstant(expression: Expr): boolean {
  const node = expression as Ast;
  if (node.Nested) return isConstant(node.Nested);
  return node.Value !== undefined || String(node.Identifier?.value ?? '').startsWith('@');
}
