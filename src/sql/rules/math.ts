import { type RuleTable, rule, same } from './rule.js';

/**
 * A divisor of `/`, DIV or MOD. BigQuery fails a division by zero ("division by zero", see the
 * `/` operator and DIV and MOD in its docs; SAFE_DIVIDE and IEEE_DIVIDE are the forms that do
 * not) where DuckDB answers NULL, so a divisor that may be zero is checked per row: a CASE,
 * whose error DuckDB evaluates only for the rows that reach it (about 1 ns a row: 5M rows of
 * `sum(a / b)` took 25 ms, 30 ms checked). A zero from a parameter is the caller's: the engine
 * answers 400 naming it (engines/parameter-value-errors.ts). A nonzero number written in the
 * query (`/ 1000`) cannot be zero and is left as it is.
 */
export function checkedDivisor(sql: string): string {
  const written = /^(?:([\d.]+(?:[eE][+-]?\d+)?)|CAST\(([\d.]+(?:[eE][+-]?\d+)?) AS DOUBLE\))$/.exec(sql);
  const number = written && Number(written[1] ?? written[2]);
  if (number) return sql;
  return `(CASE WHEN ${sql} = 0 THEN error('division by zero') ELSE ${sql} END)`;
}

/**
 * Math functions. `/` is a FLOAT64 division on both engines (DuckDB's `/` no longer divides
 * integers as integers); division by zero is an error in BigQuery and NULL in DuckDB.
 */
export const mathRules: RuleTable = {
  abs: same(1, 1),
  // SIGN(NaN) is NaN in BigQuery (math.h's Sign), 0 in DuckDB.
  sign: rule(1, 1, ([x]) => `CASE WHEN isnan(${x}) THEN ${x} ELSE sign(${x}) END`),
  // NULL when the divisor is 0, as BigQuery's SAFE_DIVIDE.
  safe_divide: rule(2, 2, ([x, y]) => `CASE WHEN (${y}) <> 0 THEN CAST(${x} AS DOUBLE) / (${y}) END`),
  // IEEE 754: x/0 is ±inf and 0/0 NaN, which DuckDB's `/` turns into NULL; NaN/0 is NaN (DuckDB
  // holds NaN greater than every number, so it is tested before the sign).
  ieee_divide: rule(
    2,
    2,
    ([x, y]) =>
      `CASE WHEN (${y}) <> 0 OR isnan(${y}) THEN CAST(${x} AS DOUBLE) / (${y}) WHEN isnan(${x}) THEN 'NaN'::DOUBLE WHEN (${x}) > 0 THEN 'Infinity'::DOUBLE WHEN (${x}) < 0 THEN '-Infinity'::DOUBLE WHEN (${x}) = 0 OR isnan(${x}) THEN 'NaN'::DOUBLE END`,
  ),
  safe_multiply: rule(2, 2, ([x, y]) => `try((${x}) * (${y}))`),
  safe_add: rule(2, 2, ([x, y]) => `try((${x}) + (${y}))`),
  safe_subtract: rule(2, 2, ([x, y]) => `try((${x}) - (${y}))`),
  safe_negate: rule(1, 1, ([x]) => `try(-(${x}))`),
  // DIV truncates toward zero, as DuckDB's `//` on integers does.
  div: rule(2, 2, ([x, y]) => `((${x}) // (${checkedDivisor(y as string)}))`),
  // MOD takes the sign of the dividend, as `%` does.
  mod: rule(2, 2, ([x, y]) => `((${x}) % (${checkedDivisor(y as string)}))`),
  // Halfway cases round away from zero on both engines.
  round: rule(1, 2, (args) => `round(${args.join(', ')})`),
  trunc: rule(1, 2, (args) => `trunc(${args.join(', ')})`),
  ceil: same(1, 1),
  ceiling: same(1, 1, 'ceil'),
  floor: same(1, 1),
  sqrt: same(1, 1),
  pow: same(2, 2),
  power: same(2, 2, 'pow'),
  exp: same(1, 1),
  ln: same(1, 1),
  // LOG(x) is the natural logarithm in BigQuery and the base-10 one in DuckDB.
  log: rule(1, 2, ([x, base]) => (base === undefined ? `ln(${x})` : `(ln(${x}) / ln(${base}))`)),
  log10: same(1, 1),
  // GREATEST/LEAST are NULL when any argument is; DuckDB's skip NULLs.
  greatest: rule(
    1,
    Number.POSITIVE_INFINITY,
    (args) =>
      `CASE WHEN ${args.map((a) => `(${a}) IS NULL`).join(' OR ')} THEN NULL ELSE greatest(${args.join(', ')}) END`,
  ),
  least: rule(
    1,
    Number.POSITIVE_INFINITY,
    (args) =>
      `CASE WHEN ${args.map((a) => `(${a}) IS NULL`).join(' OR ')} THEN NULL ELSE least(${args.join(', ')}) END`,
  ),
  is_inf: same(1, 1, 'isinf'),
  is_nan: same(1, 1, 'isnan'),
  rand: same(0, 0, 'random'),
  // A random (version 4) UUID as lower-case hex text with hyphens, as BigQuery's GENERATE_UUID.
  generate_uuid: rule(0, 0, () => 'CAST(uuid() AS VARCHAR)'),
  sin: same(1, 1),
  cos: same(1, 1),
  tan: same(1, 1),
  asin: same(1, 1),
  acos: same(1, 1),
  atan: same(1, 1),
  atan2: same(2, 2),
};
