/**
 * A bound on the process's resident memory for caller SQL. DuckDB keeps its buffer pool within
 * its memory limit, but not everything a query builds: an ungrouped `array_agg` or `string_agg`
 * over a cross join grows its state outside it, and two such queries at once took the process
 * from 200 to 800 MiB with the limit at 256MB. So while caller queries run, RSS is read every
 * `intervalMs`; above the ceiling, the one that has run longest is stopped (its memory is then
 * freed), and the next only if RSS is still above once `graceMs` has passed.
 */
export interface MemoryCeiling {
  /** Watches one run until the returned function is called; `stop` is called to cut it off. */
  watch(stop: () => void): () => void;
}

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
  const watched = new Set<() => void>();
  let timer: NodeJS.Timeout | undefined;
  let lastStopAt = Number.NEGATIVE_INFINITY;

  const tick = () => {
    if (residentBytes() <= options.ceilingBytes || performance.now() - lastStopAt < graceMs) return;
    const [oldest] = watched;
    if (!oldest) return;
    watched.delete(oldest);
    lastStopAt = performance.now();
    oldest();
  };
  return {
    watch(stop) {
      watched.add(stop);
      timer ??= setInterval(tick, options.intervalMs ?? 25).unref();
      return () => {
        watched.delete(stop);
        if (watched.size === 0) {
          clearInterval(timer);
          timer = undefined;
        }
      };
    },
  };
}
