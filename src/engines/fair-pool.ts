import { QuerygateError } from '../errors.js';
import { createKeyedSemaphore } from '../keyed-semaphore.js';

/**
 * Admission to a fixed set of engine connections, shared fairly between keys (endpoints): a
 * keyed semaphore (`keyed-semaphore.ts`) whose permits are the connections.
 *
 * Modelled on resource groups (Trino's `hardConcurrencyLimit` and `maxQueued`): each key may hold
 * at most `perKeyLimit` connections at once and keep at most `maxQueuedPerKey` callers waiting;
 * a caller beyond that is refused at once with ENGINE_BUSY (503 and a Retry-After) rather than
 * queued behind work it cannot overtake. A freed connection goes to the waiting key holding the
 * fewest connections (the longest waiting first among equals), so a cheap call of one endpoint is
 * never queued behind the slow calls of another: with the default limit of half the pool, one
 * busy endpoint always leaves connections to the rest.
 */
export interface FairPool<T> {
  /**
   * A connection for `key`, when one is free and the key is under its limit. Rejects with
   * ENGINE_BUSY when the key's queue is full, and with `signal.reason` when the signal fires
   * first (the caller timed out or went away while waiting; it never reaches a connection).
   */
  acquire(key: string, signal: AbortSignal): Promise<PoolLease<T>>;
  /** Connections held and callers waiting now, for tests and metrics. */
  load(): { readonly running: number; readonly waiting: number };
}

export interface PoolLease<T> {
  readonly item: T;
  /** Gives the connection back; call once. */
  release(): void;
}

export interface FairPoolOptions {
  /** Connections one key may hold at once. */
  readonly perKeyLimit: number;
  /** Callers of one key that may wait for a connection; more are refused. */
  readonly maxQueuedPerKey: number;
  /** Longest a caller may wait (its deadline): the upper bound of the advised Retry-After. */
  readonly maxWaitMs: number;
  /** The clock for lease durations. @default performance.now */
  readonly nowMs?: () => number;
}

export function createFairPool<T>(items: readonly T[], options: FairPoolOptions): FairPool<T> {
  const idle = [...items];
  const slots = createKeyedSemaphore({
    capacity: items.length,
    perKey: options.perKeyLimit,
    maxWaitingPerKey: options.maxQueuedPerKey,
    handOff: 'fewest-held',
    maxWaitMs: options.maxWaitMs,
    ...(options.nowMs ? { nowMs: options.nowMs } : {}),
    busy: ({ running, waiting }, seconds) =>
      new QuerygateError(
        'ENGINE_BUSY',
        `Too many calls of this endpoint are running or waiting (${running} running, ${waiting} waiting); try again in ${seconds} s`,
        { details: { retryAfterSeconds: seconds } },
      ),
  });
  return {
    async acquire(key, signal) {
      const release = await slots.acquire(key, { signal });
      // A permit is a connection: the semaphore never grants more permits than are idle.
      const item = idle.pop() as T;
      let released = false;
      return {
        item,
        release() {
          if (released) return;
          released = true;
          idle.push(item);
          release();
        },
      };
    },
    load: () => slots.load(),
  };
}
