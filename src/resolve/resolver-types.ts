// The resolver layer's interface, apart from its making (resolver.ts) so its parts can share it.
import type { Endpoint } from '../endpoints/registry.js';
import type { ParameterValues, QueryEngine, QueryResult } from '../engines/query-engine.js';
import type { CacheOutcome } from '../metrics/metrics.js';
import type { Timers } from '../timers.js';
import type { ClientAdmission } from './client-admission.js';
import type { Encodings } from './encodings.js';
import type { SharedResults, SharedResultsStats } from './shared-results.js';

/** The one way both faces run an endpoint: cached, warmed and coalesced. */
export interface Resolver {
  resolve(endpoint: Endpoint, params: ParameterValues, options?: ResolveOptions): Promise<ResolvedResult>;
  /**
   * What `resolve` without `refresh` would answer when that is a fresh cached result, counted as
   * the same hit; undefined when `resolve` would have to run the query. Synchronous, so a face
   * answers a hit without first preparing to cancel a run that will not happen. `key` is the
   * call's `canonicalKey`, for a caller that keeps it rather than working it out per call.
   */
  cached(endpoint: Endpoint, params: ParameterValues, key?: string): ResolvedResult | undefined;
  /**
   * For a face that kept what it made of some results (an encoded response): when every call has
   * a fresh cached result and it is the very result given, counts each call as the hit `resolve`
   * would, tells `reused` of each (a hit, or stale), and returns true; otherwise changes nothing
   * and returns false.
   */
  reuse(calls: readonly ReusedCall[], reused?: (call: ReusedCall, cache: CacheOutcome) => void): boolean;
  /**
   * Drops the cached results (and so their warm timers) of every endpoint `keep` says no to: a
   * reload's changed and removed endpoints, or those reading a replaced table. Runs under way
   * finish for their callers, but store nothing and are joined by no later call.
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
  /** The call's `canonicalKey`, for a caller that keeps it. @default worked out from the call */
  readonly key?: string | undefined;
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
  /** How the call was answered (a hit, a run it started or joined, ...), for metrics. */
  readonly cache: CacheOutcome;
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
  /** The shared cache's counters; absent without one. */
  readonly shared?: SharedResultsStats | undefined;
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
  /** Told of each warm run that stored a new result. */
  readonly onWarmed?: (endpoint: Endpoint) => void;
  /** Told of each result evicted to stay within `maxCacheBytes`. */
  readonly onEvicted?: () => void;
  /**
   * Bounds the runs one client has under way; a call that would start one more waits for a turn
   * (or is refused when the client's queue is full) before it reaches the engine. Warm runs
   * belong to no client. @default no bound
   */
  readonly clientAdmission?: ClientAdmission;
  /**
   * Where replicas share results, leases and so runs (Redis); asked on every miss, warm run and
   * refresh, never on a hit. @default none: this process runs whatever it needs
   */
  readonly shared?: SharedResults;
}

export const defaultMaxCacheBytes = 64 * 1024 * 1024;
