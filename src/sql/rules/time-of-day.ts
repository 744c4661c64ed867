import { literalArgument, nowParameter, type RuleTable, rule, unsupported } from './rule.js';
import { civilOf, diffParts, parse, zoneArgument } from './time.js';
import { formatTime } from './time-format.js';
import { toCivil } from './time-zone.js';

/**
 * TIME functions. DuckDB's TIME arithmetic wraps around midnight as BigQuery's TIME_ADD and
 * TIME_SUB do; truncation, differences and formatting go through a TIMESTAMP on 1970-01-01.
 */
const onEpochDay = (time: string | undefined) => `(DATE '1970-01-01' + ${time})`;

const timeParts = new Set(['microsecond', 'millisecond', 'second', 'minute', 'hour']);

function timePart(part: string | undefined, name: string): string {
  if (part === undefined || !timeParts.has(part) || !diffParts.has(part))
    throw unsupported(`${name} by ${(part ?? 'a non-literal part').toUpperCase()}`);
  return part;
}

export const timeOfDayRules: RuleTable = {
  current_time: rule(0, 1, (_args, call) => `CAST(${toCivil(nowParameter, zoneArgument(call, 0))} AS TIME)`),
  // TIME(hour, minute, second), TIME(timestamp [, zone]) or TIME(datetime).
  time: rule(1, 3, (args, call) => {
    if (args.length === 3) return `make_time(${args.join(', ')})`;
    const civil = toCivil(args[0] as string, zoneArgument(call, 1));
    // DuckDB casts no TIMESTAMPTZ (our DATETIME) to TIME: a DATETIME goes through its civil
    // TIMESTAMP, and a value of no known type (a subquery's column) through TIMETZ, which DuckDB
    // casts TIMESTAMP and TIMESTAMPTZ to, in the UTC session.
    if (call.literals[0] !== undefined || call.kinds[0] === 'timestamp') return `CAST(${civil} AS TIME)`;
    if (call.kinds[0] === 'datetime') return `CAST(${civilOf(civil)} AS TIME)`;
    return `CAST(CAST(${civil} AS TIMETZ) AS TIME)`;
  }),
  time_add: rule(2, 2, ([time, interval]) => `(${time} + ${interval})`),
  time_sub: rule(2, 2, ([time, interval]) => `(${time} - ${interval})`),
  time_diff: rule(
    3,
    3,
    ([later, earlier], call) =>
      `date_sub('${timePart(call.parts[2], 'TIME_DIFF')}', ${onEpochDay(earlier)}, ${onEpochDay(later)})`,
  ),
  time_trunc: rule(
    2,
    2,
    ([time], call) =>
      `CAST(date_trunc('${timePart(call.parts[1], 'TIME_TRUNC')}', ${onEpochDay(time)}) AS TIME)`,
  ),
  format_time: rule(2, 2, ([, time], call) =>
    formatTime(literalArgument(call, 0, 'format string'), onEpochDay(time), {}),
  ),
  parse_time: rule(2, 2, parse('time')),
};
