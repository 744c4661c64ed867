import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import type { Endpoint } from '../../src/endpoints/registry.js';
import type { QuerygateError } from '../../src/errors.js';
import { type ClientAdmission, createClientAdmission } from '../../src/resolve/client-admission.js';
import { createResolver, type Resolver } from '../../src/resolve/resolver.js';
import { type CountingEngine, createCountingEngine } from '../helpers/counting-engine.js';
import { createEndpointEngine, type EndpointEngine, endpointNamed } from '../helpers/endpoint-engine.js';
import { createManualTime, type ManualTime } from '../helpers/manual-time.js';

// The per-client bound on engine runs: its accounting alone, then in the resolver layer on the
// real DuckDB engine behind a counting wrapper that holds runs until released.

describe('client admission accounting', () => {
  const t0 = new Date('2026-03-10T12:34:56.789Z');
  const oneRunQueueing = (maxQueuedPerClient: number) =>
    createClientAdmission({ maxRunsPerClient: 1, maxQueuedPerClient, maxWaitMs: 25_000 });

  it('refuses a client with its runs and queue full at once with ENGINE_BUSY, leaving other clients alone', async () => {
    const admission = createClientAdmission({ maxRunsPerClient: 2, maxWaitMs: 25_000 });
    await admission.admit('a');
    await admission.admit('a');
    await expect(admission.admit('a')).rejects.toMatchObject({ code: 'ENGINE_BUSY' });
    expect(admission.load('a')).toEqual({ running: 2, waiting: 0 });
    await admission.admit('b');
    expect(admission.load('b')).toEqual({ running: 1, waiting: 0 });
  });

  it('frees a turn when a run ends, and counts a run ended twice once', async () => {
    const admission = createClientAdmission({ maxRunsPerClient: 1, maxWaitMs: 25_000 });
    const end = await admission.admit('a');
    end();
    end();
    expect(admission.load('a')).toEqual({ running: 0, waiting: 0 });
    await admission.admit('a');
    expect(admission.load('a')).toEqual({ running: 1, waiting: 0 });
    await expect(admission.admit('a')).rejects.toMatchObject({ code: 'ENGINE_BUSY' });
  });

  it('advises a retry after the usual length of a run, in whole seconds, at least 1 and at most the query timeout', async () => {
    let now = 0;
    const admission = createClientAdmission({ maxRunsPerClient: 1, maxWaitMs: 5_000, nowMs: () => now });
    const refusalOf = () =>
      admission.admit('a').then(
        () => {
          throw new Error('the run was admitted');
        },
        (error: QuerygateError) => error.details?.retryAfterSeconds,
      );
    const first = await admission.admit('a');
    // No run has ended yet: a second is assumed.
    expect(await refusalOf()).toBe(1);
    now = 2_500;
    first();
    await admission.admit('a');
    expect(await refusalOf()).toBe(3);
    const slow = createClientAdmission({ maxRunsPerClient: 1, maxWaitMs: 5_000, nowMs: () => now });
    const end = await slow.admit('a');
    now += 60_000;
    end();
    await slow.admit('a');
    await expect(slow.admit('a')).rejects.toMatchObject({ details: { retryAfterSeconds: 5 } });
  });

  it('queues a client past its cap and hands each freed turn to its first waiter, refusing beyond the queue', async () => {
    const admission = oneRunQueueing(2);
    const first = await admission.admit('a');
    const served: string[] = [];
    const waiter = (name: string) =>
      admission.admit('a').then((end) => {
        served.push(name);
        return end;
      });
    const second = waiter('second');
    const third = waiter('third');
    await expect(admission.admit('a')).rejects.toMatchObject({ code: 'ENGINE_BUSY' });
    expect(admission.load('a')).toEqual({ running: 1, waiting: 2 });
    first();
    const endSecond = await second;
    await new Promise((resolve) => setImmediate(resolve));
    // One run ended, one turn given: the third still waits, and the client still has one run.
    expect(served).toEqual(['second']);
    expect(admission.load('a')).toEqual({ running: 1, waiting: 1 });
    endSecond();
    (await third)();
    expect(served).toEqual(['second', 'third']);
    expect(admission.load('a')).toEqual({ running: 0, waiting: 0 });
  });

  it("holds one endpoint to its share of a client's turns, so the client's call of another endpoint runs at once", async () => {
    const admission = createClientAdmission({
      maxRunsPerClient: 3,
      maxRunsPerClientEndpoint: 2,
      maxQueuedPerClient: 4,
      maxWaitMs: 25_000,
    });
    const slowRuns = [
      await admission.admit('a', undefined, 'slow'),
      await admission.admit('a', undefined, 'slow'),
    ];
    let thirdSlow: (() => void) | undefined;
    const queuedSlow = admission.admit('a', undefined, 'slow').then((end) => {
      thirdSlow = end;
      return end;
    });
    await new Promise((resolve) => setImmediate(resolve));
    // Under the client's cap of 3, but the slow endpoint has its 2: the third slow call waits.
    expect(thirdSlow).toBeUndefined();
    expect(admission.load('a')).toEqual({ running: 2, waiting: 1 });
    const cheap = await admission.admit('a', undefined, 'cheap');
    expect(admission.load('a')).toEqual({ running: 3, waiting: 1 });
    // The cheap run ending frees a client turn, but not one the slow endpoint may take.
    cheap();
    await new Promise((resolve) => setImmediate(resolve));
    expect(thirdSlow).toBeUndefined();
    slowRuns[0]?.();
    (await queuedSlow)();
    slowRuns[1]?.();
    expect(admission.load('a')).toEqual({ running: 0, waiting: 0 });
  });

  it('lets a waiter whose caller aborts leave the queue without taking a turn', async () => {
    const admission = oneRunQueueing(1);
    const first = await admission.admit('a');
    const caller = new AbortController();
    const waiting = admission.admit('a', caller.signal);
    expect(admission.load('a')).toEqual({ running: 1, waiting: 1 });
    caller.abort();
    await expect(waiting).rejects.toMatchObject({ code: 'ENGINE_ERROR' });
    expect(admission.load('a')).toEqual({ running: 1, waiting: 0 });
    first();
    expect(admission.load('a')).toEqual({ running: 0, waiting: 0 });
  });

  it('fails a waiter with ENGINE_TIMEOUT, saying it got no turn, once it has waited the query timeout', async () => {
    const time = createManualTime(t0);
    const admission = createClientAdmission({
      maxRunsPerClient: 1,
      maxQueuedPerClient: 1,
      maxWaitMs: 5_000,
      timers: time.timers,
    });
    const first = await admission.admit('a');
    let outcome: unknown;
    const waiting = admission.admit('a').then(
      () => 'admitted',
      (error: QuerygateError) => error,
    );
    void waiting.then((settled) => {
      outcome = settled;
    });
    await time.advance(4_999);
    expect(outcome).toBeUndefined();
    await time.advance(1);
    expect(await waiting).toMatchObject({
      code: 'ENGINE_TIMEOUT',
      message: expect.stringMatching(/did not get a turn/),
    });
    expect(admission.load('a')).toEqual({ running: 1, waiting: 0 });
    // The turn it never got is not taken: the run under way ends and the client is idle.
    first();
    expect(admission.load('a')).toEqual({ running: 0, waiting: 0 });
    expect(time.pending).toBe(0);
  });
});

