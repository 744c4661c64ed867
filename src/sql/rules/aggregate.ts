import { raiseSql } from '../raised-errors.js';
import { type FunctionCall, type FunctionRule, type RuleTable, rule, unsupported } from './rule.js';

const distinct = (call: FunctionCall) => (call.distinct ? 'DISTINCT ' : '');

/** An aggregate whose DuckDB namesake (or `duckdbName`) means the same, with OVER allowed. */
const aggregate = (min: number, max: number, duckdbName?: string): FunctionRule =>
  rule(min, max, (args, call) => `${duckdbName ?? call.name}(${distinct(call)}${args.join(', ')})`, {
    windowed: true,
  });

/**
 * STDDEV, VARIANCE, CORR, COVAR and kin (`least` the number of non-NULL inputs, or pairs of them,
 * an answer needs). The docs: NULL below that count, else NaN where any input read is NaN or
 * ±inf. DuckDB raises "out of range" of an infinite input and gives NULL of a NaN, so it is fed 0
 * for a value not finite (the answer is NaN then anyway) and the count decides NULL.
 */
const statistical = (arity: 1 | 2, least: number, duckdbName?: string): FunctionRule =>
  rule(
    arity,
    arity,
    (args, call) => {
      const over = call.over === undefined ? '' : ` OVER ${call.over}`;
      const finite = (value: string) => `isfinite(CAST(${value} AS DOUBLE))`;
      // A NULL stays NULL (NOT NULL is NULL), so the pairs DuckDB skips are the same.
      const fed = args.map((value) => `CASE WHEN NOT ${finite(value)} THEN 0 ELSE ${value} END`);
      const read = args.map((value) => `(${value}) IS NOT NULL`).join(' AND ');
      const count = `count(${distinct(call)}${arity === 1 ? args[0] : '*'})${arity === 1 ? '' : ` FILTER (WHERE ${read})`}${over}`;
      const notFinite = `bool_or(${read} AND NOT (${args.map(finite).join(' AND ')}))${over}`;
      const value = `${duckdbName ?? call.name}(${distinct(call)}${fed.join(', ')})${over}`;
      return `(CASE WHEN ${count} < ${least} THEN NULL WHEN ${notFinite} THEN CAST('NaN' AS DOUBLE) ELSE ${value} END)`;
    },
    { windowed: true, ownOver: true },
  );

/** A window function, valid only with OVER; `IGNORE NULLS` is written inside as DuckDB reads it. */
const windowFunction = (min: number, max: number): FunctionRule =>
  rule(
    min,
    max,
    (args, call) => {
      if (call.clauses.orderBy !== undefined || call.clauses.limit !== undefined)
        throw unsupported(`${call.name.toUpperCase()} with ORDER BY or LIMIT inside`);
      return `${call.name}(${args.join(', ')}${call.clauses.ignoreNulls ? ' IGNORE NULLS' : ''})`;
    },
    { windowed: true, clauses: true },
  );

/**
 * The aggregated values in the order of the aggregate's ORDER BY, as a list. DuckDB's ordered
 * aggregates (`list(x ORDER BY k)`, `string_agg(x, d ORDER BY k)`) buffer each group's rows in
 * blocks of their own: ga4.channel-paths' two ordered STRING_AGGs over 4,545 users (111k rows)
 * needed 300-400 MB and ran out of the server's 256 MB (duckdb/duckdb#5920, #9950). A plain
 * list() of each value beside its create_sort_key (which orders as ORDER BY does, directions and
 * NULLs included) holds the rows alone, and list_sort puts them in that order once the group is
 * whole; rows of equal keys come in some order, as on BigQuery.
 */
function orderedList(value: string, call: FunctionCall, filter = ''): string {
  if (call.clauses.sortKey === undefined) {
    const order = call.clauses.orderBy ? ` ORDER BY ${call.clauses.orderBy}` : '';
    return `list(${distinct(call)}${value}${order})${filter}`;
  }
  const keyed = `list(${distinct(call)}struct_pack(k := create_sort_key(${call.clauses.sortKey}), v := ${value}))${filter}`;
  return `list_transform(list_sort(${keyed}), e -> e.v)`;
}

