import { quoteString, type RuleTable, raise, rule } from './rule.js';

/**
 * PARSE_NUMERIC: a NUMERIC from text more lenient than CAST's (ZetaSQL docs, conversion
 * functions; its compliance cases, functions_testlib_numeric.cc): ASCII whitespace anywhere but
 * inside the number, one sign before the number (blanks between them allowed) or after it, commas
 * among the integer digits, a fraction of digits only, an exponent right after them; more than
 * nine fraction digits round half away from zero, as DuckDB's cast to DECIMAL(38, 9) rounds.
 * Anything else, or a value past NUMERIC's range, fails with `Invalid input to PARSE_NUMERIC`
 * (NULL under SAFE.). One RE2 match takes the parts; DuckDB's cast reads the number they make.
 */
const blank = '[ \\t\\n\\v\\f\\r]*';
const pattern = `^${blank}(?P<lead>[+-]?)${blank}(?P<digits>,*[0-9][0-9,]*(?:\\.[0-9]*)?|\\.[0-9]+)(?P<exponent>[eE][+-]?[0-9]+)?${blank}(?P<trail>[+-]?)${blank}$`;

function parseNumericSql(text: string, fail: string): string {
  // Unmatched text gives every group ''; a number has digits, so '' is no number. A sign both
  // before and after makes `+-0...`, which the cast refuses as it refuses a value past the range.
  const parts = `regexp_extract(${text}, ${quoteString(pattern)}, ['lead', 'digits', 'exponent', 'trail'])`;
  const number = `concat(p.lead, p.trail, '0', rtrim(replace(p.digits, ',', ''), '.'), p.exponent)`;
  return `list_transform([${parts}], p -> CASE WHEN ${text} IS NULL THEN NULL WHEN p.digits = '' THEN ${fail} ELSE coalesce(TRY_CAST(${number} AS DECIMAL(38, 9)), ${fail}) END)[1]`;
}

export const parseNumericRules: RuleTable = {
  parse_numeric: rule(
    1,
    1,
    ([text], call) => parseNumericSql(text as string, raise(call, "'Invalid input to PARSE_NUMERIC'")),
    { ownSafeForm: true },
  ),
};
