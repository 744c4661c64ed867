import type { ParameterValues, QueryEngine, RunOptions, SavedQuery } from '../../src/engines/query-engine.js';

/** One call that reached the wrapped engine. */
export interface EngineCall {
  readonly endpoint: string;
  readonly params: ParameterValues;
  readonly now: Date;
  /** The signal the run was given: aborted when every caller waiting for it has gone. */
  readonly signal: AbortSignal | undefined;
  /** What the call had waited before it reached the engine, which the engine's timeout counts. */
  readonly waitedMs: number | undefined;
}

/**
 * A real engine behind a wrapper that records every run reaching it, can make the next runs fail,
 * and can hold runs until released (to watch how many run at once).
 */
export interface CountingEngine extends QueryEngine {
  readonly calls: readonly EngineCall[];
  /** Calls of one endpoint by name. */
  callsOf(endpoint: string): EngineCall[];
  /** The next `times` runs fail with `error` instead of reaching the engine. */
  failNext(times: number, error?: Error): void;
  /** From now on runs wait for `release()` before they start. */
  hold(): void;
  release(): void;
  /** Runs under way right now, and the most there ever were at once. */
  readonly running: number;
  readonly maxRunning: number;
}

export function createCountingEngine(inner: QueryEngine): CountingEngine {
  const calls: EngineCall[] = [];
  let failures: { times: number; error: Error } = { times: 0, error: new Error('engine down') };
  let gate: { promise: Promise<void>; open: () => void } | undefined;
  let running = 0;
  let maxRunning = 0;

  return {
    kind: inner.kind,
    ready: () => inner.ready(),
    close: () => inner.close(),
    describe: (query) => inner.describe(query),
    async run(query: SavedQuery, params: ParameterValues, options: RunOptions) {
      calls.push({
        endpoint: query.name,
        params: { ...params },
        now: options.now,
        signal: options.signal,
        waitedMs: options.waitedMs,
      });
      running += 1;
      maxRunning = Math.max(maxRunning, running);
      try {
        if (gate) await gate.promise;
        if (failures.times > 0) {
          failures.times -= 1;
          throw failures.error;
        }
        return await inner.run(query, params, options);
      } finally {
        running -= 1;
      }
    },
    calls,
    callsOf: (endpoint) => calls.filter((call) => call.endpoint === endpoint),
    failNext(times, error = new Error('engine down')) {
      failures = { times, error };
    },
    hold() {
      let open = () => {};
      const promise = new Promise<void>((resolve) => {
        open = resolve;
      });
      gate = { promise, open };
    },
    release() {
      gate?.open();
      gate = undefined;
    },
    get running() {
      return running;
    },
    get maxRunning() {
      return maxRunning;
    },
  };
}