/**
 * ARRAY_AGG(x [IGNORE NULLS] [ORDER BY ...] [LIMIT n]) as DuckDB's list(): ORDER BY sorts it
 * (orderedList), IGNORE NULLS becomes a FILTER, LIMIT a slice. Over no rows both give NULL.
 * BigQuery refuses a result array holding NULL; DuckDB keeps the NULL element.
 */
function arrayAgg(args: readonly string[], call: FunctionCall): string {
  const [value] = args;
  const filter = call.clauses.ignoreNulls ? ` FILTER (WHERE ${value} IS NOT NULL)` : '';
  const sql = orderedList(value as string, call, filter);
  return call.clauses.limit === undefined ? sql : `${sql}[1:${call.clauses.limit}]`;
}

/**
 * MAX_BY(x, y), which is ANY_VALUE(x HAVING MAX y) (and MIN_BY): an x of the rows whose y is the
 * largest, skipping rows whose y is NULL, and a NULL x only when every such row has one (ANY_VALUE
 * skips NULLs). arg_max_null skips rows whose key is NULL and keeps NULL values (arg_max would
 * skip the row of a NULL x and answer another y's); the key ranks a present x first among ties.
 */
function valueAtExtreme(extreme: 'max' | 'min', x: string | undefined, y: string | undefined): string {
  const present = extreme === 'max' ? `(${x}) IS NOT NULL` : `(${x}) IS NULL`;
  return `arg_${extreme}_null(${x}, CASE WHEN (${y}) IS NOT NULL THEN row(${y}, ${present}) END)`;
}

/**
 * ARRAY_CONCAT_AGG(x [ORDER BY ...] [LIMIT n]): the arrays' elements in one array, NULL arrays
 * skipped, as DuckDB's flatten of their list; LIMIT counts arrays, not elements, on both.
 */
function arrayConcatAgg(args: readonly string[], call: FunctionCall): string {
  const [value] = args;
  const arrays = orderedList(value as string, call, ` FILTER (WHERE ${value} IS NOT NULL)`);
  return `flatten(${call.clauses.limit === undefined ? arrays : `${arrays}[1:${call.clauses.limit}]`})`;
}

/**
 * STRING_AGG(x [, delimiter] [ORDER BY ...] [LIMIT n]); the delimiter defaults to ','. NULLs are
 * skipped on both; with ORDER BY, the values are joined from orderedList's list.
 */
function stringAgg(args: readonly string[], call: FunctionCall): string {
  const [value, delimiter = "','"] = args;
  // ZetaSQL's resolver takes only a literal (or a query parameter) there; DuckDB's binder refused
  // another value in its words (502).
  if (args.length > 1 && call.literals[1] === undefined && !/^\$\w+$/.test(delimiter))
    throw unsupported(
      "STRING_AGG's delimiter unless it is a literal or a query parameter, as BigQuery requires",
    );
  if (call.clauses.limit === undefined && call.clauses.sortKey === undefined) {
    // Under OVER (no sort key), DuckDB's own ordered form.
    const order = call.clauses.orderBy ? ` ORDER BY ${call.clauses.orderBy}` : '';
    return `string_agg(${distinct(call)}${value}, ${delimiter}${order})`;
  }
  const values = orderedList(value as string, call, ` FILTER (WHERE ${value} IS NOT NULL)`);
  const limited = call.clauses.limit === undefined ? values : `${values}[1:${call.clauses.limit}]`;
  return `array_to_string(${limited}, ${delimiter})`;
}

/**
 * APPROX_QUANTILES(x, n) alone is the whole array of n + 1 quantiles; the usual
 * APPROX_QUANTILES(x, n)[OFFSET(k)] is handled by `quantileAt` instead. Both are the exact
 * quantile_disc, which the approximation approaches; BigQuery's answer may differ within its
 * documented error.
 */
