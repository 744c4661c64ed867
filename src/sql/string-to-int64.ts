import { type Ast, calledName, stringLiteral, variant } from './bigquery-ast.js';
import { raiseSql } from './raised-errors.js';

/**
 * The functions BigQuery types STRING whatever their arguments: JSON_VALUE and
 * JSON_EXTRACT_SCALAR (Studio's auth reports cast `json_value(event_message, "$.duration")`
 * to INT64 over every sign-in).
 */
const textFunctions = new Set(['json_value', 'json_extract_scalar']);

/**
 * Whether an expression is STRING in BigQuery, as far as the query and the store's schema tell:
 * a string literal, a column or field whose stored type is VARCHAR, a CAST to STRING, a function of
 * `textFunctions`, or a COALESCE / IFNULL with such an argument (BigQuery gives them their
 * arguments' common type, and a string literal coerces to no number type). Anything else is not
 * known to be text.
 */
export function isTextValued(expression: Ast, columnType: (node: Ast) => string | undefined): boolean {
  if (stringLiteral(expression) !== undefined) return true;
  if (columnType(expression) === 'VARCHAR') return true;
  // A CAST or SAFE_CAST to STRING (`CONCAT(user_pseudo_id, CAST(session_id AS STRING))`).
  if (expression.Cast && variant(expression.Cast.data_type)[0] === 'String') return true;
  if (textFunctions.has(calledName(expression) ?? '')) return true;
  const args = coalescedArguments(expression);
  return args?.some((value) => value !== undefined && isTextValued(value, columnType)) ?? false;
}

/**
 * INT64 text BigQuery and DuckDB read alike, and never beyond INT64 (19 digits can pass
 * 9223372036854775807): 1 to `integerTextDigits` ASCII digits. One home for the translation's
 * literals and the store's fields (storage/present-records.ts); the pattern reads the same in
 * JavaScript's RegExp and DuckDB's RE2 (`regexp_full_match`).
 */
export const integerTextDigits = 18;
export const integerTextPattern = `[0-9]{1,${integerTextDigits}}`;
export const integerTextRegExp = new RegExp(`^${integerTextPattern}$`);

/**
 * Whether every value an expression can take is NULL or integer text (`integerTextRegExp`): a
 * stored field the store knows holds only such text (storage/present-records.ts), such a string
 * literal, or a COALESCE / IFNULL of those. Its CAST to INT64 needs no check of the text: at 10M edge records the check
 * was 0.6-0.9 s of the 2 s of CPU of Studio's network-traffic report.
 */
export function isIntegerText(expression: Ast, integerText: (node: Ast) => boolean): boolean {
  if (expression.Nested) return isIntegerText(expression.Nested, integerText);
  const literal = stringLiteral(expression);
  if (literal !== undefined) return integerTextRegExp.test(literal);
  if (integerText(expression)) return true;
  const args = coalescedArguments(expression);
  return (
    args !== undefined &&
    args.length > 0 &&
    args.every((value) => value !== undefined && isIntegerText(value, integerText))
  );
}

/**
 * The arguments of a COALESCE or IFNULL, whose values are its arguments' (BigQuery types it by
 * their common type), each undefined where it is not a plain expression; undefined for any other
 * expression. The one walk into them for both questions above.
 */
function coalescedArguments(expression: Ast): (Ast | undefined)[] | undefined {
  const name = calledName(expression);
  if (name !== 'coalesce' && name !== 'ifnull') return undefined;
  return ((expression.Function.args?.List?.args ?? []) as Ast[]).map((arg) => arg.Unnamed?.Expr);
}

/** BigQuery's INT64 text: optional blanks and sign, decimal digits (its hex form is the rare path). */
const decimalInteger = String.raw`\s*[+-]?[0-9]+\s*`;
const hexInteger = String.raw`\s*[+-]?0[xX][0-9a-fA-F]+\s*`;

/**
 * CAST / SAFE_CAST of a STRING to INT64 with BigQuery's meaning: decimal or hexadecimal integer
 * text converts (beyond INT64's range CAST fails, SAFE_CAST is NULL), anything else ('2.5',
 * '1e3', '1_000', '') fails the CAST ("Bad int64 value") and is NULL for SAFE_CAST. DuckDB's own
 * VARCHAR → BIGINT cast would round '2.5' to 3 and read '1e3' and '1_000', so the text is
 * checked first; the check is one RE2 match, far cheaper than reading every value through
 * DECIMAL(38, 9) (the form for values not known to be text), which cost seconds a million rows.
 */
export function textToInt64Sql(value: string, cast: 'CAST' | 'TRY_CAST'): string {
  const refused = cast === 'CAST' ? raiseSql(`concat('Bad int64 value: ', ${value})`) : 'NULL';
  // A NULL matches neither pattern and is NULL, not the CAST's error.
  return `CASE WHEN regexp_full_match(${value}, '${decimalInteger}') THEN ${cast}(${value} AS BIGINT) WHEN regexp_full_match(${value}, '${hexInteger}') THEN ${hexToInt64Sql(value, cast)} WHEN ${value} IS NULL THEN NULL ELSE ${refused} END`;
}

/**
 * Hexadecimal INT64 text, signed as BigQuery allows ('-0x123' is -291, conversion rules), which
 * DuckDB's casts refuse: the digits read as UBIGINT (DuckDB takes '0x...' with no blank or sign),
 * then signed, through HUGEINT so that '-0x8000000000000000' is INT64's least value; beyond INT64
 * the CAST fails and SAFE_CAST is NULL, as BigQuery's.
 */
function hexToInt64Sql(value: string, cast: 'CAST' | 'TRY_CAST'): string {
  const digits = `${cast}(regexp_replace(${value}, '^\\s*[+-]?|\\s*$', '', 'g') AS UBIGINT)`;
  return `${cast}(CASE WHEN regexp_extract(${value}, '^\\s*([+-]?)', 1) = '-' THEN -CAST(${digits} AS HUGEINT) ELSE CAST(${digits} AS HUGEINT) END AS BIGINT)`;
}
