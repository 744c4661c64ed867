import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Endpoint } from '../../src/endpoints/registry.js';
import type { QuerygateError } from '../../src/errors.js';
import { createClientAdmission } from '../../src/resolve/client-admission.js';
import { createResolver, type Resolver } from '../../src/resolve/resolver.js';
import { type CountingEngine, createCountingEngine } from '../helpers/counting-engine.js';
import { createEndpointEngine, type EndpointEngine, endpointNamed } from '../helpers/endpoint-engine.js';
import { createManualTime, type ManualTime } from '../helpers/manual-time.js';

// The per-client bound on engine runs: its accounting alone, then in the resolver layer on the
// real DuckDB engine behind a counting wrapper that holds runs until released.

describe('client admission accounting', () => {
  it('admits a client up to its limit and refuses the next run with ENGINE_BUSY, leaving other clients alone', () => {
    const admission = createClientAdmission({ maxRunsPerClient: 2, maxWaitMs: 25_000 });
    admission.admit('a');
    admission.admit('a');
    expect(() => admission.admit('a')).toThrow(expect.objectContaining({ code: 'ENGINE_BUSY' }));
    expect(admission.load('a')).toBe(2);
    admission.admit('b');
    expect(admission.load('b')).toBe(1);
  });

  it('frees a turn when a run ends, and counts a run ended twice once', () => {
    const admission = createClientAdmission({ maxRunsPerClient: 1, maxWaitMs: 25_000 });
    const end = admission.admit('a');
    end();
    end();
    expect(admission.load('a')).toBe(0);
    admission.admit('a');
    expect(admission.load('a')).toBe(1);
    expect(() => admission.admit('a')).toThrow(expect.objectContaining({ code: 'ENGINE_BUSY' }));
  });

  it('advises a retry after the usual length of a run, in whole seconds, at least 1 and at most the query timeout', () => {
    let now = 0;
    const admission = createClientAdmission({ maxRunsPerClient: 1, maxWaitMs: 5_000, nowMs: () => now });
    const refusalOf = () => {
      try {
        admission.admit('a');
      } catch (error) {
        return (error as QuerygateError).details?.retryAfterSeconds;
      }
      throw new Error('the run was admitted');
    };
    const first = admission.admit('a');
    // No run has ended yet: a second is assumed.
    expect(refusalOf()).toBe(1);
    now = 2_500;
    first();
    admission.admit('a');
    expect(refusalOf()).toBe(3);
    const slow = createClientAdmission({ maxRunsPerClient: 1, maxWaitMs: 5_000, nowMs: () => now });
    const end = slow.admit('a');
    now += 60_000;
    end();
    slow.admit('a');
    expect(() => slow.admit('a')).toThrow(expect.objectContaining({ details: { retryAfterSeconds: 5 } }));
  });
});

describe('the per-client bound in the resolver layer', () => {
  const t0 = new Date('2026-03-10T12:34:56.789Z');
  let store: EndpointEngine;
  let usage: Endpoint;
  let logsAll: Endpoint;
  let time: ManualTime;
  let engine: CountingEngine;
  let resolver: Resolver;

  beforeAll(async () => {
    store = await createEndpointEngine();
    usage = endpointNamed(store.registry, 'usage.api-counts');
    logsAll = endpointNamed(store.registry, 'logs.all');
  });

  afterAll(async () => {
    await store?.close();
  });

  beforeEach(() => {
    time = createManualTime(t0);
    engine = createCountingEngine(store.engine);
    resolver = createResolver({
      engine,
      now: time.now,
      timers: time.timers,
      clientAdmission: createClientAdmission({ maxRunsPerClient: 2, maxWaitMs: 25_000 }),
    });
    time.settleWith(() => resolver.idle());
  });

  afterEach(async () => {
    engine.release();
    await resolver.close();
  });

  const codeOf = (promise: Promise<unknown>) =>
    promise.then(
      () => 'answered',
      (error: unknown) => (error as QuerygateError).code,
    );

  it('refuses a client its third run at once, before it reaches the engine, while another client still runs', async () => {
    engine.hold();
    const held = [
      resolver.resolve(usage, { project: 'p1', interval: 'hourly' }, { client: 'a' }),
      resolver.resolve(logsAll, { project: 'p1', project_tier: 'FREE' }, { client: 'a' }),
    ];
    await expect.poll(() => engine.running).toBe(2);
    await expect(
      resolver.resolve(usage, { project: 'p2', interval: 'hourly' }, { client: 'a' }),
    ).rejects.toMatchObject({ code: 'ENGINE_BUSY' });
    // A refresh and an uncached call start runs too, so they are refused as well.
    await expect(
      resolver.resolve(usage, { project: 'p1', interval: 'hourly' }, { client: 'a', refresh: true }),
    ).rejects.toMatchObject({ code: 'ENGINE_BUSY' });
    await expect(
      resolver.resolve(logsAll, { project: 'p2', project_tier: 'FREE' }, { client: 'a' }),
    ).rejects.toMatchObject({ code: 'ENGINE_BUSY' });
    expect(engine.calls).toHaveLength(2);
    const other = codeOf(resolver.resolve(usage, { project: 'p2', interval: 'hourly' }, { client: 'b' }));
    await expect.poll(() => engine.running).toBe(3);
    engine.release();
    expect(await Promise.all([...held.map(codeOf), other])).toEqual(['answered', 'answered', 'answered']);
    // Its runs over, the client runs again.
    expect(await codeOf(resolver.resolve(usage, { project: 'p3', interval: 'daily' }, { client: 'a' }))).toBe(
      'answered',
    );
  });

  it('lets a client at its limit join a run under way and take cache hits, which add no run', async () => {
    await resolver.resolve(usage, { project: 'p9', interval: 'hourly' }, { client: 'b' });
    engine.hold();
    const shared = resolver.resolve(usage, { project: 'p1', interval: 'hourly' }, { client: 'b' });
    const held = [
      resolver.resolve(usage, { project: 'p2', interval: 'hourly' }, { client: 'a' }),
      resolver.resolve(usage, { project: 'p3', interval: 'hourly' }, { client: 'a' }),
    ];
    await expect.poll(() => engine.running).toBe(3);
    const joined = resolver.resolve(usage, { project: 'p1', interval: 'hourly' }, { client: 'a' });
    await resolver.resolve(usage, { project: 'p9', interval: 'hourly' }, { client: 'a' });
    expect(resolver.stats().hits).toBe(1);
    expect(engine.calls).toHaveLength(4);
    engine.release();
    expect(await Promise.all([shared, joined, ...held].map(codeOf))).toEqual([
      'answered',
      'answered',
      'answered',
      'answered',
    ]);
    expect(resolver.stats().coalesced).toBe(1);
  });

  it('never bounds calls that name no client (warm runs, in-process callers)', async () => {
    engine.hold();
    const calls = ['p1', 'p2', 'p3'].map((project) =>
      codeOf(resolver.resolve(usage, { project, interval: 'hourly' })),
    );
    await expect.poll(() => engine.running).toBe(3);
    engine.release();
    expect(await Promise.all(calls)).toEqual(['answered', 'answered', 'answered']);
  });
});