const maxQuantileBuckets = 100_000;

function approxQuantiles(args: readonly string[], call: FunctionCall): string {
  const buckets = call.numbers[1];
  if (buckets === undefined || !Number.isInteger(buckets) || buckets < 1)
    throw unsupported('APPROX_QUANTILES needs a literal bucket count');
  // Each bucket is a fraction written into DuckDB's text: a caller's APPROX_QUANTILES(x,
  // 1000000000) built a billion of them here and took the server down with V8's heap (found by
  // fuzzing). BigQuery documents no bound; 100,000 buckets is some 2 MB of text.
  if (buckets > maxQuantileBuckets)
    throw unsupported(`APPROX_QUANTILES with more than ${maxQuantileBuckets} buckets`);
  const fractions = Array.from({ length: buckets + 1 }, (_, i) => i / buckets);
  if (call.clauses.ignoreNulls === false) {
    // RESPECT NULLS: NULLs count as the lowest values (the docs: [NULL, NULL, 1, 1, 1, 4, 5, 6,
    // 7, 8, 9, 10] in 2 buckets is [NULL, 4, 10]). quantile_disc skips them, so the group's sorted
    // list() is indexed as it indexes, floor(q * (n - 1)), in a subquery that names the list once.
    const sorted = '"$sorted"';
    const at = fractions.map((q) => `${sorted}[CAST(floor(${q} * (len(${sorted}) - 1)) AS BIGINT) + 1]`);
    return `(SELECT CASE WHEN ${sorted} IS NOT NULL THEN [${at.join(', ')}] END FROM (SELECT list_sort(list(${distinct(call)}${args[0]}), 'ASC', 'NULLS FIRST') AS ${sorted}))`;
  }
  return `quantile_disc(${distinct(call)}${args[0]}, [${fractions.join(', ')}])`;
}

/**
 * APPROX_TOP_COUNT(x, n): the n most frequent values with their counts, most frequent first, as
 * ARRAY<STRUCT<value, count>>. Computed exactly from DuckDB's histogram, which skips NULL values;
 * BigQuery counts NULL as a value (the docs: [NULL, 'pear', 'pear', 'pear', 'apple', NULL] gives
 * [{pear, 3}, {NULL, 2}]), so their count joins the histogram's entries.
 */
function approxTopCount(args: readonly string[], call: FunctionCall): string {
  const count = call.numbers[1];
  if (count === undefined || !Number.isInteger(count) || count < 1)
    throw unsupported('APPROX_TOP_COUNT needs a literal number');
  const [value] = args;
  const nulls = `count(*) FILTER (WHERE (${value}) IS NULL)`;
  const counted = `list_transform(map_entries(histogram(${value})), e -> {'n': -CAST(e.value AS BIGINT), 'value': e.key})`;
  const withNulls = `list_concat(${counted}, CASE WHEN ${nulls} > 0 THEN [{'n': -${nulls}, 'value': NULL}] ELSE [] END)`;
  return `list_transform(list_sort(${withNulls}), e -> {'value': e.value, 'count': -e.n})[1:${count}]`;
}

/**
 * APPROX_TOP_SUM(x, weight, n): the n values of the largest weight sums, largest first, as
 * ARRAY<STRUCT<value, sum>>, computed exactly. NULL is a value like any other, a NULL weight adds
 * nothing and a value of NULL weights only sums to NULL, last (the docs: [{pear, 0}, {apple, NULL}]);
 * a negative or NaN weight is ZetaSQL's error. DuckDB has no weighted histogram: the group's
 * (value, weight) pairs, one list() of the outer query, are unnested and summed by value in a
 * subquery (linear; a list lambda that reads the whole list per element took the process down).
 */
