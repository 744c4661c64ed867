import { writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { tableSourceSchema } from '../../src/endpoints/table-source.js';
import { type Database, openDatabase } from '../../src/storage/database.js';
import { importTableFiles } from '../../src/storage/table-import.js';
import { ensureWarehouseTables } from '../../src/storage/warehouse-tables.js';
import {
  expectNoServerErrors,
  type QuerygateUnderTest,
  startQuerygateUnderTest,
} from '../helpers/querygate-server.js';
import { type WarehouseFixture, warehouseDir, writeWarehouseFixture } from '../helpers/warehouse-fixture.js';

// Loading tables as BigQuery exports them: NDJSON (INT64 as strings, TIMESTAMP as text, BYTES as
// base64), Parquet and gzipped CSV, all or nothing; and rows posted over HTTP as they are.
let dir: string;
let fixture: WarehouseFixture;
let database: Database;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'querygate-import-'));
  fixture = writeWarehouseFixture(join(dir, 'export'));
  database = await openDatabase(join(dir, 'store.duckdb'));
  const connection = await database.connect();
  await ensureWarehouseTables(connection, [fixture.ga4, fixture.orders]);
  connection.closeSync();
});

afterAll(async () => {
  database?.close();
  await rm(dir, { recursive: true, force: true });
});

async function rows(sql: string): Promise<Record<string, unknown>[]> {
  const connection = await database.connect();
  try {
    return (await connection.runAndReadAll(sql)).getRowObjectsJson() as Record<string, unknown>[];
  } finally {
    connection.closeSync();
  }
}

async function load(source: Parameters<typeof importTableFiles>[1], files: string[]) {
  const connection = await database.connect();
  try {
    return await importTableFiles(connection, source, files);
  } finally {
    connection.closeSync();
  }
}

const goodEvent = (timestamp: string) =>
  JSON.stringify({
    event_date: '20201205',
    event_timestamp: timestamp,
    event_name: 'page_view',
    event_params: [],
  });

