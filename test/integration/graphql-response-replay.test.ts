import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QuerygateError } from '../../src/errors.js';
import type { Querygate } from '../../src/server.js';
import { fixtureEvents, projects } from '../fixtures/spec-fixture.js';
import { type CountedQuerygate, startCountedQuerygate } from '../helpers/counted-querygate.js';
import type { CountingEngine } from '../helpers/counting-engine.js';
import type { ManualTime } from '../helpers/manual-time.js';
import { byName, testApiKey } from '../helpers/querygate-server.js';
import { expectedApiCounts, isoToMicros, re2AsJs } from '../helpers/spec-expectations.js';

/**
 * The GraphQL face answers a repeated request from the response it gave before, but only while
 * the results it was made of are the resolver layer's fresh cached results: every replay counts
 * as the hits the calls would have been, keeps the keys live for warming, and gives way to a new
 * answer as soon as warming or expiry replaced a result.
 */

let app: Querygate;
let engine: CountingEngine;
let time: ManualTime;
let server: CountedQuerygate | undefined;

beforeAll(async () => {
  server = await startCountedQuerygate();
  ({ app, engine, time } = server);
});

afterAll(async () => {
  await server?.close();
});

async function post(path: string, body: unknown) {
  const response = await fetch(new URL(path, app.url), {
    method: 'POST',
    headers: { 'x-api-key': testApiKey, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: response.status, headers: response.headers, text: await response.text() };
}

const graphql = (query: string) => post('/graphql', { query });

const apiCountsQuery = (project: string) => /* GraphQL */ `{
  usage { apiCounts(project: "${project}", interval: HOURLY) { timestamp totalRestRequests } }
}`;

/** The GraphQL buckets expected of usage.api-counts hourly for a project at `now`. */
function expectedBuckets(project: string, now: Date) {
  return expectedApiCounts(fixtureEvents, { interval: 'hourly', urlMatches: re2AsJs(project) }, now).map(
    (row) => ({ timestamp: isoToMicros(row.timestamp), totalRestRequests: row.total_rest_requests }),
  );
}

/** Runs of usage.api-counts hourly for one project that reached the engine. */
const runsFor = (project: string) =>
  engine
    .callsOf('usage.api-counts')
    .filter((call) => call.params.project === project && call.params.interval === 'hourly').length;

function bucketsOf(text: string) {
  const body = JSON.parse(text) as { data: { usage: { apiCounts: Array<Record<string, unknown>> } } };
  return body.data.usage.apiCounts.map((bucket) => ({
    timestamp: isoToMicros(String(bucket.timestamp)),
    totalRestRequests: bucket.totalRestRequests,
  }));
}

describe('a repeated GraphQL request', () => {
  it('gets the same response, counted as one hit for each endpoint call it makes', async () => {
    const query = /* GraphQL */ `{
      a: usage { apiCounts(project: "${projects.beta}", interval: DAILY) { timestamp totalAuthRequests } }
      b: functions { invocationStats(project: "${projects.beta}", interval: ONE_DAY) { timestamp count } }
    }`;
    const first = await graphql(query);
    const runs = engine.calls.length;
    const hits = app.resolver.stats().hits;
    const again = await graphql(query);
    const third = await graphql(query);

    expect(first.status).toBe(200);
    expect(JSON.parse(first.text)).not.toHaveProperty('errors');
    expect(again.text).toBe(first.text);
    expect(third.text).toBe(first.text);
    expect(again.headers.get('content-type')).toBe(first.headers.get('content-type'));
    expect(engine.calls.length).toBe(runs);
    expect(app.resolver.stats().hits - hits).toBe(4);
  });

  it('runs logs.all every time, since it is never cached', async () => {
    const query = /* GraphQL */ `{ logs { all(project: "${projects.beta}", projectTier: FREE) { id } } }`;
    const before = engine.callsOf('logs.all').length;
    await graphql(query);
    await graphql(query);
    expect(engine.callsOf('logs.all').length - before).toBe(2);
  });
});

describe('what a response is replayed for', () => {
  const bucketsQuery = /* GraphQL */ `
    query Daily($project: String!) { usage { apiCounts(project: $project, interval: DAILY) { timestamp totalRestRequests } } }
    query Hourly($project: String!) { usage { apiCounts(project: $project, interval: HOURLY) { timestamp totalRestRequests } } }
  `;
  const dailyOf = (project: string) =>
    expectedApiCounts(fixtureEvents, { interval: 'daily', urlMatches: re2AsJs(project) }, time.now()).map(
      (row) => ({ timestamp: isoToMicros(row.timestamp), totalRestRequests: row.total_rest_requests }),
    );

  it('answers each set of variables and each operation name with its own result', async () => {
    const ask = (operationName: string, project: string) =>
      post('/graphql', { query: bucketsQuery, operationName, variables: { project } });
    for (let round = 0; round < 2; round++) {
      expect(bucketsOf((await ask('Daily', projects.alpha)).text)).toEqual(dailyOf(projects.alpha));
      expect(bucketsOf((await ask('Daily', projects.beta)).text)).toEqual(dailyOf(projects.beta));
      expect(bucketsOf((await ask('Hourly', projects.beta)).text)).toEqual(
        expectedBuckets(projects.beta, time.now()),
      );
    }
    expect(dailyOf(projects.alpha)).not.toEqual(dailyOf(projects.beta));
  });

  it('never replays an error: the same request succeeds once the engine does', async () => {
    const query = /* GraphQL */ `{ usage { apiCounts(project: "${projects.alpha}", interval: MINUTELY) { totalAuthRequests } } }`;
    engine.failNext(1, new QuerygateError('ENGINE_ERROR', 'usage.api-counts failed on DuckDB: boom'));
    const failed = await graphql(query);
    expect(JSON.parse(failed.text).errors[0].extensions.code).toBe('ENGINE_ERROR');
    const runs = engine.calls.length;
    const next = await graphql(query);
    expect(JSON.parse(next.text)).not.toHaveProperty('errors');
    expect(engine.calls.length).toBe(runs + 1);
  });

  it('gives way to the result a REST no-cache call computed after new records arrived', async () => {
    // A project of its own, so the records it adds change no other test's expectations.
    const project = 'replay-ref';
    const record = (id: string, minutesAgo: number) => ({
      id,
      timestamp: new Date(time.now().getTime() - minutesAgo * 60_000).toISOString(),
      event_message: 'GET /rest/v1/items',
      project,
      metadata: { request: { url: `https://${project}.supabase.co/rest/v1/items`, path: '/rest/v1/items' } },
    });
    const ingest = (events: unknown[]) =>
      post(`/api/logs?source_name=${encodeURIComponent('cloudflare.logs.prod')}`, { batch: events });
    const restTotal = (count: number) => ({ totalRestRequests: count });
    const query = /* GraphQL */ `{ usage { apiCounts(project: "${project}", interval: DAILY) { totalRestRequests } } }`;
    const totals = async () =>
      (JSON.parse((await graphql(query)).text) as { data: { usage: { apiCounts: unknown[] } } }).data.usage
        .apiCounts;

    expect((await ingest([record('replay-1', 10)])).status).toBe(200);
    expect(await totals()).toEqual([restTotal(1)]);
    expect((await ingest([record('replay-2', 5)])).status).toBe(200);
    // Cached for 900 s, as the spec says: the kept response is still the truth of the entry.
    expect(await totals()).toEqual([restTotal(1)]);
    const refreshed = await fetch(
      new URL(`${byName('usage.api-counts')}?project=${project}&interval=daily`, app.url),
      {
        headers: { 'x-api-key': testApiKey, 'cache-control': 'no-cache' },
      },
    );
    expect(((await refreshed.json()) as { result: Array<{ total_rest_requests: number }> }).result).toEqual([
      expect.objectContaining({ total_rest_requests: 2 }),
    ]);
    expect(await totals()).toEqual([restTotal(2)]);
  });
});

// Last: they move the shared clock on.
describe('a replayed response', () => {
  it('gives way to the result warming computed, and keeps its key live for warming', async () => {
    const query = apiCountsQuery(projects.gamma);
    const start = time.now();
    const first = await graphql(query);
    expect(bucketsOf(first.text)).toEqual(expectedBuckets(projects.gamma, start));

    // Only replays ask for the key in between; warming at 300 s still re-runs it.
    await time.advance(100_000);
    expect((await graphql(query)).text).toBe(first.text);
    const runs = runsFor(projects.gamma);
    await time.advance(210_000);
    expect(runsFor(projects.gamma)).toBe(runs + 1);

    // The warmed result was computed 300 s after the first: an hour's window that moved on.
    const warmed = await graphql(query);
    const warmedAt = new Date(start.getTime() + 300_000);
    expect(bucketsOf(warmed.text)).toEqual(expectedBuckets(projects.gamma, warmedAt));
    expect(warmed.text).not.toBe(first.text);
    expect(runsFor(projects.gamma)).toBe(runs + 1);
  });

  it('is not sent once its result expired: the query runs again', async () => {
    const query = apiCountsQuery(projects.alpha);
    await graphql(query);
    // Nobody asks in between: warming stops once the key is no longer live and drops it at 900 s.
    await time.advance(901_000);
    const runs = runsFor(projects.alpha);
    const later = await graphql(query);
    expect(runsFor(projects.alpha)).toBe(runs + 1);
    expect(bucketsOf(later.text)).toEqual(expectedBuckets(projects.alpha, time.now()));
  });

  it('agrees with REST on the same cache entry', async () => {
    const query = apiCountsQuery(projects.beta);
    await graphql(query);
    const replayed = await graphql(query);
    const rest = await fetch(
      new URL(`${byName('usage.api-counts')}?project=${projects.beta}&interval=hourly`, app.url),
      { headers: { 'x-api-key': testApiKey } },
    );
    const rows = ((await rest.json()) as { result: Array<Record<string, unknown>> }).result;
    expect(bucketsOf(replayed.text)).toEqual(
      rows.map((row) => ({
        timestamp: isoToMicros(String(row.timestamp)),
        totalRestRequests: row.total_rest_requests,
      })),
    );
  });
});
