import { cpSync, readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { runQuerygate, type ServedChild, serveChild, stopChild } from '../helpers/querygate-child.js';
import { readStoreFile } from '../helpers/store-file.js';
import { type WarehouseFixture, warehouseDir, writeWarehouseFixture } from '../helpers/warehouse-fixture.js';

// Loading as a warehouse loads (issue 29): `querygate import` appends idempotently (a file
// loaded before is skipped), `--replace` rewrites the whole table or a family's day tables the
// input holds, `--truncate` empties; the same through the running server, where a replace drops
// the cached results of the endpoints reading the table; and `?mode=replace` over HTTP. Every
// expected value is read from the export files or the store by plain DuckDB.

// Each test runs the CLI a few times: seconds each on a loaded machine.
vi.setConfig({ testTimeout: 180_000, hookTimeout: 180_000 });
const apiKey = 'table-load-modes-key-0123456789abcdef';

let dir: string;
let queries: string;
let dataDir: string;
let fixture: WarehouseFixture;
let reexport: string;
let served: ServedChild | undefined;

const querygate = (args: readonly string[]) =>
  runQuerygate(args, { QUERYGATE_DEMO: '0', QUERYGATE_API_KEYS: apiKey, QUERYGATE_DATA_DIR: dataDir });

const importing = (...args: string[]) => querygate(['import', '--queries', queries, ...args]);

/** Plain DuckDB over the store file (the server stopped) or over export files. */
async function plain(sql: string, file = ':memory:'): Promise<Record<string, unknown>[]> {
  if (file !== ':memory:')
    return readStoreFile(
      file,
      async (connection) =>
        (await connection.runAndReadAll(sql)).getRowObjectsJson() as Record<string, unknown>[],
    );
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    return (await connection.runAndReadAll(sql)).getRowObjectsJson() as Record<string, unknown>[];
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

const storeFile = () => join(dataDir, 'querygate.duckdb');
const eventsPerDay = (file: string) =>
  plain(`SELECT event_date, count(*)::INTEGER AS n FROM ga4_events GROUP BY 1 ORDER BY 1`, file);
const lines = (file: string) => readFileSync(file, 'utf8').split('\n').filter(Boolean);

/** `ga4.events-by-date` as plain DuckDB reads it from export files: the oracle. */
async function eventsByDate(files: readonly string[]) {
  const list = files.map((file) => `'${file}'`).join(', ');
  const rows = await plain(
    `SELECT event_date, event_name, count(*)::INTEGER AS event_count
     FROM read_json([${list}], format = 'newline_delimited', columns = {event_date: 'VARCHAR', event_name: 'VARCHAR'})
     WHERE event_name IN ('page_view', 'session_start', 'purchase') AND event_date BETWEEN '20201201' AND '20201202'
     GROUP BY 1, 2`,
  );
  return sorted(rows);
}

const sorted = (rows: Record<string, unknown>[]) =>
  [...rows].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));

async function endpoint(name: string) {
  const response = await fetch(`${served?.url}/api/endpoints/${name}`, { headers: { 'x-api-key': apiKey } });
  const body = (await response.json()) as { result: Record<string, unknown>[] };
  expect(response.status, JSON.stringify(body)).toBe(200);
  return sorted(body.result);
}

async function post(path: string, rows: unknown[]) {
  const response = await fetch(`${served?.url}${path}`, {
    method: 'POST',
    headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
    body: JSON.stringify({ batch: rows }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'querygate-load-modes-'));
  fixture = writeWarehouseFixture(join(dir, 'export'));
  dataDir = join(dir, 'data');
  queries = join(dir, 'queries');
  cpSync(warehouseDir, queries, { recursive: true });
  // Two endpoints cached for five minutes: one reads the family, one the orders.
  for (const name of ['ga4.events-by-date', 'orders.daily-revenue']) {
    const file = join(queries, `${name}.yaml`);
    writeFileSync(file, readFileSync(file, 'utf8').replace('cacheSeconds: 0', 'cacheSeconds: 300'));
  }
  // GA4's re-export of 20201201: the day rewritten, here with every other event of the first export.
  const day = fixture.eventFiles.find((file) => file.endsWith('events_20201201.ndjson')) as string;
  reexport = join(dir, 'export', 'reexport_events_20201201.ndjson');
  writeFileSync(
    reexport,
    `${lines(day)
      .filter((_, i) => i % 2 === 0)
      .join('\n')}\n`,
  );
});

