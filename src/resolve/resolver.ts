import type { Endpoint } from '../endpoints/registry.js';
import type { ParameterValues, QueryEngine, QueryResult } from '../engines/query-engine.js';
import { systemTimers, type Timers } from '../timers.js';
import { canonicalKey } from './canonical-key.js';
import type { ClientAdmission } from './client-admission.js';
import { createEncodings, type Encodings } from './encodings.js';
import { type CacheEntry, createCacheEntry, createResultCache, isFresh } from './result-cache.js';
import { createSingleFlight } from './single-flight.js';
import { createWarmer } from './warmer.js';

/** The one way both faces run an endpoint: cached, warmed and coalesced. */
export interface Resolver {
  resolve(endpoint: Endpoint, params: ParameterValues, options?: ResolveOptions): Promise<ResolvedResult>;
  /**
   * What `resolve` without `refresh` would answer when that is a fresh cached result, counted as
   * the same hit; undefined when `resolve` would have to run the query. Synchronous, so a face
   * answers a hit without first preparing to cancel a run that will not happen.
   */
  cached(endpoint: Endpoint, params: ParameterValues): ResolvedResult | undefined;
  /**
   * For a face that kept what it made of some results (an encoded response): when every call has
   * a fresh cached result and it is the very result given, counts each call as the hit `resolve`
   * would and returns true; otherwise changes nothing and returns false.
   */
  reuse(calls: readonly ReusedCall[]): boolean;
  /**
   * Drops the cached results (and so their warm timers) of every endpoint `keep` says no to: a
   * reload's changed and removed endpoints. Runs under way finish for their callers.
   */
  retain(keep: (endpoint: Endpoint) => boolean): void;
  /** A snapshot of the counters, for metrics. */
  stats(): ResolverStats;
  /** Resolves once no warm run is queued or running. */
  idle(): Promise<void>;
  /** Stops warming, cancels runs under way and empties the cache. */
  close(): Promise<void>;
}

export interface ResolveOptions {
  /** The caller is gone: abandon its run (other callers of the same run keep it going). */
  readonly signal?: AbortSignal | undefined;
  /**
   * Run the query even if a fresh result is cached, and cache the new result (a request's
   * `Cache-Control: no-cache`). Such a run starts on its own rather than joining one under way,
   * which may have begun before the caller asked.
   */
  readonly refresh?: boolean;
  /**
   * Who is calling: an opaque id (a hash of the API key and remote address, see
   * `clientIdentity`). A run the call starts counts against this client's limit (see
   * `ResolverOptions.clientAdmission`); a hit or a join of a run under way does not.
   */
  readonly client?: string | undefined;
}

/** A call whose answer a face already holds, for `Resolver.reuse`. */
export interface ReusedCall {
  readonly endpoint: Endpoint;
  readonly params: ParameterValues;
  /** The result the face made its answer from; undefined when it no longer has it. */
  readonly result: QueryResult | undefined;
}

/** An answer: the result, its age, and (through `encoded`) what faces make of it, kept with it. */
export interface ResolvedResult extends Encodings {
  readonly result: QueryResult;
  /** The "now" the result was computed with (a cached result is older than the call). */
  readonly computedAt: Date;
  /** How long after `computedAt` the result may be reused: the endpoint's cache seconds, 0 if never. */
  readonly maxAgeSeconds: number;
  /** Whole seconds from `computedAt` to the answer. */
  readonly ageSeconds: number;
}

export interface ResolverStats {
  /** Calls answered from the cache. */
  readonly hits: number;
  /** Calls of a caching endpoint that had no fresh entry and so waited for a run. */
  readonly misses: number;
  /** The misses that joined a run already under way rather than starting one. */
  readonly coalesced: number;
  /** Hits served from an entry whose latest warm run failed (stale-if-error). */
  readonly staleServes: number;
  /** Calls of endpoints that never cache (cache seconds 0); each one runs. */
  readonly uncached: number;
  /** Calls that asked for a fresh run of a caching endpoint (`refresh`). */
  readonly refreshes: number;
  readonly warmRuns: number;
  readonly warmFailures: number;
  /** Entries held now and their approximate bytes. */
  readonly entries: number;
  readonly bytes: number;
}

