import { raiseSql } from '../raised-errors.js';
import { type FunctionCall, hasNullElement, type RuleTable, raise, rule, unsupported } from './rule.js';

/** ARRAY_FIRST / ARRAY_LAST: the element at that end, NULL of a NULL array, an error of an empty one. */
function endElement(array: string, call: FunctionCall, end: 'first' | 'last'): string {
  if (call.isRecord(0)) throw unsupported(`ARRAY_${end.toUpperCase()} of a log record`);
  const element = end === 'first' ? `${array}[1]` : `${array}[len(${array})]`;
  return `(CASE WHEN ${array} IS NULL THEN NULL WHEN len(${array}) = 0 THEN ${raiseSql(`'ARRAY_${end.toUpperCase()} cannot get the ${end} element of an empty array'`)} ELSE ${element} END)`;
}

/** ZetaSQL's words for a sequence's step of 0 (generate_array.h), for every GENERATE_*_ARRAY. */
const zeroStep = "'Sequence step cannot be 0.'";

/**
 * Whether GENERATE_ARRAY's arguments may be FLOAT64 or NUMERIC, which DuckDB's generate_series
 * does not take: unless each is known to be an INT64 (or is the default step).
 */
function isFractional(call: FunctionCall): boolean {
  return [0, 1, 2].some((index) => {
    if (index >= call.args.length) return false;
    const shape = call.shapeOf(index);
    return !('scalar' in shape && (shape.scalar === 'BIGINT' || shape.scalar === 'INTEGER'));
  });
}

/**
 * GENERATE_ARRAY of FLOAT64 or NUMERIC values as ZetaSQL makes them (generate_array.h): from
 * `start`, the k-th element `start + k * step` (not the previous one plus `step`, which gathers
 * error), while it is not past `end`; none where the step leads away from `end`; `[start]` where
 * start = end; NaN anywhere and an infinite step are errors.
 */
function fractionalSeries(start: string, end: string, step: string, call: FunctionCall): string {
  const double = (value: string) => `CAST(${value} AS DOUBLE)`;
  const count = `greatest(CAST(floor((${end} - ${start}) / (${step})) AS BIGINT) + 2, 0)`;
  const elements = `list_filter(list_transform(range(0, ${count}), __k -> ${start} + __k * (${step})), __v -> CASE WHEN ${start} < ${end} THEN (${step}) > 0 AND __v <= ${end} ELSE (${step}) < 0 AND __v >= ${end} END)`;
  return `(CASE WHEN isnan(${double(start)}) OR isnan(${double(end)}) OR isnan(${double(step)}) THEN ${raise(call, "'Sequence start, end, and step cannot be NaN.'")} WHEN isinf(${double(step)}) THEN ${raise(call, "'Sequence step cannot be +/-inf.'")} WHEN ${start} = ${end} THEN [${start}] ELSE ${elements} END)`;
}

/** Whether ARRAY_TO_STRING joins BYTES: its delimiter or its array's elements are BLOBs. */
function isBytes(call: FunctionCall): boolean {
  const array = call.shapeOf(0);
  const delimiter = call.shapeOf(1);
  return (
    ('scalar' in delimiter && delimiter.scalar === 'BLOB') ||
    ('list' in array && 'scalar' in array.list && array.list.scalar === 'BLOB')
  );
}

/**
 * ARRAY_TO_STRING of BYTES, a BYTES value (the docs: [b'prefix', b'middle', b'suffix', b'\x00']
 * joined by b'--'): DuckDB's array_to_string takes text only, so the BLOBs are joined with ||;
 * NULL of a NULL array or delimiter, empty bytes of no elements.
 */
function bytesToString(array: string, delimiter: string, nullText: string | undefined): string {
  const elements =
    nullText === undefined
      ? `list_filter(${array}, e -> e IS NOT NULL)`
      : `list_transform(${array}, e -> coalesce(e, ${nullText}))`;
  return `(CASE WHEN ${array} IS NULL OR ${delimiter} IS NULL THEN NULL WHEN len(${elements}) = 0 THEN ''::BLOB ELSE list_reduce(${elements}, (a, b) -> a || ${delimiter} || b) END)`;
}

/**
 * Array functions. DuckDB lists are 1-based; the subscripts OFFSET/ORDINAL are rewritten in
 * translate.ts. GENERATE_*_ARRAY are inclusive of both ends on both engines.
 */