afterAll(async () => {
  await stopChild(served?.child);
  await rm(dir, { recursive: true, force: true });
});

describe('querygate import on the store file', () => {
  it('skips a file loaded before, so importing the same files twice leaves each row once', async () => {
    const first = await importing('--source', 'ga4_events', ...fixture.eventFiles);
    expect(first.code, first.stderr).toBe(0);
    const exported = fixture.eventFiles.reduce((total, file) => total + lines(file).length, 0);
    expect(first.stdout).toContain(`Imported ${exported} rows into ga4_events`);
    // Off a terminal, a progress line per file read, counting rows.
    expect(first.stderr).toMatch(new RegExp(`${exported} rows loaded \\(3/3 files`));
    const again = await importing('--source', 'ga4_events', ...fixture.eventFiles);
    expect(again.code, again.stderr).toBe(0);
    expect(again.stdout).toContain('Imported 0 rows into ga4_events');
    for (const file of fixture.eventFiles)
      expect(again.stdout).toContain(`Skipped ${file}: its content was loaded`);
    const expected = fixture.eventFiles.map((file) => ({
      event_date: /events_(\d{8})/.exec(file)?.[1],
      n: lines(file).length,
    }));
    expect(await eventsPerDay(storeFile())).toEqual(expected);
  });

  it('replaces only the day tables a re-export holds, and --truncate empties a table', async () => {
    const replaced = await importing('--source', 'ga4_events', '--replace', reexport);
    expect(replaced.code, replaced.stderr).toBe(0);
    const day1 = fixture.eventFiles.find((file) => file.endsWith('20201201.ndjson')) as string;
    expect(replaced.stdout).toContain(
      `Imported ${lines(reexport).length} rows into ga4_events in place of ${lines(day1).length} rows of day 20201201`,
    );
    const perDay = await eventsPerDay(storeFile());
    expect(perDay).toEqual(
      fixture.eventFiles.map((file) => ({
        event_date: /events_(\d{8})/.exec(file)?.[1],
        n: file === day1 ? lines(reexport).length : lines(file).length,
      })),
    );
    expect((await importing('--source', 'orders', fixture.ordersFile)).code).toBe(0);
    const truncated = await importing('--source', 'orders', '--truncate');
    expect(truncated.stdout).toContain(
      `Imported 0 rows into orders, ${lines(fixture.ordersFile).length} rows deleted`,
    );
    expect(await plain('SELECT count(*)::INTEGER AS n FROM orders', storeFile())).toEqual([{ n: 0 }]);
  });

  it('refuses --truncate with files, naming the flag, and exits 1', async () => {
    const withFiles = await importing('--source', 'orders', '--truncate', fixture.ordersFile);
    expect(withFiles.code).toBe(1);
    expect(withFiles.stderr).toContain('--truncate takes no files');
  });
});

