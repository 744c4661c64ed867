import type { Endpoint } from '../endpoints/registry.js';
import type { ParameterValues, QueryEngine } from '../engines/query-engine.js';
import type { CacheOutcome } from '../metrics/metrics.js';
import { systemTimers } from '../timers.js';
import {
  defaultMaxCacheBytes,
  type ResolvedResult,
  type ResolverOptions,
  type ResolverStats,
} from './resolver-types.js';
import {
  type CacheEntry,
  createCacheEntry,
  createResultCache,
  isFresh,
  lifetimeMs,
  type ResultCache,
} from './result-cache.js';
import { localResults } from './shared-results.js';
import { createSingleFlight, type SingleFlight } from './single-flight.js';
import { createWarmer, type Warmer } from './warmer.js';

type Counters = { -readonly [K in Exclude<keyof ResolverStats, 'entries' | 'bytes' | 'shared'>]: number };

/**
 * What the resolver's call paths share: the cache, the runs under way, the warmer, the counters,
 * and the steps every path takes (run and store, admit, answer, count a hit).
 */
export interface ResolverLayer {
  readonly engine: QueryEngine;
  readonly nowMs: () => number;
  readonly counters: Counters;
  readonly cache: ResultCache;
  readonly flights: SingleFlight<CacheEntry>;
  readonly warmer: Warmer;
  /**
   * A run of one key that stores its result. `requestedAt` is the call that started it; a warm
   * run has none and keeps the liveness of the entry it refreshes (and stores nothing if that
   * entry was dropped meanwhile, so warming never revives a key nobody asks for). With a shared
   * cache, a fresh result another replica computed at or after `notBefore` is taken instead.
   */
  computeAndStore(
    key: string,
    endpoint: Endpoint,
    params: ParameterValues,
    requestedAt: number | undefined,
    waitedMs?: number,
    notBefore?: number,
  ): (signal: AbortSignal) => Promise<CacheEntry>;
  /** Counts a run `client` starts (waiting at its limit); calls without a client are not bounded. */
  admit(client: string | undefined, signal: AbortSignal | undefined, endpoint: Endpoint): Promise<() => void>;
  /** A fresh cached answer for `key`, counted as a hit; undefined when there is none. */
  hit(key: string, endpoint: Endpoint, requestedAt: number): ResolvedResult | undefined;
  countHit(entry: CacheEntry, requestedAt: number): void;
  /**
   * Drops the cached results `keep` refuses, and keeps every run under way from storing its
   * result or being joined: a run that started before rows were replaced may have read the old
   * ones, and must not answer calls made after.
   */
  drop(keep: (entry: CacheEntry) => boolean): void;
}

export const noRelease = () => {};

export function createResolverLayer(options: ResolverOptions): ResolverLayer {
  const { engine } = options;
  const shared = options.shared ?? localResults();
  // Without an injected clock, the epoch milliseconds without a Date made per cached hit.
  const clock = options.now;
  const nowMs = clock ? () => clock().getTime() : () => Date.now();
  const counters: Counters = {
    hits: 0,
    misses: 0,
    coalesced: 0,
    staleServes: 0,
    uncached: 0,
    refreshes: 0,
    warmRuns: 0,
    warmFailures: 0,
  };
  const flights = createSingleFlight<CacheEntry>();
  // Counts drops (see drop): a run stores its result only if none happened while it ran.
  let drops = 0;
  const cache = createResultCache({
    maxBytes: options.maxCacheBytes ?? defaultMaxCacheBytes,
    onRemove: (entry) => warmer.cancel(entry),
    onEvict: options.onEvicted,
  });
  const warmer = createWarmer({
    cache,
    timers: options.timers ?? systemTimers,
    nowMs,
    concurrency: options.warmConcurrency ?? 2,
    refresh: async (entry) => {
      // Another replica's warm run of the same result is as good as this one's.
      const newer = entry.computedAt + 1;
      await flights.run(
        entry.key,
        computeAndStore(entry.key, entry.endpoint, entry.params, undefined, undefined, newer),
      ).promise;
      options.onWarmed?.(entry.endpoint);
    },
    onRun: () => {
      counters.warmRuns += 1;
    },
    onFailure: (error, entry) => {
      counters.warmFailures += 1;
      options.onWarmError?.(error, entry.endpoint);
    },
  });

  function computeAndStore(
    key: string,
    endpoint: Endpoint,
    params: ParameterValues,
    requestedAt: number | undefined,
    waitedMs?: number,
    notBefore = Number.NEGATIVE_INFINITY,
  ) {
    const lifetime = lifetimeMs(endpoint);
    return async (signal: AbortSignal): Promise<CacheEntry> => {
      const dropsBefore = drops;
      const { result, computedAt } = await shared.obtain({
        key,
        lifetimeMs: lifetime,
        signal,
        wanted: (at) => at >= notBefore && nowMs() - at < lifetime,
        run: async (runSignal) => {
          const at = nowMs();
          const ran = await engine.run(endpoint, params, { now: new Date(at), signal: runSignal, waitedMs });
          return { result: ran, computedAt: at };
        },
      });
      const lastRequestedAt = requestedAt ?? cache.peek(key)?.lastRequestedAt;
      const entry = createCacheEntry({
        key,
        endpoint,
        params,
        result,
        computedAt,
        lastRequestedAt: lastRequestedAt ?? computedAt,
      });
      if (lastRequestedAt !== undefined && drops === dropsBefore && cache.store(entry))
        warmer.schedule(entry);
      return entry;
    };
  }

  function countHit(entry: CacheEntry, requestedAt: number): void {
    counters.hits += 1;
    if (entry.warmFailed) counters.staleServes += 1;
    entry.lastRequestedAt = Math.max(entry.lastRequestedAt, requestedAt);
  }

  return {
    engine,
    nowMs,
    counters,
    cache,
    flights,
    warmer,
    computeAndStore,
    admit(client, signal, endpoint) {
      const { clientAdmission } = options;
      if (client === undefined || !clientAdmission) return Promise.resolve(noRelease);
      // A client's caller SQL has turns apart from its saved calls, each text its own part: its
      // runaway queries hold neither its saved pages' turns nor those of its other SQL.
      return endpoint.callerLineOffset === undefined
        ? clientAdmission.admit(client, signal, endpoint.id)
        : clientAdmission.admit(`${client} ad-hoc`, signal, endpoint.hash);
    },
    drop(keep) {
      drops += 1;
      cache.retain(keep);
      flights.forget();
    },
    hit(key, endpoint, requestedAt) {
      const cached = cache.get(key);
      if (!cached || !isFresh(cached, requestedAt)) return undefined;
      countHit(cached, requestedAt);
      // A hit is answered in the instant it was asked: one reading of the clock serves both.
      return answer(endpoint, cached, requestedAt, cached.warmFailed ? 'stale' : 'hit');
    },
    countHit,
  };
}

/** The answer to a call from a result computed at `entry.computedAt`. */
export function answer(
  endpoint: Endpoint,
  entry: Pick<CacheEntry, 'result' | 'computedAt' | 'encoded'>,
  answeredAt: number,
  cache: CacheOutcome,
): ResolvedResult {
  const { result, computedAt } = entry;
  return {
    result,
    encoded: entry.encoded,
    computedAt: new Date(computedAt),
    maxAgeSeconds: endpoint.cacheSeconds,
    ageSeconds: Math.max(0, Math.floor((answeredAt - computedAt) / 1000)),
    cache,
  };
}
