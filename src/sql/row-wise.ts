import type { Expr, Select, SelectItem } from './ast.js';
import { type Ast, variant, visitNodes } from './bigquery-ast.js';
import { aggregateRules, windowOnly } from './rules/aggregate.js';

/**
 * No subquery, aggregate or window function anywhere in the nodes: each value is one of its row
 * alone, so a SELECT of them keeps its rows one for one and may be sorted by any of their columns.
 */
export function rowWise(nodes: readonly (Expr | SelectItem)[]): boolean {
  let rowWise = true;
  visitNodes(nodes as Ast, (node) => {
    if (node.Subquery || node.Exists || node.InSubquery) rowWise = false;
    const call = node.Function;
    const name = call && (call.name.at(-1)?.Identifier?.value ?? '').toLowerCase();
    if (call && (call.over || Object.hasOwn(aggregateRules, name) || windowOnly.has(name))) rowWise = false;
  });
  return rowWise;
}

/** A SELECT that acts on no more than one row at a time: no GROUP BY, HAVING, DISTINCT, QUALIFY, WINDOW. */
export function ungrouped(select: Select): boolean {
  const [groupKind, group] = variant(select.group_by);
  const grouped = groupKind !== 'Expressions' || group[0].length > 0;
  return (
    !grouped && !select.having && !select.distinct && !select.qualify && select.named_window.length === 0
  );
}
