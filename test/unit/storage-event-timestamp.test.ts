import { describe, expect, it } from 'vitest';
import { parseEventTimestamp } from '../../src/storage/event-timestamp.js';

// 2024-05-01T12:34:56Z in milliseconds, from the calendar rather than from the code under test.
const baseMs = Date.UTC(2024, 4, 1, 12, 34, 56);
const micros = (ms: number, extraMicros = 0) => BigInt(ms) * 1000n + BigInt(extraMicros);

describe('parseEventTimestamp', () => {
  it('reads ISO 8601 in UTC with microseconds', () => {
    expect(parseEventTimestamp('2024-05-01T12:34:56.789012Z')).toBe(micros(baseMs, 789012));
  });

  it('converts a positive and a negative offset to UTC', () => {
    expect(parseEventTimestamp('2024-05-01T14:34:56.5+02:00')).toBe(micros(baseMs, 500000));
    expect(parseEventTimestamp('2024-05-01T07:04:56-0530')).toBe(micros(baseMs));
  });

  it('reads a timestamp without an offset as UTC and a space for the T', () => {
    expect(parseEventTimestamp('2024-05-01 12:34:56')).toBe(micros(baseMs));
  });

  it('truncates nanoseconds to microseconds', () => {
    expect(parseEventTimestamp('2024-05-01T12:34:56.123456789Z')).toBe(micros(baseMs, 123456));
  });

  it('tells seconds, milliseconds and microseconds apart by magnitude', () => {
    expect(parseEventTimestamp(baseMs / 1000)).toBe(micros(baseMs));
    expect(parseEventTimestamp(baseMs + 789)).toBe(micros(baseMs + 789));
    expect(parseEventTimestamp(baseMs * 1000 + 789012)).toBe(micros(baseMs, 789012));
    expect(parseEventTimestamp(String(baseMs / 1000))).toBe(micros(baseMs));
  });

  it('reads one to nine fraction digits before Z, short ones as tenths and hundredths', () => {
    expect(parseEventTimestamp('2024-05-01T12:34:56.1Z')).toBe(micros(baseMs, 100000));
    expect(parseEventTimestamp('2024-05-01T12:34:56.12Z')).toBe(micros(baseMs, 120000));
    expect(parseEventTimestamp('2024-05-01T12:34:56.1234567Z')).toBe(micros(baseMs, 123456));
    expect(parseEventTimestamp('2024-05-01t12:34:56.5z')).toBe(micros(baseMs, 500000));
  });

  it('reads a time after 2255 exactly, where microseconds exceed 2^53', () => {
    const ms = Date.UTC(2300, 0, 1, 0, 0, 1);
    expect(parseEventTimestamp('2300-01-01T00:00:01.000001Z')).toBe(micros(ms, 1));
  });

  it('refuses a UTC timestamp with a stray character in its digits or an empty fraction', () => {
    for (const text of [
      '2024-05-01T12:34:5a.1Z',
      '2024-05-01T12:34:56.12345x789Z',
      '2024-05-01T12:34:56.123456x89Z',
      '2024-05-01T12:34:56.Z',
      '2024-05-01T12:34:56.1234567890Z',
      '2024-05-01T12:60:56Z',
      '2023-02-29T00:00:00Z',
    ]) {
      expect(parseEventTimestamp(text), text).toBeUndefined();
    }
  });

  it('reads years before 100 without moving them to the 1900s', () => {
    expect(parseEventTimestamp('0042-01-01T00:00:00Z')).toBe(
      BigInt(new Date('0042-01-01T00:00:00Z').getTime()) * 1000n,
    );
  });

  it('refuses impossible dates, bad offsets and other text', () => {
    for (const text of [
      '2024-02-30T00:00:00Z',
      '2024-13-01T00:00:00Z',
      '2024-05-01T24:00:00Z',
      '2024-05-01T00:00:00+25:00',
      'yesterday',
      '2024-05-01',
      '',
    ]) {
      expect(parseEventTimestamp(text), text).toBeUndefined();
    }
  });

  // BigQuery's TIMESTAMP runs from 0001-01-01 00:00:00 to 9999-12-31 23:59:59.999999 UTC
  // (https://cloud.google.com/bigquery/docs/reference/standard-sql/data-types#timestamp_type).
  it("takes both ends of BigQuery's TIMESTAMP range", () => {
    expect(parseEventTimestamp('0001-01-01T00:00:00Z')).toBe(micros(Date.parse('0001-01-01T00:00:00Z')));
    expect(parseEventTimestamp(-62135596800)).toBe(micros(Date.parse('0001-01-01T00:00:00Z')));
    expect(parseEventTimestamp('9999-12-31T23:59:59.999999Z')).toBe(
      micros(Date.UTC(9999, 11, 31, 23, 59, 59), 999999),
    );
  });

  it("refuses times before 0001-01-01 or after 9999-12-31 UTC, as BigQuery's TIMESTAMP does", () => {
    for (const value of [
      '0000-12-31T23:59:59.999999Z',
      '0000-06-01T00:00:00',
      '0001-01-01T00:00:00+00:01',
      '9999-12-31T23:59:59-00:01',
      -62135596801,
      '-62135596801',
      -62135596800001,
    ]) {
      expect(parseEventTimestamp(value), String(value)).toBeUndefined();
    }
  });

  it('refuses numbers too large for microseconds and non-finite numbers', () => {
    expect(parseEventTimestamp(1e18)).toBeUndefined();
    expect(parseEventTimestamp(Number.NaN)).toBeUndefined();
  });
});
