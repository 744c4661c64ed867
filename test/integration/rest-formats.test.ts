import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse as parseCsv } from 'csv-parse/sync';
import { GraphQLClient } from 'graphql-request';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Querygate } from '../../src/server.js';
import {
  type BigQueryHarness,
  startBigQueryHarness,
  startQuerygateOnBigQuery,
} from '../helpers/bigquery-harness.js';
import {
  expectNoServerErrors,
  type QuerygateUnderTest,
  startQuerygateUnderTest,
  testApiKey,
} from '../helpers/querygate-server.js';
import {
  createOracle,
  importWarehouseFixture,
  type Oracle,
  prepareWarehouseStore,
  type WarehouseFixture,
  warehouseDir,
  writeWarehouseFixture,
} from '../helpers/warehouse-fixture.js';

// examples/warehouse with orders.shipping (a STRUCT, an ARRAY, a BOOL per row; LIMIT 20 in its
// SQL) cut at maxRows 5 and cached, asked for in every format over REST and as a page over
// GraphQL, on the embedded engine and on the fake BigQuery. Expected rows from plain DuckDB over
// the export files; expected column types are BigQuery's for the declared schema.
let fixtureDir: string;
let queriesDir: string;
let fixture: WarehouseFixture;
let oracle: Oracle;
let duckdb: QuerygateUnderTest;
let harness: BigQueryHarness;
let bigquery: Querygate;

const cutAt = 5;
const shippingSql = 'SELECT order_id, shipping, tags, is_gift FROM orders ORDER BY order_id';

beforeAll(async () => {
  fixtureDir = await mkdtemp(join(tmpdir(), 'querygate-formats-'));
  fixture = writeWarehouseFixture(fixtureDir);
  oracle = await createOracle(fixture);
  queriesDir = join(fixtureDir, 'queries');
  cpSync(warehouseDir, queriesDir, { recursive: true });
  const contract = join(queriesDir, 'orders.shipping.yaml');
  writeFileSync(
    contract,
    readFileSync(contract, 'utf8')
      .replace('maxRows: 1000', `maxRows: ${cutAt}`)
      .replace('cacheSeconds: 0', 'cacheSeconds: 600'),
  );
  duckdb = await startQuerygateUnderTest({
    now: new Date('2020-12-10T00:00:00Z'),
    environment: { QUERYGATE_QUERIES_DIR: queriesDir },
    prepare: prepareWarehouseStore(fixture),
  });
  harness = await startBigQueryHarness({ sources: [], warehouseTables: [fixture.ga4, fixture.orders] });
  await importWarehouseFixture(harness.store.database, fixture);
  bigquery = await startQuerygateOnBigQuery(harness, { queriesDir });
}, 120_000);

afterAll(async () => {
  await bigquery?.close();
  await harness?.close();
  if (duckdb) expectNoServerErrors(duckdb);
  await duckdb?.close();
  oracle?.close();
  await rm(fixtureDir, { recursive: true, force: true });
});

