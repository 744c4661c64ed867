import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Endpoint } from '../../src/endpoints/registry.js';
import { createResolver, type Resolver } from '../../src/resolve/resolver.js';
import { resultFormats } from '../../src/rest/result-formats.js';
import { type CountingEngine, createCountingEngine } from '../helpers/counting-engine.js';
import { createEndpointEngine, type EndpointEngine, endpointNamed } from '../helpers/endpoint-engine.js';
import { createManualTime, type ManualTime } from '../helpers/manual-time.js';

// The caching rules of the resolver layer, on the real DuckDB engine behind a counting wrapper,
// with a manual clock: fifteen minutes of cache life pass in milliseconds.

const t0 = new Date('2026-03-10T12:34:56.789Z');
const SECOND = 1000;

const edge = (id: string, timestamp: string, path: string) => ({
  id,
  timestamp,
  event_message: `GET ${path}`,
  project: 'p1',
  metadata: {
    request: { url: `https://p1.supabase.co${path}`, path, method: 'GET', host: 'p1.supabase.co' },
    response: { status_code: 200, origin_time: 5 },
  },
});

// Hourly usage of p1 at t0 reads records from 11:34:56.789 on: e1, e2 and e3, all in the 12:00 bucket.
const hourlyUsageRows = [
  {
    timestamp: '2026-03-10T12:00:00',
    total_rest_requests: 1,
    total_storage_requests: 1,
    total_auth_requests: 1,
    total_realtime_requests: 0,
  },
];

let store: EndpointEngine;
let usage: Endpoint;
let stats: Endpoint;
let logsAll: Endpoint;
/** usage.api-counts as an endpoint that caches for 900 s but never warms: expiry in isolation. */
let usageWithoutWarming: Endpoint;

beforeAll(async () => {
  store = await createEndpointEngine();
  usage = endpointNamed(store.registry, 'usage.api-counts');
  stats = endpointNamed(store.registry, 'functions.invocation-stats');
  logsAll = endpointNamed(store.registry, 'logs.all');
  usageWithoutWarming = { ...usage, warmSeconds: null };
  await store.insert('cloudflare.logs.prod', [
    edge('e0', '2026-03-10 09:00:00', '/rest/v1/old'),
    edge('e1', '2026-03-10 12:10:00', '/rest/v1/todos'),
    edge('e2', '2026-03-10 12:20:00', '/auth/v1/token'),
    edge('e3', '2026-03-10 12:30:00', '/storage/v1/object/a.png'),
  ]);
});

afterAll(async () => {
  await store?.close();
});

let time: ManualTime;
let engine: CountingEngine;
let resolver: Resolver;

beforeEach(() => {
  time = createManualTime(t0);
  engine = createCountingEngine(store.engine);
  resolver = createResolver({ engine, now: time.now, timers: time.timers });
  time.settleWith(() => resolver.idle());
});

afterEach(async () => {
  await resolver.close();
});

const hourly = { project: 'p1', interval: 'hourly' };

const resultBody = resultFormats.result.response;

