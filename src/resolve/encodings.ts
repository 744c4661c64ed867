import type { QueryResult } from '../engines/query-engine.js';

// A cached result is answered many times but never changes, so what a face makes of it (a REST
// body, GraphQL rows) is made once and kept as long as the result. Those copies are about as
// large as the result itself, so the cache entry holding the result counts their size in its
// byte bound: the configured bound is then the memory of results and their encodings.

/** What a face makes of a result; the object itself names it, so define each once per use. */
export interface Encoding<T> {
  readonly make: (result: QueryResult) => T;
  /** Approximate bytes of a value made, charged to the cache entry holding the result. */
  readonly sizeOf: (value: T) => number;
}

/** The encodings made of one result so far. */
export interface Encodings {
  /** `encoding` of the result: made on the first call, then the same value. */
  encoded<T>(encoding: Encoding<T>): T;
}

/** Keeps the encodings of `result`, telling `charge` the size of each new one. */
export function createEncodings(result: QueryResult, charge: (bytes: number) => void = () => {}): Encodings {
  const made = new Map<Encoding<unknown>, unknown>();
  return {
    encoded<T>(encoding: Encoding<T>): T {
      // One lookup on a cached hit, the path this serves; no face encodes to `undefined`.
      const kept = made.get(encoding as Encoding<unknown>);
      if (kept !== undefined) return kept as T;
      const value = encoding.make(result);
      made.set(encoding as Encoding<unknown>, value);
      charge(encoding.sizeOf(value));
      return value;
    },
  };
}
