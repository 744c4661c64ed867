import type { Database } from '../storage/database.js';
import type { LogWriter } from '../storage/log-writer.js';
import { systemTimers, type Timers } from '../timers.js';
import {
  type DemoSeedOutcome,
  type DemoSeedProgress,
  type DemoTrafficShape,
  seedDemoLogs,
  topUpDemoLogs,
} from './seed.js';

/** How often a running server adds the demo traffic since the last top-up. */
export const demoTopUpIntervalMs = 30_000;

export interface DemoTrafficOptions {
  readonly database: Database;
  /** The writer ingestion uses: demo events take the same path as anyone's. */
  readonly writer: LogWriter;
  /** The clock each top-up's traffic leads up to. */
  readonly now: () => Date;
  /** What the top-ups wait with. @default systemTimers (unref'd: they never keep the process alive) */
  readonly timers?: Timers;
  /** @default demoTopUpIntervalMs */
  readonly intervalMs?: number;
  /** @default the demo's projects, seed and volume */
  readonly shape?: DemoTrafficShape;
  /** Told of a failed periodic top-up; the next one is scheduled all the same. @default ignores it */
  readonly onError?: (error: unknown) => void;
  /** Told as the start's seed or top-up writes its events (see DemoSeedProgress). */
  readonly onStartProgress?: DemoSeedProgress;
}

export interface DemoTraffic {
  /** What the start did to the store. */
  readonly atStart: DemoSeedOutcome;
  /** Resolves once no top-up is running. */
  idle(): Promise<void>;
  /** Cancels the next top-up and waits for a running one to finish. */
  close(): Promise<void>;
}

/**
 * Seeds or tops up the demo traffic of a store at start, then, for a demo store, keeps adding the
 * traffic since the last top-up every `intervalMs`, so that the minutely windows keep moving.
 * A store holding someone's own logs is left alone, at start and after.
 */
export async function startDemoTraffic(options: DemoTrafficOptions): Promise<DemoTraffic> {
  const { database, writer, now, timers = systemTimers, intervalMs = demoTopUpIntervalMs, shape } = options;
  const onError = options.onError ?? (() => {});
  const atStart = await seedDemoLogs(database, writer, now(), shape, options.onStartProgress);
  let until = atStart.kind === 'not-demo' ? undefined : atStart.until;
  let closed = false;
  let pending: unknown;
  let running: Promise<void> = Promise.resolve();

  const topUp = async (after: Date) => {
    const to = now();
    try {
      // Chained one after another by the timer, so two top-ups never write the same range.
      await topUpDemoLogs(database, writer, after, to, shape);
      if (to.getTime() > after.getTime()) until = to;
    } catch (error) {
      onError(error);
    }
    schedule();
  };
  const schedule = () => {
    if (closed || !until) return;
    const after = until;
    pending = timers.setTimeout(() => {
      pending = undefined;
      running = topUp(after);
    }, intervalMs);
  };
  schedule();

  return {
    atStart,
    idle: () => running,
    async close() {
      closed = true;
      if (pending !== undefined) timers.clearTimeout(pending);
      pending = undefined;
      await running;
    },
  };
}