describe('the per-client bound in the resolver layer', () => {
  const t0 = new Date('2026-03-10T12:34:56.789Z');
  let store: EndpointEngine;
  let usage: Endpoint;
  let logsAll: Endpoint;
  let time: ManualTime;
  let engine: CountingEngine;
  let admission: ClientAdmission;
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
    admission = createClientAdmission({
      maxRunsPerClient: 2,
      maxQueuedPerClient: 2,
      maxWaitMs: 25_000,
      timers: time.timers,
    });
    resolver = createResolver({ engine, now: time.now, timers: time.timers, clientAdmission: admission });
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

  const hourly = (project: string) => ({ project, interval: 'hourly' });

  it('makes a client’s calls past its cap wait, then answers them all once its runs end, while another client runs meanwhile', async () => {
    engine.hold();
    const calls = ['p1', 'p2', 'p3', 'p4'].map((project) =>
      codeOf(resolver.resolve(usage, hourly(project), { client: 'a' })),
    );
    await expect.poll(() => admission.load('a')).toEqual({ running: 2, waiting: 2 });
    await expect.poll(() => engine.running).toBe(2);
    const other = codeOf(resolver.resolve(usage, hourly('p5'), { client: 'b' }));
    await expect.poll(() => engine.running).toBe(3);
    expect(engine.calls.map((call) => call.params.project)).toEqual(['p1', 'p2', 'p5']);
    engine.release();
    expect(await Promise.all([...calls, other])).toEqual([
      'answered',
      'answered',
      'answered',
      'answered',
      'answered',
    ]);
    // The waiters ran in the order they asked, each once.
    expect(engine.calls.map((call) => call.params.project)).toEqual(['p1', 'p2', 'p5', 'p3', 'p4']);
    expect(engine.maxRunning).toBe(3);
    expect(admission.load('a')).toEqual({ running: 0, waiting: 0 });
  });

  it('tells the engine how long a queued call waited for its turn, so the query timeout counts the wait', async () => {
    engine.hold();
    const calls = ['p1', 'p2', 'p3'].map((project) =>
      codeOf(resolver.resolve(usage, hourly(project), { client: 'a' })),
    );
    await expect.poll(() => admission.load('a')).toEqual({ running: 2, waiting: 1 });
    await time.advance(4_000);
    engine.release();
    expect(await Promise.all(calls)).toEqual(['answered', 'answered', 'answered']);
    const waited = Object.fromEntries(engine.calls.map((call) => [call.params.project, call.waitedMs]));
    expect(waited).toEqual({ p1: 0, p2: 0, p3: 4_000 });
  });

  it('refuses a client with its runs and queue full at once, before the engine, while another client still runs', async () => {
    engine.hold();
    const held = ['p1', 'p2', 'p3', 'p4'].map((project) =>
      codeOf(resolver.resolve(usage, hourly(project), { client: 'a' })),
    );
    await expect.poll(() => admission.load('a')).toEqual({ running: 2, waiting: 2 });
    await expect(resolver.resolve(usage, hourly('p6'), { client: 'a' })).rejects.toMatchObject({
      code: 'ENGINE_BUSY',
    });
    // A refresh and an uncached call start runs too, so they are refused as well.
    await expect(resolver.resolve(usage, hourly('p1'), { client: 'a', refresh: true })).rejects.toMatchObject(
      { code: 'ENGINE_BUSY' },
    );
    await expect(
      resolver.resolve(logsAll, { project: 'p2', project_tier: 'FREE' }, { client: 'a' }),
    ).rejects.toMatchObject({ code: 'ENGINE_BUSY' });
    expect(engine.calls).toHaveLength(2);
    const other = codeOf(resolver.resolve(usage, hourly('p5'), { client: 'b' }));
    await expect.poll(() => engine.running).toBe(3);
    engine.release();
    expect(await Promise.all([...held, other])).toEqual([
      'answered',
      'answered',
      'answered',
      'answered',
      'answered',
    ]);
    // Its calls answered, the client runs again.
    expect(await codeOf(resolver.resolve(usage, { project: 'p3', interval: 'daily' }, { client: 'a' }))).toBe(
      'answered',
    );
  });

  it('lets a queued call whose caller goes away leave without starting a run', async () => {
    engine.hold();
    const held = ['p1', 'p2'].map((project) =>
      codeOf(resolver.resolve(usage, hourly(project), { client: 'a' })),
    );
    await expect.poll(() => engine.running).toBe(2);
    const caller = new AbortController();
    const gone = codeOf(resolver.resolve(usage, hourly('p3'), { client: 'a', signal: caller.signal }));
    await expect.poll(() => admission.load('a')).toEqual({ running: 2, waiting: 1 });
    caller.abort();
    expect(await gone).toBe('ENGINE_ERROR');
    expect(admission.load('a')).toEqual({ running: 2, waiting: 0 });
    engine.release();
    expect(await Promise.all(held)).toEqual(['answered', 'answered']);
    expect(engine.callsOf('usage.api-counts').map((call) => call.params.project)).toEqual(['p1', 'p2']);
  });

  it('fails a queued call with ENGINE_TIMEOUT, never running it, when no turn comes within the query timeout', async () => {
    engine.hold();
    const held = ['p1', 'p2'].map((project) =>
      codeOf(resolver.resolve(usage, hourly(project), { client: 'a' })),
    );
    await expect.poll(() => engine.running).toBe(2);
    const late = resolver
      .resolve(usage, hourly('p3'), { client: 'a' })
      .catch((error: QuerygateError) => error);
    await expect.poll(() => admission.load('a')).toEqual({ running: 2, waiting: 1 });
    await time.advance(25_000);
    expect(await late).toMatchObject({
      code: 'ENGINE_TIMEOUT',
      message: expect.stringMatching(/did not get a turn/),
    });
    engine.release();
    expect(await Promise.all(held)).toEqual(['answered', 'answered']);
    expect(engine.calls).toHaveLength(2);
  });

  it('answers a queued call from the fresh result its key got while it waited, without a run', async () => {
    // The client's two turns are taken (as by runs under way elsewhere), so its call waits.
    const turns = [await admission.admit('a'), await admission.admit('a')];
    const queued = resolver.resolve(usage, hourly('p3'), { client: 'a' });
    await expect.poll(() => admission.load('a')).toEqual({ running: 2, waiting: 1 });
    // Another client runs the same key meanwhile and caches its result.
    const other = await resolver.resolve(usage, hourly('p3'), { client: 'b' });
    turns[0]?.();
    expect((await queued).result).toBe(other.result);
    expect(engine.calls).toHaveLength(1);
    expect(resolver.stats().hits).toBe(1);
    // The turn it got went back unused.
    expect(admission.load('a')).toEqual({ running: 1, waiting: 0 });
    turns[1]?.();
  });

  it('has queued calls of one key join the run the first of them starts (one engine call)', async () => {
    engine.hold();
    const held = ['p1', 'p2'].map((project) =>
      codeOf(resolver.resolve(usage, hourly(project), { client: 'a' })),
    );
    await expect.poll(() => engine.running).toBe(2);
    const twins = [
      resolver.resolve(usage, hourly('p3'), { client: 'a' }),
      resolver.resolve(usage, hourly('p3'), { client: 'a' }),
    ];
    await expect.poll(() => admission.load('a')).toEqual({ running: 2, waiting: 2 });
    // The held runs end; the runs the waiters start are held in turn, so the second waiter finds
    // the first one's run of p3 under way.
    engine.release();
    engine.hold();
    expect(await Promise.all(held)).toEqual(['answered', 'answered']);
    await expect.poll(() => engine.running).toBe(1);
    // The twin that joined gave its turn back at once.
    await expect.poll(() => admission.load('a')).toEqual({ running: 1, waiting: 0 });
    engine.release();
    const [first, second] = await Promise.all(twins);
    expect(second?.result).toBe(first?.result);
    expect(engine.callsOf('usage.api-counts').filter((call) => call.params.project === 'p3')).toHaveLength(1);
    expect(resolver.stats().coalesced).toBe(1);
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