function approxTopSum(args: readonly string[], call: FunctionCall): string {
  const count = call.numbers[2];
  if (count === undefined || !Number.isInteger(count) || count < 1 || count > 100_000)
    throw unsupported('APPROX_TOP_SUM needs a literal number from 1 to 100000');
  const [value, weight] = args;
  const pairs = `(SELECT unnest(list({'v': ${value}, 'w': ${weight}})) AS "$pair")`;
  const sums = `(SELECT "$pair".v AS v, sum("$pair".w) AS s FROM ${pairs} GROUP BY "$pair".v) AS "$sum"`;
  const top = `(SELECT list({'value': "$sum".v, 'sum': "$sum".s} ORDER BY "$sum".s DESC NULLS LAST)[1:${count}] FROM ${sums})`;
  const bad = `(${weight}) < 0 OR isnan(CAST(${weight} AS DOUBLE))`;
  return `(CASE WHEN bool_or(${bad}) THEN ${raiseSql(`concat('APPROX_TOP_SUM does not support negative or NaN weights in the second argument; got ', CAST(arg_min(${weight}, CASE WHEN ${bad} THEN 0 END) AS VARCHAR))`)} ELSE ${top} END)`;
}

function percentile(
  duckdbName: 'quantile_cont' | 'quantile_disc',
  value: string | undefined,
  fraction: string | undefined,
  call: FunctionCall,
): string {
  if (call.clauses.orderBy !== undefined || call.clauses.limit !== undefined)
    throw unsupported(`${call.name.toUpperCase()} with ORDER BY or LIMIT inside`);
  // A literal percentile outside [0, 1] is ZetaSQL's error (percentile.h), where DuckDB's binder
  // refuses it in its own words (or, below 0, reads it as counted from the top).
  const literal = call.numbers[1];
  if (literal !== undefined && !(literal >= 0 && literal <= 1))
    return `CAST(${raiseSql(`'Percentile argument must be in [0, 1]; got ' || printf('%g', ${literal}::DOUBLE)`)} AS DOUBLE)`;
  // Only with OVER (windowOnly), which BigQuery allows a PARTITION BY alone: the whole partition.
  const over = ` OVER ${call.over}`;
  if (call.clauses.ignoreNulls !== false) return `${duckdbName}(${value}, ${fraction})${over}`;
  // RESPECT NULLS (navigation_functions.md; zetasql/public/functions/percentile.h): the NULLs are
  // the lowest of the partition's N values. DISC takes the value at 0-based ceil(N * p) - 1 (0 at
  // p = 0), as quantile_disc indexes; ordered as a STRUCT whose first field is false for a NULL,
  // the NULLs come first, and the value picked is NULL where one of them is.
  if (duckdbName === 'quantile_disc')
    return `struct_extract(quantile_disc({'n': (${value}) IS NOT NULL, 'v': ${value}}, ${fraction})${over}, 'v')`;
  // CONT interpolates at (N - 1) * p between the values at its floor and ceiling: where both are
  // values (the floor past the k NULLs) as quantile_cont does over the values with the NULLs as
  // -infinity, which neither position reaches; between the last NULL and the least value, that
  // value ("interpolation between a NULL value and a non-NULL value returns the non-NULL value");
  // else NULL. In FLOAT64, the type BigQuery answers of INT64 and FLOAT64; of a NUMERIC (its
  // NUMERIC interpolation) it is refused.
  if (value?.endsWith(' AS DECIMAL(38, 9))'))
    throw unsupported('PERCENTILE_CONT of a NUMERIC with RESPECT NULLS');
  const count = `count(*)${over}`;
  const nulls = `(${count} - count(${value})${over})`;
  const position = `((${count} - 1) * CAST(${fraction} AS DOUBLE))`;
  const floor = `floor(${position})`;
  const lowest = `CAST('-infinity' AS DOUBLE)`;
  return `(CASE WHEN ${floor} >= ${nulls} THEN quantile_cont(coalesce(CAST(${value} AS DOUBLE), ${lowest}), ${fraction})${over} WHEN ${floor} = ${nulls} - 1 AND ${position} > ${floor} THEN CAST(min(${value})${over} AS DOUBLE) END)`;
}

