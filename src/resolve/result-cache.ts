import { LRUCache } from 'lru-cache';
import type { Endpoint } from '../endpoints/registry.js';
import type { ParameterValues, QueryResult } from '../engines/query-engine.js';
import { createEncodings, type Encodings } from './encodings.js';
import { approximateResultSize } from './result-size.js';

/**
 * One cached result and what the warmer needs to keep it fresh. Its `encoded` makes what a face
 * sends of the result once, and charges its size to this entry (see encodings.ts).
 */
export interface CacheEntry extends Encodings {
  readonly key: string;
  readonly endpoint: Endpoint;
  readonly params: ParameterValues;
  readonly result: QueryResult;
  /** Epoch milliseconds of the "now" the engine ran with. */
  readonly computedAt: number;
  /** Approximate bytes of the result and of what faces encoded from it. */
  size: number;
  /** Told the bytes of each new encoding; set by the cache while it holds the entry. */
  onEncoded: ((bytes: number) => void) | undefined;
  /** Epoch milliseconds of the latest call asking for this key; warm runs do not count. */
  lastRequestedAt: number;
  /** The latest warm run failed, so the result is older than warming promises (stale-if-error). */
  warmFailed: boolean;
  /** The warmer's pending timer for this entry, if any. */
  timer: unknown;
}

export interface ResultCacheOptions {
  /** Upper bound of the approximate bytes of all cached results and their encodings together. */
  readonly maxBytes: number;
  /** Called whenever an entry leaves the cache: replaced, deleted, evicted or cleared. */
  readonly onRemove: (entry: CacheEntry) => void;
}

export interface ResultCache {
  /** The entry for a key, marking it recently used. */
  get(key: string): CacheEntry | undefined;
  /** The entry for a key, leaving recency alone (the warmer's view). */
  peek(key: string): CacheEntry | undefined;
  /** Stores an entry; false when it alone is larger than the bound and so was not kept. */
  store(entry: CacheEntry): boolean;
  delete(key: string): void;
  /** Drops every entry `keep` says no to (a reload's changed and removed endpoints). */
  retain(keep: (entry: CacheEntry) => boolean): void;
  clear(): void;
  readonly entries: number;
  readonly bytes: number;
}

/**
 * The LRU's value: lru-cache measures a value when it is set, and only when it is a different
 * object, so an entry that grew is set again in a new box (without disposing the entry).
 */
interface Held {
  readonly entry: CacheEntry;
}

/** Least recently used results are evicted first once their approximate sizes exceed the bound. */
export function createResultCache(options: ResultCacheOptions): ResultCache {
  const lru = new LRUCache<string, Held>({
    maxSize: options.maxBytes,
    sizeCalculation: (held) => held.entry.size,
    dispose: (held) => options.onRemove(held.entry),
  });
  const holds = (entry: CacheEntry) => lru.peek(entry.key)?.entry === entry;
  return {
    get: (key) => lru.get(key)?.entry,
    peek: (key) => lru.peek(key)?.entry,
    store(entry) {
      lru.set(entry.key, { entry });
      if (!holds(entry)) return false;
      entry.onEncoded = (bytes) => {
        // Only while this entry is the one held: a replaced or evicted result charges nothing.
        if (!holds(entry)) return;
        entry.size += bytes;
        lru.set(entry.key, { entry }, { noDisposeOnSet: true });
      };
      return true;
    },
    delete: (key) => {
      lru.delete(key);
    },
    retain(keep) {
      for (const [key, held] of [...lru.entries()]) if (!keep(held.entry)) lru.delete(key);
    },
    clear: () => lru.clear(),
    get entries() {
      return lru.size;
    },
    get bytes() {
      return lru.calculatedSize;
    },
  };
}

/** Builds an entry for a freshly computed result. */
export function createCacheEntry(
  fields: Pick<CacheEntry, 'key' | 'endpoint' | 'params' | 'result' | 'computedAt' | 'lastRequestedAt'>,
): CacheEntry {
  const encodings = createEncodings(fields.result, (bytes) => entry.onEncoded?.(bytes));
  const entry: CacheEntry = {
    ...fields,
    size: approximateResultSize(fields.result),
    warmFailed: false,
    timer: undefined,
    onEncoded: undefined,
    encoded: encodings.encoded,
  };
  return entry;
}

/** Milliseconds a result of the endpoint may be served after it was computed. */
export function lifetimeMs(endpoint: Pick<Endpoint, 'cacheSeconds'>): number {
  return endpoint.cacheSeconds * 1000;
}

/** Whether the entry may still be served at `nowMs`: younger than the endpoint's cache seconds. */
export function isFresh(entry: CacheEntry, nowMs: number): boolean {
  return nowMs - entry.computedAt < lifetimeMs(entry.endpoint);
}

/** Whether the key was requested within one cache lifetime before `nowMs`, so it is worth warming. */
export function isLive(entry: CacheEntry, nowMs: number): boolean {
  return nowMs - entry.lastRequestedAt < lifetimeMs(entry.endpoint);
}
