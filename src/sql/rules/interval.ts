import { raiseSql } from '../raised-errors.js';
import { type FunctionCall, type RuleTable, rule } from './rule.js';

/**
 * INTERVAL functions (BigQuery's interval_functions page). A DuckDB INTERVAL keeps months, days
 * and microseconds apart as BigQuery's keeps months, days and nanoseconds, so each function reads
 * those three and builds the result from them. The steps are ZetaSQL's (public/interval_value.cc,
 * JustifyHours, JustifyDays, JustifyInterval): integer division and remainder toward zero (DuckDB's
 * `//` and `%` on integers), then one borrow so the parts share a sign; a field past BigQuery's
 * bounds is its error (IntervalValue::FromMonthsDaysNanos).
 */
const microsInDay = 86_400_000_000n;
const daysInMonth = 30;

/**
 * `body` with each [value, name] bound once, in order, as a lambda's argument (DuckDB has no LET);
 * a later value may read an earlier name.
 */
const lets = (bindings: readonly (readonly [value: string, name: string])[], body: string): string =>
  bindings.reduceRight((inner, [value, name]) => `list_transform([${value}], ${name} -> ${inner})[1]`, body);

const monthsOf = (i: string) => `(date_part('year', ${i}) * 12 + date_part('month', ${i}))`;
const daysOf = (i: string) => `date_part('day', ${i})`;
// DuckDB's date_part splits the time into hours, minutes and the microseconds of the minute.
const microsOf = (i: string) =>
  `(date_part('hour', ${i}) * 3600000000 + date_part('minute', ${i}) * 60000000 + date_part('microseconds', ${i}))`;

/** The INTERVAL of these parts, or BigQuery's error for a months or days field past its bound. */
function intervalOf(months: string, days: string, micros: string): string {
  const outside = (field: string, value: string, max: number) =>
    `WHEN abs(${value}) > ${max} THEN ${raiseSql(`'Interval field ${field} ''' || ${value} || ''' is out of range -${max} to ${max}'`)}`;
  return `CASE ${outside('months', months, 120_000)} ${outside('days', days, 3_660_000)} ELSE to_months(CAST(${months} AS INTEGER)) + to_days(CAST(${days} AS INTEGER)) + to_microseconds(CAST(${micros} AS BIGINT)) END`;
}

/** `whole` and `part` (whole units and the rest in the smaller unit), the rest borrowed so both share a sign. */
function borrowed(whole: string, part: string, perWhole: string) {
  return {
    whole: `CASE WHEN ${whole} > 0 AND ${part} < 0 THEN ${whole} - 1 WHEN ${whole} < 0 AND ${part} > 0 THEN ${whole} + 1 ELSE ${whole} END`,
    part: `CASE WHEN ${whole} > 0 AND ${part} < 0 THEN ${part} + ${perWhole} WHEN ${whole} < 0 AND ${part} > 0 THEN ${part} - ${perWhole} ELSE ${part} END`,
  };
}

/** The interval bound as `qg_i`, its days with the time's whole days as `days`, the rest of the time as `qg_n`. */
const daysAndTime = (value: string, days: string) =>
  [
    [value, 'qg_i'],
    [`${daysOf('qg_i')} + ${microsOf('qg_i')} // ${microsInDay}`, days],
    [`${microsOf('qg_i')} % ${microsInDay}`, 'qg_n'],
  ] as const;

function justifyHours([value]: readonly string[]): string {
  const { whole, part } = borrowed('qg_d', 'qg_n', String(microsInDay));
  return lets(daysAndTime(value as string, 'qg_d'), intervalOf(monthsOf('qg_i'), whole, part));
}

function justifyDays([value]: readonly string[]): string {
  const { whole, part } = borrowed('qg_m', 'qg_d', String(daysInMonth));
  return lets(
    [
      [value as string, 'qg_i'],
      [`${monthsOf('qg_i')} + ${daysOf('qg_i')} // ${daysInMonth}`, 'qg_m'],
      [`${daysOf('qg_i')} % ${daysInMonth}`, 'qg_d'],
    ],
    intervalOf(whole, part, microsOf('qg_i')),
  );
}

/**
 * JUSTIFY_INTERVAL: hours into days, days into months, then the borrows; a month borrows a
 * month's days also where the days are 0 and the time has the other sign (ZetaSQL's comment:
 * "it repeats the logic in Postgres for making sure all datetime parts have same sign").
 */
function justifyInterval([value]: readonly string[]): string {
  const borrowsMonth = `(qg_m > 0 AND (qg_d < 0 OR (qg_d = 0 AND qg_n < 0))) OR (qg_m < 0 AND (qg_d > 0 OR (qg_d = 0 AND qg_n > 0)))`;
  const months = `CASE WHEN ${borrowsMonth} THEN qg_m - sign(qg_m) ELSE qg_m END`;
  const days = `CASE WHEN ${borrowsMonth} THEN qg_d + sign(qg_m) * ${daysInMonth} ELSE qg_d END`;
  const { whole, part } = borrowed('qg_e', 'qg_n', String(microsInDay));
  // qg_t: all the days; qg_m, qg_d: its months and the rest; qg_f, qg_e: those after the borrow.
  return lets(
    [
      ...daysAndTime(value as string, 'qg_t'),
      [`${monthsOf('qg_i')} + qg_t // ${daysInMonth}`, 'qg_m'],
      [`qg_t % ${daysInMonth}`, 'qg_d'],
      [months, 'qg_f'],
      [days, 'qg_e'],
    ],
    intervalOf('qg_f', whole, part),
  );
}

const makeIntervalParts = ['year', 'month', 'day', 'hour', 'minute', 'second'] as const;

/**
 * MAKE_INTERVAL([year][, month][, day][, hour][, minute][, second]), by position or by name, each
 * an INT64 that defaults to 0 (MAKE_INTERVAL(1, minute => 5, day => 2) is 1-0 2 0:5:0).
 */
function makeInterval(args: readonly string[], call: FunctionCall): string {
  const part = (index: number) => {
    const name = makeIntervalParts[index] as string;
    return `CAST(${args[index] ?? call.named[name]?.sql ?? '0'} AS BIGINT)`;
  };
  const [year, month, day, hour, minute, second] = makeIntervalParts.map((_name, index) => part(index));
  return intervalOf(
    `(${year} * 12 + ${month})`,
    day as string,
    `(${hour} * 3600000000 + ${minute} * 60000000 + ${second} * 1000000)`,
  );
}

export const intervalRules: RuleTable = {
  justify_hours: rule(1, 1, justifyHours),
  justify_days: rule(1, 1, justifyDays),
  justify_interval: rule(1, 1, justifyInterval),
  make_interval: rule(0, 6, makeInterval, { named: [...makeIntervalParts] }),
};
