import type { QueryEngine, SavedQuery } from '../engines/query-engine.js';
import { isQuerygateError, QuerygateError } from '../errors.js';
import { createKeyedSemaphore, type KeyedSemaphore, type SemaphoreLoad } from '../keyed-semaphore.js';
import { systemTimers, type Timers } from '../timers.js';

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
  /**
   * Told of each call the engine ran (or failed), once it settles: its milliseconds in the engine
   * after it had its turn, and all it waited for turns before (its client's and its endpoint's).
   */
  readonly onRan?: (query: SavedQuery, runMs: number, waitedMs: number) => void;
  /** The ad-hoc lane caller SQL runs in (see AdhocLaneOptions); without it, with its endpoint. */
  readonly adhoc?: AdhocLaneOptions;
}

/**
 * The ad-hoc lane: calls carrying a caller's SQL (a sandboxed call, `SavedQuery.callerLineOffset`)
 * take turns of their own, never their endpoint's nor the saved endpoints' connections, so no
 * caller SQL can queue a saved endpoint. Within the lane, what a query costs is seen only as it
 * runs (DuckDB's plan estimates `UNNEST(GENERATE_ARRAY(1, 1000000))` at one row), so a call is
 * judged by its running time, as Redshift's queue hopping does: past `shortMs` it is long, and at
 * most `longCalls` long calls run at once; one more is cancelled with ENGINE_BUSY and a
 * Retry-After. So `calls - longCalls` turns are always left to quick queries, whoever sent the
 * runaways: a cheap query waits at most `shortMs` behind them.
 */
export interface AdhocLaneOptions {
  /** Ad-hoc calls running at once (DuckDB: the lane's own connections). */
  readonly calls: number;
  /** Of them, how many may run longer than `shortMs`; fewer than `calls`. */
  readonly longCalls: number;
  /** Running time after which an ad-hoc call counts as long. */
  readonly shortMs: number;
}

export const defaultQueuePerEndpoint = 8;

export function createFairEngine(engine: QueryEngine, options: FairEngineOptions): QueryEngine {
  const nowMs = options.nowMs ?? (() => performance.now());
  const busy = ({ running, waiting }: SemaphoreLoad, seconds: number) =>
    new QuerygateError(
      'ENGINE_BUSY',
      `Too many calls of this endpoint are running or waiting (${running} running, ${waiting} waiting); try again in ${seconds} s`,
      { details: { retryAfterSeconds: seconds } },
    );
  const turns = createKeyedSemaphore({
    capacity: options.engineCalls,
    perKey: options.callsPerEndpoint ?? Math.ceil(options.engineCalls / 2),
    maxWaitingPerKey: options.queuePerEndpoint ?? defaultQueuePerEndpoint,
    handOff: 'fewest-held',
    maxWaitMs: options.timeoutMs,
    nowMs,
    ...(options.timers ? { timers: options.timers } : {}),
    busy,
    timedOut: ({ running }, waitedMs) =>
      new QuerygateError(
        'ENGINE_TIMEOUT',
        `did not get a turn to run within ${waitedMs} ms (${running} calls of its endpoint held them)`,
      ),
    cancelled: () => new QuerygateError('ENGINE_ERROR', 'was cancelled while it waited for a turn to run'),
  });
  const lane =
    options.adhoc && createAdhocLane(options.adhoc, options.timeoutMs, busy, nowMs, options.timers);

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
      const inLane = lane !== undefined && query.callerLineOffset !== undefined;
      const release = await (inLane ? lane.turns : turns)
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
      const started = nowMs();
      const waitedMs = waitedBefore + started - asked;
      try {
        if (inLane)
          return await lane.run(
            query,
            (signal) => engine.run(query, params, { ...runOptions, signal, waitedMs }),
            runOptions.signal,
          );
        return await engine.run(query, params, { ...runOptions, waitedMs });
      } finally {
        release();
        options.onRan?.(query, nowMs() - started, waitedMs);
      }
    },
  };
}

interface AdhocLane {
  readonly turns: KeyedSemaphore;
  /** Runs a call holding a lane turn: past `shortMs` it needs a long turn, or is cancelled. */
  run<T>(
    query: SavedQuery,
    start: (signal: AbortSignal) => Promise<T>,
    signal: AbortSignal | undefined,
  ): Promise<T>;
}

function createAdhocLane(
  options: AdhocLaneOptions,
  timeoutMs: number,
  busy: (load: SemaphoreLoad, seconds: number) => QuerygateError,
  nowMs: () => number,
  timers: Timers = systemTimers,
): AdhocLane {
  const semaphore = (capacity: number, maxWaitingPerKey: number) =>
    createKeyedSemaphore({
      capacity,
      maxWaitingPerKey,
      handOff: 'fewest-held',
      maxWaitMs: timeoutMs,
      paceOf: 'all',
      nowMs,
      timers,
      busy,
      timedOut: ({ running }, waitedMs) =>
        new QuerygateError(
          'ENGINE_TIMEOUT',
          `did not get a turn of the ad-hoc lane within ${waitedMs} ms (${running} ad-hoc calls held them)`,
        ),
      cancelled: () => new QuerygateError('ENGINE_ERROR', 'was cancelled while it waited for a turn to run'),
    });
  const turns = semaphore(options.calls, defaultQueuePerEndpoint);
  // Never waited for: a call turning long finds a long turn free, or stops.
  const long = semaphore(options.longCalls, 0);
  return {
    turns,
    async run(query, start, signal) {
      const stop = new AbortController();
      const onCallerGone = () => stop.abort();
      signal?.addEventListener('abort', onCallerGone, { once: true });
      if (signal?.aborted) stop.abort();
      let refused: QuerygateError | undefined;
      let releaseLong: (() => void) | undefined;
      let ended = false;
      const timer = timers.setTimeout(() => {
        long.acquire('').then(
          (release) => {
            // A run that ended meanwhile gives the turn straight back.
            if (ended) release();
            else releaseLong = release;
          },
          (error: QuerygateError) => {
            if (ended) return;
            const seconds = Number(error.details?.retryAfterSeconds ?? 1);
            refused = new QuerygateError(
              'ENGINE_BUSY',
              `${query.name}: sql ran longer than ${options.shortMs} ms while ${options.longCalls} long ad-hoc queries were running, the most at once, and was cancelled; try again in ${seconds} s`,
              { details: { retryAfterSeconds: seconds } },
            );
            stop.abort();
          },
        );
      }, options.shortMs);
      try {
        return await start(stop.signal);
      } catch (error) {
        throw refused ?? error;
      } finally {
        ended = true;
        timers.clearTimeout(timer);
        signal?.removeEventListener('abort', onCallerGone);
        releaseLong?.();
      }
    },
  };
}