describe('cache hits', () => {
  it('serves a second identical call within the lifetime from the cache, without reaching the engine', async () => {
    const first = await resolver.resolve(usage, hourly);
    await time.advance(60 * SECOND);
    const second = await resolver.resolve(usage, hourly);
    expect(engine.calls).toHaveLength(1);
    expect(first.result.rows).toEqual(hourlyUsageRows);
    expect(second.result).toBe(first.result);
    expect(resolver.stats()).toMatchObject({ hits: 1, misses: 1 });
  });

  it('runs again for a refresh within the lifetime, and serves the fresh result to later calls', async () => {
    const params = { project: 'p1', interval: 'hourly' };
    await resolver.resolve(usage, params);
    await time.advance(60 * SECOND);
    const refreshed = await resolver.resolve(usage, params, { refresh: true });
    expect(engine.calls).toHaveLength(2);
    expect(refreshed.ageSeconds).toBe(0);
    await time.advance(10 * SECOND);
    const later = await resolver.resolve(usage, params);
    expect(engine.calls).toHaveLength(2);
    expect(later.ageSeconds).toBe(10);
    expect(later.result.rows).toEqual(hourlyUsageRows);
    expect(resolver.stats()).toMatchObject({ refreshes: 1, hits: 1, misses: 1 });
  });

  it('shares one entry whatever the parameter order, an unset optional parameter or names outside the contract', async () => {
    await resolver.resolve(stats, { project: 'p1', interval: '1hr', function_id: null });
    await resolver.resolve(stats, { interval: '1hr', project: 'p1' });
    await resolver.resolve(stats, { project: 'p1', interval: '1hr', function_id: '' });
    await resolver.resolve(stats, { project: 'p1', interval: '1hr', utm_source: 'mail' });
    expect(engine.calls).toHaveLength(1);
  });

  it('answers a fresh entry synchronously through cached(), counted as the same hit', async () => {
    expect(resolver.cached(usageWithoutWarming, hourly)).toBeUndefined();
    const first = await resolver.resolve(usageWithoutWarming, hourly);
    await time.advance(30 * SECOND);
    const hit = resolver.cached(usageWithoutWarming, hourly);
    expect(hit?.result).toBe(first.result);
    expect(hit?.ageSeconds).toBe(30);
    expect(resolver.cached(logsAll, { project: 'p1', project_tier: 'FREE' })).toBeUndefined();
    await time.advance(900 * SECOND);
    expect(resolver.cached(usageWithoutWarming, hourly)).toBeUndefined();
    expect(engine.calls).toHaveLength(1);
    expect(resolver.stats()).toMatchObject({ hits: 1, misses: 1, uncached: 0 });
  });

  it('counts reused answers as hits only when every result is still the fresh cached one', async () => {
    const daily = { project: 'p1', interval: 'daily' };
    const a = await resolver.resolve(usage, hourly);
    const b = await resolver.resolve(usage, daily);
    const both = [
      { endpoint: usage, params: hourly, result: a.result },
      { endpoint: usage, params: daily, result: b.result },
    ];
    expect(resolver.reuse(both)).toBe(true);
    expect(resolver.stats()).toMatchObject({ hits: 2, misses: 2 });

    // One stale answer and nothing is counted: the caller runs the calls instead.
    await resolver.resolve(usage, daily, { refresh: true });
    expect(resolver.reuse(both)).toBe(false);
    expect(resolver.reuse([{ endpoint: usage, params: hourly, result: undefined }])).toBe(false);
    expect(resolver.reuse([{ endpoint: logsAll, params: hourly, result: a.result }])).toBe(false);
    expect(resolver.stats()).toMatchObject({ hits: 2, misses: 2 });
    expect(resolver.reuse([both[0] as (typeof both)[number]])).toBe(true);
    expect(resolver.stats()).toMatchObject({ hits: 3 });
  });

  it('keeps calls with different parameter values apart', async () => {
    await resolver.resolve(usage, hourly);
    await resolver.resolve(usage, { project: 'p1', interval: 'daily' });
    await resolver.resolve(usage, { project: 'p2', interval: 'hourly' });
    expect(engine.calls).toHaveLength(3);
    // And each keeps its own result.
    expect((await resolver.resolve(usage, hourly)).result.rows).toEqual(hourlyUsageRows);
    expect(engine.calls).toHaveLength(3);
  });

  it('tells the age and lifetime of a cached result in whole seconds', async () => {
    const miss = await resolver.resolve(usage, hourly);
    expect(miss).toMatchObject({ computedAt: t0, ageSeconds: 0, maxAgeSeconds: 900 });
    await time.advance(61 * SECOND + 999);
    const hit = await resolver.resolve(usage, hourly);
    expect(hit).toMatchObject({ computedAt: t0, ageSeconds: 61, maxAgeSeconds: 900 });
  });
});

