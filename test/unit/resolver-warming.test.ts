import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Endpoint } from '../../src/endpoints/registry.js';
import { createResolver, type Resolver } from '../../src/resolve/resolver.js';
import { type CountingEngine, createCountingEngine } from '../helpers/counting-engine.js';
import { createEndpointEngine, type EndpointEngine, endpointNamed } from '../helpers/endpoint-engine.js';
import { createManualTime, type ManualTime } from '../helpers/manual-time.js';

// Cache warming: live keys (requested within their 900 s lifetime) are re-run every 300 s with
// the clock's current now; keys nobody asked for during a whole lifetime are dropped; a failed
// warm keeps the previous result until it expires. Real DuckDB, counted; time moved by hand.

const t0 = new Date('2026-03-10T12:34:56.789Z');
const SECOND = 1000;
const at = (seconds: number) => new Date(t0.getTime() + seconds * SECOND);

const edge = (id: string, project: string, timestamp: string, path: string) => ({
  id,
  timestamp,
  event_message: `GET ${path}`,
  project,
  metadata: {
    request: {
      url: `https://${project}.supabase.co${path}`,
      path,
      method: 'GET',
      host: `${project}.supabase.co`,
    },
    response: { status_code: 200, origin_time: 5 },
  },
});

let store: EndpointEngine;
let usage: Endpoint;

