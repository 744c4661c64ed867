/**
 * Reading a log event's `timestamp` into microseconds since the Unix epoch (UTC), the precision
 * of BigQuery's and DuckDB's TIMESTAMP. JavaScript's Date keeps only milliseconds, so the
 * fraction and the offset are applied in integer arithmetic.
 */

// Date, time to at least minutes, optional fraction (`.` or `,`), optional offset. No offset
// means UTC, as BigQuery reads a timestamp string without a zone.
const isoTimestamp =
  /^(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d{1,9}))?)?(?:([Zz])|([+-])(\d{2}):?(\d{2}))?$/;

// Magnitudes that tell the unit of an integer Unix time apart: 1e11 s is the year 5138, so
// any present-day time in ms or µs is far above it. Milliseconds before 1973-03-03 read as
// seconds; that is the price of not asking for the unit.
const secondsBelow = 1e11;
const millisecondsBelow = 1e14;
const microsecondsBelow = 1e17;

/**
 * Microseconds since the epoch for an ISO 8601 timestamp (`Z`, `+hh:mm`, `+hhmm` or no offset,
 * fraction truncated to microseconds) or a Unix time in seconds, milliseconds or microseconds
 * (told apart by magnitude; a number in a string counts). `undefined` when it is neither.
 */
export function parseEventTimestamp(value: string | number): bigint | undefined {
  if (typeof value === 'number') return fromUnixTime(value);
  if (/^-?\d{1,20}$/.test(value)) return fromUnixTime(Number(value));
  return fromIso(value);
}

function fromUnixTime(value: number): bigint | undefined {
  const magnitude = Math.abs(value);
  if (!Number.isFinite(value) || magnitude >= microsecondsBelow) return undefined;
  const perUnit = magnitude < secondsBelow ? 1e6 : magnitude < millisecondsBelow ? 1e3 : 1;
  return BigInt(Math.round(value * perUnit));
}

function fromIso(text: string): bigint | undefined {
  const match = isoTimestamp.exec(text);
  if (!match) return undefined;
  const [
    ,
    year,
    month,
    day,
    hour,
    minute,
    second = '0',
    fraction = '',
    zulu,
    sign,
    offsetHours,
    offsetMinutes,
  ] = match;
  const y = Number(year);
  const mo = Number(month);
  const d = Number(day);
  const h = Number(hour);
  const mi = Number(minute);
  const s = Number(second);
  if (mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo) || h > 23 || mi > 59 || s > 59) return undefined;
  // Date.UTC moves years 0-99 to the 1900s; setFullYear does not, so those years take it.
  const epochMs = y >= 100 ? Date.UTC(y, mo - 1, d, h, mi, s) : smallYearMs(y, mo, d, h, mi, s);
  let offsetMinutesTotal = 0;
  if (!zulu && sign) {
    const oh = Number(offsetHours);
    const om = Number(offsetMinutes);
    if (oh > 23 || om > 59) return undefined;
    offsetMinutesTotal = (sign === '-' ? -1 : 1) * (oh * 60 + om);
  }
  const micros = BigInt(fraction.padEnd(6, '0').slice(0, 6));
  return BigInt(epochMs) * 1000n + micros - BigInt(offsetMinutesTotal) * 60_000_000n;
}

function daysInMonth(year: number, month: number): number {
  if (month !== 2) return month === 4 || month === 6 || month === 9 || month === 11 ? 30 : 31;
  return year % 4 === 0 && (year % 100 !== 0 || year % 400 === 0) ? 29 : 28;
}

function smallYearMs(y: number, mo: number, d: number, h: number, mi: number, s: number): number {
  const date = new Date(0);
  date.setUTCFullYear(y, mo - 1, d);
  date.setUTCHours(h, mi, s, 0);
  return date.getTime();
}
