import { QuerygateError } from './errors.js';
import { systemTimers, type Timers } from './timers.js';

/**
 * The one admission primitive: permits shared between keys, each key holding at most its share.
 * The engine's connections shared between endpoints, a client's turns shared between its
 * endpoints, and a GraphQL operation's turns are all this, configured differently.
 *
 * Modelled on resource groups (Trino's `hardConcurrencyLimit` and `maxQueued`): a key at its
 * share, or finding no permit free, waits; a key whose queue is full is refused at once (503
 * ENGINE_BUSY with a Retry-After) rather than queued behind work it cannot overtake. A caller
 * waits until a permit is handed to it, its signal fires, or (with `timedOut`) `maxWaitMs` passes.
 */
export interface KeyedSemaphore {
  /**
   * A permit for `key` (and `part` of it, when parts have a share), resolving with what gives it
   * back (call once; a second call does nothing). Rejects with `busy` when the key's queue is
   * full, with `timedOut` when no permit came within `maxWaitMs`, and with `cancelled` when
   * `signal` fires first: a caller that is refused or leaves never holds a permit.
   */
  acquire(key: string, options?: AcquireOptions): Promise<Release>;
  /** Permits held and callers waiting, of one key or of all: for tests and metrics. */
  load(key?: string): SemaphoreLoad;
}

export type Release = () => void;

export interface AcquireOptions {
  readonly signal?: AbortSignal | undefined;
  /** Which part of the key the permit is for (e.g. the endpoint of a client's call). @default '' */
  readonly part?: string;
  /**
   * The longest this caller waits (what is left of its timeout), with `timedOut`.
   * @default the semaphore's maxWaitMs
   */
  readonly maxWaitMs?: number;
}

export interface SemaphoreLoad {
  readonly running: number;
  readonly waiting: number;
}

export interface KeyedSemaphoreOptions {
  /** Permits held at once over all keys. @default Infinity */
  readonly capacity?: number;
  /** Permits one key may hold at once. @default capacity */
  readonly perKey?: number;
  /** Permits one part of a key may hold at once. @default perKey */
  readonly perPart?: number;
  /** Callers of one key that may wait; one more is refused with `busy`. @default Infinity */
  readonly maxWaitingPerKey?: number;
  /**
   * Who gets a freed permit. `fewest-held`: the waiting key holding the fewest permits (its
   * oldest waiter, the oldest first among keys holding as many), so one busy key never starves
   * the others. `first-come`: the oldest waiter that may take it.
   */
  readonly handOff: 'fewest-held' | 'first-come';
  /** The longest a caller waits (the query timeout): the most a Retry-After advises. @default Infinity */
  readonly maxWaitMs?: number;
  /**
   * Whose hold times estimate the Retry-After: the refused key's own (forgotten when it holds and
   * awaits nothing) or every key's. @default 'key'
   */
  readonly paceOf?: 'key' | 'all';
  /** The refusal of a caller beyond its key's queue. @default a generic ENGINE_BUSY */
  readonly busy?: (load: SemaphoreLoad, retryAfterSeconds: number) => QuerygateError;
  /** When given, a caller still waiting after its `maxWaitMs` leaves with this error. */
  readonly timedOut?: (load: SemaphoreLoad, waitedMs: number) => QuerygateError;
  /** What a caller whose signal fired is rejected with. @default the signal's reason */
  readonly cancelled?: (signal: AbortSignal) => unknown;
  /** The clock hold times are measured with. @default performance.now */
  readonly nowMs?: () => number;
  /** The timers waiters' deadlines are kept with. @default Node's, unref'd */
  readonly timers?: Timers;
}

interface Waiter {
  readonly seq: number;
  readonly part: string;
  readonly grant: (release: Release) => void;
}

interface KeyState {
  running: number;
  /** Permits held, by part. */
  readonly parts: Map<string, number>;
  /** Oldest first. */
  readonly waiters: Waiter[];
  /** Smoothed milliseconds a permit of this key is held. */
  averageHoldMs: number | undefined;
}

