import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Querygate } from '../../src/server.js';
import { fixtureEvents, fixtureNow, projects } from '../fixtures/spec-fixture.js';
import { type CountedQuerygate, startCountedQuerygate } from '../helpers/counted-querygate.js';
import type { CountingEngine } from '../helpers/counting-engine.js';
import type { ManualTime } from '../helpers/manual-time.js';
import { byId, byName, testApiKey } from '../helpers/querygate-server.js';
import { expectedApiCounts, isoToMicros, re2AsJs } from '../helpers/spec-expectations.js';

/**
 * One resolver layer behind both faces, on the real server: calls by name, by UUID and through
 * GraphQL land on one cache entry (the engine, counted, runs once), and REST's Cache-Control and
 * Age headers tell the truth about that entry as a manual clock moves on.
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

async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const response = await fetch(new URL(path, app.url), {
    method,
    headers: { 'x-api-key': testApiKey, 'content-type': 'application/json', ...headers },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  return { status: response.status, headers: response.headers, body: (await response.json()) as unknown };
}

const rest = (path: string, params: Record<string, string>) =>
  call('GET', `${path}?${new URLSearchParams(params).toString()}`);

const graphql = (query: string) => call('POST', '/graphql', { query });

describe('one cache entry for every way in', () => {
  it('runs usage.api-counts once for calls by name, by UUID and through GraphQL with the same arguments', async () => {
    const before = engine.callsOf('usage.api-counts').length;
    const named = await rest(byName('usage.api-counts'), { project: projects.beta, interval: 'daily' });
    const identified = await rest(byId('usage.api-counts'), { interval: 'daily', project: projects.beta });
    const viaGraphQL = await graphql(/* GraphQL */ `{
      usage { apiCounts(project: "${projects.beta}", interval: DAILY) {
        timestamp totalRestRequests totalStorageRequests totalAuthRequests totalRealtimeRequests
      } }
    }`);
    expect(engine.callsOf('usage.api-counts').length - before).toBe(1);

    const expected = expectedApiCounts(
      fixtureEvents,
      { interval: 'daily', urlMatches: re2AsJs(projects.beta) },
      fixtureNow,
    );
    expect(expected.length).toBeGreaterThan(0);
    expect(named.body).toEqual({ result: expected });
    expect(identified.body).toEqual(named.body);
    const buckets = (viaGraphQL.body as { data: { usage: { apiCounts: Array<Record<string, unknown>> } } })
      .data.usage.apiCounts;
    expect(
      buckets.map((bucket) => ({
        timestamp: isoToMicros(String(bucket.timestamp)),
        total_rest_requests: bucket.totalRestRequests,
        total_storage_requests: bucket.totalStorageRequests,
        total_auth_requests: bucket.totalAuthRequests,
        total_realtime_requests: bucket.totalRealtimeRequests,
      })),
    ).toEqual(expected.map((row) => ({ ...row, timestamp: isoToMicros(row.timestamp) })));
  });

  it('shares the entry of functions.invocation-stats between an empty function_id over REST and no functionId in GraphQL', async () => {
    const before = engine.callsOf('functions.invocation-stats').length;
    await graphql(
      /* GraphQL */ `{ functions { invocationStats(project: "${projects.beta}", interval: SEVEN_DAYS) { count } } }`,
    );
    await rest(byName('functions.invocation-stats'), {
      project: projects.beta,
      interval: '7day',
      function_id: '',
    });
    await rest(byId('functions.invocation-stats'), {
      project: projects.beta,
      interval: '7day',
      ignored: 'x',
    });
    expect(engine.callsOf('functions.invocation-stats').length - before).toBe(1);
  });
});

describe('values the contract falls back on', () => {
  it('share the entry of the declared fallback: an undeclared interval runs no second query', async () => {
    const before = engine.callsOf('functions.invocation-stats').length;
    const oneDay = await rest(byName('functions.invocation-stats'), {
      project: projects.alpha,
      interval: '1day',
    });
    const weekly = await rest(byName('functions.invocation-stats'), {
      project: projects.alpha,
      interval: 'weekly',
    });
    const other = await rest(byId('functions.invocation-stats'), { project: projects.alpha, interval: 'x' });
    expect(engine.callsOf('functions.invocation-stats').length - before).toBe(1);
    expect(oneDay.status).toBe(200);
    expect(weekly.body).toEqual(oneDay.body);
    expect(other.body).toEqual(oneDay.body);
  });
});

describe('REST caching headers', () => {
  it('say max-age 900 and the true Age of the entry, which warming renews', async () => {
    const params = { project: projects.gamma, interval: 'hourly' };
    const first = await rest(byName('usage.api-counts'), params);
    expect(first.headers.get('cache-control')).toBe('private, max-age=900');
    expect(first.headers.get('age')).toBe('0');

    await time.advance(125_400);
    const later = await rest(byId('usage.api-counts'), params);
    expect(later.headers.get('cache-control')).toBe('private, max-age=900');
    expect(later.headers.get('age')).toBe('125');

    // At 300 s the warmer re-ran the live key with the clock's now: the entry is 10 s old at 310 s.
    await time.advance(310_000 - 125_400);
    const warmed = await rest(byName('usage.api-counts'), params);
    expect(warmed.headers.get('age')).toBe('10');
    // And what it serves was computed for that now: gamma's request of an hour before the
    // start has left the hourly window.
    const urlMatches = re2AsJs(projects.gamma);
    expect(later.body).toEqual({
      result: expectedApiCounts(fixtureEvents, { interval: 'hourly', urlMatches }, fixtureNow),
    });
    expect(warmed.body).toEqual({
      result: expectedApiCounts(
        fixtureEvents,
        { interval: 'hourly', urlMatches },
        new Date(fixtureNow.getTime() + 300_000),
      ),
    });
    expect(warmed.body).not.toEqual(later.body);
  });

  it('say no-store and carry no Age for logs.all, which is never cached', async () => {
    const response = await rest(byName('logs.all'), { project: projects.gamma, project_tier: 'FREE' });
    expect(response.status).toBe(200);
    expect(response.headers.get('cache-control')).toBe('no-store');
    expect(response.headers.get('age')).toBeNull();
  });
});

// Last: it moves the shared clock on.
describe('a request for a fresh result', () => {
  it('runs the query again for a REST call with Cache-Control: no-cache, and says the result is new', async () => {
    const params = new URLSearchParams({ project: projects.alpha, interval: 'hourly' }).toString();
    const path = `${byName('usage.api-counts')}?${params}`;
    await call('GET', path);
    const before = engine.callsOf('usage.api-counts').length;
    await time.advance(30_000);
    const cached = await call('GET', path);
    expect(engine.callsOf('usage.api-counts')).toHaveLength(before);
    expect(cached.headers.get('age')).toBe('30');
    const fresh = await call('GET', path, undefined, { 'cache-control': 'no-cache' });
    expect(engine.callsOf('usage.api-counts')).toHaveLength(before + 1);
    expect(fresh.headers.get('age')).toBe('0');
    expect(fresh.status).toBe(200);
  });
});
