import { readFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type FixtureEvent, fixtureEvents, fixtureNow, toIngestEvent } from '../fixtures/spec-fixture.js';
import { postGraphQL } from '../helpers/graphql-request.js';
import { type PrometheusFamily, parsePrometheusText, sampleValue } from '../helpers/prometheus-text.js';
import {
  byName,
  expectNoServerErrors,
  type QuerygateUnderTest,
  startQuerygateUnderTest,
  testApiKey,
} from '../helpers/querygate-server.js';

/**
 * GET /metrics on the real server after known traffic: every counter and histogram count equals
 * what the test sent, counted here from the requests themselves, and the exposition is
 * Prometheus' text format as a strict reader takes it.
 */

let service: QuerygateUnderTest;

beforeAll(async () => {
  service = await startQuerygateUnderTest({ now: fixtureNow, events: fixtureEvents });
});

afterAll(async () => {
  await service?.close();
});

/** Scrapes as Prometheus does with examples/grafana/prometheus.yml: the key as a Bearer token. */
async function scrape(): Promise<Map<string, PrometheusFamily>> {
  const response = await fetch(new URL('/metrics', service.url), {
    headers: { authorization: `Bearer ${testApiKey}` },
  });
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe('text/plain; version=0.0.4; charset=utf-8');
  return parsePrometheusText(await response.text());
}

const requests = 'querygate_endpoint_requests_total';
const latencyCount = 'querygate_endpoint_request_duration_seconds_count';

const apiCounts = (params: Record<string, string>, headers: Record<string, string> = {}) =>
  service.request('GET', byName('usage.api-counts'), { params, headers });

const apiCountsField = (project: string) => /* GraphQL */ `{
  usage { apiCounts(project: ${JSON.stringify(project)}, interval: HOURLY) { timestamp totalRestRequests } }
}`;

/** The body the helper posts for a source's events, as its bytes. */
const ingestBodyBytes = (events: readonly unknown[]) => Buffer.byteLength(JSON.stringify({ batch: events }));

