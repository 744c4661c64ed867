import { afterEach, expect, it } from 'vitest';
import { createBigQueryEngine } from '../../src/backends/bigquery/engine.js';
import type { QueryEngine, SavedQuery } from '../../src/engines/query-engine.js';
import { isQuerygateError } from '../../src/errors.js';
import { queriesDir } from '../../src/paths.js';
import { createFairEngine } from '../../src/resolve/fair-engine.js';
import { type BigQueryHarness, startBigQueryHarness } from '../helpers/bigquery-harness.js';

// The resolver layer's per-endpoint shares hold on BigQuery as on DuckDB: the real BigQuery
// client against the fake server, whose jobs stay running until their callers go, so which
// calls reached BigQuery is read from the jobs the fake was asked to insert.

const now = new Date('2026-03-10T12:34:56.789Z');
const slow: SavedQuery = {
  id: '7a0c4f8e-1b2d-4e3f-8a9b-00000000000a',
  name: 'test.slow',
  sql: 'select count(*) as n from `cloudflare.logs.prod`',
  maxRows: 1,
};
const cheap: SavedQuery = {
  id: '7a0c4f8e-1b2d-4e3f-8a9b-00000000000b',
  name: 'test.cheap',
  sql: 'select count(*) as n from `postgres.logs`',
  maxRows: 1,
};

let harness: BigQueryHarness | undefined;
let engine: QueryEngine | undefined;
const callers: AbortController[] = [];

afterEach(async () => {
  for (const caller of callers.splice(0)) caller.abort();
  await engine?.close();
  await harness?.close();
  engine = undefined;
  harness = undefined;
});

/** The endpoint id of every job BigQuery was asked to run, in order. */
const insertedJobs = () =>
  (harness?.fake.calls('jobs.insert') ?? []).map(
    (insert) => insert.body.configuration.labels.querygate_endpoint_id,
  );

it('on BigQuery, runs another endpoint’s call while one endpoint’s calls fill their share, refuses past its queue, and hands a freed turn on', async () => {
  harness = await startBigQueryHarness({
    now: () => now,
    environment: { QUERYGATE_BIGQUERY_TIMEOUT_MS: '120000' },
  });
  harness.fake.queryDelayMs = 120_000;
  const bigquery = await createBigQueryEngine({
    config: harness.config,
    queries: [slow, cheap],
    sources: harness.sources,
    queriesDir,
    client: harness.client(),
  });
  engine = createFairEngine(bigquery, {
    engineCalls: 4,
    callsPerEndpoint: 2,
    queuePerEndpoint: 1,
    timeoutMs: 120_000,
  });
  const call = (query: SavedQuery) => {
    const caller = new AbortController();
    callers.push(caller);
    const outcome = (engine as QueryEngine)
      .run(query, {}, { now, signal: caller.signal })
      .catch((error: unknown) => error);
    return { caller, outcome };
  };

  const slowCalls = [call(slow), call(slow), call(slow)];
  const cheapCall = call(cheap);
  // Two jobs of the slow endpoint (its share) and the cheap one reach BigQuery; the third slow call waits.
  await expect
    .poll(() => [...insertedJobs()].sort(), { timeout: 10_000 })
    .toEqual([slow.id, slow.id, cheap.id].sort());

  const refused = await call(slow).outcome;
  expect(isQuerygateError(refused) && [refused.code, refused.status]).toEqual(['ENGINE_BUSY', 503]);
  expect(isQuerygateError(refused) && refused.details?.retryAfterSeconds).toBeGreaterThanOrEqual(1);

  // One slow call's caller goes: its turn passes to the waiting slow call, whose job starts.
  slowCalls[0]?.caller.abort();
  await expect.poll(() => insertedJobs().filter((id) => id === slow.id).length, { timeout: 10_000 }).toBe(3);
  expect(insertedJobs()).toHaveLength(4);
  for (const { caller } of [...slowCalls, cheapCall]) caller.abort();
  const outcomes = await Promise.all([...slowCalls, cheapCall].map(({ outcome }) => outcome));
  expect(outcomes.map((error) => isQuerygateError(error) && error.code)).toEqual(
    Array(4).fill('ENGINE_ERROR'),
  );
});
