import { type RuleTable, rule, unsupported } from './rule.js';

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
  array_to_string: rule(2, 3, ([array, delimiter, nullText]) =>
    nullText === undefined
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
  generate_array: rule(2, 3, ([start, end, step], call) => {
    if (call.numbers[2] === 0) throw unsupported('GENERATE_ARRAY with a step of 0');
    return `generate_series(${start}, ${end}, ${step ?? '1'})`;
  }),
  generate_date_array: rule(
    2,
    3,
    ([start, end, step]) =>
      `CAST(generate_series(CAST(${start} AS DATE), CAST(${end} AS DATE), ${step ?? 'INTERVAL 1 DAY'}) AS DATE[])`,
  ),
  generate_timestamp_array: rule(3, 3, ([start, end, step]) => {
    // Strings are read as TIMESTAMP(...) reads them, offsets included.
    const instant = (value: string | undefined) => `CAST(CAST(${value} AS TIMESTAMPTZ) AS TIMESTAMP)`;
    return `generate_series(${instant(start)}, ${instant(end)}, ${step})`;
  }),
};
