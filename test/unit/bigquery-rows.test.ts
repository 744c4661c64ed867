import { describe, expect, it } from 'vitest';
import {
  civilDateTime,
  decodeColumns,
  decodeWireRows,
  describeWireSchema,
  timestampMicros,
  type WireSchema,
} from '../../src/backends/bigquery/rows.js';

describe('decoding BigQuery wire rows', () => {
  it('reads TIMESTAMP integer microseconds (useInt64Timestamp) as they are', () => {
    expect(timestampMicros('1773136800123456')).toBe(1_773_136_800_123_456);
  });

  it('reads TIMESTAMP float seconds in E notation to the exact microsecond', () => {
    // 1773136800.123457 s: a double holds it only to about 0.2 µs, so it is read as digits.
    expect(timestampMicros('1.773136800123457E9')).toBe(1_773_136_800_123_457);
    expect(timestampMicros('1.7731368E9')).toBe(1_773_136_800_000_000);
    expect(timestampMicros('1773136800.5')).toBe(1_773_136_800_500_000);
    expect(timestampMicros('-1.5E-1')).toBe(-150_000);
    expect(timestampMicros('0.0')).toBe(0);
  });

  it('reads TIMESTAMP microseconds past 2^53 exactly, to the last one BigQuery holds', () => {
    // 9999-12-31 23:59:59.999999 UTC, the end of BigQuery's range, in both of its wire forms.
    const last = BigInt(Date.UTC(9999, 11, 31, 23, 59, 59)) * 1000n + 999999n;
    expect(timestampMicros(String(last))).toBe(last);
    expect(timestampMicros('2.53402300799999999E11')).toBe(last);
  });

  it('writes DATETIME as YYYY-MM-DDTHH:MM:SS with six fraction digits only when there is a fraction', () => {
    expect(civilDateTime('2026-03-10T00:00:00')).toBe('2026-03-10T00:00:00');
    expect(civilDateTime('2026-03-10 00:00:00.000000')).toBe('2026-03-10T00:00:00');
    expect(civilDateTime('2026-03-10T12:34:56.5')).toBe('2026-03-10T12:34:56.500000');
    expect(civilDateTime('2026-03-10T12:34:56.123456')).toBe('2026-03-10T12:34:56.123456');
  });

  const schema: WireSchema = {
    fields: [
      { name: 'id', type: 'STRING', mode: 'NULLABLE' },
      { name: 'ts', type: 'TIMESTAMP', mode: 'NULLABLE' },
      { name: 'civil', type: 'DATETIME', mode: 'NULLABLE' },
      { name: 'small', type: 'INTEGER', mode: 'NULLABLE' },
      { name: 'big', type: 'INT64', mode: 'NULLABLE' },
      { name: 'ratio', type: 'FLOAT', mode: 'NULLABLE' },
      { name: 'flag', type: 'BOOLEAN', mode: 'NULLABLE' },
      { name: 'tags', type: 'STRING', mode: 'REPEATED' },
      {
        name: 'metadata',
        type: 'RECORD',
        mode: 'REPEATED',
        fields: [
          { name: 'project', type: 'STRING', mode: 'NULLABLE' },
          {
            name: 'response',
            type: 'RECORD',
            mode: 'REPEATED',
            fields: [{ name: 'status_code', type: 'INTEGER', mode: 'NULLABLE' }],
          },
        ],
      },
      {
        name: 'single',
        type: 'RECORD',
        mode: 'NULLABLE',
        fields: [{ name: 'n', type: 'INTEGER', mode: 'NULLABLE' }],
      },
    ],
  };

  it('maps BigQuery types to the engine-neutral column types', () => {
    expect(decodeColumns(schema)).toEqual([
      { name: 'id', type: 'STRING' },
      { name: 'ts', type: 'TIMESTAMP' },
      { name: 'civil', type: 'DATETIME' },
      { name: 'small', type: 'INT64' },
      { name: 'big', type: 'INT64' },
      { name: 'ratio', type: 'FLOAT64' },
      { name: 'flag', type: 'BOOL' },
      { name: 'tags', type: 'RECORD' },
      { name: 'metadata', type: 'RECORD' },
      { name: 'single', type: 'RECORD' },
    ]);
  });

  it('decodes scalars, INT64 beyond 2^53 as bigint, and repeated records as arrays of objects', () => {
    const rows = decodeWireRows(schema, [
      {
        f: [
          { v: 'a' },
          { v: '1773136800123456' },
          { v: '2026-03-10T00:00:00' },
          { v: '42' },
          { v: '9007199254740993' },
          { v: '0.1' },
          { v: 'true' },
          { v: [{ v: 'x' }, { v: 'y' }] },
          { v: [{ v: { f: [{ v: 'p1' }, { v: [{ v: { f: [{ v: '404' }] } }] }] } }] },
          { v: { f: [{ v: '7' }] } },
        ],
      },
    ]);
    expect(rows).toEqual([
      {
        id: 'a',
        ts: 1_773_136_800_123_456,
        civil: '2026-03-10T00:00:00',
        small: 42,
        big: 9_007_199_254_740_993n,
        ratio: 0.1,
        flag: true,
        tags: ['x', 'y'],
        metadata: [{ project: 'p1', response: [{ status_code: 404 }] }],
        // A lone RECORD is one STRUCT, an object, as BigQuery answers it (log tables hold objects REPEATED).
        single: { n: 7 },
      },
    ]);
  });

  it('decodes NULL scalars as null, empty or NULL repeated records as empty arrays and a NULL lone record as null', () => {
    const rows = decodeWireRows(schema, [
      {
        f: [
          { v: null },
          { v: null },
          { v: null },
          { v: null },
          { v: null },
          { v: null },
          { v: 'false' },
          { v: [] },
          { v: [{ v: { f: [{ v: null }, { v: [] }] } }] },
          { v: null },
        ],
      },
    ]);
    expect(rows).toEqual([
      {
        id: null,
        ts: null,
        civil: null,
        small: null,
        big: null,
        ratio: null,
        flag: false,
        tags: [],
        metadata: [{ project: null, response: [] }],
        single: null,
      },
    ]);
  });

  it('keeps object keys in schema order, so the JSON of a row is the same on both engines', () => {
    const [row] = decodeWireRows(schema, [{ f: schema.fields?.map(() => ({ v: null })) ?? [] }]);
    expect(Object.keys(row ?? {})).toEqual(schema.fields?.map((field) => field.name));
  });
});

