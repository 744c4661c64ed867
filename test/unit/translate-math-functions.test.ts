import { DuckDBInstance } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import { translateToDuckDb } from '../../src/sql/translate.js';
import { translationOf, useTranslatedQueries } from '../helpers/translated-row.js';

// Expected values are the documented results of BigQuery's mathematical and conditional
// functions, operators and conversions:
// https://cloud.google.com/bigquery/docs/reference/standard-sql/mathematical_functions
// https://cloud.google.com/bigquery/docs/reference/standard-sql/conditional_expressions
// https://cloud.google.com/bigquery/docs/reference/standard-sql/operators
// https://cloud.google.com/bigquery/docs/reference/standard-sql/conversion_functions
const { row, rows } = useTranslatedQueries();

describe('BigQuery math functions on DuckDB', () => {
  it('SAFE_DIVIDE divides as FLOAT64 and is NULL for a zero divisor', async () => {
    // Docs: SAFE_DIVIDE(20, 4) = 5; SAFE_DIVIDE(0, 20) = 0; SAFE_DIVIDE(20, 0) = NULL.
    expect(
      await row(
        'select safe_divide(20, 4) as a, safe_divide(0, 20) as b, safe_divide(20, 0) as c, safe_divide(5, 2) as d',
      ),
    ).toEqual({
      a: 5,
      b: 0,
      c: null,
      d: 2.5,
    });
  });

  it('IEEE_DIVIDE gives infinities and NaN for a zero divisor', async () => {
    // Docs: IEEE_DIVIDE(20.0, 4.0) = 5; (0.0, 25.0) = 0; (25.0, 0.0) = +inf; (-25.0, 0.0) = -inf; (0.0, 0.0) = NaN.
    expect(
      await row(`select ieee_divide(20.0, 4.0) as a, ieee_divide(0.0, 25.0) as b, ieee_divide(25.0, 0.0) as c,
        ieee_divide(-25.0, 0.0) as d, ieee_divide(0.0, 0.0) as e`),
    ).toEqual({ a: 5, b: 0, c: Number.POSITIVE_INFINITY, d: Number.NEGATIVE_INFINITY, e: Number.NaN });
  });

  it('NaN stays NaN through IEEE_DIVIDE by zero and SIGN', async () => {
    // ZetaSQL mathematical_functions.md: IEEE_DIVIDE's table, NaN / 0.0 = NaN; SIGN's table, SIGN(NaN) = NaN.
    expect(
      await row(`select ieee_divide(cast('nan' as float64), 0.0) as a, sign(cast('nan' as float64)) as b,
        sign(cast('-inf' as float64)) as c, sign(-3) as d`),
    ).toEqual({ a: Number.NaN, b: Number.NaN, c: -1, d: -1 });
  });

  it('reads a literal with a point or an exponent as FLOAT64, as BigQuery does, never as an exact decimal', async () => {
    // BigQuery's lexical rules: 1.5 and 1e3 are FLOAT64 literals (NUMERIC needs NUMERIC '1.5'),
    // so 0.1 + 0.2 is the double sum, 0.30000000000000004.
    expect(await row('select 0.1 + 0.2 as a, 1e3 as b, 2.50 as c, 7 as d')).toEqual({
      a: 0.30000000000000004,
      b: 1000,
      c: 2.5,
      d: 7,
    });
  });

  it('`/` always divides as FLOAT64, integers included', async () => {
    // Docs (arithmetic operators): the result type of `/` is FLOAT64 for INT64 inputs.
    expect(await row('select 5 / 2 as a, 4 / 2 as b, -7 / 2 as c')).toEqual({ a: 2.5, b: 2, c: -3.5 });
  });

  it('SAFE_DIVIDE of a NUMERIC by a NUMERIC or INT64 is an exact NUMERIC, NULL for a zero divisor', async () => {
    // Docs (SAFE_DIVIDE): the result type is NUMERIC for NUMERIC (and INT64 with NUMERIC) inputs,
    // FLOAT64 where either is FLOAT64. By hand: 5 / 3 = 1.666666667 (9 places, half away from
    // zero), -2 / 3 = -0.666666667; a double would give 1.6666666666666667. FLOAT64 text: see the
    // CAST of a FLOAT64 test (1 / 3.0 is 0.33333333333333331).
    expect(
      await row(`select safe_divide(sum(cast(x as numeric)), count(*)) as a, safe_divide(numeric '-2', 3) as b,
        safe_divide(numeric '1', numeric '0') as c, cast(safe_divide(numeric '5', 3) as string) as d,
        safe_divide(numeric '1', 2.5) as e, cast(safe_divide(numeric '1', 3.0) as string) as f,
        safe_divide(numeric '5', 3) / 3 as g
        from unnest([1, 2, 2]) as x`),
    ).toEqual({
      a: 1.666666667,
      b: -0.666666667,
      c: null,
      d: '1.666666667',
      e: 0.4,
      f: '0.33333333333333331',
      // A NUMERIC divided by an INT64 again: 1.666666667 / 3 = 0.555555555666..., so 0.555555556.
      g: 0.555555556,
    });
  });

  it('IF, CASE, GREATEST and NULLIF of a NUMERIC stay NUMERIC, so do SUMs of INT64 beside one, and DIV of one truncates', async () => {
    // Docs (conversion rules, supertypes): IF/CASE/GREATEST of NUMERIC and INT64 (or NULL) is NUMERIC,
    // SUM of INT64 is INT64, NUMERIC / INT64 NUMERIC (9 places); DIV of NUMERICs "returns the result
    // of integer division", truncated toward zero. By hand over x = 1, 2, 2: (0 + 2 + 2) / 3 =
    // 1.333333333; 5 / 15 = 0.333333333; 2 / 3 = 0.666666667; a double would keep 16 digits.
    expect(
      await row(`select sum(if(x > 1, cast(x as numeric), 0)) / count(*) as a,
        sum(numeric '1' * cast(x as int64)) / sum(cast(x as int64) * 3) as b,
        avg(case when x >= 1 then cast(x as numeric) else null end) as c, greatest(numeric '1', 2) / 3 as d,
        nullif(numeric '5', 0) / 3 as e, div(numeric '-7.5', 2) as f, div(numeric '7', numeric '0.5') as g,
        div(numeric '53453.6', 7) as h, div(numeric '10', 4) / 3 as i
        from unnest([1, 2, 2]) as x`),
    ).toEqual({
      a: 1.333333333,
      b: 0.333333333,
      c: 1.666666667,
      d: 0.666666667,
      e: 1.666666667,
      f: -3,
      g: 14,
      h: 7636,
      i: 0.666666667,
    });
  });

  it("a WITH table's computed NUMERIC and INT64 columns, and LAG and FIRST_VALUE of a NUMERIC, divide as NUMERIC", async () => {
    // BigQuery types a column by its expression wherever it is read: SUM of a NUMERIC is NUMERIC and
    // COUNT INT64, so rev / n is NUMERIC (9 places); LAG and FIRST_VALUE give the value's type.
    // By hand: 5 / 3 = 1.666666667; growth from 30 to 40 is 10 / 30 = 0.333333333, 40 to 50 0.25.
    expect(
      await row(`with d as (select sum(cast(x as numeric)) as rev, count(*) as n from unnest([1, 2, 2]) as x)
        select rev / n as a, safe_divide(rev, n) as b, cast(rev / n as string) as c from d`),
    ).toEqual({ a: 1.666666667, b: 1.666666667, c: '1.666666667' });
    expect(
      await rows(`with d as (select x as day, cast(x as numeric) * 10 as rev from unnest([3, 4, 5]) as x)
        select (rev - lag(rev) over (order by day)) / lag(rev) over (order by day) as growth,
          first_value(rev) over (order by day) / 9 as base from d order by day`),
    ).toEqual([
      { growth: null, base: 3.333333333 },
      { growth: 0.333333333, base: 3.333333333 },
      { growth: 0.25, base: 3.333333333 },
    ]);
  });

  it('AVG of a NUMERIC and NUMERIC divided by NUMERIC or INT64 stay exact NUMERIC, 9 places, halves away from zero', async () => {
    // Docs: AVG(NUMERIC) and NUMERIC / INT64 are NUMERIC (scale 9); worked by hand: (1 + 2 + 2) / 3
    // = 1.666666666..., so 1.666666667; -5 / 2 = -2.5; -2 / 3 = -0.666666667; 2 / 3 = 0.666666667.
    // A double would answer 1.6666666666666667. NUMERIC / FLOAT64 is FLOAT64.
    expect(
      await row(`select avg(cast(x as numeric)) as a, sum(cast(x as numeric)) / count(*) as b,
        cast(10 as numeric) / 3 as c, numeric '-5' / 2 as d, numeric '-2' / 3 as e, 2 / numeric '3' as f,
        numeric '1' / 2.5 as g, numeric '0.000000005' / 1 as h, numeric '-0.000000005' / 1 as i
        from unnest([1, 2, 2]) as x`),
    ).toEqual({
      a: 1.666666667,
      b: 1.666666667,
      c: 3.333333333,
      d: -2.5,
      e: -0.666666667,
      f: 0.666666667,
      g: 0.4,
      h: 0.000000005,
      i: -0.000000005,
    });
    expect(await row(`select numeric '1' / 3 as n, numeric '1' / 3.0 as f`)).toEqual({
      n: 0.333333333,
      f: 1 / 3,
    });
    // In a window too.
    expect(
      await rows(
        'select avg(cast(x as numeric)) over (order by x rows unbounded preceding) as a from unnest([1, 2, 2]) as x order by a',
      ),
    ).toEqual([{ a: 1 }, { a: 1.5 }, { a: 1.666666667 }]);
  });

  it('DIV truncates toward zero and MOD takes the sign of the dividend', async () => {
    // Docs: DIV(20, 4) = 5; DIV(12, -7) = -1; DIV(20, 3) = 6; DIV(0, 20) = 0;
    // MOD(25, 12) = 1; MOD(-25, 12) = -1; MOD(25, -12) = 1.
    expect(
      await row(`select div(20, 4) as a, div(12, -7) as b, div(20, 3) as c, div(0, 20) as d,
        mod(25, 12) as e, mod(-25, 12) as f, mod(25, -12) as g`),
    ).toEqual({ a: 5, b: -1, c: 6, d: 0, e: 1, f: -1, g: 1 });
  });

  it('ROUND rounds halfway cases away from zero, to digits left or right of the point', async () => {
    // Docs: ROUND(2.0) = 2; ROUND(2.3) = 2; ROUND(2.8) = 3; ROUND(2.5) = 3; ROUND(-2.3) = -2;
    // ROUND(-2.8) = -3; ROUND(-2.5) = -3; ROUND(123.7, -1) = 120; ROUND(1.235, 2) = 1.24.
    expect(
      await row(`select round(2.0) as a, round(2.3) as b, round(2.8) as c, round(2.5) as d, round(-2.3) as e,
        round(-2.8) as f, round(-2.5) as g, round(123.7, -1) as h, round(1.235, 2) as i,
        round(cast(2.5 as float64)) as j, round(cast(-2.5 as float64)) as k`),
    ).toEqual({ a: 2, b: 2, c: 3, d: 3, e: -2, f: -3, g: -3, h: 120, i: 1.24, j: 3, k: -3 });
  });

  it('TRUNC, CEIL, CEILING and FLOOR', async () => {
    // Docs: TRUNC(2.8) = 2; TRUNC(-2.8) = -2; CEIL(2.3) = 3; CEIL(-2.3) = -2; FLOOR(2.3) = 2; FLOOR(-2.3) = -3.
    expect(
      await row(`select trunc(2.8) as a, trunc(-2.8) as b, trunc(1.27, 1) as c, ceil(2.3) as d, ceiling(-2.3) as e,
        floor(2.3) as f, floor(-2.3) as g`),
    ).toEqual({ a: 2, b: -2, c: 1.2, d: 3, e: -2, f: 2, g: -3 });
  });

  it('LOG is the natural logarithm with one argument, and LN, LOG10, POW, SQRT, EXP, ABS, SIGN', async () => {
    // Docs: LOG(100, 10) = 2; LOG(X) is the natural logarithm (DuckDB's log is base 10);
    // LN(1) = 0; LOG10(100) = 2; POW(2, 2) = 4; POW(2, -2) = 0.25; SQRT(25) = 5; EXP(0) = 1; ABS(-25) = 25; SIGN(-25) = -1.
    const result =
      await row(`select log(100, 10) as a, log(exp(2)) as b, ln(1) as c, log10(100) as d, pow(2, 2) as e,
      power(2, -2) as f, sqrt(25) as g, exp(0) as h, abs(-25) as i, sign(-25) as j, sign(0) as k`);
    expect(result.b).toBeCloseTo(2, 12);
    expect({ ...result, b: 2 }).toEqual({
      a: 2,
      b: 2,
      c: 0,
      d: 2,
      e: 4,
      f: 0.25,
      g: 5,
      h: 1,
      i: 25,
      j: -1,
      k: 0,
    });
  });

  it('GREATEST and LEAST are NULL when any argument is NULL', async () => {
    // Docs: GREATEST/LEAST "return NULL if any of the inputs is NULL".
    expect(
      await row(
        'select greatest(3, 5, 1) as a, least(3, 5, 1) as b, greatest(1, null) as c, least(1, null) as d',
      ),
    ).toEqual({ a: 5, b: 1, c: null, d: null });
  });

  it('IS_INF, IS_NAN, RAND and the trigonometric functions', async () => {
    // Docs: IS_INF(+inf) = true; IS_NAN(NaN) = true; RAND() is in [0, 1); SIN(0) = 0; COS(0) = 1; ATAN2(0, 1) = 0.
    const result =
      await row(`select is_inf(ieee_divide(1.0, 0.0)) as a, is_nan(ieee_divide(0.0, 0.0)) as b, rand() as r,
      sin(0) as c, cos(0) as d, tan(0) as e, asin(0) as f, acos(1) as g, atan(0) as h, atan2(0, 1) as i`);
    expect(result.r).toBeGreaterThanOrEqual(0);
    expect(result.r).toBeLessThan(1);
    expect({ ...result, r: 0 }).toEqual({ a: true, b: true, r: 0, c: 0, d: 1, e: 0, f: 0, g: 0, h: 0, i: 0 });
  });

  it('the hyperbolic and reciprocal trigonometric functions and CBRT, with their documented values at ±inf', async () => {
    // ZetaSQL mathematical_functions.md examples: COT(1) = 0.64209261593433065, CSC(-1) = -1.188395105778,
    // SEC(-1) = 1.85081571768, COTH(1) = 1.313035285499, CSCH(-2) = -0.27572056477, SECH(100) =
    // 7.4401519520417E-44, CBRT(27) = 3.0000000000000004; the tables: SINH(-inf) = -inf, COSH(-inf) = +inf,
    // TANH(+inf) = 1.0, ACOSH(-inf) = NaN, CSCH(+inf) = 0, COTH(-inf) = -1, SIN(+inf) = NaN.
    const result =
      await row(`select cot(1) as cot, csc(-1) as csc, sec(-1) as sec, coth(1) as coth, csch(-2) as csch,
      sech(100) as sech, cbrt(27) as cbrt, sinh(cast('-inf' as float64)) as sinh, cosh(cast('-inf' as float64)) as cosh,
      tanh(cast('inf' as float64)) as tanh, acosh(cast('-inf' as float64)) as acosh, csch(cast('inf' as float64)) as csch_inf,
      coth(cast('-inf' as float64)) as coth_inf, sin(cast('inf' as float64)) as sin_inf, asinh(0) as asinh, atanh(0) as atanh`);
    const documented = {
      cot: 0.64209261593433065,
      csc: -1.188395105778,
      sec: 1.85081571768,
      coth: 1.313035285499,
      csch: -0.27572056477,
      sech: 7.4401519520417e-44,
    };
    for (const [name, value] of Object.entries(documented))
      expect(Math.abs((result[name] as number) - value) / Math.abs(value), name).toBeLessThan(1e-10);
    expect({ ...result, ...documented }).toEqual({
      ...documented,
      cbrt: 3.0000000000000004,
      sinh: Number.NEGATIVE_INFINITY,
      cosh: Number.POSITIVE_INFINITY,
      tanh: 1,
      acosh: Number.NaN,
      csch_inf: 0,
      coth_inf: -1,
      sin_inf: Number.NaN,
      asinh: 0,
      atanh: 0,
    });
  });

  it('a finite argument whose value is not finite is an error, NULL under SAFE.', async () => {
    // ZetaSQL mathematical_functions.md: COT(0), CSC(0), COTH(0), CSCH(0) and ACOSH(X < 1) are errors, SINH(X)
    // overflows; the examples' SAFE.COT(0), SAFE.CSC(0), SAFE.COTH(0) and SAFE.CSCH(0) are NULL.
    await expect(row('select cot(0) as a')).rejects.toThrow(/Floating point error in function: COT\(0\)/);
    await expect(row('select sinh(1000) as a')).rejects.toThrow(
      /Floating point overflow in function: SINH\(1000\)/,
    );
    await expect(row('select acosh(0.5) as a')).rejects.toThrow(
      /Floating point error in function: ACOSH\(0.5\)/,
    );
    // ASIN and ACOS outside [-1, 1] (DuckDB raised its own words) and EXP past FLOAT64 (DuckDB:
    // Infinity) are errors too (math.h's CheckFloatingPointError).
    await expect(row('select asin(2.0) as a')).rejects.toThrow('Floating point error in function: ASIN(2)');
    await expect(row('select acos(-1.5) as a')).rejects.toThrow(
      'Floating point error in function: ACOS(-1.5)',
    );
    await expect(row('select exp(1000) as a')).rejects.toThrow('Floating point error in function: EXP(1000)');
    expect(await row('select safe.acos(2) as a, safe.exp(1000) as b, exp(0) as c')).toEqual({
      a: null,
      b: null,
      c: 1,
    });
    expect(
      await row(
        'select safe.cot(0) as a, safe.csc(0) as b, safe.coth(0) as c, safe.csch(0) as d, safe.cot(null) as e',
      ),
    ).toEqual({ a: null, b: null, c: null, d: null, e: null });
  });

  it('SQRT, LN, LOG, LOG10 and POW outside their domain fail in ZetaSQL words, NULL under SAFE.', async () => {
    // mathematical_functions.md: SQRT(X < 0), LN(X <= 0), LOG10(X <= 0), LOG(X, Y) for X <= 0, Y <= 0
    // or Y = 1, and POW whose result is not finite (POW(0, -1), a negative base with a fractional
    // exponent, an overflow) are errors. Words: compliance testdata (apply_lambda.test `Argument to
    // SQRT cannot be negative: -1`) and math.h's CheckFloatingPointError (%g numbers).
    const failures = [
      ['sqrt(-1.0)', 'Argument to SQRT cannot be negative: -1'],
      ['ln(0.0)', 'Floating point error in function: LN(0)'],
      ['log10(-2.5)', 'Floating point error in function: LOG10(-2.5)'],
      ['log(-1.0, 10)', 'Floating point error in function: LOG(-1, 10)'],
      ['log(10, 1)', 'Floating point error in function: LOG(10, 1)'],
      ['log(8, 0)', 'Floating point error in function: LOG(8, 0)'],
      ['pow(0.0, -1)', 'Floating point error in function: POW(0, -1)'],
      ['power(-8.0, 0.5)', 'Floating point error in function: POW(-8, 0.5)'],
      ['pow(10, 400)', 'Floating point error in function: POW(10, 400)'],
    ] as const;
    for (const [call, words] of failures)
      await expect(row(`select ${call} as x`), call).rejects.toThrow(words);
    await expect(row('select sqrt(x) as x from unnest([4.0, -2.5]) as x')).rejects.toThrow(
      'Argument to SQRT cannot be negative: -2.5',
    );
    expect(
      await row(`select safe.sqrt(-1.0) as a, safe.ln(0) as b, safe.log(10, 1) as c, safe.pow(0, -1) as d,
        safe.log10(0) as e, sqrt(16) as f, log(100, 10) as g, pow(2, 10) as h, ln(1) as i,
        pow(cast('inf' as float64), 2) as j`),
    ).toEqual({
      a: null,
      b: null,
      c: null,
      d: null,
      e: null,
      f: 4,
      g: 2,
      h: 1024,
      i: 0,
      j: Number.POSITIVE_INFINITY,
    });
  });

  it('COSINE_DISTANCE and EUCLIDEAN_DISTANCE of dense vectors, and the errors distance.cc raises', async () => {
    // ZetaSQL mathematical_functions.md examples: COSINE_DISTANCE([1.0, 2.0], [3.0, 4.0]) = 0.016130089900092459,
    // EUCLIDEAN_DISTANCE([1.0, 2.0], [3.0, 4.0]) = 2.828; "If a vector is NULL, NULL is returned"; a zero vector
    // is an error for the cosine (zetasql/public/functions/distance.cc words the errors).
    const result =
      await row(`select cosine_distance([1.0, 2.0], [3.0, 4.0]) as c, euclidean_distance([1.0, 2.0], [3.0, 4.0]) as e,
      cosine_distance(null, [1.0]) as n, safe.cosine_distance([0.0, 0.0], [1.0, 2.0]) as z`);
    expect(result.c).toBeCloseTo(0.016130089900092459, 15);
    expect(result.e).toBeCloseTo(Math.SQRT2 * 2, 15);
    expect({ n: result.n, z: result.z }).toEqual({ n: null, z: null });
    await expect(row('select cosine_distance([0.0, 0.0], [1.0, 2.0]) as a')).rejects.toThrow(
      /Cannot compute cosine distance against zero vector/,
    );
    await expect(row('select euclidean_distance([1.0], [1.0, 2.0]) as a')).rejects.toThrow(
      /Array length mismatch: 1 and 2/,
    );
  });

  it('SAFE_ADD, SAFE_SUBTRACT, SAFE_MULTIPLY and SAFE_NEGATE are NULL on overflow', async () => {
    // Docs: SAFE_ADD(5, 4) = 9; SAFE_SUBTRACT(5, 4) = 1; SAFE_MULTIPLY(20, 4) = 80; SAFE_NEGATE(1) = -1;
    // overflow gives NULL.
    expect(
      await row(`select safe_add(5, 4) as a, safe_subtract(5, 4) as b, safe_multiply(20, 4) as c, safe_negate(1) as d,
        safe_add(9223372036854775807, 1) as e`),
    ).toEqual({ a: 9, b: 1, c: 80, d: -1, e: null });
  });

  it('SAFE.<function> returns NULL where the function would raise an error', async () => {
    // Docs (SAFE. prefix): SAFE.SQRT(-1), SAFE.LN(0) and SAFE.LOG(-1, 10) return NULL instead of an error.
    expect(
      await row('select safe.sqrt(-1) as a, safe.ln(0) as b, safe.log(-1, 10) as c, safe.sqrt(4) as d'),
    ).toEqual({
      a: null,
      b: null,
      c: null,
      d: 2,
    });
  });
});