export function createKeyedSemaphore(options: KeyedSemaphoreOptions): KeyedSemaphore {
  const capacity = options.capacity ?? Number.POSITIVE_INFINITY;
  const perKey = options.perKey ?? capacity;
  const perPart = options.perPart ?? perKey;
  const maxWaiting = options.maxWaitingPerKey ?? Number.POSITIVE_INFINITY;
  const maxWaitMs = options.maxWaitMs ?? Number.POSITIVE_INFINITY;
  const nowMs = options.nowMs ?? (() => performance.now());
  const timers = options.timers ?? systemTimers;
  const cancelled = options.cancelled ?? ((signal: AbortSignal) => signal.reason);
  const keys = new Map<string, KeyState>();
  let running = 0;
  let seq = 0;
  /** Smoothed milliseconds a permit of any key is held (for `paceOf: 'all'`). */
  let averageHoldMs: number | undefined;

  const stateOf = (key: string): KeyState => {
    let state = keys.get(key);
    if (!state) {
      state = { running: 0, parts: new Map(), waiters: [], averageHoldMs: undefined };
      keys.set(key, state);
    }
    return state;
  };
  const forget = (key: string, state: KeyState) => {
    if (state.running === 0 && state.waiters.length === 0) keys.delete(key);
  };
  const mayTake = (state: KeyState, part: string) =>
    running < capacity && state.running < perKey && (state.parts.get(part) ?? 0) < perPart;

  function take(key: string, state: KeyState, part: string): Release {
    running += 1;
    state.running += 1;
    state.parts.set(part, (state.parts.get(part) ?? 0) + 1);
    const since = nowMs();
    let released = false;
    return () => {
      if (released) return;
      released = true;
      const held = nowMs() - since;
      averageHoldMs = smooth(averageHoldMs, held);
      state.averageHoldMs = smooth(state.averageHoldMs, held);
      running -= 1;
      state.running -= 1;
      const left = (state.parts.get(part) ?? 1) - 1;
      if (left === 0) state.parts.delete(part);
      else state.parts.set(part, left);
      handOn();
      forget(key, state);
    };
  }

  /** Gives a freed permit to the waiter `handOff` names, if any may take it. */
  function handOn(): void {
    let chosen: { key: string; state: KeyState; index: number; waiter: Waiter } | undefined;
    for (const [key, state] of keys) {
      const index = state.waiters.findIndex((waiter) => mayTake(state, waiter.part));
      const waiter = state.waiters[index];
      if (!waiter) continue;
      const better =
        !chosen ||
        (options.handOff === 'fewest-held' && state.running < chosen.state.running) ||
        ((options.handOff === 'first-come' || state.running === chosen.state.running) &&
          waiter.seq < chosen.waiter.seq);
      if (better) chosen = { key, state, index, waiter };
    }
    if (!chosen) return;
    chosen.state.waiters.splice(chosen.index, 1);
    chosen.waiter.grant(take(chosen.key, chosen.state, chosen.waiter.part));
  }

  function retryAfterSeconds(state: KeyState): number {
    // One turn of the key's queue ahead: every waiter served at the usual pace (a second each
    // while there is no history yet), its share of permits at a time.
    const pace = (options.paceOf === 'all' ? averageHoldMs : state.averageHoldMs) ?? 1000;
    const turnMs = (pace * (state.waiters.length + 1)) / perKey;
    return Math.max(1, Math.ceil(Math.min(turnMs, maxWaitMs) / 1000));
  }

  const loadOf = (state: KeyState): SemaphoreLoad => ({
    running: state.running,
    waiting: state.waiters.length,
  });

  return {
    acquire(key, { signal, part = '', maxWaitMs: waitMs = maxWaitMs } = {}) {
      if (signal?.aborted) return Promise.reject(cancelled(signal));
      const state = stateOf(key);
      if (mayTake(state, part)) return Promise.resolve(take(key, state, part));
      if (state.waiters.length >= maxWaiting) {
        const seconds = retryAfterSeconds(state);
        const load = loadOf(state);
        forget(key, state);
        return Promise.reject((options.busy ?? defaultBusy)(load, seconds));
      }
      return new Promise<Release>((resolve, reject) => {
        let deadline: unknown;
        const leave = (error: unknown) => {
          state.waiters.splice(state.waiters.indexOf(waiter), 1);
          signal?.removeEventListener('abort', onAbort);
          if (deadline !== undefined) timers.clearTimeout(deadline);
          forget(key, state);
          reject(error);
        };
        const onAbort = () => leave(cancelled(signal as AbortSignal));
        const waiter: Waiter = {
          seq: seq++,
          part,
          grant: (release) => {
            signal?.removeEventListener('abort', onAbort);
            if (deadline !== undefined) timers.clearTimeout(deadline);
            resolve(release);
          },
        };
        state.waiters.push(waiter);
        signal?.addEventListener('abort', onAbort, { once: true });
        const { timedOut } = options;
        // The wait counts against the caller's timeout, not on top of an unbounded queue.
        if (timedOut) deadline = timers.setTimeout(() => leave(timedOut(loadOf(state), waitMs)), waitMs);
      });
    },
    load(key) {
      if (key !== undefined) {
        const state = keys.get(key);
        return state ? loadOf(state) : { running: 0, waiting: 0 };
      }
      let waiting = 0;
      for (const state of keys.values()) waiting += state.waiters.length;
      return { running, waiting };
    },
  };
}

/** An exponential moving average: recent holds count most, one slow call does not dominate. */
const smooth = (average: number | undefined, sample: number) =>
  average === undefined ? sample : 0.8 * average + 0.2 * sample;

const defaultBusy = (load: SemaphoreLoad, seconds: number) =>
  new QuerygateError(
    'ENGINE_BUSY',
    `Too many calls are running or waiting (${load.running} running, ${load.waiting} waiting); try again in ${seconds} s`,
    { details: { retryAfterSeconds: seconds } },
  );
