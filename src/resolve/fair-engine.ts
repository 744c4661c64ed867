import type { QueryEngine } from '../engines/query-engine.js';
import { isQuerygateError, QuerygateError } from '../errors.js';
import { createKeyedSemaphore } from '../keyed-semaphore.js';
import type { Timers } from '../timers.js';

/**
 * An engine whose calls each wait for a turn of their endpoint first, whichever engine runs them:
 * the engine's calls at once are shared fairly between endpoints, so a cheap call of one endpoint
 * is never queued behind the slow calls of another (DuckDB connections and BigQuery jobs alike).
 *
 * A keyed semaphore (`keyed-semaphore.ts`) keyed by endpoint, modelled on resource groups
 * (Trino's `hardConcurrencyLimit` and `maxQueued`): each endpoint holds at most its share of the
 * turns and keeps at most its queue of callers waiting; one more is refused at once with
 * ENGINE_BUSY (503 and a Retry-After from the endpoint's recent run times) rather than queued
 * behind work it cannot overtake. A freed turn goes to the waiting endpoint holding the fewest
 * (the longest waiting first among equals): with the default share of half the turns, one busy
 * endpoint always leaves turns to the rest.
 */
export interface FairEngineOptions {
  /** Calls the engine runs at once, over every endpoint (DuckDB: its connections). */
  readonly engineCalls: number;
  /** Calls of one endpoint that may run at once. @default half of engineCalls, rounded up */
  readonly callsPerEndpoint?: number;
  /** Calls of one endpoint that may wait for a turn; one more is refused (ENGINE_BUSY). @default 8 */
  readonly queuePerEndpoint?: number;
  /**
   * The engine's query timeout: a call that has not started this long after it was asked for
   * (what it waited before counts) fails with ENGINE_TIMEOUT without running; the most a
   * Retry-After advises.
   */
  readonly timeoutMs: number;
  /** The clock run durations are measured with. @default performance.now */
  readonly nowMs?: () => number;
  /** The timers waiters' deadlines are kept with. @default Node's, unref'd */
  readonly timers?: Timers;
}

export const defaultQueuePerEndpoint = 8;

export function createFairEngine(engine: QueryEngine, options: FairEngineOptions): QueryEngine {
  const nowMs = options.nowMs ?? (() => performance.now());
  const turns = createKeyedSemaphore({
    capacity: options.engineCalls,
    perKey: options.callsPerEndpoint ?? Math.ceil(options.engineCalls / 2),
    maxWaitingPerKey: options.queuePerEndpoint ?? defaultQueuePerEndpoint,
    handOff: 'fewest-held',
    maxWaitMs: options.timeoutMs,
    nowMs,
    ...(options.timers ? { timers: options.timers } : {}),
    busy: ({ running, waiting }, seconds) =>
      new QuerygateError(
        'ENGINE_BUSY',
        `Too many calls of this endpoint are running or waiting (${running} running, ${waiting} waiting); try again in ${seconds} s`,
        { details: { retryAfterSeconds: seconds } },
      ),
    timedOut: ({ running }, waitedMs) =>
      new QuerygateError(
        'ENGINE_TIMEOUT',
        `did not get a turn to run within ${waitedMs} ms (${running} calls of its endpoint held them)`,
      ),
    cancelled: () => new QuerygateError('ENGINE_ERROR', 'was cancelled while it waited for a turn to run'),
  });

  return {
    kind: engine.kind,
    ready: () => engine.ready(),
    describe: (query) => engine.describe(query),
    ...(engine.retain ? { retain: (queries) => engine.retain?.(queries) } : {}),
    ...(engine.plans ? { plans: () => engine.plans?.() ?? { texts: 0, statements: 0 } } : {}),
    close: () => engine.close(),
    async run(query, params, runOptions) {
      const waitedBefore = runOptions.waitedMs ?? 0;
      const asked = nowMs();
      const release = await turns
        .acquire(query.id, {
          signal: runOptions.signal,
          // The wait for a turn counts against the query timeout, not on top of it.
          maxWaitMs: Math.max(0, options.timeoutMs - waitedBefore),
        })
        .catch((error: unknown) => {
          // The refusals name the call's endpoint, as the engine's own errors do.
          if (!isQuerygateError(error) || error.code === 'ENGINE_BUSY') throw error;
          throw new QuerygateError(error.code, `${query.name} ${error.message}`);
        });
      try {
        return await engine.run(query, params, { ...runOptions, waitedMs: waitedBefore + nowMs() - asked });
      } finally {
        release();
      }
    },
  };
}