async function get(base: string, path: string, headers: Record<string, string> = {}) {
  const response = await fetch(new URL(path, base), { headers: { 'x-api-key': testApiKey, ...headers } });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

/** The first `count` order ids in order, from plain DuckDB. */
async function orderIds(count: number): Promise<string[]> {
  const rows = await oracle.rows(`${shippingSql} LIMIT ${count}`);
  return rows.map((row) => row.order_id as string);
}

// BigQuery's schema of the four columns (tables.get of the declared source, as the lock has it).
const shippingMeta = [
  { name: 'order_id', type: 'STRING' },
  {
    name: 'shipping',
    type: 'RECORD',
    mode: 'NULLABLE',
    fields: [
      { name: 'method', type: 'STRING' },
      {
        name: 'address',
        type: 'RECORD',
        mode: 'NULLABLE',
        fields: [
          { name: 'city', type: 'STRING' },
          { name: 'country', type: 'STRING' },
          { name: 'postal_code', type: 'STRING' },
        ],
      },
      { name: 'shipped_at', type: 'DATETIME' },
      { name: 'window_start', type: 'TIME' },
    ],
  },
  { name: 'tags', type: 'STRING', mode: 'REPEATED' },
  { name: 'is_gift', type: 'BOOL' },
];

describe.each([
  ['DuckDB', () => duckdb.url],
  ['BigQuery', () => bigquery.url],
])('formats on %s', (_engine, base) => {
  it('answers .json with meta, data, rows and truncated: true when the query had more rows than maxRows', async () => {
    const response = await get(base(), '/api/endpoints/orders.shipping.json');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const body = JSON.parse(response.text);
    expect(Object.keys(body)).toEqual(['meta', 'data', 'rows', 'truncated']);
    expect(body.meta).toEqual(shippingMeta);
    expect(body.rows).toBe(cutAt);
    expect(body.truncated).toBe(true);
    expect(body.data.map((row: { order_id: string }) => row.order_id)).toEqual(await orderIds(cutAt));
  });

  it('says Querygate-Truncated: true on every format of a call cut at maxRows, run and cached, and nothing on one that fits', async () => {
    const [{ orders }] = (await oracle.rows('SELECT count(*)::INTEGER AS orders FROM orders')) as [
      { orders: number },
    ];
    expect(orders).toBeGreaterThan(cutAt);
    const cut = [
      '/api/endpoints/orders.shipping',
      '/api/endpoints/orders.shipping.csv',
      '/api/endpoints/orders.shipping.ndjson',
      '/api/endpoints/orders.shipping.json',
      '/api/endpoints/query/orders.shipping',
    ];
    // Twice: the first may run the query, the second is answered from the kept result.
    for (const round of [1, 2]) {
      for (const path of cut) {
        const response = await get(base(), path);
        expect(response.status, `${path} (${round})`).toBe(200);
        expect(response.headers.get('querygate-truncated'), `${path} (${round})`).toBe('true');
      }
    }
    const whole = await get(base(), '/api/endpoints/orders.daily-revenue');
    expect(whole.status).toBe(200);
    expect(whole.headers.get('querygate-truncated')).toBeNull();
  });

  it('answers truncated: false when every row fits maxRows', async () => {
    const response = await get(base(), '/api/endpoints/orders.daily-revenue.json');
    const body = JSON.parse(response.text);
    const [{ days }] = (await oracle.rows(
      "SELECT count(DISTINCT order_date)::INTEGER AS days FROM orders WHERE status != 'refunded'",
    )) as [{ days: number }];
    expect(body.rows).toBe(days);
    expect(body.data).toHaveLength(days);
    expect(body.truncated).toBe(false);
  });

  it('answers .csv with a header row and each cell the JSON value (nested values as JSON text)', async () => {
    const json = JSON.parse((await get(base(), '/api/endpoints/orders.shipping')).text).result as Record<
      string,
      unknown
    >[];
    const response = await get(base(), '/api/endpoints/orders.shipping.csv');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8; header=present');
    // RFC 4180: CRLF after every record, the last one included.
    expect(response.text.endsWith('\r\n')).toBe(true);
    const [header, ...records] = parseCsv(response.text, { relax_quotes: false }) as string[][];
    expect(header).toEqual(['order_id', 'shipping', 'tags', 'is_gift']);
    expect(records.map((record) => record[0])).toEqual(await orderIds(cutAt));
    expect(records).toHaveLength(json.length);
    records.forEach((record, i) => {
      const row = json[i] as Record<string, unknown>;
      expect(record[1] === '' ? null : JSON.parse(record[1] as string)).toEqual(row.shipping);
      expect(JSON.parse(record[2] as string)).toEqual(row.tags);
      expect(record[3]).toBe(String(row.is_gift));
    });
    // A STRUCT's JSON holds quotes and commas: the cell is quoted, its quotes doubled.
    expect(response.text).toContain('"{""method"":');
  });

  it('answers .ndjson with one JSON object per line, the rows of the JSON answer', async () => {
    const json = JSON.parse((await get(base(), '/api/endpoints/orders.shipping')).text).result;
    const response = await get(base(), '/api/endpoints/orders.shipping.ndjson');
    expect(response.headers.get('content-type')).toBe('application/x-ndjson; charset=utf-8');
    const lines = response.text.split('\n');
    expect(lines.pop()).toBe('');
    expect(lines.map((line) => JSON.parse(line))).toEqual(json);
  });
});

describe('negotiation and paths', () => {
  it('answers Accept: text/csv on the plain path with CSV, and says the answer varies by Accept', async () => {
    const response = await get(duckdb.url, '/api/endpoints/orders.shipping', { accept: 'text/csv' });
    expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8; header=present');
    expect(response.headers.get('vary')).toBe('Accept');
    expect(response.text.split('\r\n')[0]).toBe('order_id,shipping,tags,is_gift');
  });

  it('still answers exactly {"result": [...]} to Logflare-style calls, whatever JSON Accept they send', async () => {
    for (const accept of [undefined, 'application/json', '*/*', 'text/html']) {
      const response = await get(duckdb.url, '/api/endpoints/orders.shipping', accept ? { accept } : {});
      expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
      const body = JSON.parse(response.text);
      expect(Object.keys(body)).toEqual(['result']);
      expect(body.result.map((row: { order_id: string }) => row.order_id)).toEqual(await orderIds(cutAt));
    }
  });

  it('takes the suffixes on the Logflare paths too, by id and by name', async () => {
    const id = /id: (\S+)/.exec(readFileSync(join(queriesDir, 'orders.shipping.yaml'), 'utf8'))?.[1];
    const expected = await orderIds(cutAt);
    for (const path of [
      `/api/endpoints/query/${id}.csv`,
      '/endpoints/query/orders.shipping.csv',
      '/api/endpoints/query/name/orders.shipping.csv',
    ]) {
      const response = await get(duckdb.url, path);
      expect(response.status).toBe(200);
      const [, ...records] = parseCsv(response.text) as string[][];
      expect(records.map((record) => record[0])).toEqual(expected);
    }
  });

  it('answers 404 naming the reference for a suffix it does not know', async () => {
    const response = await get(duckdb.url, '/api/endpoints/orders.shipping.xml');
    expect(response.status).toBe(404);
    expect(JSON.parse(response.text).error.message).toContain('orders.shipping.xml');
  });

  it('serves every format of one call from one cached result, each with its own body and the same Age', async () => {
    const runsBefore = duckdb.resolverStats().misses;
    const paths = [
      '/api/endpoints/orders.shipping.csv',
      '/api/endpoints/orders.shipping.ndjson',
      '/api/endpoints/orders.shipping.json',
      '/api/endpoints/orders.shipping',
    ];
    const first = await Promise.all(paths.map((path) => get(duckdb.url, path)));
    // Answered again, now from the kept bodies (before the framework for these plain GETs).
    const again = await Promise.all(paths.map((path) => get(duckdb.url, path)));
    expect(duckdb.resolverStats().misses).toBe(runsBefore);
    expect(again.map((response) => response.text)).toEqual(first.map((response) => response.text));
    expect(new Set(first.map((response) => response.headers.get('content-type'))).size).toBe(3);
    for (const response of again) {
      expect(response.headers.get('cache-control')).toBe('private, max-age=600');
      expect(response.headers.get('age')).toBe(again[0]?.headers.get('age'));
    }
    // The plain path after CSV was asked for is still JSON, and CSV on it still CSV.
    expect(Object.keys(JSON.parse(again[3]?.text ?? ''))).toEqual(['result']);
    const csvAgain = await get(duckdb.url, '/api/endpoints/orders.shipping', { accept: 'text/csv' });
    expect(csvAgain.text).toBe(first[0]?.text);
  });
});

describe('GraphQL', () => {
  it('answers the page field with its rows, rowCount and truncated through graphql-request', async () => {
    const client = new GraphQLClient(new URL('/graphql', duckdb.url).toString(), {
      headers: { 'x-api-key': testApiKey },
    });
    const ask = () =>
      client.request<{
        orders: {
          shipping: { orderId: string }[];
          shippingPage: { rows: { orderId: string }[]; rowCount: number; truncated: boolean };
          dailyRevenuePage: { rowCount: number; truncated: boolean };
        };
      }>(/* GraphQL */ `
      {
        orders {
          shipping { orderId }
          shippingPage { rows { orderId } rowCount truncated }
          dailyRevenuePage { rowCount truncated }
        }
      }
    `);
    // The first is executed by yoga; the same request again by the compiled and replayed paths.
    const [data, ...again] = [await ask(), await ask(), await ask()];
    for (const answer of again) expect(answer).toEqual(data);
    const expected = await orderIds(cutAt);
    expect(data.orders.shipping.map((row) => row.orderId)).toEqual(expected);
    expect(data.orders.shippingPage.rows.map((row) => row.orderId)).toEqual(expected);
    expect(data.orders.shippingPage.rowCount).toBe(cutAt);
    expect(data.orders.shippingPage.truncated).toBe(true);
    expect(data.orders.dailyRevenuePage.truncated).toBe(false);
  });
});
