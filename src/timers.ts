/**
 * Timers as the resolver layer, the engines and demo traffic use them. Injected with the clock
 * so tests move time by hand: expiry and warming over fifteen minutes run in milliseconds.
 */
export interface Timers {
  setTimeout(callback: () => void, delayMs: number): unknown;
  clearTimeout(handle: unknown): void;
}

/** Node's timers, unref'd: a pending warm never keeps the process alive on its own. */
export const systemTimers: Timers = {
  setTimeout(callback, delayMs) {
    const timer = setTimeout(callback, delayMs);
    timer.unref();
    return timer;
  },
  clearTimeout(handle) {
    clearTimeout(handle as NodeJS.Timeout);
  },
};
