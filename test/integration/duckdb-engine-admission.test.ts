import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDuckDbEngine } from '../../src/backends/duckdb/engine.js';
import type { QueryEngine, SavedQuery } from '../../src/engines/query-engine.js';
import { isQuerygateError } from '../../src/errors.js';
import { queriesDir } from '../../src/paths.js';
import { createFairEngine } from '../../src/resolve/fair-engine.js';
import { type Database, openDatabase } from '../../src/storage/database.js';
import { createLogWriter } from '../../src/storage/log-writer.js';
import type { Timers } from '../../src/timers.js';
import { logSources } from '../helpers/shipped-sources.js';

/**
 * Admission to the DuckDB engine's connections on a real store file: a call's deadline counts
 * the time it waits for a connection, and (through the resolver layer's fair engine, as the server
 * composes them) one endpoint holds at most its share of the connections and a full queue refuses
 * at once. Slow calls are a query that only an interrupt ends (a
 * three-way cross join of 2,000 records: 8e9 rows); no test asserts a duration.
 */

const now = new Date('2026-05-15T12:00:00Z');
const records = 2000;

const slow: SavedQuery = {
  id: 'slow-endpoint',
  name: 'slow.endpoint',
  sql: 'SELECT COUNT(*) AS n FROM `cloudflare.logs.prod` AS a CROSS JOIN `cloudflare.logs.prod` AS b CROSS JOIN `cloudflare.logs.prod` AS c',
  maxRows: 1,
};
const cheap: SavedQuery = {
  id: 'cheap-endpoint',
  name: 'cheap.endpoint',
  sql: 'SELECT COUNT(*) AS n FROM `cloudflare.logs.prod`',
  maxRows: 1,
};

let dir: string;
let database: Database;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'querygate-admission-'));
  database = await openDatabase(join(dir, 'querygate.duckdb'));
  const writer = createLogWriter(database, { sources: logSources, now: () => now });
  await writer.ready();
  const events = Array.from({ length: records }, (_, i) => ({
    event_message: `request ${i}`,
    timestamp: now.toISOString(),
    project: 'p1',
  }));
  await writer.write('cloudflare.logs.prod', events);
  await writer.close();
});

