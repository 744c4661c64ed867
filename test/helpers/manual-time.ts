import type { Timers } from '../../src/timers.js';

/**
 * A clock and timers that move only when a test says so: `advance(ms)` fires every timer due
 * within the span in order, with the clock set to each one's due time, and lets the work each
 * one starts settle before the next. Fifteen minutes of cache life pass in milliseconds.
 */
export interface ManualTime {
  now(): Date;
  readonly timers: Timers;
  /** Moves the clock forward, firing due timers on the way. */
  advance(ms: number): Promise<void>;
  /** Moves the clock to an instant (not backwards). */
  advanceTo(instant: Date): Promise<void>;
  /** Timers waiting to fire. */
  readonly pending: number;
  /**
   * Work to wait for after each timer fires (e.g. `() => resolver.idle()`), so what a timer
   * started finishes at the instant it was due, before the clock moves on.
   */
  settleWith(settle: () => Promise<void>): void;
}

interface Scheduled {
  readonly id: number;
  readonly due: number;
  readonly callback: () => void;
}

export function createManualTime(start: Date): ManualTime {
  let current = start.getTime();
  let nextId = 0;
  const scheduled = new Map<number, Scheduled>();
  let settleHook: () => Promise<void> = async () => {};

  const timers: Timers = {
    setTimeout(callback, delayMs) {
      nextId += 1;
      scheduled.set(nextId, { id: nextId, due: current + Math.max(0, delayMs), callback });
      return nextId;
    },
    clearTimeout(handle) {
      scheduled.delete(handle as number);
    },
  };

  const nextDue = (until: number): Scheduled | undefined => {
    let next: Scheduled | undefined;
    for (const timer of scheduled.values()) {
      if (
        timer.due <= until &&
        (!next || timer.due < next.due || (timer.due === next.due && timer.id < next.id))
      ) {
        next = timer;
      }
    }
    return next;
  };

  const advanceTo = async (target: number) => {
    if (target < current) throw new Error('manual time does not go backwards');
    for (let timer = nextDue(target); timer; timer = nextDue(target)) {
      scheduled.delete(timer.id);
      current = timer.due;
      timer.callback();
      await settle();
      await settleHook();
    }
    current = target;
    await settle();
  };

  return {
    now: () => new Date(current),
    timers,
    advance: (ms) => advanceTo(current + ms),
    advanceTo: (instant) => advanceTo(instant.getTime()),
    get pending() {
      return scheduled.size;
    },
    settleWith(settle) {
      settleHook = settle;
    },
  };
}

/** Lets promise chains and I/O callbacks that are already under way run (DuckDB answers on I/O). */
async function settle(): Promise<void> {
  for (let i = 0; i < 3; i++) await new Promise<void>((resolve) => setImmediate(resolve));
}
