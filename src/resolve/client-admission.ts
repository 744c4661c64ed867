import { QuerygateError } from '../errors.js';

/**
 * A bound on the engine runs one client has under way (running, or waiting for a connection in
 * the engine), whatever endpoints they are of: a client at its bound is refused at once with
 * ENGINE_BUSY (503 and a Retry-After), so it cannot fill an endpoint's queue and lock out
 * other clients of that endpoint, nor queue up work across every endpoint. Only runs a call
 * starts count: cache hits and calls that join a run under way add no load.
 */
export interface ClientAdmission {
  /**
   * Counts one run for `client` and returns what ends it (call once, when the run settles).
   * Throws ENGINE_BUSY when the client already has its limit of runs under way.
   */
  admit(client: string): () => void;
  /** Runs `client` has under way now, for tests and metrics. */
  load(client: string): number;
}

export interface ClientAdmissionOptions {
  /** Runs one client may have under way at once. */
  readonly maxRunsPerClient: number;
  /** The longest a run may take (the query timeout): the upper bound of the advised Retry-After. */
  readonly maxWaitMs: number;
  /** The clock run durations are measured with. @default performance.now */
  readonly nowMs?: () => number;
}

export function createClientAdmission(options: ClientAdmissionOptions): ClientAdmission {
  const nowMs = options.nowMs ?? (() => performance.now());
  const runs = new Map<string, number>();
  /** Smoothed milliseconds a counted run takes: how soon a client at its limit can expect a free turn. */
  let averageRunMs: number | undefined;

  function retryAfterSeconds(): number {
    return Math.max(1, Math.ceil(Math.min(averageRunMs ?? 1000, options.maxWaitMs) / 1000));
  }

  return {
    admit(client) {
      const under = runs.get(client) ?? 0;
      if (under >= options.maxRunsPerClient) {
        const seconds = retryAfterSeconds();
        throw new QuerygateError(
          'ENGINE_BUSY',
          `Too many of your calls are running or waiting (${under}, the most one client may have); try again in ${seconds} s`,
          { details: { retryAfterSeconds: seconds } },
        );
      }
      runs.set(client, under + 1);
      const since = nowMs();
      let ended = false;
      return () => {
        if (ended) return;
        ended = true;
        const left = (runs.get(client) ?? 1) - 1;
        if (left === 0) runs.delete(client);
        else runs.set(client, left);
        const took = nowMs() - since;
        averageRunMs = averageRunMs === undefined ? took : 0.8 * averageRunMs + 0.2 * took;
      };
    },
    load: (client) => runs.get(client) ?? 0,
  };
}
