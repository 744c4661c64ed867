/**
 * A bound on the process's resident memory for caller SQL. DuckDB keeps its buffer pool within
 * its memory limit, but not everything a query builds: an ungrouped `array_agg` or `string_agg`
 * over a cross join grows its state outside it, and two such queries at once took the process
 * from 200 to 800 MiB with the limit at 256MB. So while caller queries run, RSS is read every
 * `intervalMs`; above the ceiling, the one that has run longest is stopped (its memory is then
 * freed), and the next only if RSS is still above once `graceMs` has passed.
 *
 * DuckDB's memory limit is shared too: while caller queries fill it, a saved query may fail for
 * want of memory. Then `stopAll` stops every caller query, so the saved one can be run again.
 */
export interface MemoryCeiling {
  /**
   * Watches one run until the returned function is called; `stop` is called to cut it off, with
   * why: the process above the ceiling, or memory a saved query needed.
   */
  watch(stop: (reason: StopReason) => void): () => void;
  /**
   * Stops every run watched now; resolves once each has ended (called its returned function),
   * with how many there were.
   */
  stopAll(): Promise<number>;
}

export type StopReason = 'ceiling' | 'saved-query';

export interface MemoryCeilingOptions {
  readonly ceilingBytes: number;
  /** @default process.memoryUsage.rss */
  readonly residentBytes?: () => number;
  /** @default 25 ms */
  readonly intervalMs?: number;
  /** Time for a stopped run to free its memory before another is stopped. @default 250 ms */
  readonly graceMs?: number;
  /**
   * While true, memory above the ceiling is not the caller queries': the log writer is changing a
   * source's schema, whose rewritten column DuckDB holds until the checkpoint after it (and a
   * little after, while the allocator returns it). No caller query is stopped for it then.
   * @default never
   */
  readonly othersHold?: () => boolean;
  /**
   * How much the process must have grown since a run began for that run to be stopped: a run is
   * stopped for memory that came while it ran, not for what the process held before it.
   * @default an eighth of the ceiling, at most 64 MiB
   */
  readonly growthBytes?: number;
}

export function createMemoryCeiling(options: MemoryCeilingOptions): MemoryCeiling {
  const residentBytes = options.residentBytes ?? (() => process.memoryUsage.rss());
  const graceMs = options.graceMs ?? 250;
  // Oldest first: insertion order.
  const watched = new Set<(reason: StopReason) => void>();
  // The resident bytes when each run began.
  const startedAt = new Map<(reason: StopReason) => void, number>();
  const growthBytes = options.growthBytes ?? Math.min(64 * 1024 * 1024, options.ceilingBytes / 8);
  // Runs stopped or watched, each with what to call once it has ended.
  const ending = new Map<(reason: StopReason) => void, () => void>();
  let timer: NodeJS.Timeout | undefined;
  let lastStopAt = Number.NEGATIVE_INFINITY;

  const tick = () => {
    const resident = residentBytes();
    if (resident <= options.ceilingBytes || performance.now() - lastStopAt < graceMs) return;
    if (options.othersHold?.()) return;
    const [oldest] = watched;
    if (!oldest) return;
    // Over the ceiling by memory it did not grow (a store whose wide schema keeps the process
    // near the ceiling at rest): not the run's to be stopped for.
    if (resident - (startedAt.get(oldest) ?? 0) < growthBytes) return;
    watched.delete(oldest);
    startedAt.delete(oldest);
    lastStopAt = performance.now();
    oldest('ceiling');
  };
  return {
    watch(stop) {
      watched.add(stop);
      startedAt.set(stop, residentBytes());
      timer ??= setInterval(tick, options.intervalMs ?? 25).unref();
      return () => {
        watched.delete(stop);
        startedAt.delete(stop);
        ending.get(stop)?.();
        ending.delete(stop);
        if (watched.size === 0) {
          clearInterval(timer);
          timer = undefined;
        }
      };
    },
    async stopAll() {
      const runs = [...watched];
      await Promise.all(
        runs.map((stop) => {
          const ended = new Promise<void>((resolve) => ending.set(stop, resolve));
          stop('saved-query');
          return ended;
        }),
      );
      return runs.length;
    },
  };
}