beforeAll(async () => {
  store = await createEndpointEngine();
  usage = endpointNamed(store.registry, 'usage.api-counts');
  await store.insert('cloudflare.logs.prod', [
    edge('w1', 'warm1', '2026-03-10 12:10:00', '/rest/v1/todos'),
    edge('w2', 'warm1', '2026-03-10 12:20:00', '/auth/v1/token'),
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

/** Which keys (by interval) ran at which second after t0. */
function runsBySecond(): Record<number, string[]> {
  const runs: Record<number, string[]> = {};
  for (const call of engine.calls) {
    const second = (call.now.getTime() - t0.getTime()) / SECOND;
    runs[second] = [...(runs[second] ?? []), String(call.params.interval)].sort();
  }
  return runs;
}

describe('warming', () => {
  it('re-runs exactly the keys requested within their lifetime, every 300 s', async () => {
    const a = { project: 'warm1', interval: 'hourly' };
    const b = { project: 'warm1', interval: 'daily' };
    await resolver.resolve(usage, a);
    await resolver.resolve(usage, b);
    await time.advanceTo(at(500));
    await resolver.resolve(usage, a); // a hit that keeps a live until 1400 s
    await time.advanceTo(at(2400));
    await resolver.idle();
    // b was last requested at 0 s: warmed at 300 and 600, dropped at 900 (a whole lifetime
    // without a request). a was last requested at 500 s: warmed up to 1200, dropped at 1500.
    expect(runsBySecond()).toEqual({
      0: ['daily', 'hourly'],
      300: ['daily', 'hourly'],
      600: ['daily', 'hourly'],
      900: ['hourly'],
      1200: ['hourly'],
    });
    expect(resolver.stats()).toMatchObject({ warmRuns: 6, warmFailures: 0, hits: 1, entries: 0 });
  });

  it('serves the warmed result without reaching the engine, computed with the clock at warm time', async () => {
    const params = { project: 'warm2', interval: 'hourly' };
    await store.insert('cloudflare.logs.prod', [edge('x1', 'warm2', '2026-03-10 12:30:00', '/rest/v1/a')]);
    const before = await resolver.resolve(usage, params);
    expect(before.result.rows).toEqual([
      {
        timestamp: '2026-03-10T12:00:00',
        total_rest_requests: 1,
        total_storage_requests: 0,
        total_auth_requests: 0,
        total_realtime_requests: 0,
      },
    ]);
    // A request arrives after the first run; the warm run at 300 s sees it.
    await store.insert('cloudflare.logs.prod', [
      edge('x2', 'warm2', '2026-03-10 12:37:00', '/realtime/v1/ws'),
    ]);
    await time.advanceTo(at(300));
    await resolver.idle();
    await time.advanceTo(at(450));
    const after = await resolver.resolve(usage, params);
    expect(engine.calls).toHaveLength(2);
    expect(engine.calls[1]?.now).toEqual(at(300));
    expect(after).toMatchObject({ computedAt: at(300), ageSeconds: 150, maxAgeSeconds: 900 });
    expect(after.result.rows).toEqual([
      {
        timestamp: '2026-03-10T12:00:00',
        total_rest_requests: 1,
        total_storage_requests: 0,
        total_auth_requests: 0,
        total_realtime_requests: 1,
      },
    ]);
  });

  it('keeps a key that is requested often warm for good: callers never wait for the engine', async () => {
    const params = { project: 'warm1', interval: 'hourly' };
    await resolver.resolve(usage, params);
    for (let second = 250; second <= 3000; second += 250) {
      await time.advanceTo(at(second));
      await resolver.idle();
      const resolved = await resolver.resolve(usage, params);
      expect(resolved.ageSeconds).toBeLessThan(300);
    }
    expect(resolver.stats()).toMatchObject({ misses: 1, hits: 12, warmRuns: 10 });
  });

  it('drops a key nobody requested for a whole lifetime, so the next call runs the query again', async () => {
    const params = { project: 'warm1', interval: 'hourly' };
    await resolver.resolve(usage, params);
    await time.advanceTo(at(900));
    await resolver.idle();
    expect(resolver.stats().entries).toBe(0);
    expect(time.pending).toBe(0);
    await resolver.resolve(usage, params);
    expect(runsBySecond()).toEqual({ 0: ['hourly'], 300: ['hourly'], 600: ['hourly'], 900: ['hourly'] });
    expect(resolver.stats().misses).toBe(2);
  });

  it('never warms an endpoint without a warm interval; its result leaves at expiry', async () => {
    const noWarming = { ...usage, warmSeconds: null };
    const params = { project: 'warm1', interval: 'hourly' };
    await resolver.resolve(noWarming, params);
    await time.advanceTo(at(800));
    await resolver.resolve(noWarming, params);
    await time.advanceTo(at(899));
    expect(engine.calls).toHaveLength(1);
    await time.advanceTo(at(900));
    expect(resolver.stats()).toMatchObject({ entries: 0, warmRuns: 0 });
  });

  it('runs at most the configured number of warm runs at once', async () => {
    const bounded = createResolver({ engine, now: time.now, timers: time.timers, warmConcurrency: 2 });
    try {
      for (const project of ['k1', 'k2', 'k3', 'k4', 'k5']) {
        await bounded.resolve(usage, { project, interval: 'hourly' });
      }
      engine.hold();
      await time.advanceTo(at(300));
      expect(engine.running).toBe(2);
      engine.release();
      await bounded.idle();
      expect(engine.calls).toHaveLength(10);
      expect(engine.maxRunning).toBe(2);
    } finally {
      await bounded.close();
    }
  });

  it('stops warming when closed', async () => {
    await resolver.resolve(usage, { project: 'warm1', interval: 'hourly' });
    await resolver.close();
    expect(time.pending).toBe(0);
    await time.advanceTo(at(1200));
    expect(engine.calls).toHaveLength(1);
  });
});

describe('stale-if-error', () => {
  it('keeps serving the previous result after failed warm runs until it expires, then runs again', async () => {
    const params = { project: 'warm1', interval: 'hourly' };
    const first = await resolver.resolve(usage, params);
    engine.failNext(2);
    await time.advanceTo(at(300));
    await resolver.idle();
    await time.advanceTo(at(400));
    const stale = await resolver.resolve(usage, params);
    expect(stale.result).toBe(first.result);
    expect(stale).toMatchObject({ computedAt: t0, ageSeconds: 400 });
    await time.advanceTo(at(900 - 0.001));
    await resolver.idle();
    expect((await resolver.resolve(usage, params)).result).toBe(first.result);
    expect(resolver.stats()).toMatchObject({ warmRuns: 2, warmFailures: 2, staleServes: 2 });
    // Past its lifetime the old result is gone; the call waits for a new run.
    await time.advanceTo(at(900));
    const fresh = await resolver.resolve(usage, params);
    expect(fresh.computedAt).toEqual(at(900));
    expect(fresh.result.rows).toEqual(first.result.rows);
    expect(engine.calls).toHaveLength(4);
  });

  it('serves fresh results again once a later warm run succeeds', async () => {
    const params = { project: 'warm1', interval: 'hourly' };
    await resolver.resolve(usage, params);
    engine.failNext(1);
    await time.advanceTo(at(300));
    await resolver.idle();
    await resolver.resolve(usage, params); // a stale serve keeps the key live
    await time.advanceTo(at(600));
    await resolver.idle();
    const refreshed = await resolver.resolve(usage, params);
    expect(refreshed.computedAt).toEqual(at(600));
    expect(resolver.stats()).toMatchObject({ warmRuns: 2, warmFailures: 1, staleServes: 1, hits: 2 });
  });
});
