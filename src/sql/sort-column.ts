import { compoundParts, type Expr, type Select } from './ast.js';
import { type Ast, variant } from './bigquery-ast.js';
import { rowWise, ungrouped } from './row-wise.js';
import { quoteIdent } from './table-schema.js';
import type { OutputNames, TranslationContext } from './translation-context.js';

/**
 * The SELECT list's names, each with the FROM column it sorts as, where ORDER BY may use that
 * column instead: Studio's `cast(timestamp as datetime) as timestamp ... order by timestamp desc
 * limit 100`. The cast keeps the order of a TIMESTAMP, NULLs where they were, so the rows and
 * their order are the same; but DuckDB skips the row groups a top-N cannot reach, and reads
 * them newest first, only for a column, not for an expression of one (the Logs Explorer's REST
 * requests at 1M edge records: 732 ms by the cast, 55 ms by the column).
 *
 * Only in a SELECT whose ORDER BY may name any column of its rows: no GROUP BY, DISTINCT,
 * HAVING, QUALIFY or named window, and a list of row-wise values (no aggregate, window function
 * or subquery: row-wise.ts).
 */
export function withSortColumns(
  select: Select,
  outputs: OutputNames,
  context: TranslationContext,
): OutputNames {
  if (!ordersByRows(select)) return outputs;
  return new Map(
    [...outputs].map(([name, output]) => {
      const column = output.explicit ? castColumn(output.expr as Ast, context) : undefined;
      return [name, column ? { ...output, sortsAs: column } : output];
    }),
  );
}

function ordersByRows(select: Select): boolean {
  return ungrouped(select) && rowWise(select.projection);
}

/**
 * The TIMESTAMP column under `CAST(column AS DATETIME | TIMESTAMP)`, qualified (DuckDB's ORDER
 * BY takes a bare name for the SELECT list's), or undefined.
 */
function castColumn(node: Ast, context: TranslationContext): string | undefined {
  const cast = node.Cast;
  if (cast?.kind !== 'Cast' || cast.format || cast.array) return undefined;
  const [target] = variant(cast.data_type);
  if (target !== 'Datetime' && target !== 'Timestamp') return undefined;
  const column = cast.expr as Expr;
  const parts = compoundParts(column);
  if (!parts || context.columnType(column) !== 'TIMESTAMP') return undefined;
  if (parts.length > 1) return context.expr(column);
  const name = (parts[0] as string).toLowerCase();
  const holders = context.scope
    .own()
    .flatMap(([, binding]) =>
      binding.kind === 'relation' && binding.columns?.has(name) ? [binding.alias] : [],
    );
  const [holder] = holders;
  return holders.length === 1 && holder !== undefined
    ? `${quoteIdent(holder)}.${quoteIdent(name)}`
    : undefined;
}