export interface ResolverOptions {
  readonly engine: QueryEngine;
  /** The clock; injected so tests can fix "now". @default () => new Date() */
  readonly now?: () => Date;
  /** The timers the warmer waits with; injected with the clock so tests move time by hand. @default Node's, unref'd */
  readonly timers?: Timers;
  /** Upper bound of the approximate bytes of cached results; least recently used go first. @default 64 MiB */
  readonly maxCacheBytes?: number;
  /** Warm runs at the same time at most, leaving the engine's other connections to callers. @default 2 */
  readonly warmConcurrency?: number;
  /** Told of each failed warm run; the previous result keeps being served until it expires. */
  readonly onWarmError?: (error: unknown, endpoint: Endpoint) => void;
  /**
   * Bounds the runs one client has under way; a call that would start one more waits for a turn
   * (or is refused when the client's queue is full) before it reaches the engine. Warm runs
   * belong to no client. @default no bound
   */
  readonly clientAdmission?: ClientAdmission;
}

export const defaultMaxCacheBytes = 64 * 1024 * 1024;

const noRelease = () => {};

/**
 * The resolver layer. Cache key: endpoint UUID + canonical contract parameters. A result is
 * served while younger than the endpoint's cache seconds; the warmer re-runs live keys every
 * warm interval; concurrent calls for a key share one run; errors are never cached.
 */