describe('querygate import into a table source', () => {
  it('refuses a file with a bad row naming the file, line and column, and imports none of the files', async () => {
    const good = join(dir, 'good.ndjson');
    const bad = join(dir, 'bad.ndjson');
    writeFileSync(good, `${goodEvent('1607126400000000')}\n`);
    writeFileSync(bad, `${goodEvent('1607126400000001')}\n\n${goodEvent('16071264000x0002')}\n`);
    await expect(load(fixture.ga4, [good, bad])).rejects.toThrow(
      `${bad} line 3: event_timestamp expected an INT64 (a whole number, or its digits in a string), got "16071264000x0002"; nothing was imported`,
    );
    expect(await rows(`SELECT count(*)::INTEGER AS n FROM ga4_events WHERE event_date = '20201205'`)).toEqual(
      [{ n: 0 }],
    );
  });

  it('names the nested field of a bad row: the element of a repeated record and its field', async () => {
    const bad = join(dir, 'nested.ndjson');
    const items = [
      { item_id: 'a', quantity: '1' },
      { item_id: 'b', quantity: 'two' },
    ];
    writeFileSync(bad, `${JSON.stringify({ event_date: '20201205', items })}\n`);
    await expect(load(fixture.ga4, [bad])).rejects.toThrow(/line 1: items\[1\]\.quantity expected an INT64/);
  });

  it('loads the NDJSON export with INT64 strings beyond 2^53 exact, TIMESTAMP text in UTC and BYTES from base64', async () => {
    expect(await load(fixture.orders, [fixture.ordersFile])).toBe(120);
    const exported = JSON.parse(
      (await import('node:fs')).readFileSync(fixture.ordersFile, 'utf8').split('\n')[0] as string,
    );
    const [stored] = await rows(
      `SELECT strftime(created_at, '%Y-%m-%d %H:%M:%S.%f UTC') AS created_at, CAST(receipt AS VARCHAR) AS receipt, CAST(total AS VARCHAR) AS total FROM orders WHERE order_id = '${exported.order_id}'`,
    );
    expect(stored).toEqual({
      created_at: exported.created_at,
      receipt: Buffer.from(exported.receipt, 'base64').toString(),
      total: Number(exported.total).toFixed(2),
    });
    const big = join(dir, 'big.ndjson');
    writeFileSync(
      big,
      `${JSON.stringify({ event_date: '20201206', event_timestamp: '9007199254740993' })}\n`,
    );
    await load(fixture.ga4, [big]);
    expect(
      await rows(
        `SELECT CAST(event_timestamp AS VARCHAR) AS t FROM ga4_events WHERE event_date = '20201206'`,
      ),
    ).toEqual([{ t: '9007199254740993' }]);
  });

  it('loads a Parquet export (as BigQuery writes one, typed columns) to the same rows as the NDJSON export', async () => {
    const parquet = join(dir, 'orders.parquet');
    // The Parquet file is written by plain DuckDB from the export, with BigQuery's Parquet types.
    const instance = await DuckDBInstance.create(':memory:');
    const writer = await instance.connect();
    await writer.run(`SET TimeZone = 'UTC'`);
    await writer.run(
      `COPY (SELECT order_id, customer_id, CAST(created_at AS TIMESTAMPTZ) AS created_at, order_date, status, total, currency, is_gift, tags, shipping, lines, attributes, from_base64(receipt) AS receipt
        FROM read_json('${fixture.ordersFile}', format = 'newline_delimited', columns = {order_id: 'VARCHAR', customer_id: 'VARCHAR', created_at: 'VARCHAR', order_date: 'DATE', status: 'VARCHAR', total: 'DECIMAL(12,2)', currency: 'VARCHAR', is_gift: 'BOOLEAN', tags: 'VARCHAR[]', shipping: 'STRUCT(method VARCHAR, address STRUCT(city VARCHAR, country VARCHAR, postal_code VARCHAR), shipped_at TIMESTAMP, window_start TIME)', lines: 'STRUCT(sku VARCHAR, quantity BIGINT, unit_price DECIMAL(12,2))[]', attributes: 'VARCHAR', receipt: 'VARCHAR'}))
        TO '${parquet}' (FORMAT parquet)`,
    );
    writer.closeSync();
    instance.closeSync();
    const connection = await database.connect();
    await connection.run(`CREATE TABLE orders_from_ndjson AS SELECT * FROM orders`);
    await connection.run(`DELETE FROM orders`);
    connection.closeSync();
    expect(await load(fixture.orders, [parquet])).toBe(120);
    expect(
      await rows(
        `SELECT count(*)::INTEGER AS differing FROM (SELECT * FROM orders EXCEPT SELECT * FROM orders_from_ndjson)`,
      ),
    ).toEqual([{ differing: 0 }]);
  });

  it('loads a gzipped CSV export of a flat table, DATETIME over its whole range, and refuses CSV for a table with records', async () => {
    const flat = tableSourceSchema.parse({
      kind: 'table',
      name: 'payments',
      columns: [
        { name: 'id', type: 'INT64', mode: 'REQUIRED' },
        { name: 'paid_at', type: 'TIMESTAMP' },
        { name: 'amount', type: 'NUMERIC' },
        { name: 'ok', type: 'BOOL' },
        { name: 'day', type: 'DATE' },
        { name: 'valid_to', type: 'DATETIME' },
      ],
    });
    const connection = await database.connect();
    await ensureWarehouseTables(connection, [flat]);
    connection.closeSync();
    const csv = join(dir, 'payments.csv.gz');
    writeFileSync(
      csv,
      gzipSync(
        'id,paid_at,amount,ok,day,valid_to\n9223372036854775807,2024-01-31 23:59:59.999999 UTC,12.345,true,2024-01-31,9999-12-31T23:59:59.999999\n2,,,false,,0001-01-01T00:00:00\n',
      ),
    );
    expect(await load(flat, [csv])).toBe(2);
    expect(
      await rows(
        `SELECT CAST(id AS VARCHAR) AS id, CAST(paid_at AS VARCHAR) AS paid_at, CAST(amount AS VARCHAR) AS amount, ok, CAST(day AS VARCHAR) AS day, CAST(valid_to AS VARCHAR) AS valid_to FROM payments ORDER BY ok DESC`,
      ),
    ).toEqual([
      {
        id: '9223372036854775807',
        paid_at: '2024-01-31 23:59:59.999999',
        amount: '12.345000000',
        ok: true,
        day: '2024-01-31',
        // BigQuery's last and first DATETIME (data-types.md), TIMESTAMPTZ text in the zone, UTC.
        valid_to: '9999-12-31 23:59:59.999999+00',
      },
      { id: '2', paid_at: null, amount: null, ok: false, day: null, valid_to: '0001-01-01 00:00:00+00' },
    ]);
    // Parquet holds a DATETIME as a TIMESTAMP (no zone): plain DuckDB writes BigQuery's last one.
    const parquet = join(dir, 'payments.parquet');
    const instance = await DuckDBInstance.create(':memory:');
    const writer = await instance.connect();
    await writer.run(
      `COPY (SELECT 3::BIGINT AS id, NULL::TIMESTAMP AS paid_at, NULL::DECIMAL(38, 9) AS amount, NULL::BOOLEAN AS ok, NULL::DATE AS day, TIMESTAMP '9999-12-31 23:59:59.999999' AS valid_to) TO '${parquet}' (FORMAT parquet)`,
    );
    writer.closeSync();
    instance.closeSync();
    expect(await load(flat, [parquet])).toBe(1);
    expect(await rows(`SELECT CAST(valid_to AS VARCHAR) AS valid_to FROM payments WHERE id = 3`)).toEqual([
      { valid_to: '9999-12-31 23:59:59.999999+00' },
    ]);
    await expect(load(fixture.orders, [csv.replace('payments', 'orders')])).rejects.toThrow(/no such file/);
    writeFileSync(join(dir, 'orders.csv'), 'order_id\nx\n');
    await expect(load(fixture.orders, [join(dir, 'orders.csv')])).rejects.toThrow(/CSV cannot hold/);
  });

  it('refuses DATE, DATETIME and TIME text with an offset or more than the type holds, naming the line or the value, and stores none of it', async () => {
    // BigQuery's civil types have no zone: its load jobs refuse `+02:00` on a DATETIME, which
    // DuckDB's cast would drop or shift by, and a time of day on a DATE, which the cast drops.
    const civil = tableSourceSchema.parse({
      kind: 'table',
      name: 'civil_times',
      columns: [
        { name: 'day', type: 'DATE' },
        { name: 'seen_at', type: 'DATETIME' },
        { name: 'opens', type: 'TIME' },
      ],
    });
    const connection = await database.connect();
    await ensureWarehouseTables(connection, [civil]);
    connection.closeSync();
    const good = { day: '2024-01-31', seen_at: '2024-01-31T10:00:00', opens: '09:30:00' };
    const cases: [Partial<typeof good>, string][] = [
      [{ seen_at: '2024-01-31T10:00:00+02:00' }, 'seen_at expected a DATETIME'],
      [{ seen_at: '2024-01-31 10:00:00 UTC' }, 'seen_at expected a DATETIME'],
      [{ day: '2024-01-31 10:00:00' }, 'day expected a DATE'],
      [{ opens: '09:30:00+01' }, 'opens expected a TIME'],
    ];
    for (const [change, named] of cases) {
      const ndjson = join(dir, 'civil.ndjson');
      writeFileSync(ndjson, `${JSON.stringify(good)}\n${JSON.stringify({ ...good, ...change })}\n`);
      await expect(load(civil, [ndjson])).rejects.toThrow(`line 2: ${named}`);
      const [[column, value]] = Object.entries(change) as [[string, string]];
      const csv = join(dir, 'civil.csv');
      const line = (row: Record<string, string>) => `${row.day},${row.seen_at},${row.opens}`;
      writeFileSync(csv, `day,seen_at,opens\n${line(good)}\n${line({ ...good, ...change })}\n`);
      await expect(load(civil, [csv])).rejects.toThrow(`${csv}: ${column}: ${value} is not BigQuery's`);
    }
    expect(await rows('SELECT count(*)::INTEGER AS n FROM civil_times')).toEqual([{ n: 0 }]);
    // The same text without the offset loads, as it reads.
    const ndjson = join(dir, 'civil.ndjson');
    writeFileSync(ndjson, `${JSON.stringify(good)}\n`);
    expect(await load(civil, [ndjson])).toBe(1);
    expect(
      await rows(
        'SELECT CAST(day AS VARCHAR) AS day, CAST(seen_at AS VARCHAR) AS seen_at, CAST(opens AS VARCHAR) AS opens FROM civil_times',
      ),
    ).toEqual([{ day: '2024-01-31', seen_at: '2024-01-31 10:00:00+00', opens: '09:30:00' }]);
  });
});

