import { unsupported } from './unsupported.js';

/**
 * BigQuery functions and their DuckDB equivalents. Each rule receives the arguments already
 * translated to DuckDB SQL (and the raw argument nodes' text where a rule needs a literal) and
 * returns DuckDB SQL with the same meaning. A function with no rule is refused at load time:
 * passing an unknown name through could silently change what a query means.
 */
export interface FunctionCall {
  readonly name: string;
  readonly args: readonly string[];
  /** Per argument, its value when it is a string literal. */
  readonly literals: readonly (string | undefined)[];
  /** Date-part keywords written bare (`MINUTE`), which are arguments in BigQuery's grammar. */
  readonly datePart?: string | undefined;
  readonly distinct: boolean;
}

/** A rule: how many arguments the function takes, and its DuckDB form. */
interface FunctionRule {
  readonly arity: readonly [min: number, max: number];
  readonly translate: (args: readonly string[], call: FunctionCall) => string;
}

const rule = (
  min: number,
  max: number,
  translate: (args: readonly string[], call: FunctionCall) => string,
): FunctionRule => ({ arity: [min, max], translate });

/** The instant `CURRENT_TIMESTAMP()` stands for, bound per call so tests can fix the clock. */
export const nowParameter = '$__now';

/** The functions whose translation reads `nowParameter`. */
export const functionsReadingNow = new Set(['current_timestamp', 'generate_timestamp_trunc_array']);

/** The units of generate_timestamp_trunc_array's 'range_step', as its macro reads them. */
const seriesUnits = new Set(['second', 'minute', 'hour', 'day']);

const truncatableParts = new Set([
  'microsecond',
  'millisecond',
  'second',
  'minute',
  'hour',
  'day',
  'month',
  'quarter',
  'year',
]);

export { unsupported } from './unsupported.js';

/** Functions whose DuckDB namesake means the same for the argument types log queries use. */
const sameMeaning = [
  'abs',
  'any_value',
  'avg',
  'coalesce',
  'concat',
  'count',
  'ends_with',
  'greatest',
  'least',
  'length',
  'lower',
  'max',
  'min',
  'nullif',
  'starts_with',
  'strpos',
  'sum',
  'upper',
];

const rules: Record<string, FunctionRule> = {
  ...Object.fromEntries(
    sameMeaning.map((name) => [
      name,
      rule(
        0,
        Number.POSITIVE_INFINITY,
        (args, call) => `${name}(${call.distinct ? 'DISTINCT ' : ''}${args.join(', ')})`,
      ),
    ]),
  ),
  ifnull: rule(2, 2, (args) => `coalesce(${args.join(', ')})`),
  if: rule(
    3,
    3,
    ([condition, then, otherwise]) => `CASE WHEN ${condition} THEN ${then} ELSE ${otherwise} END`,
  ),
  // DuckDB's count_if returns NULL over no rows; BigQuery's COUNTIF returns 0. A filtered
  // COUNT(*) is 0 there too.
  countif: rule(1, 1, ([condition]) => `count(*) FILTER (WHERE ${condition})`),
  // Both engines use RE2; regexp_matches is a partial match like REGEXP_CONTAINS, while
  // DuckDB's regexp_full_match is not. A literal pattern without metacharacters matches exactly
  // where the text contains it, and a substring search costs far less than a regex.
  regexp_contains: rule(2, 2, (args, call) => {
    const pattern = call.literals[1];
    return pattern !== undefined && pattern !== '' && !/[\\^$.|?*+()[\]{}]/.test(pattern)
      ? `contains(${args[0]}, ${args[1]})`
      : `regexp_matches(${args.join(', ')})`;
  }),
  current_timestamp: rule(0, 0, () => nowParameter),
  timestamp_sub: rule(2, 2, ([timestamp, interval]) => `(${timestamp} - ${interval})`),
  timestamp_add: rule(2, 2, ([timestamp, interval]) => `(${timestamp} + ${interval})`),
  timestamp_trunc: rule(2, 2, ([timestamp, part], call) => {
    // WEEK truncates to Sunday in BigQuery and to Monday in DuckDB; refuse rather than differ.
    if (!call.datePart || !truncatableParts.has(call.datePart))
      throw unsupported(`TIMESTAMP_TRUNC to ${call.datePart ?? part}`);
    return `date_trunc('${call.datePart}', ${timestamp})`;
  }),
  // BigQuery DATETIME is civil time; it is carried as TIMESTAMP_NS so that the result decoder can
  // tell it from a TIMESTAMP (stored as UTC TIMESTAMP) and print it as BigQuery does.
  datetime: rule(1, 2, ([value, zone]) =>
    zone === undefined || zone === `'UTC'`
      ? `CAST(${value} AS TIMESTAMP_NS)`
      : `CAST(timezone(${zone}, CAST(${value} AS TIMESTAMPTZ)) AS TIMESTAMP_NS)`,
  ),
  // The UDF is a DuckDB macro (queries/udf/) that takes "now" as an explicit last argument.
  // With a literal 'range_step', as saved queries write it, the macro's body is written out here
  // with its CASEs decided: DuckDB plans a prepared statement again on every run, and planning six
  // expanded macro calls cost 20 ms a call, twice the rest of a one-hour invocation-stats query.
  generate_timestamp_trunc_array: rule(2, 2, (args, call) => {
    const [range, step] = call.literals[1]?.split('_') ?? [];
    if (!range || !step || !seriesUnits.has(range) || !seriesUnits.has(step)) {
      return `generate_timestamp_trunc_array(${args.join(', ')}, ${nowParameter})`;
    }
    return (
      `generate_series(date_trunc('${step}', ${nowParameter} - to_${range}s(${args[0]})), ` +
      `date_trunc('${step}', ${nowParameter}), INTERVAL 1 ${step.toUpperCase()})`
    );
  }),
  // APPROX_QUANTILES(x, n) alone is the whole array of n + 1 quantiles; the usual
  // APPROX_QUANTILES(x, n)[OFFSET(k)] is handled by `quantileAt` instead.
  approx_quantiles: rule(2, 2, ([value, count]) => {
    const buckets = Number(count);
    if (!Number.isInteger(buckets) || buckets < 1)
      throw unsupported('APPROX_QUANTILES needs a literal bucket count');
    const fractions = Array.from({ length: buckets + 1 }, (_, i) => i / buckets);
    return `quantile_disc(${value}, [${fractions.join(', ')}])`;
  }),
};

export function translateFunction(call: FunctionCall): string {
  const found = rules[call.name];
  if (!found) throw unsupported(`function ${call.name.toUpperCase()} has no DuckDB rule`);
  const [min, max] = found.arity;
  if (call.args.length < min || call.args.length > max) {
    throw unsupported(`${call.name.toUpperCase()} takes ${min === max ? min : `${min} or more`} arguments`);
  }
  return found.translate(call.args, call);
}

/**
 * `APPROX_QUANTILES(x, n)[OFFSET(k)]`: the k-th of n quantiles. Translated to the exact
 * `quantile_disc(x, k/n)`, which DuckDB computes as fast and which is what the approximation
 * approaches; BigQuery's answer may differ within its documented error.
 */
export function quantileAt(value: string, buckets: string, offset: number): string {
  const n = Number(buckets);
  if (!Number.isInteger(n) || n < 1 || offset < 0 || offset > n) {
    throw unsupported(`APPROX_QUANTILES(..., ${buckets})[OFFSET(${offset})]`);
  }
  return `quantile_disc(${value}, ${offset / n})`;
}