describe('BigQuery conditional expressions on DuckDB', () => {
  it('IF, IFNULL, NULLIF, COALESCE and CASE', async () => {
    // Docs: IFNULL(NULL, 0) = 0; IFNULL(10, 0) = 10; NULLIF(0, 0) = NULL; NULLIF(10, 0) = 10;
    // COALESCE(NULL, 'B', 'C') = 'B'; IF(condition, a, b); CASE with and without an operand.
    expect(
      await row(`select if(1 < 2, 'yes', 'no') as a, ifnull(null, 0) as b, ifnull(10, 0) as c, nullif(0, 0) as d,
        nullif(10, 0) as e, coalesce(null, 'B', 'C') as f, case 2 when 1 then 'one' when 2 then 'two' end as g,
        case when false then 1 else 3 end as h, if(null, 'yes', 'no') as i`),
    ).toEqual({ a: 'yes', b: 0, c: 10, d: null, e: 10, f: 'B', g: 'two', h: 3, i: 'no' });
  });
});

describe('BigQuery conversions and operators on DuckDB', () => {
  it('CAST and SAFE_CAST to the BigQuery type names', async () => {
    // Docs: "Casting from a floating point type to an integer rounds halfway cases away from zero";
    // SAFE_CAST('apple' AS INT64) = NULL; CAST('true' AS BOOL) = true.
    expect(
      await row(`select cast(2.5 as int64) as a, cast(-2.5 as int64) as b, cast(cast(2.5 as float64) as int64) as c,
        safe_cast('apple' as int64) as d, cast('true' as bool) as e, cast(123 as string) as f, cast('12' as int64) as g,
        cast('2008-12-25' as date) as h, cast('123.456' as numeric) as i, cast('1.5' as float64) as j,
        cast('15:30:00' as time) as k, cast('2008-12-25 15:30:00' as datetime) as l`),
    ).toEqual({
      a: 3,
      b: -3,
      c: 3,
      d: null,
      e: true,
      f: '123',
      g: 12,
      h: '2008-12-25',
      i: 123.456,
      j: 1.5,
      k: '15:30:00',
      l: '2008-12-25T15:30:00',
    });
  });

  it('CAST of a FLOAT64 to STRING writes a whole number without a fraction and zero unsigned', async () => {
    // Conversion rules: FLOAT64 to STRING "returns an approximate string representation. A
    // returned NaN or 0 will not be signed"; BigQuery writes CAST(40.0 AS STRING) as '40' (DuckDB
    // '40.0'), other doubles in the shortest form that reads back the same.
    expect(
      await row(`select cast(40.0 as string) as a, cast(-7.0 as string) as b, cast(0.1 * 3 as string) as c,
        cast(-0.0 as string) as d, safe_cast(12.5 as string) as e, cast(1e20 as string) as f,
        cast(cast(3 as float64) / 2 as string) as g, cast(100 as string) as h, cast('4.0' as string) as i,
        cast(123456789012345.0 as string) as j`),
    ).toEqual({
      a: '40',
      b: '-7',
      c: '0.30000000000000004',
      d: '0',
      e: '12.5',
      f: '1e+20',
      g: '1.5',
      h: '100',
      i: '4.0',
      j: '123456789012345',
    });
  });

  it('CAST of a FLOAT64 to STRING writes %.15g, or %.17g where 15 digits do not read back', async () => {
    // ZetaSQL's NumericToString<double> is RoundTripDoubleToString: snprintf "%.*g" with DBL_DIG
    // (15), and DBL_DIG + 2 where strtod of that is another double. So 1 / 3 is
    // 0.33333333333333331 and 2 / 3 0.66666666666666663 (DuckDB's shortest text has 16 digits),
    // 1e15 is 1e+15 (DuckDB 1000000000000000.0), 1e14 100000000000000; FORMAT's %t appends ".0"
    // to a whole one ("Make sure that doubles always print with a . or an 'e'").
    expect(
      await row(`select cast(1 / 3 as string) as a, concat(2 / 3) as b, cast(1e15 as string) as c,
        cast(1e14 as string) as d, cast(0.1 as string) as e, cast(2e-5 as string) as f,
        format('%t|%t', 1 / 3, 1e15) as g, cast(cast('-inf' as float64) as string) as h`),
    ).toEqual({
      a: '0.33333333333333331',
      b: '0.66666666666666663',
      c: '1e+15',
      d: '100000000000000',
      e: '0.1',
      f: '2e-05',
      g: '0.33333333333333331|1e+15',
      h: '-inf',
    });
  });

  it('CAST of a TIMESTAMP, DATETIME or TIME to STRING writes zero, three or six subsecond digits, a TIMESTAMP in UTC with +00', async () => {
    // Timestamp functions: STRING(TIMESTAMP "2008-12-25 15:30:00+00", "UTC") = '2008-12-25
    // 15:30:00+00'; conversion rules: CAST uses UTC, and "the number of subsecond digits produced
    // depends on the number of trailing zeroes in the subsecond part: the CAST function will
    // truncate zero, three, or six digits"; ZetaSQL's ConvertDatetimeToString and ConvertTimeToString
    // narrow a DATETIME's and a TIME's fraction the same way ('%04d-%02d-%02d %02d:%02d:%02d.%03d').
    expect(
      await row(`select cast(timestamp '2008-12-25 15:30:00+00' as string) as a,
        cast(timestamp '2008-12-25 15:30:00.1+00' as string) as b, cast(timestamp '2008-12-25 15:30:00.1234+00' as string) as c,
        safe_cast(timestamp_micros(1711899330000146) as string) as d, cast(timestamp '2008-12-25 10:00:00-05:00' as string) as e,
        cast(date '2008-12-25' as string) as f, cast(datetime '2008-12-25 15:30:00.25' as string) as g,
        cast(datetime '2008-12-25 15:30:00' as string) as h, cast(time '15:30:00.123456' as string) as i,
        cast(time '15:30:00.5' as string) as j`),
    ).toEqual({
      a: '2008-12-25 15:30:00+00',
      b: '2008-12-25 15:30:00.100+00',
      c: '2008-12-25 15:30:00.123400+00',
      d: '2024-03-31 15:35:30.000146+00',
      e: '2008-12-25 15:00:00+00',
      f: '2008-12-25',
      g: '2008-12-25 15:30:00.250',
      h: '2008-12-25 15:30:00',
      i: '15:30:00.123456',
      j: '15:30:00.500',
    });
  });

  it('CAST and CONCAT of a NUMERIC write it without trailing fractional zeros, a stored column too', async () => {
    // A NUMERIC holds no scale: BigQuery writes NUMERIC '598.00' as '598' and 110.75 as '110.75'
    // (ZetaSQL's NumericValue::ToString; BigQuery's REST text of a NUMERIC column is the same),
    // where DuckDB writes a DECIMAL with its scale ('598.00', '110.750000000').
    expect(
      await row(`select cast(numeric '598.00' as string) as a, cast(cast('110.75' as numeric) as string) as b,
        cast(numeric '1000' as string) as c, cast(numeric '-0.50' as string) as d, cast(numeric '0' as string) as e,
        concat('total ', cast(numeric '12.30' as numeric) * 2) as f, cast(numeric '7' / 4 as string) as g,
        safe_cast(numeric '0.000000001' as string) as h`),
    ).toEqual({
      a: '598',
      b: '110.75',
      c: '1000',
      d: '-0.5',
      e: '0',
      f: 'total 24.6',
      g: '1.75',
      h: '0.000000001',
    });
    // A table source's NUMERIC(12, 2) column is stored as a DECIMAL with two places.
    const orders = { name: 'orders', columns: { total: 'DECIMAL(12,2)' } };
    const { sql } = translateToDuckDb(
      'select cast(total as string) as s, concat(total, "") as c from orders',
      {
        tables: [orders],
      },
    );
    const instance = await DuckDBInstance.create(':memory:');
    const connection = await instance.connect();
    try {
      await connection.run(
        'create table orders as select * from (values (598.00::DECIMAL(12,2)), (85.50), (0.00)) t(total)',
      );
      expect((await connection.runAndReadAll(sql)).getRowObjectsJson()).toEqual([
        { s: '598', c: '598' },
        { s: '85.5', c: '85.5' },
        { s: '0', c: '0' },
      ]);
    } finally {
      connection.closeSync();
      instance.closeSync();
    }
  });

  it('bitwise operators, IS DISTINCT FROM and IN UNNEST', async () => {
    // Docs: 5 & 3 = 1; 5 | 3 = 7; 5 ^ 3 = 6 (XOR, not a power); NULL IS DISTINCT FROM 1 is true;
    // x IN UNNEST(array) is true when an element equals x, NULL for a NULL x.
    expect(
      await row(`select 5 & 3 as a, 5 | 3 as b, 5 ^ 3 as c, null is distinct from 1 as d, 1 is not distinct from 1 as e,
        2 in unnest([1, 2]) as f, 3 in unnest([1, 2]) as g, null in unnest([1]) as h, 3 not in unnest([1, 2]) as i`),
    ).toEqual({ a: 1, b: 7, c: 6, d: true, e: true, f: true, g: false, h: null, i: true });
  });

  it('LIKE matches % and _ as wildcards and reads a backslash as their escape', async () => {
    // Docs (LIKE operator): % matches any characters, _ one; "You can escape \\, _, or % using two
    // backslashes", so 'a\\_b' in a query is the pattern a\_b, matching only 'a_b'.
    expect(
      await row(String.raw`select 'a_b' like 'a\\_b' as a, 'axb' like 'a\\_b' as b, 'axb' like 'a_b' as c,
        'apple' like 'a%' as d, '100%' like '100\\%' as e, 'apple' not like 'b%' as f`),
    ).toEqual({ a: true, b: false, c: true, d: true, e: true, f: true });
  });

  it('quantified LIKE ANY, SOME and ALL follow the documented rules, NULL patterns and arrays included', async () => {
    // Docs (quantified LIKE operator): ANY is TRUE when some pattern matches, ALL when every one
    // does; NOT LIKE ANY when some pattern fails to match, NOT LIKE ALL when none matches; NULL for
    // a NULL value, or when a pattern is NULL and the others don't decide it; over an empty array
    // ANY is FALSE and NOT LIKE ANY TRUE. The docs' example: of 'Intend with clarity.', 'Secure
    // with intention.' and 'Clarity and security.', LIKE ANY ('Intend%', '%intention%') keeps the first two.
    expect(
      await row(`select 'abc' like any ('a%', 'z%') as a, 'abc' like all ('a%', 'z%') as b,
        'abc' like all ('a%', '%c') as c, 'abc' not like any ('a%', 'z%') as d, 'abc' not like all ('a%', 'z%') as e,
        'abc' not like some ('abc', 'a%') as f, 'abc' like any ('z%', null) as g, cast(null as string) like any ('a%') as h,
        'abc' like any unnest(['q', '%c']) as i, 'abc' like any unnest(array<string>[]) as j,
        'abc' not like any unnest(array<string>[]) as k`),
    ).toEqual({
      a: true,
      b: false,
      c: true,
      d: true,
      e: false,
      f: false,
      g: null,
      h: null,
      i: true,
      j: false,
      k: true,
    });
    expect(
      await rows(`with words as (select 'Intend with clarity.' as value union all select 'Secure with intention.'
        union all select 'Clarity and security.') select * from words where value like any ('Intend%', '%intention%') order by value`),
    ).toEqual([{ value: 'Intend with clarity.' }, { value: 'Secure with intention.' }]);
  });

  it('subtracts DATEs and TIMESTAMPs into INTERVALs, answered in the canonical Y-M D H:M:S form', async () => {
    // Docs (operators, "Subtraction"): DATE "2021-05-20" - DATE "2020-04-19" is 0-0 396 0:0:0 and
    // TIMESTAMP "2021-06-01 12:34:56.789" - TIMESTAMP "2021-05-31 00:00:00" 0-0 0 36:34:56.789;
    // (data types, "Constructing an interval") INTERVAL 25 HOUR is 0-0 0 25:0:0, INTERVAL -5 DAY
    // 0-0 -5 0:0:0, INTERVAL 1 YEAR 1-0 0 0:0:0.
    expect(
      await row(`select date '2021-05-20' - date '2020-04-19' as a,
        timestamp '2021-06-01 12:34:56.789' - timestamp '2021-05-31 00:00:00' as b,
        interval 25 hour as c, interval -5 day as d, interval 1 year as e,
        extract(day from date '2021-05-20' - date '2020-04-19') as f`),
    ).toEqual({
      a: '0-0 396 0:0:0',
      b: '0-0 0 36:34:56.789',
      c: '0-0 0 25:0:0',
      d: '0-0 -5 0:0:0',
      e: '1-0 0 0:0:0',
      f: 396,
    });
  });

  it('writes an INTERVAL as text in the canonical Y-M D H:M:S form, as CAST, CONCAT and FORMAT %t do', async () => {
    // Docs (conversion functions, CAST AS STRING): CAST(INTERVAL 3 DAY AS STRING) is '0-0 3 0:0:0';
    // (string functions, the %t and %T table) an INTERVAL's %t is '1-2 3 4:5:6.789'. ZetaSQL's
    // IntervalValue::AppendToString signs the months and the time apart and writes the fraction in
    // groups of three digits: -14 months are '-1-2 0 0:0:0', 1.5 seconds '0-0 0 0:0:1.500'.
    expect(
      await row(`select cast(interval 3 day as string) as a, cast(x as string) as b,
        format('%t', timestamp '2021-06-01 12:34:56.789' - timestamp '2021-05-31 00:00:00') as c,
        concat('in ', interval -25 hour) as d, safe_cast(interval -14 month as string) as e,
        cast(interval 1500 millisecond as string) as f, cast(interval 1 microsecond as string) as g
        from unnest([interval 3 day]) as x`),
    ).toEqual({
      a: '0-0 3 0:0:0',
      b: '0-0 3 0:0:0',
      c: '0-0 0 36:34:56.789',
      d: 'in 0-0 0 -25:0:0',
      e: '-1-2 0 0:0:0',
      f: '0-0 0 0:0:1.500',
      g: '0-0 0 0:0:0.000001',
    });
  });

  it('ERROR fails the query with its message only where a row evaluates it', async () => {
    // Docs (debugging functions): "Returns an error"; the example IF(x = 'bar', ERROR(...), 'no error')
    // raises only for the row holding 'bar'.
    expect(
      await rows(
        "select if(x = 'bar', error(concat('Found ', x)), 'no error') as r from unnest(['foo']) as x",
      ),
    ).toEqual([{ r: 'no error' }]);
    await expect(
      rows(
        "select if(x = 'bar', error(concat('Found ', x)), 'no error') as r from unnest(['foo', 'bar']) as x",
      ),
    ).rejects.toThrow(/Found bar/);
  });

  it('reads a hexadecimal integer literal as its INT64 value', async () => {
    // Lexical structure: "Hexadecimal integer literals: 0x1B, 0xF9B5"; BigQuery's bytes literals are b'...'.
    expect(await row('select 0x1B as a, 0xF9B5 as b, 0x7FFFFFFFFFFFFFFF as c')).toEqual({
      a: 27,
      b: 63925,
      c: 9223372036854775807n,
    });
    expect(() => translationOf('select 0x8000000000000000')).toThrow(/not an INT64/);
  });

  it.each([
    ['CAST to BIGNUMERIC', "select cast('1' as bignumeric)"],
    ['CAST ... FORMAT', "select cast(current_date() as string format 'YYYY')"],
  ])('refuses %s', (_what, sql) => {
    expect(() => translationOf(sql)).toThrow(/Cannot translate to DuckDB: CAST/);
  });
});
