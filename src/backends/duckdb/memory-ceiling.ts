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
}

export function createMemoryCeiling(options: MemoryCeilingOptions): MemoryCeiling {
  const residentBytes = options.residentBytes ?? (() => process.memoryUsage.rss());
  const graceMs = options.graceMs ?? 250;
  // Oldest first: insertion order.
  const watched = new Set<(reason: StopReason) => void>();
  // Runs stopped or watched, each with what to call once it has ended.
  const ending = new Map<(reason: StopReason) => void, () => void>();
  let timer: NodeJS.Timeout | undefined;
  let lastStopAt = Number.NEGATIVE_INFINITY;

  const tick = () => {
    if (residentBytes() <= options.ceilingBytes || performance.now() - lastStopAt < graceMs) return;
    const [oldest] = watched;
    if (!oldest) return;
    watched.delete(oldest);
    lastStopAt = performance.now();
    oldest('ceiling');
  };
  return {
    watch(stop) {
      watched.add(stop);
      timer ??= setInterval(tick, options.intervalMs ?? 25).unref();
      return () => {
        watched.delete(stop);
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
