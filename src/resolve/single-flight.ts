/**
 * At most one run per key at a time: a call for a key that is already running waits for that
 * run instead of starting its own. The run is cancelled only when every waiter that can go
 * away (it brought a signal) has gone and none that cannot (a warm run) is waiting.
 */
export interface SingleFlight<T> {
  run(key: string, task: (signal: AbortSignal) => Promise<T>, signal?: AbortSignal): Flight<T>;
  /** Whether `run(key, ...)` called now would join a run under way rather than start one. */
  joinable(key: string): boolean;
  /** Cancels every run under way (shutdown). */
  abortAll(): void;
  /**
   * Lets later calls start runs of their own instead of joining those under way, which finish
   * for the calls already waiting (the rows they read were replaced: see ResolverLayer.drop).
   */
  forget(): void;
}

export interface Flight<T> {
  readonly promise: Promise<T>;
  /** True when the call joined a run another call had started. */
  readonly joined: boolean;
}

interface Run<T> {
  readonly promise: Promise<T>;
  readonly controller: AbortController;
  waiting: number;
  pinned: boolean;
}

export function createSingleFlight<T>(): SingleFlight<T> {
  const runs = new Map<string, Run<T>>();

  function start(key: string, task: (signal: AbortSignal) => Promise<T>): Run<T> {
    const controller = new AbortController();
    const promise = Promise.resolve()
      .then(() => task(controller.signal))
      .finally(() => {
        if (runs.get(key) === run) runs.delete(key);
      });
    const run: Run<T> = { promise, controller, waiting: 0, pinned: false };
    runs.set(key, run);
    return run;
  }

  function attach(run: Run<T>, signal: AbortSignal | undefined): void {
    if (!signal) {
      run.pinned = true;
      return;
    }
    if (signal.aborted) {
      if (run.waiting === 0 && !run.pinned) run.controller.abort();
      return;
    }
    run.waiting += 1;
    const leave = () => {
      run.waiting -= 1;
      if (run.waiting === 0 && !run.pinned) run.controller.abort();
    };
    signal.addEventListener('abort', leave, { once: true });
    const detach = () => signal.removeEventListener('abort', leave);
    run.promise.then(detach, detach);
  }

  // A run whose callers have all gone is finishing its cancellation: a new caller starts afresh.
  function live(key: string): Run<T> | undefined {
    const current = runs.get(key);
    return current && !current.controller.signal.aborted ? current : undefined;
  }

  return {
    joinable: (key) => live(key) !== undefined,
    run(key, task, signal) {
      const existing = live(key);
      const run = existing ?? start(key, task);
      attach(run, signal);
      return { promise: run.promise, joined: existing !== undefined };
    },
    abortAll() {
      for (const run of runs.values()) run.controller.abort();
    },
    forget() {
      runs.clear();
    },
  };
}
