import { raiseSql } from './raised-errors.js';
import { quoteString } from './rules/rule.js';
import { unsupported } from './unsupported.js';

/**
 * `INTERVAL '<text>' <from> TO <to>` (BigQuery's interval literal over a range of parts,
 * `INTERVAL '1-2 3 4:5:6.789' YEAR TO SECOND`): the text read as ZetaSQL reads it
 * (public/interval_value.cc, kREYearToMonth ... kREMinuteToSecondFractions): years and months as
 * `[-+]Y-M` under one sign, the days as `[-+]D`, the time as `[-+]H:M:S[.F]` under one sign, the
 * groups one space apart, each part any count (`'0-13 370 48:61:61'` is 1-1 370 49:2:1). Built
 * when translated as DuckDB's months, days and microseconds; a field past BigQuery's bounds is
 * BigQuery's error.
 */
const parts = ['year', 'month', 'day', 'hour', 'minute', 'second'] as const;
type Part = (typeof parts)[number];

const maxMicros = 86_400_000_000n * 3_660_000n;
const microsPer: Readonly<Record<'hour' | 'minute' | 'second', bigint>> = {
  hour: 3_600_000_000n,
  minute: 60_000_000n,
  second: 1_000_000n,
};

/** The regular expression of the text of the range `from` TO `to`, or undefined for no such range. */
function rangePattern(from: Part, to: Part): RegExp | undefined {
  const [first, last] = [parts.indexOf(from), parts.indexOf(to)];
  if (first >= last) return undefined;
  const has = (part: Part) => parts.indexOf(part) >= first && parts.indexOf(part) <= last;
  const groups: string[] = [];
  if (from === 'year') groups.push('(?<monthSign>[-+])?(?<year>\\d+)-(?<month>\\d+)');
  else if (from === 'month') groups.push('(?<monthSign>[-+])?(?<month>\\d+)');
  if (has('day')) groups.push('(?<day>[-+]?\\d+)');
  const clock = (['hour', 'minute', 'second'] as const).filter(has).map((part) => `(?<${part}>\\d+)`);
  if (clock.length > 0)
    groups.push(`(?<timeSign>[-+])?${clock.join(':')}${to === 'second' ? '(?:\\.(?<fraction>\\d+))?' : ''}`);
  return new RegExp(`^${groups.join(' ')}$`);
}

export function intervalRangeSql(text: string | undefined, from: string, to: string): string {
  const [lower, upper] = [from.toLowerCase() as Part, to.toLowerCase() as Part];
  const written = `INTERVAL ... ${from.toUpperCase()} TO ${to.toUpperCase()}`;
  if (!parts.includes(lower) || !parts.includes(upper)) throw unsupported(written);
  const pattern = rangePattern(lower, upper);
  if (pattern === undefined) throw unsupported(`${written}, which is no range of interval parts`);
  if (text === undefined) throw unsupported(`${written} of a value that is not a string literal`);
  const match = pattern.exec(text)?.groups;
  if (match === undefined)
    throw unsupported(
      `INTERVAL '${text}' ${from.toUpperCase()} TO ${to.toUpperCase()}: the text does not match the range`,
    );
  const count = (name: string) => BigInt(match[name] ?? '0');
  const fraction = match.fraction ?? '';
  // DuckDB holds microseconds; BigQuery's nanoseconds past them are refused rather than cut.
  if (/[1-9]/.test(fraction.slice(6)))
    throw unsupported(`INTERVAL '${text}': a fraction of a second finer than microseconds`);
  const negative = (sign: string | undefined) => (sign === '-' ? -1n : 1n);
  const months = negative(match.monthSign) * (count('year') * 12n + count('month'));
  const days = count('day');
  const micros =
    negative(match.timeSign) *
    ((['hour', 'minute', 'second'] as const).reduce((sum, part) => sum + count(part) * microsPer[part], 0n) +
      BigInt(fraction.slice(0, 6).padEnd(6, '0')));
  const outside = (field: string, value: bigint, max: bigint) =>
    value > max || value < -max
      ? `CAST(${raiseSql(quoteString(`Interval field ${field} '${value}' is out of range -${max} to ${max}`))} AS INTERVAL)`
      : undefined;
  return (
    outside('months', months, 120_000n) ??
    outside('days', days, 3_660_000n) ??
    outside('nanoseconds', micros * 1000n, maxMicros * 1000n) ??
    `(to_months(${months}) + to_days(${days}) + to_microseconds(${micros}))`
  );
}
