import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Endpoint } from '../../src/endpoints/registry.js';
import { createMetrics, type Metrics } from '../../src/metrics/metrics.js';
import { createResolver, type Resolver } from '../../src/resolve/resolver.js';
import { type CountingEngine, createCountingEngine } from '../helpers/counting-engine.js';
import { createEndpointEngine, type EndpointEngine, endpointNamed } from '../helpers/endpoint-engine.js';
import { createManualTime, type ManualTime } from '../helpers/manual-time.js';
import { parsePrometheusText, sampleValue } from '../helpers/prometheus-text.js';

// What the resolver layer tells metrics: the cache outcome of each answer, each warm run and
// whether it failed, each eviction. Real DuckDB behind a counting wrapper, time moved by hand.

const t0 = new Date('2026-03-10T12:34:56.789Z');
const at = (seconds: number) => new Date(t0.getTime() + seconds * 1000);

let store: EndpointEngine;
let usage: Endpoint;
let logsAll: Endpoint;

beforeAll(async () => {
  store = await createEndpointEngine();
  usage = endpointNamed(store.registry, 'usage.api-counts');
  logsAll = endpointNamed(store.registry, 'logs.all');
});

afterAll(async () => {
  await store?.close();
});

let time: ManualTime;
let engine: CountingEngine;
let metrics: Metrics;
let resolver: Resolver;

const resolverWith = (maxCacheBytes?: number) =>
  createResolver({
    engine,
    now: time.now,
    timers: time.timers,
    ...(maxCacheBytes === undefined ? {} : { maxCacheBytes }),
    onWarmed: (endpoint) => metrics.endpoint(endpoint.name).warmed(false),
    onWarmError: (_error, endpoint) => metrics.endpoint(endpoint.name).warmed(true),
    onEvicted: () => metrics.evicted(1),
  });

beforeEach(() => {
  time = createManualTime(t0);
  engine = createCountingEngine(store.engine);
  metrics = createMetrics();
  resolver = resolverWith();
  time.settleWith(() => resolver.idle());
});

afterEach(async () => {
  await resolver.close();
});

const scrape = async () => parsePrometheusText(await metrics.exposition());

describe('cache outcomes', () => {
  it('answers miss, then hit, joined for a concurrent call, refresh and uncached', async () => {
    const hourly = { project: 'p1', interval: 'hourly' };
    const daily = { project: 'p1', interval: 'daily' };
    expect((await resolver.resolve(usage, hourly)).cache).toBe('miss');
    expect(resolver.cached(usage, hourly)?.cache).toBe('hit');
    expect((await resolver.resolve(usage, hourly)).cache).toBe('hit');
    const [first, second] = await Promise.all([
      resolver.resolve(usage, daily),
      resolver.resolve(usage, daily),
    ]);
    expect([first.cache, second.cache]).toEqual(['miss', 'joined']);
    expect(engine.calls).toHaveLength(2);
    expect((await resolver.resolve(usage, hourly, { refresh: true })).cache).toBe('refresh');
    expect((await resolver.resolve(logsAll, { project: 'p1', project_tier: 'FREE' })).cache).toBe('uncached');
  });

  it('answers stale from a result whose warm run failed, and counts the failure', async () => {
    const hourly = { project: 'p1', interval: 'hourly' };
    await resolver.resolve(usage, hourly);
    engine.failNext(1);
    await time.advanceTo(at(300));
    await resolver.idle();
    expect((await resolver.resolve(usage, hourly)).cache).toBe('stale');
    const reused: string[] = [];
    const result = resolver.cached(usage, hourly)?.result;
    expect(
      resolver.reuse([{ endpoint: usage, params: hourly, result }], (_call, cache) => reused.push(cache)),
    ).toBe(true);
    expect(reused).toEqual(['stale']);
    const families = await scrape();
    expect(
      sampleValue(families, 'querygate_warm_runs_total', { endpoint: 'usage.api-counts', outcome: 'failed' }),
    ).toBe(1);
    expect(
      sampleValue(families, 'querygate_warm_runs_total', { endpoint: 'usage.api-counts', outcome: 'ok' }),
    ).toBe(0);
  });
});

describe('warm runs and evictions', () => {
  it('counts each warm run that stored a result', async () => {
    await resolver.resolve(usage, { project: 'p1', interval: 'hourly' });
    await time.advanceTo(at(300));
    await resolver.idle();
    await time.advanceTo(at(600));
    await resolver.idle();
    expect(resolver.stats().warmRuns).toBe(2);
    const families = await scrape();
    expect(
      sampleValue(families, 'querygate_warm_runs_total', { endpoint: 'usage.api-counts', outcome: 'ok' }),
    ).toBe(2);
  });

  it('counts a result evicted to stay within the byte budget, and not one replaced or dropped', async () => {
    const probe = await resolver.resolve(usage, { project: 'p1', interval: 'hourly' });
    const oneResult = resolver.stats().bytes;
    expect(probe.cache).toBe('miss');
    const bounded = resolverWith(Math.ceil(oneResult * 1.5));
    try {
      await bounded.resolve(usage, { project: 'p1', interval: 'hourly' });
      await bounded.resolve(usage, { project: 'p1', interval: 'hourly' }, { refresh: true }); // replaced
      expect(sampleValue(await scrape(), 'querygate_cache_evictions_total')).toBe(0);
      await bounded.resolve(usage, { project: 'p2', interval: 'hourly' }); // evicts p1's
      expect(bounded.stats().entries).toBe(1);
      expect(sampleValue(await scrape(), 'querygate_cache_evictions_total')).toBe(1);
    } finally {
      await bounded.close();
    }
  });
});
