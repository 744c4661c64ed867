import { raiseSql } from '../raised-errors.js';
import { type FunctionCall, type RuleTable, raise, rule, same, unsupported } from './rule.js';

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
  return `(CASE WHEN ${sql} = 0 THEN ${raiseSql("'division by zero'")} ELSE ${sql} END)`;
}

/**
 * A FLOAT64 function as ZetaSQL computes it (zetasql/public/functions/math.h): the C library's
 * value of `of(x)` (x a DOUBLE) for a finite x, an error where that value is not finite
 * ("Floating point error in function: COT(0)"; "overflow" for SINH and COSH), and for ±inf the C
 * library's value, `atInfinity` [+inf, -inf], as BigQuery's docs list it (NaN stays NaN).
 * DuckDB raises its own errors for sin(inf) and answers NaN for acosh(0), so neither end is left
 * to it.
 */
function floatFunction(
  name: string,
  of: (x: string) => string,
  atInfinity: readonly [string, string],
  failure: 'error' | 'overflow' = 'error',
): (args: readonly string[], call: FunctionCall) => string {
  const double = (value: string) => `'${value}'::DOUBLE`;
  return ([x], call) => {
    const message = floatingPointError(name, failure)(['__float_x']);
    const finite = `list_transform([${of('__float_x')}], __float_y -> CASE WHEN isfinite(__float_y) THEN __float_y ELSE ${raise(call, message)} END)[1]`;
    return `list_transform([CAST(${x} AS DOUBLE)], __float_x -> CASE WHEN __float_x IS NULL OR isnan(__float_x) THEN __float_x WHEN __float_x = 'Infinity'::DOUBLE THEN ${double(atInfinity[0])} WHEN __float_x = '-Infinity'::DOUBLE THEN ${double(atInfinity[1])} ELSE ${finite} END)[1]`;
  };
}

/**
 * SQRT, LN, LOG10, LOG and POW where ZetaSQL fails them (math.h): a finite argument whose result
 * is not finite is `Floating point error in function: LN(0)` (its %g numbers), a negative SQRT
 * `Argument to SQRT cannot be negative: -1`; NULL under SAFE. DuckDB raises its own words for the
 * logarithms' and SQRT's and answers Infinity or NaN for LOG's base 1 and POW's, so `outside`
 * (the arguments' SQL, each a DOUBLE) tells the failing rows in a CASE, which DuckDB folds away
 * for literal arguments; `words` is the message's SQL for those rows.
 */
function domainChecked(
  min: number,
  max: number,
  of: (args: readonly string[]) => string,
  outside: (args: readonly string[]) => string,
  words: (args: readonly string[]) => string,
) {
  return rule(
    min,
    max,
    (args, call) => {
      const doubles = args.map((arg) => `CAST(${arg} AS DOUBLE)`);
      return `(CASE WHEN ${outside(doubles)} THEN ${raise(call, words(doubles))} ELSE ${of(args)} END)`;
    },
    { ownSafeForm: true },
  );
}

/**
 * `Floating point error in function: NAME(a, b)` (`overflow` in place of `error` for SINH and
 * COSH), the numbers as ZetaSQL's StrCat writes them (%g).
 */
function floatingPointError(name: string, failure: 'error' | 'overflow' = 'error') {
  return (args: readonly string[]) =>
    `'Floating point ${failure} in function: ${name}(' || ${args.map((arg) => `printf('%g', ${arg})`).join(" || ', ' || ")} || ')'`;
}

/** A logarithm of one argument, which ZetaSQL fails for zero and below (log of them is not finite). */
const logarithm = (name: string, of: string) =>
  domainChecked(
    1,
    1,
    ([x]) => `${of}(${x})`,
    ([x]) => `${x} <= 0`,
    floatingPointError(name),
  );

const floatRule = (...args: Parameters<typeof floatFunction>) =>
  rule(1, 1, floatFunction(...args), { ownSafeForm: true });

/**
 * POW(x, y): ZetaSQL fails a result that is not finite for finite arguments (POW(0, -1) is
 * infinite, POW(-8, 0.5) NaN, POW(10, 400) past FLOAT64), where DuckDB answers them.
 */
function power(name: string) {
  return domainChecked(
    2,
    2,
    ([x, y]) => `pow(${x}, ${y})`,
    ([x, y]) => `(NOT isfinite(pow(${x}, ${y})) AND isfinite(${x}) AND isfinite(${y}))`,
    floatingPointError(name),
  );
}

/**
 * COSINE_DISTANCE and EUCLIDEAN_DISTANCE of two dense vectors (ARRAY<FLOAT64>), with the checks of
 * ZetaSQL's functions/distance.cc: NULL when a vector is NULL; an error for a NULL element, for
 * vectors of different lengths and, for the cosine, for a zero vector, whose DuckDB
 * list_cosine_distance is 2. The cosine is 1 - a·b / (√(a·a) √(b·b)), as distance.cc writes it. A
 * sparse vector (an ARRAY of dimension-magnitude STRUCTs) is refused.
 */
