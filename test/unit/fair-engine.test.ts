import { describe, expect, it } from 'vitest';
import type { QueryEngine, QueryResult, RunOptions, SavedQuery } from '../../src/engines/query-engine.js';
import { createFairEngine } from '../../src/resolve/fair-engine.js';
import type { Timers } from '../../src/timers.js';

// The per-endpoint turns in front of an engine, over a stand-in engine whose runs end when the
// test says, so what reaches the engine and when is read directly.

const now = new Date('2026-03-10T12:00:00Z');
const query = (name: string): SavedQuery => ({ id: `${name}-id`, name, sql: 'select 1', maxRows: 1 });
const empty: QueryResult = { columns: [], rows: [] };

function heldEngine() {
  const started: Array<{ name: string; options: RunOptions; finish: () => void }> = [];
  const engine: QueryEngine = {
    kind: 'duckdb',
    ready: async () => {},
    describe: async () => [],
    close: async () => {},
    // A run ends when finished, or when its signal aborts (as an interrupted engine run does).
    run: (saved, _params, options) =>
      new Promise((resolve, reject) => {
        started.push({ name: saved.name, options, finish: () => resolve(empty) });
        options.signal?.addEventListener('abort', () => reject(new Error('interrupted')));
      }),
  };
  return { engine, started };
}

function handFiredTimers() {
  const deadlines: Array<{ callback: () => void; delayMs: number }> = [];
  const timers: Timers = {
    setTimeout(callback, delayMs) {
      deadlines.push({ callback, delayMs });
      return deadlines.length - 1;
    },
    clearTimeout() {},
  };
  return { timers, deadlines };
}

describe('an engine behind per-endpoint turns', () => {
  it('lets a waiting call wait only what is left of its timeout, then fails it with ENGINE_TIMEOUT naming its endpoint, unstarted', async () => {
    const { engine, started } = heldEngine();
    const { timers, deadlines } = handFiredTimers();
    const fair = createFairEngine(engine, { engineCalls: 1, timeoutMs: 10_000, timers });
    void fair.run(query('first'), {}, { now });
    const waiting = fair.run(query('second'), {}, { now, waitedMs: 4_000 }).catch((error: unknown) => error);
    expect(deadlines.map((deadline) => deadline.delayMs)).toEqual([6_000]);
    deadlines[0]?.callback();
    expect(await waiting).toMatchObject({
      code: 'ENGINE_TIMEOUT',
      message: expect.stringMatching(/^second did not get a turn/),
    });
    expect(started.map((run) => run.name)).toEqual(['first']);
  });

  it('tells the engine the time a call waited for its turn, on top of what it waited before', async () => {
    const { engine, started } = heldEngine();
    let clock = 0;
    const fair = createFairEngine(engine, { engineCalls: 1, timeoutMs: 10_000, nowMs: () => clock });
    const first = fair.run(query('first'), {}, { now });
    const second = fair.run(query('second'), {}, { now, waitedMs: 100 });
    await expect.poll(() => started.length).toBe(1);
    clock = 2_500;
    started[0]?.finish();
    await first;
    await expect.poll(() => started.length).toBe(2);
    expect(started[1]?.options.waitedMs).toBe(2_600);
    started[1]?.finish();
    await second;
  });

  it('answers a call whose caller went while it waited with ENGINE_ERROR naming its endpoint, unstarted', async () => {
    const { engine, started } = heldEngine();
    const fair = createFairEngine(engine, { engineCalls: 1, timeoutMs: 10_000 });
    void fair.run(query('first'), {}, { now });
    const caller = new AbortController();
    const waiting = fair
      .run(query('second'), {}, { now, signal: caller.signal })
      .catch((error: unknown) => error);
    caller.abort();
    expect(await waiting).toMatchObject({
      code: 'ENGINE_ERROR',
      message: expect.stringMatching(/^second was cancelled/),
    });
    expect(started.map((run) => run.name)).toEqual(['first']);
  });

  it('runs caller SQL in a lane of its own, and cancels a call turning long with ENGINE_BUSY while the long turns are taken', async () => {
    const { engine, started } = heldEngine();
    const names = () => started.map((run) => run.name);
    const { timers, deadlines } = handFiredTimers();
    const fair = createFairEngine(engine, {
      engineCalls: 1,
      timeoutMs: 10_000,
      timers,
      adhoc: { calls: 3, longCalls: 2, shortMs: 1_000 },
    });
    const adhoc = (name: string): SavedQuery => ({ ...query(name), id: 'logs-id', callerLineOffset: 3 });
    const runs = ['bomb-1', 'bomb-2', 'bomb-3'].map((name) =>
      fair.run(adhoc(name), {}, { now }).catch((error: unknown) => error),
    );
    // The saved endpoint's one engine call is its own: it runs beside three ad-hoc calls.
    void fair.run(query('saved'), {}, { now });
    await expect.poll(names).toEqual(['bomb-1', 'bomb-2', 'bomb-3', 'saved']);
    // Each ad-hoc call turns long after its short time: two find a long turn, the third none.
    expect(deadlines.map((deadline) => deadline.delayMs)).toEqual([1_000, 1_000, 1_000]);
    for (const deadline of deadlines) deadline.callback();
    expect(await runs[2]).toMatchObject({
      code: 'ENGINE_BUSY',
      message: expect.stringMatching(
        /^bomb-3: sql ran longer than 1000 ms while 2 long ad-hoc queries were running/,
      ),
      details: { retryAfterSeconds: expect.any(Number) },
    });
    // Its lane turn is free again: a cheap call runs at once, beside the two long ones.
    void fair.run(adhoc('cheap'), {}, { now });
    await expect.poll(() => names().at(-1)).toBe('cheap');
    started.find((run) => run.name === 'bomb-1')?.finish();
    expect(await runs[0]).toEqual(empty);
  });
});