export const arrayRules: RuleTable = {
  // A log source's record is an array of one, or none when absent (see repeated-records.ts).
  array_length: rule(1, 1, ([array], call) =>
    call.isRecord(0) ? `(CASE WHEN ${array} IS NULL THEN 0 ELSE 1 END)` : `len(${array})`,
  ),
  // NULL elements are skipped unless null_text is given, on both.
  array_to_string: rule(2, 3, ([array, delimiter, nullText], call) =>
    isBytes(call)
      ? bytesToString(array as string, delimiter as string, nullText)
      : nullText === undefined
        ? `array_to_string(${array}, ${delimiter})`
        : `array_to_string(list_transform(${array}, e -> coalesce(CAST(e AS VARCHAR), ${nullText})), ${delimiter})`,
  ),
  // BigQuery's ARRAY_CONCAT is NULL when any argument is; list_concat treats NULL as empty.
  array_concat: rule(1, Number.POSITIVE_INFINITY, (args) =>
    args.length === 1
      ? (args[0] as string)
      : `CASE WHEN ${args.map((a) => `(${a}) IS NULL`).join(' OR ')} THEN NULL ELSE ${args.reduce((all, next) => `list_concat(${all}, ${next})`)} END`,
  ),
  array_reverse: rule(1, 1, ([array]) => `list_reverse(${array})`),
  // Docs: "Produces an error if the array is empty. Returns NULL if array_expression is NULL."
  array_first: rule(1, 1, ([array], call) => endElement(array as string, call, 'first')),
  array_last: rule(1, 1, ([array], call) => endElement(array as string, call, 'last')),
  // Inclusive 0-based offsets, a negative one counted from the end, both clamped to the array:
  // ARRAY_SLICE(['a', 'b', 'c', 'd', 'e'], 1, -3) is [b, c]; (-30, -5) is [a]; (5, 30) is [].
  array_slice: rule(3, 3, ([array, start, end], call) => {
    if (call.isRecord(0)) throw unsupported('ARRAY_SLICE of a log record');
    const at = (offset: string | undefined) =>
      `(CASE WHEN ${offset} < 0 THEN len(${array}) + ${offset} ELSE ${offset} END)`;
    const from = `greatest(${at(start)}, 0)`;
    const to = `least(${at(end)}, len(${array}) - 1)`;
    return `(CASE WHEN ${array} IS NULL OR ${start} IS NULL OR ${end} IS NULL THEN NULL WHEN ${from} > ${to} THEN list_slice(${array}, 1, 0) ELSE list_slice(${array}, ${from} + 1, ${to} + 1) END)`;
  }),
  // The 0-based position of the point's upper bound in a sorted array: how many boundaries are
  // at or below it. NULL for a NULL point; an error for a NULL in the array or one not sorted
  // ascending, as the docs list (RANGE_BUCKET(20, [0, 10, 20, 30, 40]) is 3, (80, []) is 0).
  range_bucket: rule(2, 2, ([point, array], call) => {
    if (call.isRecord(1)) throw unsupported('RANGE_BUCKET over a log record');
    const name = '"$boundary"';
    return `(CASE WHEN ${point} IS NULL OR ${array} IS NULL THEN NULL WHEN ${hasNullElement(array as string)} THEN ${raiseSql("'RANGE_BUCKET: the boundaries array has a NULL element'")} WHEN ${array} <> list_sort(${array}) THEN ${raiseSql("'RANGE_BUCKET: the boundaries array is not sorted in ascending order'")} ELSE len(list_filter(${array}, ${name} -> ${name} <= ${point})) END)`;
  }),
  // A step of 0 is ZetaSQL's error (generate_array.h), not DuckDB's empty list.
  generate_array: rule(
    2,
    3,
    ([start, end, step = '1'], call) => {
      // Integer literals and a step other than 0: the series alone, which unnest-sql.ts reads as
      // DuckDB's table function in FROM.
      const integers = call.args.every((arg) => /^[-()]*\d+\)*$/.test(arg));
      if (integers && call.numbers[2] !== 0) return `generate_series(${start}, ${end}, ${step})`;
      const series = isFractional(call)
        ? fractionalSeries(start as string, end as string, step, call)
        : `generate_series(${start}, ${end}, ${step})`;
      return `(CASE WHEN (${step}) = 0 THEN ${raise(call, zeroStep)} ELSE ${series} END)`;
    },
    { ownSafeForm: true },
  ),
  generate_date_array: rule(
    2,
    3,
    ([start, end, step = 'INTERVAL 1 DAY'], call) =>
      `(CASE WHEN (${step}) = INTERVAL 0 DAY THEN ${raise(call, zeroStep)} ELSE CAST(generate_series(CAST(${start} AS DATE), CAST(${end} AS DATE), ${step}) AS DATE[]) END)`,
    { ownSafeForm: true },
  ),
  generate_timestamp_array: rule(
    3,
    3,
    ([start, end, step], call) => {
      // Strings are read as TIMESTAMP(...) reads them, offsets included.
      const instant = (value: string | undefined) => `CAST(CAST(${value} AS TIMESTAMPTZ) AS TIMESTAMP)`;
      return `(CASE WHEN (${step}) = INTERVAL 0 DAY THEN ${raise(call, zeroStep)} ELSE generate_series(${instant(start)}, ${instant(end)}, ${step}) END)`;
    },
    { ownSafeForm: true },
  ),
};
