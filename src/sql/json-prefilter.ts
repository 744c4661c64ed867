import { andTerms, compoundParts, type Expr } from './ast.js';
import { type Ast, stringLiteral, variant } from './bigquery-ast.js';
import { quoteString } from './rules/rule.js';
import type { TranslationContext } from './translation-context.js';

/**
 * Tests DuckDB can run before it parses JSON, for a WHERE that compares a JSON_VALUE of a column
 * with text: `json_value(event_message, '$.auth_event.action') = 'login'` (Studio's auth
 * reports) can hold only where the column's text contains `login`, unless the text escapes
 * something: without a backslash, every JSON string in it is written as it reads. A substring
 * search costs a fraction of a parse (1.1M auth events: about a quarter less CPU for the sign-in
 * report), and the rows it drops are rows the comparison drops: FALSE or NULL, both dropped by a
 * WHERE. So it is added only beside the terms ANDed at the top of a WHERE, where NULL and FALSE
 * mean the same, and only for text a JSON number, `true`, `false` or `null` cannot read as (a
 * number's text may be written otherwise than in the column: `1e2` is `100.0`).
 */
export function jsonPrefilters(condition: Expr | undefined, context: TranslationContext): string[] {
  return andTerms(condition).flatMap((term) => {
    const prefilter = termPrefilter(term as Ast, context);
    return prefilter === undefined ? [] : [prefilter];
  });
}

function termPrefilter(node: Ast, context: TranslationContext): string | undefined {
  if (node.BinaryOp?.op === 'Eq') {
    const { left, right } = node.BinaryOp;
    return prefilterSql(left, [right], context) ?? prefilterSql(right, [left], context);
  }
  if (node.InList && !node.InList.negated) return prefilterSql(node.InList.expr, node.InList.list, context);
  return undefined;
}

/** The test for `value` equal to one of `texts`, if `value` is a JSON_VALUE of a column and each text is searchable. */
function prefilterSql(value: Ast, texts: readonly Ast[], context: TranslationContext): string | undefined {
  const json = jsonValueColumn(value);
  // Text as stored (a JSON column's text is DuckDB's, which may write a string otherwise).
  if (json === undefined || context.columnType(json) !== 'VARCHAR') return undefined;
  const literals = texts.map(stringLiteral);
  if (literals.length === 0 || literals.length > maxSearched) return undefined;
  if (!literals.every((text) => text !== undefined && searchable(text))) return undefined;
  const column = context.expr(json);
  const found = [...new Set(literals as string[])].map((text) => `contains(${column}, ${quoteString(text)})`);
  return `(contains(${column}, '\\') OR ${found.join(' OR ')})`;
}

/**
 * Each text searched costs about a third of a parse of a 300-byte event (1.1M auth events: 0.24 s
 * of CPU for one search, 0.5-0.7 s for the six of the active-users report, 0.8-1.0 s for the
 * parse), so more than two searches cost more than they save unless they drop most rows.
 */
const maxSearched = 2;

/** The column a `JSON_VALUE(column, path)` / `JSON_EXTRACT_SCALAR` reads, or undefined. */
function jsonValueColumn(expression: Ast): Ast | undefined {
  const call = expression.Function;
  if (call?.name.length !== 1 || call.over) return undefined;
  const name = variant(call.name[0])[1].value.toLowerCase();
  if (name !== 'json_value' && name !== 'json_extract_scalar') return undefined;
  const json = call.args?.List?.args?.[0]?.Unnamed?.Expr as Expr | undefined;
  // A column only: any other expression could fail on a row the comparison never reaches.
  return json !== undefined && compoundParts(json) ? (json as Ast) : undefined;
}

/** Text that only a JSON string can read as, and that the column holds as it is when unescaped. */
function searchable(text: string): boolean {
  return text !== '' && /[^0-9.eE+-]/.test(text) && !/^(true|false|null|nan|-?inf(inity)?)$/i.test(text);
}
