import type { Endpoint } from '../endpoints/registry.js';
import type { ParameterValues } from '../engines/query-engine.js';
import type { CacheOutcome } from '../metrics/metrics.js';
import { canonicalKey } from './canonical-key.js';
import { createEncodings } from './encodings.js';
import { answer, noRelease, type ResolverLayer } from './resolver-layer.js';
import type { ResolvedResult, ReusedCall } from './resolver-types.js';
import type { CacheEntry } from './result-cache.js';
import { isFresh } from './result-cache.js';

/** The resolver's call paths, one function each: never cached, asked fresh, cached. */

interface Call {
  readonly endpoint: Endpoint;
  readonly params: ParameterValues;
  readonly signal: AbortSignal | undefined;
  readonly client: string | undefined;
  readonly requestedAt: number;
}

/**
 * An endpoint that never caches: every call runs, and runs alone. Joining another call's run could
 * hand back a result that began before a write this caller has just made.
 */
export async function runUncached(layer: ResolverLayer, call: Call): Promise<ResolvedResult> {
  const { endpoint, params, signal, requestedAt } = call;
  const release = await layer.admit(call.client, signal, endpoint);
  layer.counters.uncached += 1;
  try {
    const result = await layer.engine.run(endpoint, params, {
      now: new Date(requestedAt),
      signal,
      waitedMs: layer.nowMs() - requestedAt,
    });
    return answer(
      endpoint,
      { result, computedAt: requestedAt, ...createEncodings(result) },
      layer.nowMs(),
      'uncached',
    );
  } finally {
    release();
  }
}

/** A call asking for a fresh result (`refresh`): it runs on its own and stores what it gets. */
export async function runRefresh(layer: ResolverLayer, call: Call): Promise<ResolvedResult> {
  const { endpoint, params, signal, requestedAt } = call;
  const key = canonicalKey(endpoint, params);
  const release = await layer.admit(call.client, signal, endpoint);
  layer.counters.refreshes += 1;
  try {
    const entry = await layer.computeAndStore(
      key,
      endpoint,
      params,
      requestedAt,
      layer.nowMs() - requestedAt,
      // Another replica's result will do only if it was computed after this call asked.
      requestedAt,
    )(signal ?? new AbortController().signal);
    return answer(endpoint, entry, layer.nowMs(), 'refresh');
  } finally {
    release();
  }
}

/** A call of a caching endpoint: a fresh hit, else a run of its key (joined when one is under way). */
export async function resolveCached(layer: ResolverLayer, call: Call): Promise<ResolvedResult> {
  const { endpoint, params, signal, requestedAt } = call;
  const { counters, flights, nowMs } = layer;
  const key = canonicalKey(endpoint, params);
  const fresh = layer.hit(key, endpoint, requestedAt);
  if (fresh) return fresh;
  // Joining a run under way adds no load, so only the call that starts a run is counted, until
  // the run settles (even when other callers keep it going after this one has gone).
  let release = noRelease;
  if (!flights.joinable(key)) {
    release = await layer.admit(call.client, signal, endpoint);
    // The call may have waited for its turn, and meanwhile a run of the key may have stored
    // a fresh result: answer it without a run.
    const later = layer.hit(key, endpoint, nowMs());
    if (later) {
      release();
      return later;
    }
  }
  try {
    const flight = flights.run(
      key,
      layer.computeAndStore(key, endpoint, params, requestedAt, nowMs() - requestedAt),
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
    return answer(endpoint, entry, nowMs(), flight.joined ? 'joined' : 'miss');
  } finally {
    release();
  }
}

/** `Resolver.reuse`: all or nothing, each call counted as the hit it would have been. */
export function reuseAnswers(
  layer: ResolverLayer,
  calls: readonly ReusedCall[],
  reused?: (call: ReusedCall, cache: CacheOutcome) => void,
): boolean {
  const requestedAt = layer.nowMs();
  const { cache } = layer;
  // A caller that cannot reuse every answer runs the calls, which count then. So several calls
  // are all looked at before any is counted; one call (most operations' answers) is looked up
  // once. Nothing is made per request: a replay's whole cost is a few lookups.
  if (calls.length > 1)
    for (const call of calls) if (reusableEntry(cache.peek, call, requestedAt) === undefined) return false;
  for (const call of calls) {
    const entry = reusableEntry(cache.get, call, requestedAt);
    if (entry === undefined) return false;
    layer.countHit(entry, requestedAt);
    reused?.(call, entry.warmFailed ? 'stale' : 'hit');
  }
  return true;
}

/** The cached entry `lookup` finds for a call, while it holds the call's result and is fresh. */
function reusableEntry(
  lookup: (key: string) => CacheEntry | undefined,
  { endpoint, params, result, key }: ReusedCall,
  requestedAt: number,
): CacheEntry | undefined {
  if (endpoint.cacheSeconds <= 0 || result === undefined) return undefined;
  const entry = lookup(key ?? canonicalKey(endpoint, params));
  return entry?.result === result && isFresh(entry, requestedAt) ? entry : undefined;
}
