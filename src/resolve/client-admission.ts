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
 *
 * Within a client, one endpoint holds at most its share of the client's turns (the engine's
 * per-endpoint connection share): otherwise a client's slow calls of one endpoint, waiting in the
 * engine for that endpoint's connections, would hold every turn, and its cheap call of another
 * endpoint would queue behind them although the engine had a connection free for it. So a freed
 * turn goes to the client's first waiter whose endpoint is under its share.
 */
export interface ClientAdmission {
  /**
   * Takes a turn for one run of `client`, waiting for one of its runs to end when it is at its
   * bound, and resolves with what ends the run (call once, when the run settles). Rejects with
   * ENGINE_BUSY when the client's queue is full too, with ENGINE_TIMEOUT when no turn came within
   * `maxWaitMs`, and with a cancellation when `signal` fires first (no turn is taken then).
   */
  admit(client: string, signal?: AbortSignal, endpoint?: string): Promise<() => void>;
  /** Runs `client` has under way, and its calls waiting for a turn, for tests and metrics. */
  load(client: string): { readonly running: number; readonly waiting: number };
}

export interface ClientAdmissionOptions {
  /** Runs one client may have under way at once. */
  readonly maxRunsPerClient: number;
  /** Turns one client's calls of one endpoint may hold at once. @default maxRunsPerClient */
  readonly maxRunsPerClientEndpoint?: number;
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
  /** Turns held, by endpoint. */
  readonly byEndpoint: Map<string, number>;
  /** Waiters, first in first; a freed turn goes to the first whose endpoint is under its share. */
  readonly waiters: Array<{ readonly endpoint: string; readonly grant: (end: () => void) => void }>;
}

export function createClientAdmission(options: ClientAdmissionOptions): ClientAdmission {
  const nowMs = options.nowMs ?? (() => performance.now());
  const timers = options.timers ?? systemTimers;
  const maxQueued = options.maxQueuedPerClient ?? 0;
  const perEndpoint = options.maxRunsPerClientEndpoint ?? options.maxRunsPerClient;
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

  const mayRun = (state: ClientState, endpoint: string): boolean =>
    state.running < options.maxRunsPerClient && (state.byEndpoint.get(endpoint) ?? 0) < perEndpoint;

  /** Takes a turn for `endpoint` and returns what ends it (its turn then goes to a waiter). */
  function take(client: string, state: ClientState, endpoint: string): () => void {
    state.running += 1;
    state.byEndpoint.set(endpoint, (state.byEndpoint.get(endpoint) ?? 0) + 1);
    const since = nowMs();
    let ended = false;
    return () => {
      if (ended) return;
      ended = true;
      const took = nowMs() - since;
      averageRunMs = averageRunMs === undefined ? took : 0.8 * averageRunMs + 0.2 * took;
      state.running -= 1;
      const left = (state.byEndpoint.get(endpoint) ?? 1) - 1;
      if (left === 0) state.byEndpoint.delete(endpoint);
      else state.byEndpoint.set(endpoint, left);
      const index = state.waiters.findIndex((waiter) => mayRun(state, waiter.endpoint));
      const next = index < 0 ? undefined : state.waiters.splice(index, 1)[0];
      if (next) {
        next.grant(take(client, state, next.endpoint));
        return;
      }
      forget(client, state);
    };
  }

  return {
    admit(client, signal, endpoint = '') {
      if (signal?.aborted) return Promise.reject(cancelled());
      let state = clients.get(client);
      if (!state) {
        state = { running: 0, byEndpoint: new Map(), waiters: [] };
        clients.set(client, state);
      }
      if (mayRun(state, endpoint)) return Promise.resolve(take(client, state, endpoint));
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
          queued.waiters.splice(queued.waiters.indexOf(waiter), 1);
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
        const waiter = {
          endpoint,
          grant: (end: () => void) => {
            timers.clearTimeout(deadline);
            signal?.removeEventListener('abort', onAbort);
            resolve(end);
          },
        };
        queued.waiters.push(waiter);
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
