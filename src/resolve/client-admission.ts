import { QuerygateError } from '../errors.js';
import { createKeyedSemaphore } from '../keyed-semaphore.js';
import type { Timers } from '../timers.js';

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
 *
 * A keyed semaphore (`keyed-semaphore.ts`) keyed by client, its parts the endpoints.
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

export function createClientAdmission(options: ClientAdmissionOptions): ClientAdmission {
  const turns = createKeyedSemaphore({
    perKey: options.maxRunsPerClient,
    perPart: options.maxRunsPerClientEndpoint ?? options.maxRunsPerClient,
    maxWaitingPerKey: options.maxQueuedPerClient ?? 0,
    handOff: 'first-come',
    maxWaitMs: options.maxWaitMs,
    // How soon a client at its bound can expect a turn: how long anyone's runs take.
    paceOf: 'all',
    ...(options.nowMs ? { nowMs: options.nowMs } : {}),
    ...(options.timers ? { timers: options.timers } : {}),
    busy: ({ running, waiting }, seconds) =>
      new QuerygateError(
        'ENGINE_BUSY',
        `Too many of your calls are running or waiting (${running} running, ${waiting} waiting, the most one client may have); try again in ${seconds} s`,
        { details: { retryAfterSeconds: seconds } },
      ),
    timedOut: ({ running }) =>
      new QuerygateError(
        'ENGINE_TIMEOUT',
        `Your call did not get a turn to run within ${options.maxWaitMs} ms: ${running} of your calls were still running`,
      ),
    cancelled: () =>
      new QuerygateError('ENGINE_ERROR', 'The call was cancelled while it waited for a turn to run'),
  });
  return {
    admit: (client, signal, endpoint = '') => turns.acquire(client, { signal, part: endpoint }),
    load: (client) => turns.load(client),
  };
}
