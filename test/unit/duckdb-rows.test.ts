import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeRows } from '../../src/backends/duckdb/rows.js';
import { type Database, openDatabase } from '../../src/storage/database.js';

let database: Database;
beforeAll(async () => {
  database = await openDatabase(':memory:');
});
afterAll(() => database.close());

async function decode(sql: string, wire: 'repeated' | 'objects' = 'repeated') {
  const connection = await database.connect();
  try {
    return decodeRows(await connection.runAndReadAll(sql), 100, wire);
  } finally {
    connection.closeSync();
  }
}

describe('DuckDB results in BigQuery terms', () => {
  it('returns an array of objects as objects, and their nested objects as one-element arrays', async () => {
    const { rows, columns } = await decode(
      "SELECT [{'a': 1, 'inner': {'b': 'x'}}, {'a': 2, 'inner': NULL}] AS items, {'c': [1, 2]} AS object",
    );
    expect(rows).toEqual([
      {
        items: [
          { a: 1, inner: [{ b: 'x' }] },
          { a: 2, inner: [] },
        ],
        object: [{ c: [1, 2] }],
      },
    ]);
    expect(columns).toEqual([
      { name: 'items', type: 'RECORD' },
      { name: 'object', type: 'RECORD' },
    ]);
  });

  it('keeps INT64 values beyond 2^53 exact as bigint and smaller ones as numbers', async () => {
    const { rows } = await decode(
      'SELECT 9007199254740993::BIGINT AS big, 42::BIGINT AS small, 1.5::DOUBLE AS float',
    );
    expect(rows).toEqual([{ big: 9007199254740993n, small: 42, float: 1.5 }]);
  });

  it('returns TIMESTAMP as epoch microseconds and TIMESTAMP_NS (DATETIME) as BigQuery text', async () => {
    const { rows, columns } = await decode(
      "SELECT TIMESTAMP '2026-01-02 03:04:05.000006' AS ts, CAST(TIMESTAMP '2026-01-02 03:04:05' AS TIMESTAMP_NS) AS civil",
    );
    expect(rows).toEqual([{ ts: Date.UTC(2026, 0, 2, 3, 4, 5) * 1000 + 6, civil: '2026-01-02T03:04:05' }]);
    expect(columns.map((column) => column.type)).toEqual(['TIMESTAMP', 'DATETIME']);
  });

  it("returns TIMESTAMPTZ, the translator's DATETIME, as BigQuery text over the whole range and before 1970", async () => {
    const { rows, columns } = await decode(
      "SELECT TIMESTAMPTZ '9999-12-31 23:59:59.999999' AS top, TIMESTAMPTZ '0001-01-01 00:00:00' AS bottom, TIMESTAMPTZ '1969-12-31 23:59:59.999999' AS before",
    );
    expect(rows).toEqual([
      {
        top: '9999-12-31T23:59:59.999999',
        bottom: '0001-01-01T00:00:00',
        before: '1969-12-31T23:59:59.999999',
      },
    ]);
    expect(columns.map((column) => column.type)).toEqual(['DATETIME', 'DATETIME', 'DATETIME']);
  });

  it('stops at max rows', async () => {
    expect((await decode('SELECT * FROM range(10)')).rows).toHaveLength(10);
    const connection = await database.connect();
    const limited = decodeRows(await connection.runAndReadAll('SELECT * FROM range(10)'), 3);
    connection.closeSync();
    expect(limited.rows).toHaveLength(3);
  });

  it('answers a DECIMAL over table sources as an exact NUMERIC in decimal text, over log sources as a FLOAT64 number', async () => {
    // 38 significant digits: a double would keep 17 of them.
    const sql =
      "SELECT CAST('12345678901234567890123456789.123456789' AS DECIMAL(38, 9)) AS total, CAST('2.50' AS DECIMAL(12, 2)) AS price";
    const objects = await decode(sql, 'objects');
    expect(objects.columns).toEqual([
      { name: 'total', type: 'NUMERIC' },
      { name: 'price', type: 'NUMERIC' },
    ]);
    expect(objects.rows).toEqual([{ total: '12345678901234567890123456789.123456789', price: '2.5' }]);
    const repeated = await decode(sql);
    expect(repeated.columns.map((column) => column.type)).toEqual(['FLOAT64', 'FLOAT64']);
    expect(repeated.rows[0]?.price).toBe(2.5);
  });
});
