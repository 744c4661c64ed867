import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runBigQuerySetup } from '../../src/backends/bigquery/commands.js';
import { loadConfig } from '../../src/config.js';
import { type Querygate, startQuerygate } from '../../src/server.js';
import {
  type BigQueryHarness,
  startBigQueryHarness,
  startQuerygateOnBigQuery,
} from '../helpers/bigquery-harness.js';
import { type FixtureRecord, insertStatement } from '../helpers/log-fixture.js';

// The whole service on each engine, the same records in each store: every endpoint call must
// answer the same status and the same bytes.
const now = new Date('2026-03-10T12:34:56.789Z');
const apiKey = 'querygate-test-key-0123456789';

const edgeRecords: FixtureRecord[] = [
  ['c1', '2026-03-10 12:34:50.123456', '/rest/v1/items', 200],
  ['c2', '2026-03-10 12:30:00', '/storage/v1/object', 404],
  ['c3', '2026-03-10 11:00:00.5', '/auth/v1/token', null],
  ['c4', '2026-03-06 08:00:00', '/realtime/v1/websocket', 101],
].map(([id, timestamp, path, status]) => ({
  id: id as string,
  timestamp: timestamp as string,
  event_message: `GET ${path}`,
  project: 'p1',
  metadata: {
    request: { url: `https://p1.supabase.co${path}`, path, method: 'GET', host: 'p1.supabase.co' },
    response: status === null ? null : { status_code: status, origin_time: 3 },
  },
}));
const relayRecords: FixtureRecord[] = [
  ['r1', '2026-03-10 12:34:30.25', 'f1', 10, 200],
  ['r2', '2026-03-10 12:20:00', 'f2', 30, 500],
  ['r3', '2026-03-10 03:00:00', 'f1', 70, 404],
].map(([id, timestamp, fn, ms, status]) => ({
  id: id as string,
  timestamp: timestamp as string,
  event_message: `invoke ${fn}`,
  metadata: {
    project_ref: 'p1',
    function_id: fn,
    execution_time_ms: ms,
    deployment_id: 'd1',
    request: { method: 'POST', url: `https://p1.functions.supabase.co/${fn}`, pathname: `/${fn}` },
    response: { status_code: status },
  },
}));

const asEvent = (record: FixtureRecord) => ({
  ...record,
  timestamp: `${record.timestamp.replace(' ', 'T')}Z`,
});

let dataDir: string;
let duckdb: Querygate;
let harness: BigQueryHarness;
let bigquery: Querygate;

const call = async (app: Querygate, path: string, init: RequestInit = {}) => {
  const response = await fetch(new URL(path, app.url), {
    ...init,
    headers: { 'x-api-key': apiKey, 'content-type': 'application/json; charset=utf-8' },
  });
  return { status: response.status, text: await response.text() };
};

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'querygate-bq-server-'));
  const base = {
    PORT: '0',
    HOST: '127.0.0.1',
    QUERYGATE_DATA_DIR: dataDir,
    QUERYGATE_DEMO: '0',
    QUERYGATE_API_KEYS: apiKey,
    LOG_LEVEL: 'silent',
  };
  duckdb = await startQuerygate(loadConfig(base), { now: () => now });
  for (const [source, records] of [
    ['cloudflare.logs.prod', edgeRecords],
    ['deno-relay-logs', relayRecords],
  ] as const) {
    const result = await call(duckdb, `/api/logs?source_name=${source}`, {
      method: 'POST',
      body: JSON.stringify(records.map(asEvent)),
    });
    expect(result.status).toBe(200);
  }
  harness = await startBigQueryHarness({ now: () => now });
  await harness.store.duckdb(insertStatement('cloudflare.logs.prod', edgeRecords));
  await harness.store.duckdb(insertStatement('deno-relay-logs', relayRecords));
  bigquery = await startQuerygateOnBigQuery(harness, { now: () => now });
});

afterAll(async () => {
  await bigquery?.close();
  await harness?.close();
  await duckdb?.close();
  await rm(dataDir, { recursive: true, force: true });
});

describe('querygate on BigQuery against querygate on DuckDB', () => {
  it('reports the engine on /health', async () => {
    expect(JSON.parse((await call(bigquery, '/health')).text)).toEqual({ status: 'ok', engine: 'bigquery' });
  });

  it.each([
    '/api/endpoints/logs.all?project=p1&project_tier=PRO',
    '/api/endpoints/logs.all?project=p1&project_tier=FREE&iso_timestamp_start=2026-03-10T11:00:00Z',
    '/api/endpoints/query/f45bae19-6f69-4f40-8fc7-3177d782efcd?project=p1&project_tier=ENTERPRISE&iso_timestamp_end=2026-03-10T12:30:00Z',
    '/api/endpoints/functions.invocation-stats?project=p1&interval=1hr',
    '/api/endpoints/functions.invocation-stats?project=p1&interval=1day&function_id=f1',
    '/api/endpoints/functions.invocation-stats?project=p1&interval=5min',
    '/api/endpoints/usage.api-counts?project=p1&interval=hourly',
    '/api/endpoints/usage.api-counts?project=supabase&interval=daily',
    '/api/endpoints/usage.api-counts?project=p1&interval=weekly',
  ])('answers %s with the same status and bytes', async (path) => {
    const [fromDuckDb, fromBigQuery] = await Promise.all([call(duckdb, path), call(bigquery, path)]);
    expect(fromBigQuery).toEqual(fromDuckDb);
  });

  it('answers POST /api/logs with 404 until the tables exist, then streams into them', async () => {
    const body = JSON.stringify([asEvent(edgeRecords[0] as FixtureRecord)]);
    const before = await call(bigquery, '/api/logs?source_name=cloudflare.logs.prod', {
      method: 'POST',
      body,
    });
    expect(before.status).toBe(404);
    expect(JSON.parse(before.text).error.message).toContain('querygate bigquery setup --tables');
    await runBigQuerySetup({
      config: harness.config,
      client: harness.client(),
      tables: true,
      print: () => {},
    });
    const after = await call(bigquery, '/api/logs?source_name=cloudflare.logs.prod', {
      method: 'POST',
      body,
    });
    expect(after).toEqual({ status: 200, text: '{"message":"Logged!","ingested":1}' });
    expect(harness.fake.insertedRows.get('querygate-test.logs.cloudflare_logs_prod')).toHaveLength(1);
  });
});
