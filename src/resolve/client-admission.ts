import { QuerygateError } from '../errors.js';
import { systemTimers, type Timers } from '../timers.js';

/**
 * A bound on the engine runs one client has under way (running, or waiting for a connection in
 * the engine), whatever endpoints they are of, so one client can never take every engine slot.
 *
 * A client at its bound waits for one of its own runs to end rather than being refused: a
 * dashboard (Supabase Studio reaches us as one client) fires a page's calls in parallel, and
 * refusing the ones past the bound would show the user errors for load that is only bursty. Its
 * waiters are served first come first served, each freed turn handed to the client's first
 * waiter. Only a client whose runs and queue are both full is refused at once with ENGINE_BUSY
 * (503 and a Retry-After). Only runs a call starts count: cache hits and joins add no load.
 */
export interface ClientAdmission {
  /**
   * Takes a turn for one run of `client`, waiting for one of its runs to end when it is at its
   * bound, and resolves with what ends the run (call once, when the run settles). Rejects with
   * ENGINE_BUSY when the client's queue is full too, with ENGINE_TIMEOUT when no turn came within
   * `maxWaitMs`, and with a cancellation when `signal` fires first (no turn is taken then).
   */
  admit(client: string, signal?: AbortSignal): Promise<() => void>;
  /** Runs `client` has under way, and its calls waiting for a turn, for tests and metrics. */
  load(client: string): { readonly running: number; readonly waiting: number };
}

export interface ClientAdmissionOptions {
  /** Runs one client may have under way at once. */
  readonly maxRunsPerClient: number;
  /** Calls of one client that may wait for a turn; more are refused. @default 0 */
  readonly maxQueuedPerClient?: number;
  /** The query timeout: the longest a call waits for a turn, and the most Retry-After advises. */
  readonly maxWaitMs: number;
  /** The clock run durations are measured with. @default performance.now */
  readonly nowMs?: () => number;
  /** The timers a waiter's deadline is kept with; injected so tests move time by hand. */
  readonly timers?: Timers;
}

interface ClientState {
  running: number;
  /** Hands a freed turn to a waiter, first in first. */
  readonly waiters: Array<(end: () => void) => void>;
}

export function createClientAdmission(options: ClientAdmissionOptions): ClientAdmission {
  const nowMs = options.nowMs ?? (() => performance.now());
  const timers = options.timers ?? systemTimers;
  const maxQueued = options.maxQueuedPerClient ?? 0;
  const clients = new Map<string, ClientState>();
  /** Smoothed milliseconds a counted run takes: how soon a client at its limit can expect a free turn. */
  let averageRunMs: number | undefined;

  function retryAfterSeconds(state: ClientState): number {
    // The client's whole queue served at its usual pace (a second a run with no history yet).
    const turnMs = ((averageRunMs ?? 1000) * (state.waiters.length + 1)) / options.maxRunsPerClient;
    return Math.max(1, Math.ceil(Math.min(turnMs, options.maxWaitMs) / 1000));
  }

  function forget(client: string, state: ClientState): void {
    if (state.running === 0 && state.waiters.length === 0) clients.delete(client);
  }

  /** What ends one counted run: its turn goes to the client's first waiter, or is given back. */
  function turn(client: string, state: ClientState): () => void {
    const since = nowMs();
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      const took = nowMs() - since;
      averageRunMs = averageRunMs === undefined ? took : 0.8 * averageRunMs + 0.2 * took;
      const next = state.waiters.shift();
      if (next) {
        next(turn(client, state));
        return;
      }
      state.running -= 1;
      forget(client, state);
    };
  }

  return {
    admit(client, signal) {
      if (signal?.aborted) return Promise.reject(cancelled());
      let state = clients.get(client);
      if (!state) {
        state = { running: 0, waiters: [] };
        clients.set(client, state);
      }
      if (state.running < options.maxRunsPerClient) {
        state.running += 1;
        return Promise.resolve(turn(client, state));
      }
      if (state.waiters.length >= maxQueued) {
        const seconds = retryAfterSeconds(state);
        return Promise.reject(
          new QuerygateError(
            'ENGINE_BUSY',
            `Too many of your calls are running or waiting (${state.running} running, ${state.waiters.length} waiting, the most one client may have); try again in ${seconds} s`,
            { details: { retryAfterSeconds: seconds } },
          ),
        );
      }
      const queued = state;
      return new Promise((resolve, reject) => {
        const leave = (error: QuerygateError) => {
          queued.waiters.splice(queued.waiters.indexOf(grant), 1);
          signal?.removeEventListener('abort', onAbort);
          forget(client, queued);
          reject(error);
        };
        const onAbort = () => {
          timers.clearTimeout(deadline);
          leave(cancelled());
        };
        // The wait counts against the query timeout's worth, not on top of an unbounded queue.
        const deadline = timers.setTimeout(
          () =>
            leave(
              new QuerygateError(
                'ENGINE_TIMEOUT',
                `Your call did not get a turn to run within ${options.maxWaitMs} ms: ${queued.running} of your calls were still running`,
              ),
            ),
          options.maxWaitMs,
        );
        const grant = (end: () => void) => {
          timers.clearTimeout(deadline);
          signal?.removeEventListener('abort', onAbort);
          resolve(end);
        };
        queued.waiters.push(grant);
        signal?.addEventListener('abort', onAbort, { once: true });
      });
    },
    load(client) {
      const state = clients.get(client);
      return { running: state?.running ?? 0, waiting: state?.waiters.length ?? 0 };
    },
  };
}

const cancelled = () =>
  new QuerygateError('ENGINE_ERROR', 'The call was cancelled while it waited for a turn to run');
