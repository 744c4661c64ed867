import { QuerygateError } from '../errors.js';

/**
 * Admission to a fixed set of engine connections, shared fairly between keys (endpoints).
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

interface Waiter<T> {
  readonly seq: number;
  readonly grant: (lease: PoolLease<T>) => void;
}

interface KeyState<T> {
  running: number;
  readonly waiters: Waiter<T>[];
  /** Smoothed milliseconds a lease of this key is held: what a waiter can expect per turn. */
  averageHoldMs: number | undefined;
}

export function createFairPool<T>(items: readonly T[], options: FairPoolOptions): FairPool<T> {
  const nowMs = options.nowMs ?? (() => performance.now());
  const idle = [...items];
  const keys = new Map<string, KeyState<T>>();
  let seq = 0;

  const stateOf = (key: string): KeyState<T> => {
    let state = keys.get(key);
    if (!state) {
      state = { running: 0, waiters: [], averageHoldMs: undefined };
      keys.set(key, state);
    }
    return state;
  };

  function lease(key: string, state: KeyState<T>, item: T): PoolLease<T> {
    state.running += 1;
    const since = nowMs();
    let released = false;
    return {
      item,
      release() {
        if (released) return;
        released = true;
        state.running -= 1;
        const held = nowMs() - since;
        state.averageHoldMs =
          state.averageHoldMs === undefined ? held : 0.8 * state.averageHoldMs + 0.2 * held;
        handOn(item);
        if (state.running === 0 && state.waiters.length === 0) keys.delete(key);
      },
    };
  }

  /** A freed connection goes to the waiting key holding the fewest, oldest waiter first among equals. */
  function handOn(item: T): void {
    let chosen: [string, KeyState<T>] | undefined;
    for (const entry of keys) {
      const [, state] = entry;
      const head = state.waiters[0];
      if (!head || state.running >= options.perKeyLimit) continue;
      const best = chosen?.[1];
      if (
        !best ||
        state.running < best.running ||
        (state.running === best.running && head.seq < (best.waiters[0] as Waiter<T>).seq)
      ) {
        chosen = entry;
      }
    }
    if (!chosen) {
      idle.push(item);
      return;
    }
    const [key, state] = chosen;
    (state.waiters.shift() as Waiter<T>).grant(lease(key, state, item));
  }

  function retryAfterSeconds(state: KeyState<T>): number {
    // One turn of the queue ahead: every waiter and runner of the key served at its usual pace
    // (a second each while the key has no history yet).
    const turnMs = ((state.averageHoldMs ?? 1000) * (state.waiters.length + 1)) / options.perKeyLimit;
    return Math.max(1, Math.ceil(Math.min(turnMs, options.maxWaitMs) / 1000));
  }

  return {
    acquire(key, signal) {
      if (signal.aborted) return Promise.reject(signal.reason);
      const state = stateOf(key);
      if (state.running < options.perKeyLimit && idle.length > 0) {
        return Promise.resolve(lease(key, state, idle.pop() as T));
      }
      if (state.waiters.length >= options.maxQueuedPerKey) {
        const seconds = retryAfterSeconds(state);
        return Promise.reject(
          new QuerygateError(
            'ENGINE_BUSY',
            `Too many calls of this endpoint are running or waiting (${state.running} running, ${state.waiters.length} waiting); try again in ${seconds} s`,
            { details: { retryAfterSeconds: seconds } },
          ),
        );
      }
      return new Promise<PoolLease<T>>((resolve, reject) => {
        const onAbort = () => {
          const index = state.waiters.indexOf(waiter);
          if (index >= 0) state.waiters.splice(index, 1);
          if (state.running === 0 && state.waiters.length === 0) keys.delete(key);
          reject(signal.reason);
        };
        const waiter: Waiter<T> = {
          seq: seq++,
          grant: (granted) => {
            signal.removeEventListener('abort', onAbort);
            resolve(granted);
          },
        };
        state.waiters.push(waiter);
        signal.addEventListener('abort', onAbort, { once: true });
      });
    },
    load() {
      let running = 0;
      let waiting = 0;
      for (const state of keys.values()) {
        running += state.running;
        waiting += state.waiters.length;
      }
      return { running, waiting };
    },
  };
}
