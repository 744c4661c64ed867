/** Median and 95th percentile of repeated timings, after warm-up runs that are not counted. */
export interface Timing {
  readonly medianMs: number;
  readonly p95Ms: number;
  readonly runs: number;
}

export async function timeRuns(warmup: number, runs: number, run: () => Promise<unknown>): Promise<Timing> {
  for (let i = 0; i < warmup; i++) await run();
  const samples: number[] = [];
  for (let i = 0; i < runs; i++) {
    const started = performance.now();
    await run();
    samples.push(performance.now() - started);
  }
  return summarise(samples);
}

/**
 * Like `timeRuns` for several calls at once, taken in turn run after run (warm-up included), so
 * that whatever else the process does meanwhile (a GC, the OS) falls on all of them alike.
 */
export async function timeInTurn<Name extends string>(
  warmup: number,
  runs: number,
  calls: Record<Name, () => Promise<unknown>>,
): Promise<Record<Name, Timing>> {
  const names = Object.keys(calls) as Name[];
  for (let i = 0; i < warmup; i++) for (const name of names) await calls[name]();
  const samples = new Map<Name, number[]>(names.map((name) => [name, []]));
  for (let i = 0; i < runs; i++) {
    for (const name of names) {
      const started = performance.now();
      await calls[name]();
      samples.get(name)?.push(performance.now() - started);
    }
  }
  return Object.fromEntries(names.map((name) => [name, summarise(samples.get(name) ?? [])])) as Record<
    Name,
    Timing
  >;
}

export function summarise(samples: readonly number[]): Timing {
  return { medianMs: percentile(samples, 0.5), p95Ms: percentile(samples, 0.95), runs: samples.length };
}

/** The sample at quantile `q` (nearest rank); NaN of no samples. */
export function percentile(samples: readonly number[], q: number): number {
  const sorted = [...samples].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? Number.NaN;
}

export function ratio(numerator: number, denominator: number): number {
  return Math.round((numerator / denominator) * 100) / 100;
}