describe('expiry', () => {
  it('serves the result until it is as old as the cache seconds (900 s), then runs the query again with the current now', async () => {
    await resolver.resolve(usageWithoutWarming, hourly);
    await time.advance(900 * SECOND - 1);
    await resolver.resolve(usageWithoutWarming, hourly);
    expect(engine.calls).toHaveLength(1);
    await time.advance(1);
    const again = await resolver.resolve(usageWithoutWarming, hourly);
    expect(engine.calls.map((call) => call.now.getTime())).toEqual([
      t0.getTime(),
      t0.getTime() + 900 * SECOND,
    ]);
    expect(again.computedAt.getTime()).toBe(t0.getTime() + 900 * SECOND);
    expect(again.ageSeconds).toBe(0);
  });

  it('removes an expired result that nobody asks for again', async () => {
    await resolver.resolve(usageWithoutWarming, hourly);
    expect(resolver.stats().entries).toBe(1);
    await time.advance(900 * SECOND);
    expect(resolver.stats().entries).toBe(0);
    expect(engine.calls).toHaveLength(1);
  });
});

describe('logs.all (cache seconds 0)', () => {
  it('runs on every call and never keeps a result', async () => {
    const params = {
      project: 'p1',
      project_tier: 'FREE',
      iso_timestamp_start: null,
      iso_timestamp_end: null,
    };
    const first = await resolver.resolve(logsAll, params);
    await time.advance(SECOND);
    const second = await resolver.resolve(logsAll, params);
    expect(engine.callsOf('logs.all')).toHaveLength(2);
    expect(engine.calls.map((call) => call.now.getTime())).toEqual([t0.getTime(), t0.getTime() + SECOND]);
    expect(first.result.rows.map((row) => row.id)).toEqual(['e3', 'e2', 'e1', 'e0']);
    expect(second).toMatchObject({ maxAgeSeconds: 0, ageSeconds: 0 });
    expect(resolver.stats()).toMatchObject({ entries: 0, hits: 0, uncached: 2 });
  });

  it('runs concurrent identical calls separately, each seeing the store as of its own call', async () => {
    const params = { project: 'p1', project_tier: 'FREE' };
    await Promise.all([resolver.resolve(logsAll, params), resolver.resolve(logsAll, params)]);
    expect(engine.callsOf('logs.all')).toHaveLength(2);
  });
});

describe('errors', () => {
  it('never caches a failed run: the next identical call runs again and its result is kept', async () => {
    engine.failNext(1);
    await expect(resolver.resolve(usage, hourly)).rejects.toThrow('engine down');
    expect(resolver.stats().entries).toBe(0);
    const retried = await resolver.resolve(usage, hourly);
    expect(retried.result.rows).toEqual(hourlyUsageRows);
    await resolver.resolve(usage, hourly);
    expect(engine.calls).toHaveLength(2);
  });

  it('hands a failure of a shared run to every caller waiting for it', async () => {
    engine.failNext(1);
    const calls = Array.from({ length: 5 }, () => resolver.resolve(usage, hourly));
    const settled = await Promise.allSettled(calls);
    expect(settled.every((outcome) => outcome.status === 'rejected')).toBe(true);
    expect(engine.calls).toHaveLength(1);
  });
});

