import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBigQuerySetup } from '../../src/backends/bigquery/commands.js';
import { readSources } from '../../src/endpoints/sources.js';
import { packageRoot } from '../../src/paths.js';
import type { Querygate } from '../../src/server.js';
import {
  type BigQueryHarness,
  startBigQueryHarness,
  startQuerygateOnBigQuery,
  testDataset,
  testProject,
} from '../helpers/bigquery-harness.js';
import { type FixtureRecord, insertStatement } from '../helpers/log-fixture.js';
import { testApiKey } from '../helpers/querygate-server.js';

// A user's own queries directory (a copy of examples/queries, which declares its own source
// checkout.events) served on the BigQuery engine against the fake: the source gets a table by
// default, a query over it runs, and ingestion streams into that table.

const now = new Date('2026-03-10T12:00:00.000Z');
const ownTable = `${testProject}.${testDataset}.checkout_events`;
const records: FixtureRecord[] = [
  {
    id: 'e1',
    timestamp: '2026-03-10 10:00:00',
    event_message: 'order o1 paid',
    project: 'shop',
    metadata: { order_id: 'o1', amount_cents: 1250, status: 'paid' },
  },
  {
    id: 'e2',
    timestamp: '2026-03-10 11:00:00',
    event_message: 'order o2 pending',
    project: 'shop',
    metadata: { order_id: 'o2', amount_cents: 400, status: 'pending' },
  },
  {
    id: 'e3',
    timestamp: '2026-03-10 11:30:00',
    event_message: 'order o3 paid elsewhere',
    project: 'other',
    metadata: { order_id: 'o3', amount_cents: 9900, status: 'paid' },
  },
];

let dir: string;
let queriesDir: string;
let harness: BigQueryHarness;
let app: Querygate;

const call = async (path: string, init: RequestInit = {}) => {
  const response = await fetch(new URL(path, app.url), {
    ...init,
    headers: { 'x-api-key': testApiKey, 'content-type': 'application/json; charset=utf-8' },
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
};

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'querygate-bq-own-'));
  queriesDir = join(dir, 'queries');
  cpSync(join(packageRoot, 'examples/queries'), queriesDir, { recursive: true });
  const sources = readSources(queriesDir);
  harness = await startBigQueryHarness({ now: () => now, sources });
  await harness.store.duckdb(insertStatement('checkout.events', records, sources));
  app = await startQuerygateOnBigQuery(harness, { now: () => now, queriesDir });
});

afterAll(async () => {
  await app?.close();
  await harness?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("a queries directory's own source on BigQuery", () => {
  it('maps the own source to <project>.<dataset>.checkout_events by default', () => {
    expect(harness.tables['checkout.events']).toBe(ownTable);
  });

  it('runs a query over the own source against its table', async () => {
    const { status, body } = await call('/api/endpoints/checkout.orders?project=shop&status=paid');
    expect(status).toBe(200);
    // Of the fixture, only e1 is of project shop and status paid.
    expect((body.result as Record<string, unknown>[]).map((row) => [row.order_id, row.amount_cents])).toEqual(
      [['o1', 1250]],
    );
    const [insert] = harness.fake.calls('jobs.insert');
    expect(insert?.body?.configuration?.query?.query).toContain(`\`${ownTable}\``);
  });

  it('creates the own source table with setup --tables and streams POST /api/logs into it', async () => {
    await runBigQuerySetup({
      config: harness.config,
      client: harness.client(),
      queriesDir,
      tables: true,
      print: () => {},
    });
    expect(harness.fake.createdTables.has(ownTable)).toBe(true);
    const event = {
      timestamp: '2026-03-10T11:45:00Z',
      event_message: 'order o4 refunded',
      project: 'shop',
      metadata: { order_id: 'o4', amount_cents: 700, status: 'refunded' },
    };
    const { status, body } = await call('/api/logs?source_name=checkout.events', {
      method: 'POST',
      body: JSON.stringify([event]),
    });
    expect({ status, body }).toEqual({ status: 200, body: { message: 'Logged!', ingested: 1 } });
    // One insertAll row into the own table, metadata a repeated record as Logflare stores it.
    const rows = harness.fake.insertedRows.get(ownTable) ?? [];
    expect(rows).toHaveLength(1);
    expect(rows[0]?.json).toEqual({
      id: rows[0]?.insertId,
      timestamp: '2026-03-10T11:45:00.000000Z',
      event_message: event.event_message,
      project: event.project,
      metadata: [event.metadata],
    });
  });

  it('refuses at start a table mapping of a source the directory does not declare, naming its sources', async () => {
    const mapped = await startBigQueryHarness({
      sources: readSources(queriesDir),
      environment: { QUERYGATE_BIGQUERY_TABLES: 'orders.events=shop.orders' },
    }).then(
      () => undefined,
      (error: Error) => error.message,
    );
    expect(mapped).toContain("QUERYGATE_BIGQUERY_TABLES: 'orders.events' is not a log source");
    expect(mapped).toContain('checkout.events');
  });
});