describe('NUMERIC and BIGNUMERIC from BigQuery', () => {
  const schema = {
    fields: [
      { name: 'total', type: 'NUMERIC', mode: 'NULLABLE' },
      { name: 'huge', type: 'BIGNUMERIC', mode: 'NULLABLE' },
    ],
  };
  // BigQuery's REST API sends both as strings, so the digits arrive whole.
  const row = { f: [{ v: '12345678901234567890123456789.123456789' }, { v: '-0.5' }] };

  it('are exact NUMERIC text in queries over table sources', () => {
    expect(decodeColumns(schema, 'objects')).toEqual([
      { name: 'total', type: 'NUMERIC' },
      { name: 'huge', type: 'NUMERIC' },
    ]);
    expect(describeWireSchema(schema, 'objects').map((column) => column.type)).toEqual([
      'NUMERIC',
      'NUMERIC',
    ]);
    expect(decodeWireRows(schema, [row], 'objects')).toEqual([
      { total: '12345678901234567890123456789.123456789', huge: '-0.5' },
    ]);
  });

  it("stay FLOAT64 numbers on the log sources' wire", () => {
    expect(decodeColumns(schema).map((column) => column.type)).toEqual(['FLOAT64', 'FLOAT64']);
    expect(decodeWireRows(schema, [row])[0]?.huge).toBe(-0.5);
  });
});