describe('single flight', () => {
  it('runs the query once for 50 concurrent identical calls', async () => {
    const results = await Promise.all(Array.from({ length: 50 }, () => resolver.resolve(usage, hourly)));
    expect(engine.calls).toHaveLength(1);
    expect(new Set(results.map((resolved) => resolved.result)).size).toBe(1);
    expect(results[0]?.result.rows).toEqual(hourlyUsageRows);
    expect(resolver.stats()).toMatchObject({ misses: 50, coalesced: 49, hits: 0 });
  });

  it('keeps a shared run going while one caller still waits, and cancels it when all have gone', async () => {
    engine.hold();
    const first = new AbortController();
    const second = new AbortController();
    const calls = [
      resolver.resolve(usage, hourly, { signal: first.signal }),
      resolver.resolve(usage, hourly, { signal: second.signal }),
    ];
    await time.advance(0);
    const [run] = engine.calls;
    first.abort();
    expect(run?.signal?.aborted).toBe(false);
    second.abort();
    expect(run?.signal?.aborted).toBe(true);
    engine.release();
    await Promise.allSettled(calls);
  });

  it('starts a fresh run for a caller who arrives after every earlier caller has gone', async () => {
    engine.hold();
    const leaving = new AbortController();
    // Settled at once: it fails (cancelled) while the test still awaits the fresh run.
    const abandoned = Promise.allSettled([resolver.resolve(usage, hourly, { signal: leaving.signal })]);
    await time.advance(0);
    leaving.abort();
    const arriving = resolver.resolve(usage, hourly);
    await time.advance(0);
    expect(engine.calls).toHaveLength(2);
    expect(engine.calls[1]?.signal?.aborted).toBe(false);
    engine.release();
    expect((await arriving).result.rows).toEqual(hourlyUsageRows);
    expect((await abandoned)[0].status).toBe('rejected');
  });

  it('does not cancel a shared run that a caller without a signal waits for', async () => {
    engine.hold();
    const leaving = new AbortController();
    const calls = [
      resolver.resolve(usage, hourly, { signal: leaving.signal }),
      resolver.resolve(usage, hourly),
    ];
    await time.advance(0);
    leaving.abort();
    expect(engine.calls[0]?.signal?.aborted).toBe(false);
    engine.release();
    const [, stayed] = await Promise.allSettled(calls);
    expect(stayed).toMatchObject({ status: 'fulfilled' });
  });
});

/** The approximate bytes the cache counts for one hourly usage result, on a resolver of its own. */
async function sizeOfOneResult(): Promise<number> {
  const probe = createResolver({ engine: store.engine, now: time.now, timers: time.timers });
  try {
    await probe.resolve(usage, hourly);
    return probe.stats().bytes;
  } finally {
    await probe.close();
  }
}

/** A resolver on the counting engine and manual clock whose cache holds at most `maxCacheBytes`. */
const boundedResolver = (maxCacheBytes: number) =>
  createResolver({ engine, now: time.now, timers: time.timers, maxCacheBytes });

