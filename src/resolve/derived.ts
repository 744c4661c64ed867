import type { QueryResult } from '../engines/query-engine.js';

// A cached result is answered many times but never changes, so what a face makes of it (a REST
// body, GraphQL rows) is made once and kept as long as the result. Those copies are about as
// large as the result itself, so the cache that holds the result is told their size and counts it
// in its byte bound: the configured bound is then the memory of results and their encodings.
const owners = new WeakMap<QueryResult, (bytes: number) => void>();

/** Called by the cache holding `result`: bytes derived from it from now on are charged to `charge`. */
export function chargeDerivedBytes(result: QueryResult, charge: (bytes: number) => void): void {
  owners.set(result, charge);
}

/**
 * A function that makes its value once per result and then returns the same value for as long as
 * the result is reachable; the value's `sizeOf` is charged to the cache entry holding the result.
 */
export function deriveOnce<T>(
  make: (result: QueryResult) => T,
  sizeOf: (value: T) => number,
): (result: QueryResult) => T {
  const made = new WeakMap<QueryResult, T>();
  return (result) => {
    // One lookup on a cached hit, the path this serves; no face derives `undefined`.
    const kept = made.get(result);
    if (kept !== undefined) return kept;
    const value = make(result);
    made.set(result, value);
    owners.get(result)?.(sizeOf(value));
    return value;
  };
}
