import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Querygate } from '../../src/server.js';
import {
  type BigQueryHarness,
  startBigQueryHarness,
  startQuerygateOnBigQuery,
} from '../helpers/bigquery-harness.js';
import { testApiKey } from '../helpers/querygate-server.js';
import { type WarehouseFixture, warehouseDir, writeWarehouseFixture } from '../helpers/warehouse-fixture.js';

// HTTP ingestion into a table source on the BigQuery engine: examples/warehouse served on the fake
// BigQuery with its tables empty, rows posted as the export writes them, streamed with
// tabledata.insertAll into the team's own tables (a GA4 day table chosen by its suffix column),
// and read back through the saved queries. Expected values are the rows posted here.
let dir: string;
let fixture: WarehouseFixture;
let harness: BigQueryHarness;
let app: Querygate;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'querygate-bq-ingest-'));
  fixture = writeWarehouseFixture(dir);
  harness = await startBigQueryHarness({ sources: [], warehouseTables: [fixture.ga4, fixture.orders] });
  app = await startQuerygateOnBigQuery(harness, { queriesDir: warehouseDir });
}, 60_000);

afterAll(async () => {
  await app?.close();
  await harness?.close();
  await rm(dir, { recursive: true, force: true });
});

async function call(method: string, path: string, body?: unknown) {
  const response = await fetch(new URL(path, app.url), {
    method,
    headers: { 'x-api-key': testApiKey, 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const text = await response.text();
  return { status: response.status, text, body: JSON.parse(text) as Record<string, unknown> };
}

const ingest = (source: string, rows: unknown[]) =>
  call('POST', `/api/logs?source_name=${source}`, { batch: rows });

const inserted = () =>
  harness.fake
    .calls('tabledata.insertAll')
    .map((request) => request.path.match(/tables\/([^/]+)\/insertAll/)?.[1]);

describe('HTTP ingestion into a table source on BigQuery', () => {
  it('streams rows as they are into the declared table, and the saved queries read them', async () => {
    const order = {
      order_id: 'A-1',
      created_at: '2020-12-01 10:00:00 UTC',
      order_date: '2020-12-01',
      status: 'paid',
      total: '1234567890.25',
      tags: ['vip'],
      shipping: {
        method: 'express',
        address: { city: 'Berlin', country: 'Germany', postal_code: '10115' },
        shipped_at: '2020-12-02T09:00:00',
        window_start: '08:30:00',
      },
    };
    const unshipped = {
      order_id: 'A-2',
      created_at: '2020-12-01T11:00:00Z',
      order_date: '2020-12-01',
      status: 'paid',
      total: '0.75',
    };
    const response = await ingest('orders', [order, unshipped]);
    expect(response.status, response.text).toBe(200);
    expect(response.body).toEqual({ message: 'Logged!', ingested: 2 });
    expect(inserted()).toEqual(['orders']);

    const shipping = await call('GET', '/api/endpoints/orders.shipping');
    expect(shipping.status).toBe(200);
    expect(shipping.body.result).toEqual([
      { order_id: 'A-1', shipping: order.shipping, tags: ['vip'], is_gift: null },
      { order_id: 'A-2', shipping: null, tags: [], is_gift: null },
    ]);
    // NUMERIC stays exact: 1234567890.25 + 0.75, summed as decimals.
    const revenue = await call('GET', '/api/endpoints/orders.daily-revenue');
    expect(revenue.body.result).toEqual([{ order_date: '2020-12-01', orders: 2, revenue: '1234567891' }]);
  });

  it('sends each row of a wildcard family to the day table its suffix column names', async () => {
    const event = (day: string, user: string) => ({
      event_date: day,
      event_timestamp: '1607126400000001',
      event_name: 'page_view',
      user_pseudo_id: user,
      event_params: [{ key: 'page_title', value: { string_value: 'Home' } }],
    });
    const before = inserted().length;
    const response = await ingest('ga4_events', [
      event('20201205', 'u1'),
      event('20201206', 'u2'),
      event('20201205', 'u3'),
    ]);
    expect(response.status, response.text).toBe(200);
    expect(response.body).toEqual({ message: 'Logged!', ingested: 3 });
    expect(inserted().slice(before).sort()).toEqual(['events_20201205', 'events_20201206']);
    const range = await call(
      'GET',
      '/api/endpoints/ga4.events-in-range?first_day=20201205&last_day=20201206',
    );
    expect(range.status).toBe(200);
    expect(range.body.result).toEqual([
      { day: '20201205', events: 2, users: 2 },
      { day: '20201206', events: 1, users: 1 },
    ]);
  });

  it('refuses a batch with a bad row (400, naming row and column) before anything is streamed', async () => {
    const before = inserted().length;
    const bad = await ingest('orders', [
      { order_id: 'B-1', created_at: '2020-12-01T10:00:00Z' },
      { order_id: 'B-2', created_at: '2020-12-01T10:00:00Z', total: 'lots' },
    ]);
    expect(bad.status).toBe(400);
    expect(bad.text).toContain('Row 1, column total');
    const noDay = await ingest('ga4_events', [{ event_date: '../x', event_name: 'page_view' }]);
    expect(noDay.status).toBe(400);
    expect(noDay.text).toContain('Row 0, column event_date');
    expect(inserted().length).toBe(before);
    const shipping = await call('GET', '/api/endpoints/orders.shipping');
    expect(JSON.stringify(shipping.body)).not.toContain('B-1');
  });

  it('replaces one day table of a family with ?mode=replace: a load job with WRITE_TRUNCATE into events_20201207 alone', async () => {
    const event = (user: string) => ({
      event_date: '20201207',
      event_timestamp: '1607299200000001',
      event_name: 'page_view',
      user_pseudo_id: user,
    });
    const other = { ...event('o1'), event_date: '20201208' };
    expect((await ingest('ga4_events', [event('u1'), event('u2'), other])).status).toBe(200);
    const replaced = await call('POST', '/api/logs?source_name=ga4_events&mode=replace', {
      batch: [event('u9')],
    });
    expect(replaced.status, replaced.text).toBe(200);
    expect(replaced.body).toEqual({ message: 'Logged!', ingested: 1 });
    expect(harness.fake.loadJobs).toEqual([
      {
        destination: 'my-project.analytics_123456.events_20201207',
        writeDisposition: 'WRITE_TRUNCATE',
        sourceFormat: 'NEWLINE_DELIMITED_JSON',
        rows: 1,
      },
    ]);
    const range = await call(
      'GET',
      '/api/endpoints/ga4.events-in-range?first_day=20201207&last_day=20201208',
    );
    expect(range.body.result).toEqual([
      { day: '20201207', events: 1, users: 1 },
      { day: '20201208', events: 1, users: 1 },
    ]);
  });

  it('replaces a whole table with ?mode=replace: one load job with WRITE_TRUNCATE into it', async () => {
    const loadsBefore = harness.fake.loadJobs.length;
    const order = {
      order_id: 'R-1',
      created_at: '2020-12-03T10:00:00Z',
      order_date: '2020-12-03',
      status: 'paid',
      total: '5.25',
    };
    const replaced = await call('POST', '/api/logs?source_name=orders&mode=replace', { batch: [order] });
    expect(replaced.status, replaced.text).toBe(200);
    expect(harness.fake.loadJobs.slice(loadsBefore)).toEqual([
      {
        destination: 'my-project.shop.orders',
        writeDisposition: 'WRITE_TRUNCATE',
        sourceFormat: 'NEWLINE_DELIMITED_JSON',
        rows: 1,
      },
    ]);
    const revenue = await call('GET', '/api/endpoints/orders.daily-revenue');
    expect(revenue.body.result).toEqual([{ order_date: '2020-12-03', orders: 1, revenue: '5.25' }]);
  });

  it('lists the table sources as taking rows over HTTP', async () => {
    const listed = (await call('GET', '/api/sources')).body.result as Array<{
      name: string;
      ingest: boolean;
    }>;
    expect(listed.map((source) => [source.name, source.ingest])).toEqual([
      ['ga4_events', true],
      ['orders', true],
    ]);
  });
});

describe('HTTP ingestion into a table source whose BigQuery table does not exist', () => {
  it('answers 404 naming the table, and creates nothing', async () => {
    // A warehouse without the orders table: querygate never creates a team's own tables.
    const bare = await startBigQueryHarness({ sources: [], warehouseTables: [fixture.ga4] });
    const served = await startQuerygateOnBigQuery(bare, { queriesDir: warehouseDir });
    try {
      const response = await fetch(new URL('/api/logs?source_name=orders', served.url), {
        method: 'POST',
        headers: { 'x-api-key': testApiKey, 'content-type': 'application/json' },
        body: JSON.stringify({ batch: [{ order_id: 'C-1', created_at: '2020-12-01T10:00:00Z' }] }),
      });
      const text = await response.text();
      expect(response.status, text).toBe(404);
      expect(text).toContain('my-project.shop.orders');
      expect(bare.fake.calls('tables.insert')).toEqual([]);
    } finally {
      await served.close();
      await bare.close();
    }
  });
});