afterAll(async () => {
  database?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

/**
 * The DuckDB engine, behind the resolver layer's per-endpoint shares when a test gives them (as
 * the server composes it): the engine's own pool lends connections first come first served.
 */
async function engineWith(options: {
  connections: number;
  connectionsPerEndpoint?: number;
  queuePerEndpoint?: number;
  timers?: Timers;
}): Promise<QueryEngine> {
  const { connectionsPerEndpoint, queuePerEndpoint, ...engineOptions } = options;
  const engine = await createDuckDbEngine({
    database,
    sources: logSources,
    queries: [slow, cheap],
    queriesDir,
    timeoutMs: 600_000,
    ...engineOptions,
  });
  if (connectionsPerEndpoint === undefined) return engine;
  return createFairEngine(engine, {
    engineCalls: options.connections,
    callsPerEndpoint: connectionsPerEndpoint,
    ...(queuePerEndpoint === undefined ? {} : { queuePerEndpoint }),
    timeoutMs: 600_000,
  });
}

/** A call's promise with its outcome readable at any moment. */
function track<T>(promise: Promise<T>) {
  const state: { settled: boolean; error?: unknown; value?: T } = { settled: false };
  const done = promise.then(
    (value) => {
      state.value = value;
      state.settled = true;
    },
    (error: unknown) => {
      state.error = error;
      state.settled = true;
    },
  );
  return { state, done };
}

/** Deadlines that fire only when the test says, one by one in the order they were set. */
function createHandFiredTimers() {
  const deadlines: Array<{ callback: () => void; cleared: boolean; delayMs: number }> = [];
  const timers: Timers = {
    setTimeout(callback, delayMs) {
      deadlines.push({ callback, cleared: false, delayMs });
      return deadlines.length - 1;
    },
    clearTimeout(handle) {
      const deadline = deadlines[handle as number];
      if (deadline) deadline.cleared = true;
    },
  };
  return { timers, deadlines };
}

const codeOf = (error: unknown) => (isQuerygateError(error) ? error.code : String(error));

describe('a call waiting for a connection', () => {
  it('gives a call only what is left of the timeout once the time it waited before the engine is taken off', async () => {
    const { timers, deadlines } = createHandFiredTimers();
    const engine = await engineWith({ connections: 1, timers });
    try {
      const call = track(engine.run(cheap, {}, { now, waitedMs: 250_000 }));
      await call.done;
      expect(call.state.error).toBeUndefined();
      // The engine's timeout is 600,000 ms; 250,000 of them were spent before it was called.
      expect(deadlines.map((deadline) => deadline.delayMs)).toEqual([350_000]);
    } finally {
      await engine.close();
    }
  });

  it('times out while waiting: its deadline starts when it asks for a connection, not when it gets one', async () => {
    const { timers, deadlines } = createHandFiredTimers();
    const engine = await engineWith({ connections: 1, timers });
    try {
      const running = track(engine.run(slow, {}, { now }));
      const waiting = track(engine.run(cheap, {}, { now }));
      // Both calls have a deadline although only one can hold the connection.
      expect(deadlines).toHaveLength(2);
      deadlines[1]?.callback();
      await waiting.done;
      expect(codeOf(waiting.state.error)).toBe('ENGINE_TIMEOUT');
      expect((waiting.state.error as Error).message).toMatch(/did not get a connection within/);
      // The call holding the connection was untouched by the other's deadline.
      expect(running.state.settled).toBe(false);
      deadlines[0]?.callback();
      await running.done;
      expect(codeOf(running.state.error)).toBe('ENGINE_TIMEOUT');
      expect((running.state.error as Error).message).toMatch(/did not finish within/);
    } finally {
      await engine.close();
    }
  });
});

describe('an endpoint whose calls fill its share of the connections', () => {
  it('leaves connections to another endpoint: a cheap call completes while every slow call is still pending', async () => {
    const engine = await engineWith({ connections: 4, connectionsPerEndpoint: 2, queuePerEndpoint: 8 });
    const callers = Array.from({ length: 6 }, () => new AbortController());
    try {
      const slowCalls = callers.map((caller) => track(engine.run(slow, {}, { now, signal: caller.signal })));
      const { rows } = await engine.run(cheap, {}, { now });
      expect(rows).toEqual([{ n: records }]);
      expect(slowCalls.map((call) => call.state.settled)).toEqual(Array(6).fill(false));
      for (const caller of callers) caller.abort();
      await Promise.all(slowCalls.map((call) => call.done));
      expect(slowCalls.map((call) => codeOf(call.state.error))).toEqual(Array(6).fill('ENGINE_ERROR'));
    } finally {
      for (const caller of callers) caller.abort();
      await engine.close();
    }
  });

  it('refuses a call beyond its queue at once with ENGINE_BUSY and a retry delay, while the calls it holds run on', async () => {
    const engine = await engineWith({ connections: 2, connectionsPerEndpoint: 1, queuePerEndpoint: 1 });
    const callers = [new AbortController(), new AbortController()];
    try {
      const held = callers.map((caller) => track(engine.run(slow, {}, { now, signal: caller.signal })));
      const refused = await engine.run(slow, {}, { now }).then(
        () => expect.fail('expected ENGINE_BUSY'),
        (error: unknown) => error,
      );
      expect(codeOf(refused)).toBe('ENGINE_BUSY');
      expect(isQuerygateError(refused) && refused.status).toBe(503);
      expect(isQuerygateError(refused) && refused.details?.retryAfterSeconds).toBeGreaterThanOrEqual(1);
      expect(held.map((call) => call.state.settled)).toEqual([false, false]);
      for (const caller of callers) caller.abort();
      await Promise.all(held.map((call) => call.done));
      expect(await engine.run(cheap, {}, { now })).toMatchObject({ rows: [{ n: records }] });
    } finally {
      for (const caller of callers) caller.abort();
      await engine.close();
    }
  });
});
