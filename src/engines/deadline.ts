import type { Timers } from '../timers.js';
import { type RunOptions, remainingMs } from './query-engine.js';

/**
 * One stop for both ends of an engine call: its deadline (the query timeout less what the call
 * already waited before the engine, so a caller never waits longer than the timeout in all) and
 * its caller going away. Engines stop their work when `signal` fires and say which it was.
 */
export interface CallDeadline {
  readonly signal: AbortSignal;
  /** Whether the deadline (not the caller) stopped the call. */
  readonly timedOut: boolean;
  /** Milliseconds the call was given. */
  readonly budgetMs: number;
  /** Clears the timer and stops listening to the caller; call once the run has ended. */
  end(): void;
}

/** `closing`: the engine's own stop (it is closing), which stops the call as its caller going away does. */
export function startDeadline(
  timeoutMs: number,
  options: RunOptions,
  timers: Timers,
  closing?: AbortSignal,
): CallDeadline {
  const stop = new AbortController();
  let timedOut = false;
  const budgetMs = remainingMs(timeoutMs, options);
  const timer = timers.setTimeout(() => {
    timedOut = true;
    stop.abort();
  }, budgetMs);
  const onCallerGone = () => stop.abort();
  for (const signal of [options.signal, closing]) {
    signal?.addEventListener('abort', onCallerGone, { once: true });
    if (signal?.aborted) stop.abort();
  }
  return {
    signal: stop.signal,
    get timedOut() {
      return timedOut;
    },
    budgetMs,
    end() {
      timers.clearTimeout(timer);
      options.signal?.removeEventListener('abort', onCallerGone);
      closing?.removeEventListener('abort', onCallerGone);
    },
  };
}