export const aggregateRules: RuleTable = {
  count: aggregate(1, 1),
  sum: aggregate(1, 1),
  avg: aggregate(1, 1),
  min: aggregate(1, 1),
  max: aggregate(1, 1),
  // Both skip NULLs and return NULL when every value is NULL.
  any_value: aggregate(1, 1),
  // DuckDB's count_if returns NULL over no rows; BigQuery's COUNTIF returns 0, as a filtered
  // count(*) does.
  countif: rule(1, 1, ([condition]) => `count(*) FILTER (WHERE ${condition})`, { windowed: true }),
  // GROUPING(x) is 1 in the rows ROLLUP, CUBE or GROUPING SETS aggregated x away, as in DuckDB.
  grouping: rule(1, 1, ([value]) => `grouping(${value})`),
  logical_and: aggregate(1, 1, 'bool_and'),
  logical_or: aggregate(1, 1, 'bool_or'),
  bit_and: aggregate(1, 1),
  bit_or: aggregate(1, 1),
  bit_xor: aggregate(1, 1),
  stddev: statistical(1, 2, 'stddev_samp'),
  stddev_samp: statistical(1, 2),
  stddev_pop: statistical(1, 1),
  variance: statistical(1, 2, 'var_samp'),
  var_samp: statistical(1, 2),
  var_pop: statistical(1, 1),
  corr: statistical(2, 2),
  covar_pop: statistical(2, 1),
  covar_samp: statistical(2, 2),
  max_by: rule(2, 2, ([x, y]) => valueAtExtreme('max', x, y), { windowed: true }),
  min_by: rule(2, 2, ([x, y]) => valueAtExtreme('min', x, y), { windowed: true }),
  array_concat_agg: rule(1, 1, arrayConcatAgg, { clauses: true }),
  // Exact on DuckDB: the count the approximation approaches.
  approx_count_distinct: rule(1, 1, ([value]) => `count(DISTINCT ${value})`),
  approx_quantiles: rule(2, 2, approxQuantiles, { clauses: true }),
  approx_top_count: rule(2, 2, approxTopCount),
  approx_top_sum: rule(3, 3, approxTopSum),
  array_agg: rule(1, 1, arrayAgg, { windowed: true, clauses: true }),
  string_agg: rule(1, 2, stringAgg, { windowed: true, clauses: true }),
  // PERCENTILE_CONT/DISC(x, p) OVER (...) skip NULLs (BigQuery's default) as quantile_cont/disc do;
  // RESPECT NULLS counts them as the lowest values (percentile).
  percentile_cont: rule(
    2,
    2,
    ([value, fraction], call) => percentile('quantile_cont', value, fraction, call),
    {
      windowed: true,
      clauses: true,
      ownOver: true,
    },
  ),
  percentile_disc: rule(
    2,
    2,
    ([value, fraction], call) => percentile('quantile_disc', value, fraction, call),
    {
      windowed: true,
      clauses: true,
      ownOver: true,
    },
  ),
  row_number: windowFunction(0, 0),
  rank: windowFunction(0, 0),
  dense_rank: windowFunction(0, 0),
  percent_rank: windowFunction(0, 0),
  cume_dist: windowFunction(0, 0),
  ntile: windowFunction(1, 1),
  lag: windowFunction(1, 3),
  lead: windowFunction(1, 3),
  first_value: windowFunction(1, 1),
  last_value: windowFunction(1, 1),
  nth_value: windowFunction(2, 2),
};

/** Functions that are only valid with OVER. */
export const windowOnly = new Set([
  'percentile_cont',
  'percentile_disc',
  'row_number',
  'rank',
  'dense_rank',
  'percent_rank',
  'cume_dist',
  'ntile',
  'lag',
  'lead',
  'first_value',
  'last_value',
  'nth_value',
]);