describe('HTTP ingestion into a table source', () => {
  let service: QuerygateUnderTest;
  beforeAll(async () => {
    service = await startQuerygateUnderTest({
      now: new Date('2020-12-10T00:00:00Z'),
      environment: { QUERYGATE_QUERIES_DIR: warehouseDir },
    });
  });
  afterAll(async () => {
    if (service) expectNoServerErrors(service);
    await service?.close();
  });

  it('stores rows as they are, without event_message, and serves them typed', async () => {
    const order = {
      order_id: 'A-1',
      created_at: '2020-12-01T10:00:00Z',
      total: '10.50',
      tags: ['vip'],
      shipping: {
        method: 'express',
        address: { city: 'Berlin', country: 'Germany', postal_code: '10115' },
        shipped_at: '2020-12-02T09:00:00',
        window_start: '08:30:00',
      },
      receipt: Buffer.from('r').toString('base64'),
    };
    const unshipped = { order_id: 'A-2', created_at: '2020-12-01 11:00:00 UTC', total: 3 };
    const ingested = await service.ingest('orders', [order, unshipped]);
    expect(ingested.status, ingested.text).toBe(200);
    expect(ingested.body).toEqual({ message: 'Logged!', ingested: 2 });
    const response = await service.get('/api/endpoints/orders.shipping');
    expect(response.status).toBe(200);
    expect((response.body as { result: unknown[] }).result).toEqual([
      { order_id: 'A-1', shipping: order.shipping, tags: ['vip'], is_gift: null },
      { order_id: 'A-2', shipping: null, tags: [], is_gift: null },
    ]);
  });

  it('refuses a batch with a bad row with 400 naming the row and column, and stores none of it', async () => {
    const response = await service.ingest('orders', [
      { order_id: 'B-1', created_at: '2020-12-01T10:00:00Z' },
      { order_id: 'B-2', created_at: '2020-12-01T10:00:00Z', shipping: { address: { postal_code: 10115 } } },
    ]);
    expect(response.status).toBe(400);
    expect(response.text).toContain(
      'Row 1, column shipping.address.postal_code: expected a string, got 10115',
    );
    const missing = await service.ingest('orders', [{ order_id: 'B-3' }]);
    expect(missing.status).toBe(400);
    expect(missing.text).toContain('Row 0, column created_at: is REQUIRED but missing or null');
    const after = await service.get('/api/endpoints/orders.shipping');
    expect(JSON.stringify(after.body)).not.toContain('B-1');
  });
});
