// The ISO 8601 forms the contract accepts (see isIsoTimestamp): a date, or a date and time to at
// most microseconds with an optional `Z` or `±hh:mm` offset; none means UTC.
const parts = /^(\d{4}-\d{2}-\d{2})(?:[T ](\d{2}:\d{2})(?::(\d{2})(?:\.(\d{1,6}))?)?(Z|[+-]\d{2}:\d{2})?)?$/;

/** Microseconds since the epoch of an ISO 8601 timestamp the contract checked; exact to the microsecond. */
export function isoMicros(text: string): bigint {
  const match = parts.exec(text);
  if (!match) throw new RangeError(`Not an ISO 8601 timestamp: ${text}`);
  const [, date, time = '00:00', seconds = '00', fraction = '', offset = 'Z'] = match;
  const millis = Date.parse(`${date}T${time}:${seconds}${offset}`);
  if (Number.isNaN(millis)) throw new RangeError(`Not an ISO 8601 timestamp: ${text}`);
  return BigInt(millis) * 1000n + BigInt(fraction.padEnd(6, '0'));
}