describe('memory bound', () => {
  it('evicts the least recently used result once the approximate size exceeds the bound', async () => {
    // Learn the size of one result, then allow a little more than one.
    const oneResult = await sizeOfOneResult();

    const bounded = boundedResolver(Math.ceil(oneResult * 1.5));
    try {
      // Another pattern matching the same urls: a different key with a result of the same size.
      const samePatternElsewhere = { project: 'supabase', interval: 'hourly' };
      await bounded.resolve(usage, hourly);
      await bounded.resolve(usage, samePatternElsewhere);
      expect(bounded.stats().bytes).toBeLessThanOrEqual(Math.ceil(oneResult * 1.5));
      expect(bounded.stats().entries).toBe(1);
      await bounded.resolve(usage, samePatternElsewhere);
      expect(engine.calls).toHaveLength(2);
      await bounded.resolve(usage, hourly);
      expect(engine.calls).toHaveLength(3);
    } finally {
      await bounded.close();
    }
  });

  it('counts the REST body made from a cached result in the bound, once', async () => {
    const resolved = await resolver.resolve(usage, hourly);
    const { result } = resolved;
    const before = resolver.stats().bytes;
    const body = resolved.encoded(resultBody);
    const json = JSON.stringify({ result: result.rows });
    expect(body.body.toString()).toBe(json);
    // Approximate, like every size in the bound: at least the bytes sent, at most two per byte.
    const charged = resolver.stats().bytes - before;
    expect(charged).toBeGreaterThanOrEqual(Buffer.byteLength(json));
    expect(charged).toBeLessThanOrEqual(2 * Buffer.byteLength(json));
    expect(resolved.encoded(resultBody)).toBe(body);
    expect(resolver.stats().bytes - before).toBe(charged);
  });

  it('evicts the least recently used result when encodings made from another push past the bound', async () => {
    const oneResult = await sizeOfOneResult();

    // Room for two bare results, not for two results and an encoding of one of them.
    const bounded = boundedResolver(oneResult * 2);
    try {
      const samePatternElsewhere = { project: 'supabase', interval: 'hourly' };
      await bounded.resolve(usage, hourly);
      const resolved = await bounded.resolve(usage, samePatternElsewhere);
      expect(bounded.stats().entries).toBe(2);
      resolved.encoded(resultBody);
      expect(bounded.stats().entries).toBe(1);
      expect(bounded.stats().bytes).toBeLessThanOrEqual(oneResult * 2);
      // The one encoded was used last and stays; the other runs again.
      await bounded.resolve(usage, samePatternElsewhere);
      expect(engine.calls).toHaveLength(2);
      await bounded.resolve(usage, hourly);
      expect(engine.calls).toHaveLength(3);
    } finally {
      await bounded.close();
    }
  });

  it('answers but does not keep a result larger than the whole bound', async () => {
    const tiny = boundedResolver(1);
    try {
      expect((await tiny.resolve(usage, hourly)).result.rows).toEqual(hourlyUsageRows);
      await tiny.resolve(usage, hourly);
      expect(engine.calls).toHaveLength(2);
      expect(tiny.stats()).toMatchObject({ entries: 0, bytes: 0 });
      expect(time.pending).toBe(0);
    } finally {
      await tiny.close();
    }
  });
});

describe('a reload', () => {
  it("drops the cached results of changed endpoints, keeps the others', and never answers a changed SQL from the old result", async () => {
    await resolver.resolve(usage, hourly);
    await resolver.resolve(stats, { project: 'p1', interval: '1hr' });
    expect(engine.calls).toHaveLength(2);
    // The same endpoint with another SQL text: another hash, as a reload loads it.
    const changed = { ...usage, hash: `${usage.hash}-changed` };
    resolver.retain((endpoint) => endpoint.id !== usage.id || endpoint.hash === changed.hash);
    expect(resolver.stats().entries).toBe(1);
    await resolver.resolve(changed, hourly);
    await resolver.resolve(stats, { project: 'p1', interval: '1hr' });
    // The changed endpoint ran again; the unchanged one was a hit.
    expect(engine.calls.map((call) => call.endpoint)).toEqual([
      'usage.api-counts',
      'functions.invocation-stats',
      'usage.api-counts',
    ]);
  });

  it('lets no call made after a drop join or keep a run that began before it (its rows may be replaced)', async () => {
    engine.hold();
    const before = resolver.resolve(usage, hourly);
    await time.advance(0);
    expect(engine.calls).toHaveLength(1);
    // A table's rows are replaced: results of endpoints reading it are dropped while one runs.
    resolver.retain((endpoint) => endpoint.id !== usage.id);
    const after = resolver.resolve(usage, hourly);
    await time.advance(0);
    // The later call ran on its own instead of joining the run that may have read the old rows.
    expect(engine.calls).toHaveLength(2);
    engine.release();
    await Promise.all([before, after]);
    // The later run's result is the one kept: the next call is a hit, not a third run.
    await resolver.resolve(usage, hourly);
    expect(engine.calls).toHaveLength(2);
  });

  it('stops warming the dropped results', async () => {
    await resolver.resolve(usage, hourly);
    resolver.retain(() => false);
    await time.advance(600 * SECOND);
    expect(engine.calls).toHaveLength(1);
  });
});
