import { describe, expect, it } from 'vitest';
import {
  DateTimeScalar,
  DecimalScalar,
  dateTimeText,
  jsonValue,
  LocalDateTimeScalar,
} from '../../src/graphql/scalars.js';

describe('DateTime input', () => {
  it('keeps microseconds and the offset as given', () => {
    expect(DateTimeScalar.parseValue('2026-03-10T12:00:00.123456Z')).toBe('2026-03-10T12:00:00.123456Z');
    expect(DateTimeScalar.parseValue('2026-03-10T14:00:00.5+02:00')).toBe('2026-03-10T14:00:00.5+02:00');
  });

  it('cuts fraction digits beyond microseconds and upper-cases T and Z', () => {
    expect(DateTimeScalar.parseValue('2026-03-10t12:00:00.123456789z')).toBe('2026-03-10T12:00:00.123456Z');
  });

  it('refuses a date without a time, a time without an offset, and text that is no date', () => {
    for (const value of ['2026-03-10', '2026-03-10T12:00:00', 'yesterday', '2026-02-30T00:00:00Z']) {
      expect(() => DateTimeScalar.parseValue(value), value).toThrow(/DateTime cannot represent/);
    }
  });

  it('refuses a literal that is not a string', () => {
    expect(() => DateTimeScalar.parseLiteral({ kind: 'IntValue', value: '5' } as never, undefined)).toThrow(
      /non-string/,
    );
  });
});

describe('DateTime output', () => {
  it('writes TIMESTAMP microseconds as UTC ISO 8601 with the fraction digits that carry information', () => {
    // 2026-03-10T12:00:00Z is 1773144000 s after the epoch.
    expect(dateTimeText(1_773_144_000_000_000, 'TIMESTAMP')).toBe('2026-03-10T12:00:00Z');
    expect(dateTimeText(1_773_144_000_000_001, 'TIMESTAMP')).toBe('2026-03-10T12:00:00.000001Z');
    expect(dateTimeText(1_773_144_000_123_456n, 'TIMESTAMP')).toBe('2026-03-10T12:00:00.123456Z');
    expect(dateTimeText(1_773_144_000_500_000, 'TIMESTAMP')).toBe('2026-03-10T12:00:00.5Z');
  });

  it('writes instants before 1970 correctly', () => {
    expect(dateTimeText(-1, 'TIMESTAMP')).toBe('1969-12-31T23:59:59.999999Z');
    expect(dateTimeText(-1_000_000, 'TIMESTAMP')).toBe('1969-12-31T23:59:59Z');
    expect(dateTimeText(-1_500_000, 'TIMESTAMP')).toBe('1969-12-31T23:59:58.5Z');
  });

  it('reads a DATETIME its contract declares computed in UTC as UTC', () => {
    expect(dateTimeText('2026-03-10T12:00:00', 'DATETIME')).toBe('2026-03-10T12:00:00Z');
  });

  it('passes its own text through serialize and turns a Date into ISO 8601', () => {
    expect(DateTimeScalar.serialize('2026-03-10T12:00:00.000001Z')).toBe('2026-03-10T12:00:00.000001Z');
    expect(DateTimeScalar.serialize(new Date(Date.UTC(2026, 2, 10, 12)))).toBe('2026-03-10T12:00:00.000Z');
  });
});

describe('LocalDateTime (BigQuery DATETIME)', () => {
  it('answers civil time as BigQuery writes it, with no zone added', () => {
    // BigQuery's DATETIME literal example: DATETIME '2014-09-27 12:30:00.45' is civil time.
    expect(LocalDateTimeScalar.serialize('2014-09-27T12:30:00.450000')).toBe('2014-09-27T12:30:00.450000');
    expect(LocalDateTimeScalar.serialize('2014-09-27T12:30:00')).toBe('2014-09-27T12:30:00');
    expect(LocalDateTimeScalar.parseValue('2014-09-27T12:30:00.000001')).toBe('2014-09-27T12:30:00.000001');
  });

  it('refuses a value with a zone or offset, more than six fraction digits, or no time', () => {
    for (const value of [
      '2014-09-27T12:30:00Z',
      '2014-09-27T12:30:00+02:00',
      '2014-09-27T12:30:00.1234567',
      '2014-09-27',
      '2014-09-27 12:30:00',
      1_411_821_000_000,
    ]) {
      expect(() => LocalDateTimeScalar.serialize(value), String(value)).toThrow(
        /LocalDateTime cannot represent/,
      );
      expect(() => LocalDateTimeScalar.parseValue(value), String(value)).toThrow(
        /LocalDateTime cannot represent/,
      );
    }
  });
});

describe('JSON values', () => {
  it('writes an INT64 beyond 2^53 as its decimal digits, exactly', () => {
    expect(jsonValue([{ big: 9_007_199_254_740_993n, small: 3 }])).toEqual([
      { big: '9007199254740993', small: 3 },
    ]);
  });

  it('keeps a field named __proto__ as a field', () => {
    const value = jsonValue(JSON.parse('{"__proto__": {"polluted": 1}}')) as Record<string, unknown>;
    expect(Object.keys(value)).toEqual(['__proto__']);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });
});

describe('Decimal', () => {
  it('answers a NUMERIC as its exact text, past the 17 digits a Float keeps', () => {
    expect(DecimalScalar.serialize('12345678901234567890123456789.123456789')).toBe(
      '12345678901234567890123456789.123456789',
    );
    expect(DecimalScalar.serialize('-0.5')).toBe('-0.5');
    expect(DecimalScalar.serialize(12)).toBe('12');
  });

  it('refuses what is not plain decimal text, so a field error names the value', () => {
    for (const value of ['1e5', 'NaN', '', '1.', 'twelve', Number.NaN, 1e21, true])
      expect(() => DecimalScalar.serialize(value), String(value)).toThrow(/Decimal cannot represent/);
  });

  it('takes a string, integer or float literal as input', () => {
    expect(DecimalScalar.parseLiteral({ kind: 'StringValue', value: '1.25' } as never, undefined)).toBe(
      '1.25',
    );
    expect(DecimalScalar.parseLiteral({ kind: 'IntValue', value: '7' } as never, undefined)).toBe('7');
    expect(() =>
      DecimalScalar.parseLiteral({ kind: 'BooleanValue', value: true } as never, undefined),
    ).toThrow(/non-numeric/);
  });
});