describe('loading through the running server', () => {
  beforeAll(async () => {
    served = await serveChild({ queries, dataDir, apiKey });
  }, 120_000);

  it('answers a cached endpoint with the new rows right after a replace through the server, and loads a truncated table again', async () => {
    const day1 = fixture.eventFiles.find((file) => file.endsWith('20201201.ndjson')) as string;
    const others = fixture.eventFiles.filter((file) => file !== day1);
    // Cached for 300 s: the re-export's day as the last replace left it.
    expect(await endpoint('ga4.events-by-date')).toEqual(await eventsByDate([reexport, ...others]));
    // The first export of the day back in place of the re-export, through the server.
    const back = await importing('--source', 'ga4_events', '--replace', day1);
    expect(back.code, back.stderr).toBe(0);
    expect(back.stderr).toContain('the store is held by the server');
    expect(await endpoint('ga4.events-by-date')).toEqual(await eventsByDate(fixture.eventFiles));
    // orders was truncated, which forgot its ledger: the same file loads again, then is skipped.
    expect((await importing('--source', 'orders', fixture.ordersFile)).stdout).toContain(
      `Imported ${lines(fixture.ordersFile).length} rows into orders`,
    );
    expect((await importing('--source', 'orders', fixture.ordersFile)).stdout).toContain(
      `Skipped ${fixture.ordersFile}`,
    );
  });

  it('replaces a table with ?mode=replace over HTTP, dropping its cached results, while an append leaves them', async () => {
    const order = (id: string, day: string) => ({
      order_id: id,
      created_at: `${day} 10:00:00 UTC`,
      order_date: day,
      status: 'placed',
      total: '10.50',
    });
    const before = await endpoint('orders.daily-revenue');
    expect(before.length).toBeGreaterThan(1);
    const replaced = await post('/api/logs?source_name=orders&mode=replace', [
      order('r1', '2026-01-01'),
      order('r2', '2026-01-01'),
    ]);
    expect(replaced).toEqual({ status: 200, body: { message: 'Logged!', ingested: 2 } });
    const expected = [{ order_date: '2026-01-01', orders: 2, revenue: '21' }];
    expect(await endpoint('orders.daily-revenue')).toEqual(expected);
    // An append is what the cache seconds are for: the cached answer stands.
    expect((await post('/api/logs?source_name=orders', [order('a1', '2026-01-02')])).status).toBe(200);
    expect(await endpoint('orders.daily-revenue')).toEqual(expected);
  });

  // A row the checks take, beside which each bad one is posted.
  const goodOrder = (id: string) => ({
    order_id: id,
    created_at: '2026-02-01 10:00:00 UTC',
    order_date: '2026-02-01',
    total: '1.00',
  });

  it.each([
    ['a day that does not exist', { order_date: '2024-02-30' }, 'order_date'],
    ['a month that does not exist', { order_date: '2024-13-01' }, 'order_date'],
    ["year 0, before BigQuery's DATE range", { order_date: '0000-01-01' }, 'order_date'],
    ['an hour that does not exist', { created_at: '2024-01-01T25:00:00Z' }, 'created_at'],
    ['a timestamp of year 0', { created_at: '0000-06-01 10:00:00 UTC' }, 'created_at'],
    ['a NUMERIC beyond its precision, in exponent form', { total: '1e40' }, 'total'],
  ])('answers 400 for %s in a row, and stores none of the batch', async (_label, bad, column) => {
    const refused = await post('/api/logs?source_name=orders', [
      goodOrder('v1'),
      { ...goodOrder('v2'), ...bad },
    ]);
    expect(refused.status, JSON.stringify(refused.body)).toBe(400);
    expect(JSON.stringify(refused.body)).toContain(`Row 1, column ${column}:`);
    expect(JSON.stringify(await endpoint('orders.shipping'))).not.toContain('"v1"');
  });

  it("answers 400 naming DuckDB's refusal for a value its cast cannot read, and stores none of the batch", async () => {
    // 1234567890.1 fits NUMERIC(12, 2), but DuckDB's cast refuses this spelling of it.
    const refused = await post('/api/logs?source_name=orders', [
      goodOrder('w1'),
      { ...goodOrder('w2'), total: '12345678901e-1' },
    ]);
    expect(refused.status, JSON.stringify(refused.body)).toBe(400);
    expect(JSON.stringify(refused.body)).toContain('12345678901e-1');
    expect(JSON.stringify(await endpoint('orders.shipping'))).not.toContain('"w1"');
  });

  it('answers 413 naming how many rows to send at once for a batch that would take more than the bound to store, and stores none of it', async () => {
    // 150,000 rows of two columns are an 8 MB body, under the 10 MiB body limit, but each row
    // fills every column and field of orders in DuckDB (17 cells): 40 MB, beyond the 32 MiB bound.
    const rows = Array.from({ length: 150_000 }, (_, i) => ({
      order_id: `big${i}`,
      created_at: '2026-02-01 10:00:00 UTC',
    }));
    const refused = await post('/api/logs?source_name=orders', rows);
    expect(refused.status, JSON.stringify(refused.body)).toBe(413);
    const message = String((refused.body.error as { message: string }).message);
    expect(message).toContain('QUERYGATE_INGEST_INFLIGHT_BYTES');
    const most = Number(/send at most (\d+) records per request/.exec(message)?.[1]);
    expect(most).toBeGreaterThan(0);
    expect(most).toBeLessThan(rows.length);
    expect(JSON.stringify(await endpoint('orders.shipping'))).not.toContain('"big0"');
  });

  it('answers 400 naming mode for a mode it does not know, and stores nothing', async () => {
    const refused = await post('/api/logs?source_name=orders&mode=upsert', [{ order_id: 'x' }]);
    expect(refused.status).toBe(400);
    expect(JSON.stringify(refused.body)).toContain("Parameter 'mode' must be append or replace");
  });
});
