import type { Payload } from './ast.js';
import { type Ast, numberLiteral, variant } from './bigquery-ast.js';
import type { TranslationContext } from './translation-context.js';
import { Scope } from './unnest-scope.js';
import { unsupported } from './unsupported.js';

/**
 * `dates[0]` where `dates` is a constant one-row CTE (Logflare's usage.api-counts:
 * `f0.timestamp >= dates[0]`): BigQuery reads a range variable as a STRUCT of its row and
 * subscripts it by position, OFFSET from 0 (a bare index) or ORDINAL from 1. Undefined when the
 * access is not of that form.
 */
export function constantRowFieldSql(
  node: Payload<'CompoundFieldAccess'>,
  context: TranslationContext,
): string | undefined {
  const { root, access_chain: chain } = node;
  const name = 'Identifier' in root ? root.Identifier.value : undefined;
  const binding = name === undefined ? undefined : context.scope.lookup(name);
  const first = chain[0];
  if (binding?.kind !== 'constant' || chain.length !== 1 || !first || !('Subscript' in first))
    return undefined;
  const index = (first.Subscript as Ast).Index?.index;
  const wrapper = index?.Function ? variant(index.Function.name[0])[1].value.toLowerCase() : undefined;
  const position = wrapper
    ? numberLiteral(index.Function.args.List.args[0].Unnamed.Expr)
    : numberLiteral(index);
  if (position === undefined || (wrapper !== undefined && wrapper !== 'offset' && wrapper !== 'ordinal'))
    throw unsupported(`${name}[...]: a row is subscripted by a literal OFFSET or ORDINAL`);
  const expression = [...binding.columns.values()][wrapper === 'ordinal' ? position - 1 : position];
  if (!expression) throw unsupported(`${name}[${position}]: the row has no such field`);
  // The constant's expression names nothing of the FROM clause it is inlined into.
  return `(${context.within(new Scope()).expr(expression)})`;
}