export function createResolver(options: ResolverOptions): Resolver {
  const { engine } = options;
  const clock = options.now ?? (() => new Date());
  const nowMs = () => clock().getTime();
  const counters = {
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
  const cache = createResultCache({
    maxBytes: options.maxCacheBytes ?? defaultMaxCacheBytes,
    onRemove: (entry) => warmer.cancel(entry),
  });
  const warmer = createWarmer({
    cache,
    timers: options.timers ?? systemTimers,
    nowMs,
    concurrency: options.warmConcurrency ?? 2,
    refresh: async (entry) => {
      await flights.run(entry.key, computeAndStore(entry.key, entry.endpoint, entry.params, undefined))
        .promise;
    },
    onRun: () => {
      counters.warmRuns += 1;
    },
    onFailure: (error, entry) => {
      counters.warmFailures += 1;
      options.onWarmError?.(error, entry.endpoint);
    },
  });

  /**
   * A run of one key that stores its result. `requestedAt` is the call that started it; a warm
   * run has none and keeps the liveness of the entry it refreshes (and stores nothing if that
   * entry was dropped meanwhile, so warming never revives a key nobody asks for).
   */
  function computeAndStore(
    key: string,
    endpoint: Endpoint,
    params: ParameterValues,
    requestedAt: number | undefined,
    waitedMs?: number,
  ) {
    return async (signal: AbortSignal): Promise<CacheEntry> => {
      const computedAt = nowMs();
      const result = await engine.run(endpoint, params, { now: new Date(computedAt), signal, waitedMs });
      const lastRequestedAt = requestedAt ?? cache.peek(key)?.lastRequestedAt;
      const entry = createCacheEntry({
        key,
        endpoint,
        params,
        result,
        computedAt,
        lastRequestedAt: lastRequestedAt ?? computedAt,
      });
      if (lastRequestedAt !== undefined && cache.store(entry)) warmer.schedule(entry);
      return entry;
    };
  }

  /** Counts a run `client` starts (waiting at its limit); calls without a client are not bounded. */
  function admit(
    client: string | undefined,
    signal: AbortSignal | undefined,
    endpoint: Endpoint,
  ): Promise<() => void> {
    const { clientAdmission } = options;
    return client === undefined || !clientAdmission
      ? Promise.resolve(noRelease)
      : clientAdmission.admit(client, signal, endpoint.id);
  }

  function answer(
    endpoint: Endpoint,
    entry: Pick<CacheEntry, 'result' | 'computedAt' | 'encoded'>,
    answeredAt = nowMs(),
  ): ResolvedResult {
    const { result, computedAt } = entry;
    return {
      result,
      encoded: entry.encoded,
      computedAt: new Date(computedAt),
      maxAgeSeconds: endpoint.cacheSeconds,
      ageSeconds: Math.max(0, Math.floor((answeredAt - computedAt) / 1000)),
    };
  }

  /** A fresh cached answer for `key`, counted as a hit; undefined when there is none. */
  function hit(key: string, endpoint: Endpoint, requestedAt: number): ResolvedResult | undefined {
    const cached = cache.get(key);
    if (!cached || !isFresh(cached, requestedAt)) return undefined;
    countHit(cached, requestedAt);
    // A hit is answered in the instant it was asked: one reading of the clock serves both.
    return answer(endpoint, cached, requestedAt);
  }

  function countHit(entry: CacheEntry, requestedAt: number): void {
    counters.hits += 1;
    if (entry.warmFailed) counters.staleServes += 1;
    entry.lastRequestedAt = Math.max(entry.lastRequestedAt, requestedAt);
  }

  return {
    cached(endpoint, params) {
      if (endpoint.cacheSeconds <= 0) return undefined;
      return hit(canonicalKey(endpoint, params), endpoint, nowMs());
    },
    reuse(calls) {
      const requestedAt = nowMs();
      const keys: string[] = [];
      // All or nothing: a caller that cannot reuse every answer runs the calls, which count then.
      for (const { endpoint, params, result } of calls) {
        if (endpoint.cacheSeconds <= 0 || result === undefined) return false;
        const key = canonicalKey(endpoint, params);
        const entry = cache.peek(key);
        if (entry?.result !== result || !isFresh(entry, requestedAt)) return false;
        keys.push(key);
      }
      for (const key of keys) countHit(cache.get(key) as CacheEntry, requestedAt);
      return true;
    },
    async resolve(endpoint, params, { signal, refresh = false, client } = {}) {
      const requestedAt = nowMs();
      if (endpoint.cacheSeconds <= 0) {
        // Never cached means every call runs, and runs alone: joining another call's run could
        // hand back a result that began before a write this caller has just made.
        const release = await admit(client, signal, endpoint);
        counters.uncached += 1;
        try {
          const result = await engine.run(endpoint, params, {
            now: new Date(requestedAt),
            signal,
            waitedMs: nowMs() - requestedAt,
          });
          return answer(endpoint, { result, computedAt: requestedAt, ...createEncodings(result) });
        } finally {
          release();
        }
      }
      const key = canonicalKey(endpoint, params);
      if (refresh) {
        const release = await admit(client, signal, endpoint);
        counters.refreshes += 1;
        try {
          const entry = await computeAndStore(
            key,
            endpoint,
            params,
            requestedAt,
            nowMs() - requestedAt,
          )(signal ?? new AbortController().signal);
          return answer(endpoint, entry);
        } finally {
          release();
        }
      }
      const fresh = hit(key, endpoint, requestedAt);
      if (fresh) return fresh;
      // Joining a run under way adds no load, so only the call that starts a run is counted, until
      // the run settles (even when other callers keep it going after this one has gone).
      let release = noRelease;
      if (!flights.joinable(key)) {
        release = await admit(client, signal, endpoint);
        // The call may have waited for its turn, and meanwhile a run of the key may have stored
        // a fresh result: answer it without a run.
        const later = hit(key, endpoint, nowMs());
        if (later) {
          release();
          return later;
        }
      }
      try {
        const flight = flights.run(
          key,
          computeAndStore(key, endpoint, params, requestedAt, nowMs() - requestedAt),
          signal,
        );
        counters.misses += 1;
        if (flight.joined) {
          counters.coalesced += 1;
          // A run of the key started while this call waited for its turn: joining it adds no
          // load, so the turn goes back to the client's next waiter now (an end counts once).
          release();
        }
        const entry = await flight.promise;
        entry.lastRequestedAt = Math.max(entry.lastRequestedAt, requestedAt);
        return answer(endpoint, entry);
      } finally {
        release();
      }
    },
    retain: (keep) => cache.retain((entry) => keep(entry.endpoint)),
    stats: () => ({ ...counters, entries: cache.entries, bytes: cache.bytes }),
    idle: () => warmer.idle(),
    async close() {
      warmer.close();
      flights.abortAll();
      cache.clear();
      await warmer.idle();
    },
  };
}
