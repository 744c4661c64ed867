import { aggregateRules, windowOnly } from './rules/aggregate.js';
import { arrayRules } from './rules/array.js';
import { bytesRules } from './rules/bytes.js';
import { conditionalRules } from './rules/conditional.js';
import { intervalRules } from './rules/interval.js';
import { jsonRules, jsonValueRules } from './rules/json.js';
import { jsonEncodingRules } from './rules/json-encoding.js';
import { mathRules } from './rules/math.js';
import { netRules } from './rules/net.js';
import { parseNumericRules } from './rules/parse-numeric.js';
import { regexRules } from './rules/regex.js';
import { type FunctionCall, type FunctionRule, nowParameter, rule, unsupported } from './rules/rule.js';
import { stringRules } from './rules/string.js';
import { timeRules } from './rules/time.js';
import { timeOfDayRules } from './rules/time-of-day.js';

/**
 * BigQuery functions and their DuckDB equivalents, one module per family under rules/ (each
 * written from BigQuery's function reference; docs/bigquery-coverage.md lists them with their
 * tests). A rule receives the arguments already translated to DuckDB SQL and returns DuckDB SQL
 * with the same meaning. A function with no rule is refused at load time: passing an unknown
 * name through could silently change what a query means.
 */
export type { FunctionCall } from './rules/rule.js';
export { nowParameter, unsupported };

/** The functions whose translation reads `nowParameter`. */
export const functionsReadingNow = new Set([
  'current_timestamp',
  'current_date',
  'current_datetime',
  'current_time',
  'generate_timestamp_trunc_array',
]);

/** The units of generate_timestamp_trunc_array's 'range_step', as its macro reads them. */
const seriesUnits = new Set(['second', 'minute', 'hour', 'day']);

const udfRules: Record<string, FunctionRule> = {
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
};

const rules: Record<string, FunctionRule> = {
  ...stringRules,
  ...regexRules,
  ...timeRules,
  ...timeOfDayRules,
  ...intervalRules,
  ...jsonRules,
  ...jsonValueRules,
  ...jsonEncodingRules,
  ...netRules,
  ...parseNumericRules,
  ...mathRules,
  ...conditionalRules,
  ...aggregateRules,
  ...arrayRules,
  ...bytesRules,
  ...udfRules,
};

/**
 * Why some functions users ask for are refused, where "no rule" would not say: their answers rest
 * on data BigQuery does not publish (https://cloud.google.com/bigquery/docs/reference/standard-sql/net_functions).
 */
const publicSuffixes =
  "is not translated: it looks the host up in BigQuery's copy of the Public Suffix List, which changes over time and is not published, so no other copy answers as it does";
const refusedFunctions: Record<string, string> = {
  'net.public_suffix': publicSuffixes,
  'net.reg_domain': publicSuffixes,
  // Google's Log Analytics samples filter with it (SEARCH(json_payload.message, "`request
  // complete`")); its answer rests on the text analyzer's tokens, delimiters and query rules
  // (https://cloud.google.com/bigquery/docs/reference/standard-sql/search_functions).
  search:
    "has no DuckDB rule (BigQuery's token search through its text analyzer): compare the field searched instead, e.g. JSON_VALUE(json_payload.message) = 'request complete', or REGEXP_CONTAINS(LOWER(JSON_VALUE(labels.app)), r'\\bfrontend\\b') for a word",
};

/** The BigQuery function names that have a rule, for the coverage table's test. */
export const translatedFunctions: readonly string[] = Object.keys(rules).sort();

/**
 * The DuckDB form of one call. `over` is the translated window (what follows OVER) when there is one.
 * `SAFE.` calls become DuckDB's try(), which gives NULL where the function would fail.
 */
export function translateFunction(call: FunctionCall, over?: string): string {
  const safe = call.name.startsWith('safe.');
  const name = safe ? call.name.slice('safe.'.length) : call.name;
  const found = rules[name];
  if (!found)
    throw unsupported(
      `function ${call.name.toUpperCase()} ${refusedFunctions[name] ?? 'has no DuckDB rule'}`,
    );
  const [min, max] = found.arity;
  if (call.args.length < min || call.args.length > max) {
    const count =
      min === max ? `${min}` : max === Number.POSITIVE_INFINITY ? `${min} or more` : `${min} to ${max}`;
    // BigQuery may take more (INSTR's position and occurrence): say what is translated, not
    // what BigQuery allows.
    throw unsupported(
      `${name.toUpperCase()} with ${call.args.length} argument${call.args.length === 1 ? '' : 's'} (translated with ${count})`,
    );
  }
  const unread = Object.keys(call.named).find((key) => !found.named?.includes(key));
  if (unread !== undefined) throw unsupported(`the named argument ${unread} to ${name.toUpperCase()}`);
  const { ignoreNulls, orderBy, limit } = call.clauses;
  if (!found.clauses && (ignoreNulls !== undefined || orderBy !== undefined || limit !== undefined))
    throw unsupported(`${name.toUpperCase()} with IGNORE NULLS, ORDER BY or LIMIT inside`);
  if (over !== undefined && !found.windowed) throw unsupported(`${name.toUpperCase()} with OVER`);
  if (over === undefined && windowOnly.has(name)) throw unsupported(`${name.toUpperCase()} without OVER`);
  if (over !== undefined && (orderBy !== undefined || limit !== undefined))
    throw unsupported(`${name.toUpperCase()} with ORDER BY or LIMIT inside and OVER`);
  const sql = found.translate(call.args, { ...call, name, safe, over });
  if (safe && !found.ownSafeForm) {
    if (found.windowed) throw unsupported(`SAFE.${name.toUpperCase()}`);
    return `try(${sql})`;
  }
  return over === undefined || found.ownOver ? sql : `${sql} OVER ${over}`;
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
