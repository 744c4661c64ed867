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

export function summarise(samples: readonly number[]): Timing {
  const sorted = [...samples].sort((a, b) => a - b);
  const at = (q: number) =>
    sorted[Math.min(sorted.length - 1, Math.ceil(q * sorted.length) - 1)] ?? Number.NaN;
  return { medianMs: at(0.5), p95Ms: at(0.95), runs: sorted.length };
}

export function ratio(numerator: number, denominator: number): number {
  return Math.round((numerator / denominator) * 100) / 100;
}