describe('GET /metrics', () => {
  it('refuses a scrape without the API key', async () => {
    const response = await fetch(new URL('/metrics', service.url));
    expect(response.status).toBe(401);
  });

  it('counts REST calls per endpoint, status and cache outcome, with a latency observation each', async () => {
    const params = { project: 'metrics-rest', interval: 'hourly' };
    const statuses = [
      (await apiCounts(params)).status, // a miss: the first call of this key
      ...(await Promise.all([1, 2, 3].map(() => apiCounts(params)))).map((r) => r.status), // 3 hits
      (await apiCounts({ project: 'metrics-rest', interval: 'weekly' })).status, // 400: not a declared value
      (await apiCounts(params, { 'cache-control': 'no-cache' })).status, // a refresh
    ];
    expect(statuses).toEqual([200, 200, 200, 200, 400, 200]);
    for (const project of ['metrics-a', 'metrics-b']) {
      const response = await service.get(byName('logs.all'), { project, project_tier: 'FREE' });
      expect(response.status).toBe(200);
    }

    const families = await scrape();
    const usage = { face: 'rest', endpoint: 'usage.api-counts' };
    expect(sampleValue(families, requests, { ...usage, status: '200', cache: 'miss' })).toBe(1);
    expect(sampleValue(families, requests, { ...usage, status: '200', cache: 'hit' })).toBe(3);
    expect(sampleValue(families, requests, { ...usage, status: '200', cache: 'refresh' })).toBe(1);
    expect(sampleValue(families, requests, { ...usage, status: '400', cache: 'none' })).toBe(1);
    expect(sampleValue(families, latencyCount, usage)).toBe(6);
    const logs = { face: 'rest', endpoint: 'logs.all' };
    expect(sampleValue(families, requests, { ...logs, status: '200', cache: 'uncached' })).toBe(2);
    expect(sampleValue(families, latencyCount, logs)).toBe(2);
    // The runs that reached the engine: the miss and the refresh; logs.all never caches.
    expect(
      sampleValue(families, 'querygate_engine_run_duration_seconds_count', { endpoint: 'usage.api-counts' }),
    ).toBe(2);
    expect(
      sampleValue(families, 'querygate_engine_queue_wait_seconds_count', { endpoint: 'usage.api-counts' }),
    ).toBe(2);
    expect(
      sampleValue(families, 'querygate_engine_run_duration_seconds_count', { endpoint: 'logs.all' }),
    ).toBe(2);
  });

  it('counts GraphQL endpoint field calls, hits of results REST cached and field errors included', async () => {
    const answers = [
      await postGraphQL(service, apiCountsField('metrics-rest')), // a hit: REST cached this key above
      await postGraphQL(service, apiCountsField('metrics-graphql')), // a miss
      await postGraphQL(service, apiCountsField('metrics-graphql')), // a hit (replayed or executed)
      await postGraphQL(service, apiCountsField('(')), // a field error: not an RE2 expression
    ];
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
    expect(answers.map((answer) => answer.errors[0]?.extensions?.code)).toEqual([
      undefined,
      undefined,
      undefined,
      'BAD_PARAMETER',
    ]);

    const families = await scrape();
    const usage = { face: 'graphql', endpoint: 'usage.api-counts' };
    expect(sampleValue(families, requests, { ...usage, status: '200', cache: 'hit' })).toBe(2);
    expect(sampleValue(families, requests, { ...usage, status: '200', cache: 'miss' })).toBe(1);
    expect(sampleValue(families, requests, { ...usage, status: '400', cache: 'none' })).toBe(1);
    expect(sampleValue(families, latencyCount, usage)).toBe(4);
    // REST's counts are its own.
    expect(
      sampleValue(families, requests, { face: 'rest', endpoint: 'usage.api-counts', cache: 'hit' }),
    ).toBe(3);
    // Two keys of usage.api-counts are cached now (metrics-rest and metrics-graphql); logs.all caches none.
    expect(sampleValue(families, 'querygate_cache_entries')).toBe(2);
    expect(sampleValue(families, 'querygate_cache_bytes')).toBeGreaterThan(0);
  });

  it('counts aliases of one call once per operation, alike when the operation is executed and when its answer is replayed', async () => {
    // Two aliases of one call and a third field of another: two distinct calls per operation.
    const operation = /* GraphQL */ `{
      functions {
        a: invocationStats(project: "metrics-alias", interval: ONE_HOUR) { count }
        b: invocationStats(project: "metrics-alias", interval: ONE_HOUR) { count }
        c: invocationStats(project: "metrics-alias-other", interval: ONE_HOUR) { count }
      }
    }`;
    // Executed (both calls run), executed again (both hit; now kept), then replayed twice.
    const answers = [];
    for (let i = 0; i < 4; i++) answers.push(await postGraphQL(service, operation));
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
    expect(answers.map((answer) => answer.errors.length)).toEqual([0, 0, 0, 0]);
    // Executed, executed on hits and replayed: the same bytes, fields in the selection's order.
    for (const answer of answers) expect(answer.text).toBe(answers[0]?.text);

    const families = await scrape();
    const stats = { face: 'graphql', endpoint: 'functions.invocation-stats' };
    expect(sampleValue(families, requests, { ...stats, status: '200', cache: 'miss' })).toBe(2);
    expect(sampleValue(families, requests, { ...stats, status: '200', cache: 'hit' })).toBe(3 * 2);
    expect(sampleValue(families, latencyCount, stats)).toBe(4 * 2);
  });

  it('counts the records and body bytes ingested per source, and one commit per request', async () => {
    const bySource = new Map<string, FixtureEvent[]>();
    for (const event of fixtureEvents)
      bySource.set(event.source, [...(bySource.get(event.source) ?? []), event]);
    const [source, events] = [...bySource][0] as [string, FixtureEvent[]];
    const extra = [1, 2, 3, 4, 5].map((n) => ({
      event_message: `metrics record ${n}`,
      timestamp: fixtureNow.toISOString(),
    }));
    expect((await service.ingest(source, extra)).status).toBe(200);
    // A refused request commits nothing and counts nothing.
    expect((await service.ingest(source, [{ event_message: 7, timestamp: 'not a time' }])).status).toBe(400);

    const families = await scrape();
    for (const [name, sent] of bySource) {
      const requestsSent = name === source ? 2 : 1;
      const records = sent.length + (name === source ? extra.length : 0);
      const bytes = ingestBodyBytes(sent.map(toIngestEvent)) + (name === source ? ingestBodyBytes(extra) : 0);
      expect(sampleValue(families, 'querygate_ingested_records_total', { source: name }), name).toBe(records);
      expect(sampleValue(families, 'querygate_ingested_bytes_total', { source: name }), name).toBe(bytes);
      expect(
        sampleValue(families, 'querygate_ingest_commit_duration_seconds_count', { source: name }),
        name,
      ).toBe(requestsSent);
    }
    expect(events.length).toBeGreaterThan(0);
    // The DuckDB file at least holds what was committed.
    expect(sampleValue(families, 'querygate_store_bytes')).toBeGreaterThan(0);
  });

  it('types every family once and gives each histogram cumulative buckets ending in +Inf = _count', async () => {
    const families = await scrape();
    for (const family of families.values()) {
      if (family.type !== 'histogram') continue;
      const series = new Map<string, number[]>();
      for (const sample of family.samples) {
        if (sample.name !== `${family.name}_bucket`) continue;
        const { le, ...rest } = sample.labels;
        const key = JSON.stringify(rest);
        series.set(key, [...(series.get(key) ?? []), sample.value]);
        if (le === '+Inf') {
          expect(sample.value).toBe(sampleValue(families, `${family.name}_count`, rest));
        }
      }
      for (const counts of series.values()) expect(counts).toEqual([...counts].sort((a, b) => a - b));
    }
    expect(families.get('querygate_process_resident_memory_bytes')?.samples[0]?.value).toBeGreaterThan(0);
  });

  it('exposes every metric the Grafana dashboard queries', async () => {
    const dashboard = readFileSync(
      new URL('../../examples/grafana/querygate-dashboard.json', import.meta.url),
      'utf8',
    );
    const queried = new Set(dashboard.match(/\bquerygate_[a-z0-9_]+/g) ?? []);
    expect(queried.size).toBeGreaterThan(10);
    const families = await scrape();
    const exposed = new Set([
      ...families.keys(),
      ...[...families.values()].flatMap((family) => family.samples.map((sample) => sample.name)),
    ]);
    expect([...queried].filter((name) => !exposed.has(name))).toEqual([]);
  });

  it("exposes querygate_build_info = 1 labelled with package.json's version and Node's", async () => {
    const manifest = JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8'));
    const families = await scrape();
    expect(families.get('querygate_build_info')?.type).toBe('gauge');
    expect(families.get('querygate_build_info')?.samples).toEqual([
      expect.objectContaining({ labels: { version: manifest.version, node: process.version }, value: 1 }),
    ]);
  });

  it('answered nothing with a 5xx', () => {
    expectNoServerErrors(service);
  });
});
