import type { DuckDBConnection } from '@duckdb/node-api';
import type { Timers } from '../timers.js';
import type { Database } from './database.js';

/**
 * Keeps the process's resident memory near a target by having DuckDB hand freed memory back to
 * the system while the process is above it.
 *
 * DuckDB frees a query's hash tables, sorts and results to glibc, which keeps what it freed
 * resident for reuse. DuckDB returns it (`malloc_trim`, at most every 100 ms) only after freeing
 * more than `allocator_bulk_deallocation_flush_threshold` at once, 512 MiB by default: a log
 * gateway's queries, whose working sets are a few MiB each, never do. Serving Studio's pages
 * (four readers, 40 s, the demo's store), glibc had 113 MB mapped and 24 MB in use; peak RSS was
 * 299 MiB. A threshold of 256 KiB trims after nearly every query and held it at 235 MiB, but
 * also answered 14-24% fewer uncached calls, since the next query faults the pages back in.
 * So the low threshold is set only while RSS is above the target, and the default restored below
 * it: a process within its target pays nothing.
 */
export interface MemoryTrimOptions {
  readonly database: Database;
  /** Resident bytes above which freed memory is returned to the system. */
  readonly targetBytes: number;
  readonly timers: Timers;
  /** The process's resident bytes. @default process.memoryUsage.rss */
  readonly residentBytes?: () => number;
  /** Time between two readings. @default 1 s */
  readonly intervalMs?: number;
}

export interface MemoryTrim {
  /** Whether freed memory is being returned (RSS was above the target at the last reading). */
  readonly trimming: boolean;
  /** Reads RSS now and sets DuckDB accordingly (the schedule is unchanged). */
  check(): Promise<void>;
  stop(): Promise<void>;
}

/** A bulk free of more than this returns freed memory: in effect, after every query. */
const trimmingThreshold = '256KiB';
/**
 * A query whose hash table, freed at its end, is a free large enough for DuckDB to return what is
 * free to the system (some 5 ms). After a 4-way cross join was interrupted at its timeout, RSS
 * stayed at 460 MiB until some later query; after this one, 187 MiB.
 */
const returnFreed = 'SELECT count(*) FROM (SELECT range % 1000 AS k FROM range(200000) GROUP BY k)';
/** DuckDB's own default. */
const restingThreshold = '512MiB';

export async function startMemoryTrim(options: MemoryTrimOptions): Promise<MemoryTrim> {
  const residentBytes = options.residentBytes ?? (() => process.memoryUsage.rss());
  const intervalMs = options.intervalMs ?? 1000;
  const connection: DuckDBConnection = await options.database.connect();
  let trimming = false;
  let stopped = false;
  let handle: unknown;
  let checking: Promise<void> = Promise.resolve();

  const apply = async () => {
    const above = residentBytes() > options.targetBytes;
    if (stopped) return;
    // Still above with the low threshold set: what was freed since (a runaway query stopped at
    // its timeout) waits for a large free that may never come. A small aggregate is one.
    if (above && trimming) await connection.run(returnFreed);
    if (above === trimming) return;
    const threshold = above ? trimmingThreshold : restingThreshold;
    await connection.run(`SET GLOBAL allocator_bulk_deallocation_flush_threshold = '${threshold}'`);
    trimming = above;
  };
  const check = () => {
    checking = checking.then(apply, apply);
    return checking;
  };
  const schedule = () => {
    handle = options.timers.setTimeout(() => {
      check()
        .catch(() => {
          // A failed SET leaves the previous threshold; the next reading tries again.
        })
        .finally(() => {
          if (!stopped) schedule();
        });
    }, intervalMs);
  };
  schedule();

  return {
    get trimming() {
      return trimming;
    },
    check,
    async stop() {
      stopped = true;
      options.timers.clearTimeout(handle);
      await checking.catch(() => undefined);
      connection.closeSync();
    },
  };
}
