import { rmSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import type { Querygate } from '../../src/server.js';
import {
  type BigQueryHarness,
  startBigQueryHarness,
  startQuerygateOnBigQuery,
} from '../helpers/bigquery-harness.js';
import { type FixtureRecord, insertStatement } from '../helpers/log-fixture.js';
import { testApiKey } from '../helpers/querygate-server.js';
import { sandboxAttacks } from '../helpers/sandbox-attacks.js';
import { sandboxedPath, sandboxedQueriesDir } from '../helpers/sandboxed-queries.js';

// A sandboxed endpoint on the BigQuery engine, against the fake BigQuery server through the real
// client: the caller's SQL runs as one job with the saved query's bytes cap, timeout and
// cancellation, and every refused text is refused before any job is made.

const now = new Date('2026-03-10T12:34:56.789Z');
const timeoutMs = 1_500;
const edge = (id: string, project: string, minute: number): FixtureRecord => ({
  id,
  timestamp: `2026-03-10 12:${String(minute).padStart(2, '0')}:00`,
  event_message: `GET /rest/v1/${id}`,
  project,
  metadata: null,
});
const edgeRecords = [edge('e1', 'p1', 1), edge('e2', 'p1', 2), edge('e3', 'p1', 3), edge('e4', 'p2', 4)];
const relayRecords: FixtureRecord[] = [
  ['r1', 'f1', 50],
  ['r2', 'f2', 150],
  ['r3', 'f2', 250],
].map(([id, fn, ms]) => ({
  id: id as string,
  timestamp: '2026-03-10 12:10:00',
  event_message: `invoke ${fn}`,
  metadata: { project_ref: 'p1', function_id: fn, execution_time_ms: ms, deployment_id: 'd1' },
}));

const queries = sandboxedQueriesDir();
let harness: BigQueryHarness;
let app: Querygate;

beforeAll(async () => {
  harness = await startBigQueryHarness({
    now: () => now,
    environment: {
      QUERYGATE_BIGQUERY_MAX_BYTES_BILLED: '5000000',
      QUERYGATE_BIGQUERY_TIMEOUT_MS: String(timeoutMs),
    },
  });
  await harness.store.duckdb(insertStatement('cloudflare.logs.prod', edgeRecords));
  await harness.store.duckdb(insertStatement('deno-relay-logs', relayRecords));
  app = await startQuerygateOnBigQuery(harness, { now: () => now, queriesDir: queries });
});

afterAll(async () => {
  await app?.close();
  await harness?.close();
  rmSync(queries, { recursive: true, force: true });
});

async function call(sql: string, project = 'p1') {
  const response = await fetch(new URL(sandboxedPath, app.url), {
    method: 'POST',
    headers: { 'x-api-key': testApiKey, 'content-type': 'application/json' },
    body: JSON.stringify({ project, sql }),
  });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

const jobs = () => harness.fake.calls('jobs.insert');

describe('a sandboxed endpoint on BigQuery', () => {
  it("answers the caller's SELECT over the saved CTEs with the project bound", async () => {
    expect(await call('select count(*) as n from edge_logs')).toEqual({
      status: 200,
      body: { result: [{ n: 3 }] },
    });
    expect(await call('select count(*) as n from edge_logs', 'p2')).toEqual({
      status: 200,
      body: { result: [{ n: 1 }] },
    });
    const slow = await call(
      'with slow as (select function_id from function_edge_logs where execution_time_ms > 100) ' +
        'select function_id, count(*) as n from slow group by function_id order by function_id',
    );
    expect(slow).toEqual({ status: 200, body: { result: [{ function_id: 'f2', n: 2 }] } });
  });

  it("runs one job holding the saved WITH and the caller's SELECT, with the bytes cap and timeout", async () => {
    const before = jobs().length;
    await call('select max(id) as newest from edge_logs where id != "zz"');
    const sent = jobs().slice(before);
    expect(sent).toHaveLength(1);
    const configuration = sent[0]?.body.configuration;
    expect(configuration.query.query).toMatch(/^-- A small sandboxed endpoint/);
    expect(configuration.query.query).toContain(`\`${harness.tables['cloudflare.logs.prod']}\``);
    expect(configuration.query.query).toMatch(/select max\(id\) as newest from edge_logs where id != "zz"$/);
    expect(configuration.query.maximumBytesBilled).toBe('5000000');
    expect(Number(configuration.jobTimeoutMs)).toBe(timeoutMs);
  });

  it('answers 400 when the job would bill more than the cap', async () => {
    harness.fake.bytesProcessed = 50_000_000;
    try {
      const response = await call('select count(*) as n from function_edge_logs');
      expect(response.status).toBe(400);
      expect(JSON.stringify(response.body)).toMatch(/maximumBytesBilled/);
    } finally {
      harness.fake.bytesProcessed = 0;
    }
  });

  it('answers 504 and cancels the job when it outlives the timeout', async () => {
    harness.fake.queryDelayMs = 5_000;
    const cancels = harness.fake.calls('jobs.cancel').length;
    try {
      const response = await call('select count(*) as n from edge_logs where id > "e1"');
      expect(response.status).toBe(504);
      await vi.waitFor(() => expect(harness.fake.calls('jobs.cancel').length).toBe(cancels + 1));
    } finally {
      harness.fake.queryDelayMs = 0;
    }
  });

  it('answers SQL that BigQuery finds invalid with a 400', async () => {
    const response = await call('select no_such_column as x from edge_logs');
    expect(response.status).toBe(400);
  });

  it.each(
    sandboxAttacks('/etc/passwd', '/tmp/querygate-never-written').map(
      (attack) => [attack.name, attack] as const,
    ),
  )('refuses or bounds %s', async (_name, attack) => {
    const before = jobs().length;
    const response = await call(attack.sql);
    if (attack.bounded || attack.harmless) {
      expect([200, 400, 413, 504]).toContain(response.status);
      return;
    }
    expect([400, 413]).toContain(response.status);
    // Refused by the checks: no job ever reached BigQuery.
    expect(jobs().length).toBe(before);
  });
});