function vectorDistance(name: string, distance: (a: string, b: string) => string) {
  return rule(
    2,
    2,
    ([a, b], call) => {
      for (const index of [0, 1]) {
        const shape = call.shapeOf(index);
        if ('list' in shape && 'fields' in shape.list)
          throw unsupported(`${name} of a sparse vector (an ARRAY of dimension-magnitude STRUCTs)`);
      }
      const fail = (message: string) => raise(call, message);
      const nullElement = (v: string) => `list_count(${v}) <> len(${v})`;
      const checks = [
        `WHEN ${nullElement('__vec.a')} OR ${nullElement('__vec.b')} THEN ${fail("'NULL array element'")}`,
        `WHEN len(__vec.a) <> len(__vec.b) THEN ${fail(`'Array length mismatch: ' || len(__vec.a) || ' and ' || len(__vec.b)`)}`,
        ...(name === 'COSINE_DISTANCE'
          ? [
              `WHEN list_dot_product(__vec.a, __vec.a) = 0 OR list_dot_product(__vec.b, __vec.b) = 0 OR len(__vec.a) = 0 THEN ${fail("'Cannot compute cosine distance against zero vector'")}`,
            ]
          : []),
      ];
      return `list_transform([{'a': CAST(${a} AS DOUBLE[]), 'b': CAST(${b} AS DOUBLE[])}], __vec -> CASE WHEN __vec.a IS NULL OR __vec.b IS NULL THEN NULL ${checks.join(' ')} ELSE ${distance('__vec.a', '__vec.b')} END)[1]`;
    },
    { ownSafeForm: true },
  );
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
  sqrt: domainChecked(
    1,
    1,
    ([x]) => `sqrt(${x})`,
    ([x]) => `${x} < 0`,
    ([x]) => `'Argument to SQRT cannot be negative: ' || printf('%g', ${x})`,
  ),
  pow: power('POW'),
  power: power('POW'),
  // EXP past FLOAT64 (EXP(710)) is ZetaSQL's error, where DuckDB answers Infinity.
  exp: domainChecked(
    1,
    1,
    ([x]) => `exp(${x})`,
    ([x]) => `(NOT isfinite(exp(${x})) AND isfinite(${x}))`,
    floatingPointError('EXP'),
  ),
  ln: logarithm('LN', 'ln'),
  // LOG(x) is the natural logarithm in BigQuery and the base-10 one in DuckDB. LOG(x, base) is
  // ln(x) / ln(base), which ZetaSQL fails where it is not finite: x or base 0 or below, base 1.
  log: rule(
    1,
    2,
    (args, call) =>
      args.length === 1
        ? logarithm('LN', 'ln').translate(args, call)
        : domainChecked(
            2,
            2,
            ([x, base]) => `(ln(${x}) / ln(${base}))`,
            ([x, base]) => `(${x} <= 0 OR ${base} <= 0 OR ${base} = 1)`,
            floatingPointError('LOG'),
          ).translate(args, call),
    { ownSafeForm: true },
  ),
  log10: logarithm('LOG10', 'log10'),
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
  sin: floatRule('SIN', (x) => `sin(${x})`, ['NaN', 'NaN']),
  cos: floatRule('COS', (x) => `cos(${x})`, ['NaN', 'NaN']),
  tan: floatRule('TAN', (x) => `tan(${x})`, ['NaN', 'NaN'], 'overflow'),
  // DuckDB raises its own words outside [-1, 1], where the C library's NaN is ZetaSQL's error.
  asin: floatRule('ASIN', (x) => `CASE WHEN abs(${x}) > 1 THEN 'NaN'::DOUBLE ELSE asin(${x}) END`, [
    'NaN',
    'NaN',
  ]),
  acos: floatRule('ACOS', (x) => `CASE WHEN abs(${x}) > 1 THEN 'NaN'::DOUBLE ELSE acos(${x}) END`, [
    'NaN',
    'NaN',
  ]),
  atan: same(1, 1),
  // The reciprocals divide 1 by the function, so an argument where it is 0 (COT(0)) is an error.
  cot: floatRule('COT', (x) => `1.0 / tan(${x})`, ['NaN', 'NaN']),
  csc: floatRule('CSC', (x) => `1.0 / sin(${x})`, ['NaN', 'NaN']),
  sec: floatRule('SEC', (x) => `1.0 / cos(${x})`, ['NaN', 'NaN']),
  sinh: floatRule('SINH', (x) => `sinh(${x})`, ['Infinity', '-Infinity'], 'overflow'),
  cosh: floatRule('COSH', (x) => `cosh(${x})`, ['Infinity', 'Infinity'], 'overflow'),
  tanh: floatRule('TANH', (x) => `tanh(${x})`, ['1', '-1']),
  coth: floatRule('COTH', (x) => `1.0 / tanh(${x})`, ['1', '-1']),
  csch: floatRule('CSCH', (x) => `1.0 / sinh(${x})`, ['0', '-0']),
  // 1/cosh: cosh past the largest DOUBLE is inf, whose reciprocal is 0 (SECH(1000) is 0).
  sech: floatRule('SECH', (x) => `1.0 / cosh(${x})`, ['0', '0']),
  asinh: floatRule('ASINH', (x) => `asinh(${x})`, ['Infinity', '-Infinity']),
  acosh: floatRule('ACOSH', (x) => `acosh(${x})`, ['Infinity', 'NaN']),
  atanh: floatRule('ATANH', (x) => `atanh(${x})`, ['NaN', 'NaN']),
  cbrt: floatRule('CBRT', (x) => `cbrt(${x})`, ['Infinity', '-Infinity']),
  atan2: same(2, 2),
  cosine_distance: vectorDistance(
    'COSINE_DISTANCE',
    (a, b) =>
      `1 - list_dot_product(${a}, ${b}) / (sqrt(list_dot_product(${a}, ${a})) * sqrt(list_dot_product(${b}, ${b})))`,
  ),
  euclidean_distance: vectorDistance('EUCLIDEAN_DISTANCE', (a, b) => `list_distance(${a}, ${b})`),
};
