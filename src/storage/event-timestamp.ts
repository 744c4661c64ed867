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
 * (told apart by magnitude; a number in a string counts). `undefined` when it is neither, or
 * when it is outside BigQuery's TIMESTAMP range.
 */
export function parseEventTimestamp(value: string | number): bigint | undefined {
  const micros =
    typeof value === 'number'
      ? fromUnixTime(value)
      : (fromUtcIso(value) ?? (/^-?\d{1,20}$/.test(value) ? fromUnixTime(Number(value)) : fromIso(value)));
  // A time no BigQuery TIMESTAMP holds is refused, not stored: DuckDB kept year 0000 as 1 BC.
  return micros !== undefined && micros >= earliestMicros && micros <= latestMicros ? micros : undefined;
}

// BigQuery's TIMESTAMP range, 0001-01-01 00:00:00 to 9999-12-31 23:59:59.999999 UTC
// (https://cloud.google.com/bigquery/docs/reference/standard-sql/data-types#timestamp_type).
const earliestMicros = -62_135_596_800_000_000n;
const latestMicros = 253_402_300_799_999_999n;

/**
 * The form nearly every log shipper sends, `2024-05-01T12:34:56.789Z` (fraction optional, up to 9
 * digits), read digit by digit without a regular expression or BigInt arithmetic: it runs for
 * every event. Anything else, or a date this cannot vouch for, is left to fromIso (undefined).
 */
function fromUtcIso(text: string): bigint | undefined {
  const length = text.length;
  if (length < 20 || text.charCodeAt(length - 1) !== 90 /* Z */) return undefined;
  if (text.charCodeAt(4) !== 45 || text.charCodeAt(7) !== 45 || text.charCodeAt(10) !== 84) return undefined;
  if (text.charCodeAt(13) !== 58 || text.charCodeAt(16) !== 58) return undefined;
  const y = digits(text, 0, 4);
  const mo = digits(text, 5, 7);
  const d = digits(text, 8, 10);
  const h = digits(text, 11, 13);
  const mi = digits(text, 14, 16);
  const s = digits(text, 17, 19);
  let fraction = 0;
  if (length > 20) {
    const fractionDigits = length - 21;
    if (text.charCodeAt(19) !== 46 /* . */ || fractionDigits < 1 || fractionDigits > 9) return undefined;
    fraction = digits(text, 20, 20 + Math.min(fractionDigits, 6));
    for (let i = fractionDigits; i < 6; i += 1) fraction *= 10;
    if (fractionDigits > 6 && digits(text, 26, length - 1) < 0) return undefined;
  }
  if (y < 100 || mo < 1 || mo > 12 || d < 1 || d > daysInMonth(y, mo) || h < 0 || h > 23) return undefined;
  if (mi < 0 || mi > 59 || s < 0 || s > 59 || fraction < 0) return undefined;
  const micros = Date.UTC(y, mo - 1, d, h, mi, s) * 1000 + fraction;
  return Number.isSafeInteger(micros) ? BigInt(micros) : undefined;
}

/** The decimal number text[start, end) spells, or -1 when a character there is not a digit. */
function digits(text: string, start: number, end: number): number {
  let value = 0;
  for (let i = start; i < end; i += 1) {
    const digit = text.charCodeAt(i) - 48;
    if (digit < 0 || digit > 9) return -1;
    value = value * 10 + digit;
  }
  return value;
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
