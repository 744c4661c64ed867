import type { Metric, Registry } from 'prom-client';

/**
 * Metric families whose values are plain numbers the server adds to as it answers, turned into
 * Prometheus samples only when Prometheus scrapes. prom-client's own counters and histograms hash
 * their label set on every `inc` and `observe` (about 1 µs a request for a counter and a
 * histogram, a twentieth of serving a cached result); these cost an addition or two. Gauges
 * are read from their source the same way, and a gauge whose source has no figure is absent.
 */

type Labels = Readonly<Record<string, string>>;

/** One sample line: `metricName{labels} value`. */
export interface Sample {
  readonly metricName?: string;
  readonly labels: Labels;
  readonly value: number;
}

/** A histogram as counts per bucket (not cumulative), their sum and count. */
export class HistogramCounts {
  readonly perBucket: number[];
  sum = 0;
  count = 0;

  constructor(readonly bounds: readonly number[]) {
    this.perBucket = new Array<number>(bounds.length + 1).fill(0);
  }

  observe(value: number): void {
    const { bounds } = this;
    let bucket = 0;
    while (bucket < bounds.length && value > (bounds[bucket] as number)) bucket++;
    this.perBucket[bucket] = (this.perBucket[bucket] as number) + 1;
    this.sum += value;
    this.count += 1;
  }

  /** The `_bucket` (cumulative, `le` the upper bound), `_sum` and `_count` samples of the family `name`. */
  samples(name: string, labels: Labels): Sample[] {
    const samples: Sample[] = [];
    let cumulative = 0;
    for (let bucket = 0; bucket <= this.bounds.length; bucket++) {
      cumulative += this.perBucket[bucket] as number;
      const le = bucket < this.bounds.length ? String(this.bounds[bucket]) : '+Inf';
      samples.push({ metricName: `${name}_bucket`, labels: { ...labels, le }, value: cumulative });
    }
    samples.push({ metricName: `${name}_sum`, labels, value: this.sum });
    samples.push({ metricName: `${name}_count`, labels, value: this.count });
    return samples;
  }
}

/**
 * Registers a family whose samples `collect` reads at scrape time. prom-client's registry asks a
 * metric only for its name, type and `get()`; this is such a metric without per-call bookkeeping.
 */
export function registerCountedFamily(
  registry: Registry,
  family: {
    readonly name: string;
    readonly help: string;
    readonly type: 'counter' | 'gauge' | 'histogram';
    readonly collect: () => Sample[];
  },
): void {
  const { name, help, type, collect } = family;
  const metric = {
    name,
    help,
    type,
    aggregator: 'sum',
    get: async () => ({ name, help, type, aggregator: 'sum', values: collect() }),
    reset: () => {},
  };
  registry.registerMetric(metric as unknown as Metric);
}
