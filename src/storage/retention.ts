import type { LogSource } from '../endpoints/sources.js';
import type { Timers } from '../timers.js';
import { stepsInTurn } from './in-turn.js';
import type { LogWriter, StoreLog } from './log-writer.js';
import { expiredBefore, type RetentionPolicy } from './retention-policy.js';

/**
 * Bounded retention of the embedded store, as Logflare's source TTL: a source keeps its records
 * for `retentionDays` (its own in sources.yaml, else the default); older ones are deleted on a
 * schedule. Each pass deletes in batches of at most `batchRows` records, each its own short
 * transaction on the writer's queue, so ingestion waits at most one batch; then it checkpoints,
 * which hands the freed blocks back to DuckDB for reuse (the file stops growing at steady state
 * rather than shrinking) and empties the ingest journal, so nothing deleted can be replayed.
 */
export interface RetentionOptions {
  readonly writer: LogWriter;
  readonly sources: readonly LogSource[];
  readonly policy: RetentionPolicy;
  readonly now: () => Date;
  readonly timers: Timers;
  /** Time between two passes. @default one hour */
  readonly intervalMs?: number;
  /** Time from start to the first pass. @default one minute */
  readonly firstPassMs?: number;
  /** Records one delete transaction removes at most. @default 10,000 */
  readonly batchRows?: number;
  readonly log?: StoreLog;
}

export interface RetentionPass {
  /** Records deleted, by source name (sources with nothing to delete are absent). */
  readonly deleted: Readonly<Record<string, number>>;
}

export interface Retention {
  /** One pass now, after any pass under way (the schedule is unchanged). */
  runPass(): Promise<RetentionPass>;
  /** Resolves when no pass is under way. */
  idle(): Promise<void>;
  /** Stops the schedule and waits for a pass under way. */
  stop(): Promise<void>;
}

/** Starts the passes: the first after `firstPassMs`, then one every `intervalMs`. */
export function startRetention(options: RetentionOptions): Retention {
  const { writer, policy, timers } = options;
  const batchRows = options.batchRows ?? 10_000;
  const intervalMs = options.intervalMs ?? 3_600_000;
  let stopped = false;
  let handle: unknown;
  // Passes run one after another; each reads the clock when it starts.
  const inTurn = stepsInTurn();

  const pass = async (): Promise<RetentionPass> => {
    const deleted: Record<string, number> = {};
    for (const source of options.sources) {
      if (stopped) break;
      const before = expiredBefore(policy, source, options.now());
      if (before === undefined) continue;
      let total = 0;
      let removed = batchRows;
      // A batch shorter than the most it may take was the last one.
      while (removed === batchRows && !stopped) {
        removed = await writer.deleteBefore(source.name, before, batchRows);
        total += removed;
      }
      if (total > 0) deleted[source.name] = total;
    }
    if (Object.keys(deleted).length > 0) await writer.checkpoint();
    return { deleted };
  };

  const runPass = () => inTurn(pass);

  const schedule = (delayMs: number) => {
    handle = timers.setTimeout(() => {
      if (stopped) return;
      runPass()
        .then(
          (result) => {
            if (Object.keys(result.deleted).length > 0) {
              options.log?.info?.({ deleted: result.deleted }, 'retention deleted expired records');
            }
          },
          (error: unknown) =>
            options.log?.warn({ err: error }, 'retention pass failed; the next one retries'),
        )
        .finally(() => {
          if (!stopped) schedule(intervalMs);
        });
    }, delayMs);
  };
  schedule(options.firstPassMs ?? 60_000);

  return {
    runPass,
    idle: async () => {
      await inTurn(async () => undefined);
    },
    stop: async () => {
      stopped = true;
      timers.clearTimeout(handle);
      await inTurn(async () => undefined);
    },
  };
}
