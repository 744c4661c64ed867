import { canonicalKey } from './canonical-key.js';
import { resolveCached, reuseAnswers, runRefresh, runUncached } from './resolve-calls.js';
import { createResolverLayer } from './resolver-layer.js';
import type { Resolver, ResolverOptions } from './resolver-types.js';

export {
  defaultMaxCacheBytes,
  type ResolvedResult,
  type ResolveOptions,
  type Resolver,
  type ResolverOptions,
  type ResolverStats,
  type ReusedCall,
} from './resolver-types.js';

/**
 * The resolver layer. Cache key: endpoint UUID + canonical contract parameters. A result is
 * served while younger than the endpoint's cache seconds; the warmer re-runs live keys every
 * warm interval; concurrent calls for a key share one run; errors are never cached.
 */
export function createResolver(options: ResolverOptions): Resolver {
  const layer = createResolverLayer(options);
  const { cache, counters, flights, warmer } = layer;
  return {
    cached(endpoint, params, key = canonicalKey(endpoint, params)) {
      if (endpoint.cacheSeconds <= 0) return undefined;
      return layer.hit(key, endpoint, layer.nowMs());
    },
    reuse: (calls, reused) => reuseAnswers(layer, calls, reused),
    resolve(endpoint, params, { signal, refresh = false, client } = {}) {
      const call = { endpoint, params, signal, client, requestedAt: layer.nowMs() };
      if (endpoint.cacheSeconds <= 0) return runUncached(layer, call);
      return refresh ? runRefresh(layer, call) : resolveCached(layer, call);
    },
    retain: (keep) => layer.drop((entry) => keep(entry.endpoint)),
    stats: () => ({
      ...counters,
      entries: cache.entries,
      bytes: cache.bytes,
      shared: options.shared?.stats(),
    }),
    idle: () => warmer.idle(),
    async close() {
      warmer.close();
      flights.abortAll();
      cache.clear();
      await warmer.idle();
    },
  };
}
