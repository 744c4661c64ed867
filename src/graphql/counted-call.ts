import type { Endpoint } from '../endpoints/registry.js';
import type { Metrics } from '../metrics/metrics.js';
import type { ResolvedResult } from '../resolve/resolver.js';

// How GraphQL endpoint calls are counted: once per distinct call (endpoint and bound parameters)
// of an operation, however many fields alias it, as the operation's loader runs it once and a
// replayed answer reuses it once; so the executed and the replayed answers to one request count
// the same. A field whose arguments are refused has no call to be one of: it counts on its own.

/** Counts one distinct call of an operation when it settles, timed from now. */
export function countedLoad(
  metrics: Pick<Metrics, 'endpoint'> | undefined,
  endpoint: Pick<Endpoint, 'name'>,
  loading: Promise<ResolvedResult>,
): Promise<ResolvedResult> {
  const counts = metrics?.endpoint(endpoint.name);
  if (!counts) return loading;
  const startedAt = performance.now();
  return loading.then(
    (resolved) => {
      counts.answered('graphql', resolved.cache, startedAt);
      return resolved;
    },
    (error: unknown) => {
      counts.failed('graphql', error, startedAt);
      throw error;
    },
  );
}

/** Counts a field refused before it made a call (its arguments did not bind, its SQL was refused). */
export function countRefused(
  metrics: Pick<Metrics, 'endpoint'> | undefined,
  endpoint: Pick<Endpoint, 'name'>,
  error: unknown,
): void {
  metrics?.endpoint(endpoint.name).failed('graphql', error, performance.now());
}
