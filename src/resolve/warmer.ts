import type { Timers } from '../timers.js';
import { type CacheEntry, isFresh, isLive, lifetimeMs, type ResultCache } from './result-cache.js';

export interface WarmerOptions {
  readonly cache: Pick<ResultCache, 'peek' | 'delete'>;
  readonly timers: Timers;
  readonly nowMs: () => number;
  /** Warm runs at the same time at most; the rest wait their turn. */
  readonly concurrency: number;
  /** Re-runs an entry's query and stores the new result in its place; rejects when the run fails. */
  readonly refresh: (entry: CacheEntry) => Promise<void>;
  readonly onRun: (entry: CacheEntry) => void;
  readonly onFailure: (error: unknown, entry: CacheEntry) => void;
}

export interface Warmer {
  /** Plans the next step of a newly stored entry: a warm run, or its removal at expiry. */
  schedule(entry: CacheEntry): void;
  /** Forgets an entry's pending step (it left the cache). */
  cancel(entry: CacheEntry): void;
  /** Resolves once no warm run is queued or running. */
  idle(): Promise<void>;
  /** Stops planning and drops queued runs; runs under way finish or fail on their own. */
  close(): void;
}

/**
 * Keeps live keys fresh. Each cached entry has one timer: at `warmSeconds` after it was computed
 * the warmer re-runs it if it was requested within its lifetime, or drops it if not. Endpoints
 * that cache without warming get a timer at expiry that removes the result. A failed warm keeps
 * the previous result (stale-if-error) and tries again a warm interval later, until expiry.
 */
export function createWarmer(options: WarmerOptions): Warmer {
  const { cache, timers, nowMs } = options;
  const queue: CacheEntry[] = [];
  const running = new Set<Promise<void>>();
  let closed = false;

  function warmIntervalMs(entry: CacheEntry): number | undefined {
    const { warmSeconds } = entry.endpoint;
    // Warming an entry no more often than it expires would never keep it fresh.
    return warmSeconds !== null && warmSeconds * 1000 < lifetimeMs(entry.endpoint)
      ? warmSeconds * 1000
      : undefined;
  }

  function planAt(entry: CacheEntry, dueMs: number): void {
    cancel(entry);
    if (closed) return;
    entry.timer = timers.setTimeout(() => onDue(entry), Math.max(0, dueMs - nowMs()));
  }

  function cancel(entry: CacheEntry): void {
    if (entry.timer === undefined) return;
    timers.clearTimeout(entry.timer);
    entry.timer = undefined;
  }

  function onDue(entry: CacheEntry): void {
    entry.timer = undefined;
    if (closed || cache.peek(entry.key) !== entry) return;
    const now = nowMs();
    if (!isLive(entry, now) || !isFresh(entry, now) || warmIntervalMs(entry) === undefined) {
      cache.delete(entry.key);
      return;
    }
    queue.push(entry);
    pump();
  }

  function pump(): void {
    while (running.size < options.concurrency && queue.length > 0) {
      const entry = queue.shift() as CacheEntry;
      if (cache.peek(entry.key) !== entry) continue;
      const run = warm(entry).finally(() => {
        running.delete(run);
        pump();
      });
      running.add(run);
    }
  }

  async function warm(entry: CacheEntry): Promise<void> {
    options.onRun(entry);
    try {
      await options.refresh(entry);
    } catch (error) {
      // Runs cancelled by shutdown are not failures worth reporting.
      if (closed) return;
      entry.warmFailed = true;
      options.onFailure(error, entry);
      if (cache.peek(entry.key) !== entry) return;
      const expiresAt = entry.computedAt + lifetimeMs(entry.endpoint);
      planAt(entry, Math.min(nowMs() + (warmIntervalMs(entry) ?? 0), expiresAt));
    }
  }

  return {
    schedule(entry) {
      planAt(entry, entry.computedAt + (warmIntervalMs(entry) ?? lifetimeMs(entry.endpoint)));
    },
    cancel,
    async idle() {
      while (running.size > 0) await Promise.allSettled([...running]);
    },
    close() {
      closed = true;
      queue.length = 0;
    },
  };
}
