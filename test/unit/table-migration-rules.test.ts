import { DuckDBInstance } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import { tableSourceSchema } from '../../src/endpoints/table-source.js';
import { ensureWarehouseTables } from '../../src/storage/warehouse-tables.js';

// BigQuery's type changes on a table with rows (ALTER COLUMN ... SET DATA TYPE: INT64 to NUMERIC,
// BIGNUMERIC or FLOAT64; NUMERIC to BIGNUMERIC or FLOAT64; a parameterized NUMERIC to one keeping
// its integer and fraction digits), each tried on an in-memory store holding one row.

type Column = Record<string, unknown>;

async function change(
  from: Column,
  to: Column,
): Promise<{ ok: true; value: unknown } | { ok: false; line: string }> {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  const source = (column: Column) =>
    tableSourceSchema.parse({ kind: 'table', name: 't', columns: [{ name: 'c', ...column }] });
  try {
    await ensureWarehouseTables(connection, [source(from)]);
    await connection.run(`INSERT INTO t VALUES (${from.mode === 'REPEATED' ? '[12]' : '12'})`);
    try {
      await ensureWarehouseTables(connection, [source(to)]);
    } catch (error) {
      return { ok: false, line: (error as Error).message.split('\n')[1]?.trim() ?? '' };
    }
    return {
      ok: true,
      value: (await connection.runAndReadAll('SELECT CAST(c AS VARCHAR) FROM t')).getRows()[0]?.[0],
    };
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

describe("BigQuery's type changes on a table source", () => {
  it.each([
    [{ type: 'INT64' }, { type: 'FLOAT64' }, '12.0'],
    [{ type: 'INT64' }, { type: 'NUMERIC' }, '12.000000000'],
    [{ type: 'INT64' }, { type: 'BIGNUMERIC', precision: 38, scale: 9 }, '12.000000000'],
    [{ type: 'NUMERIC' }, { type: 'FLOAT64' }, '12.0'],
    [{ type: 'NUMERIC', precision: 10, scale: 2 }, { type: 'NUMERIC', precision: 12, scale: 3 }, '12.000'],
    [{ type: 'NUMERIC' }, { type: 'BIGNUMERIC', precision: 38, scale: 9 }, '12.000000000'],
    [{ type: 'INT64', mode: 'REQUIRED' }, { type: 'INT64', mode: 'NULLABLE' }, '12'],
  ])('widens %j to %j keeping the value', async (from, to, value) => {
    expect(await change(from, to)).toEqual({ ok: true, value });
  });

  it.each([
    [{ type: 'FLOAT64' }, { type: 'NUMERIC' }, 't.c: declared NUMERIC, stored FLOAT64: '],
    [
      { type: 'NUMERIC', precision: 10, scale: 2 },
      { type: 'NUMERIC', precision: 10, scale: 3 },
      't.c: declared NUMERIC(10, 3), stored NUMERIC(10, 2): ',
    ],
    [
      { type: 'INT64' },
      { type: 'NUMERIC', precision: 10, scale: 2 },
      't.c: declared NUMERIC(10, 2), stored INT64: ',
    ],
    [{ type: 'INT64' }, { type: 'STRING' }, 't.c: declared STRING, stored INT64: '],
    [{ type: 'INT64', mode: 'REPEATED' }, { type: 'INT64' }, 't.c: declared INT64, stored ARRAY<INT64>: '],
  ])('refuses %j to %j, naming both types', async (from, to, line) => {
    const outcome = await change(from, to);
    expect(outcome.ok).toBe(false);
    expect(outcome.ok === false && outcome.line).toMatch(new RegExp(`^${line.replace(/[()[\]]/g, '\\$&')}`));
  });
});
