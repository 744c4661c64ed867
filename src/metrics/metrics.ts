import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client';

/** Which face answered. */
export type Face = 'rest' | 'graphql';

/**
 * How the resolver layer answered an endpoint call: from a fresh cached result (`hit`), from one
 * whose latest warm run failed (`stale`), by starting a run (`miss`), by joining a run of the same
 * key under way (`joined`), by a run of an endpoint that never caches (`uncached`), by a run the
 * caller asked for with `Cache-Control: no-cache` (`refresh`), or not at all (`none`: refused
 * before the resolver, such as a bad parameter).
 */
export type CacheOutcome = 'hit' | 'stale' | 'miss' | 'joined' | 'uncached' | 'refresh' | 'none';

/** What the registry cannot count itself: read when Prometheus scrapes, never per request. */
export interface MetricsSources {
  /** The result cache now: entries and approximate bytes. */
  readonly cache?: () => { readonly entries: number; readonly bytes: number };
  /** Bytes of the store on disk (DuckDB file, WAL and journal); undefined on BigQuery. */
  readonly storeBytes?: () => number | undefined;
}

/** The counters of one endpoint, bound to its label once so a request only counts. */
export interface EndpointMetrics {
  /** A call answered by a face, with its HTTP status (200 for a GraphQL field error: see `code`). */
  answered(face: Face, status: number, cache: CacheOutcome, seconds: number): void;
  /** A run of the engine: its time in the engine and the time it waited for its turn before. */
  ran(runSeconds: number, waitSeconds: number): void;
  /** A call refused for load or time (ENGINE_BUSY, ENGINE_TIMEOUT). */
  refused(code: string): void;
  /** A warm run, and whether it failed. */
  warmed(failed: boolean): void;
}

export interface Metrics {
  /** Prometheus text exposition format, version 0.0.4. */
  readonly contentType: string;
  exposition(): Promise<string>;
  /** The counters of an endpoint, made once per name. */
  endpoint(name: string): EndpointMetrics;
  /** One committed ingestion request into `source`. */
  ingested(source: string, records: number, bytes: number, commitSeconds: number): void;
  /** Cached results dropped to stay within the cache's byte budget. */
  evicted(entries: number): void;
}

// Seconds, from a cached hit (tens of µs) to a query at the default timeout (30 s).
const latencyBuckets = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

/**
 * The server's Prometheus metrics, in a registry of its own (two servers in one process, as in
 * the tests, never share counters). Every per-request figure is a counter or histogram child
 * bound once per endpoint and label set, so a request adds, never builds; gauges are read from
 * `sources` at scrape time. Process metrics (CPU, RSS, heap, event-loop lag, GC) are prom-client's.
 */
export function createMetrics(sources: MetricsSources = {}): Metrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'querygate_' });

  const requests = new Counter({
    name: 'querygate_endpoint_requests_total',
    help: 'Endpoint calls answered, by face, endpoint, HTTP status and cache outcome.',
    labelNames: ['face', 'endpoint', 'status', 'cache'] as const,
    registers: [registry],
  });
  const latency = new Histogram({
    name: 'querygate_endpoint_request_duration_seconds',
    help: 'Time from a call reaching its face to its answer, by face and endpoint.',
    labelNames: ['face', 'endpoint'] as const,
    buckets: latencyBuckets,
    registers: [registry],
  });
  const engineRun = new Histogram({
    name: 'querygate_engine_run_duration_seconds',
    help: 'Time a query spent in the engine, by endpoint (warm runs included).',
    labelNames: ['endpoint'] as const,
    buckets: latencyBuckets,
    registers: [registry],
  });
  const queueWait = new Histogram({
    name: 'querygate_engine_queue_wait_seconds',
    help: "Time a run waited for its client's turn before it reached the engine, by endpoint.",
    labelNames: ['endpoint'] as const,
    buckets: latencyBuckets,
    registers: [registry],
  });
  const refusals = new Counter({
    name: 'querygate_engine_refusals_total',
    help: 'Calls refused for load or time, by endpoint and code (ENGINE_BUSY, ENGINE_TIMEOUT).',
    labelNames: ['endpoint', 'code'] as const,
    registers: [registry],
  });
  const warmRuns = new Counter({
    name: 'querygate_warm_runs_total',
    help: 'Runs that refreshed a cached result ahead of use, by endpoint and outcome (ok, failed).',
    labelNames: ['endpoint', 'outcome'] as const,
    registers: [registry],
  });
  const evictions = new Counter({
    name: 'querygate_cache_evictions_total',
    help: "Cached results dropped to stay within the cache's byte budget.",
    registers: [registry],
  });
  const ingestedRecords = new Counter({
    name: 'querygate_ingested_records_total',
    help: 'Records committed to the store, by source.',
    labelNames: ['source'] as const,
    registers: [registry],
  });
  const ingestedBytes = new Counter({
    name: 'querygate_ingested_bytes_total',
    help: 'Request body bytes of the committed ingestion requests, by source.',
    labelNames: ['source'] as const,
    registers: [registry],
  });
  const commitLatency = new Histogram({
    name: 'querygate_ingest_commit_duration_seconds',
    help: "Time from an ingestion request's records being read to their commit, by source.",
    labelNames: ['source'] as const,
    buckets: latencyBuckets,
    registers: [registry],
  });
  const { cache, storeBytes } = sources;
  new Gauge({
    name: 'querygate_cache_entries',
    help: 'Results held in the cache.',
    registers: [registry],
    collect() {
      if (cache) this.set(cache().entries);
    },
  });
  new Gauge({
    name: 'querygate_cache_bytes',
    help: 'Approximate bytes of the results held in the cache.',
    registers: [registry],
    collect() {
      if (cache) this.set(cache().bytes);
    },
  });
  new Gauge({
    name: 'querygate_store_bytes',
    help: 'Bytes of the store on disk: the DuckDB file, its WAL and the ingest journal.',
    registers: [registry],
    collect() {
      const bytes = storeBytes?.();
      if (bytes !== undefined) this.set(bytes);
    },
  });

  const endpoints = new Map<string, EndpointMetrics>();
  function endpointMetrics(endpoint: string): EndpointMetrics {
    const answered = new Map<string, Counter.Internal>();
    const latencyOf = {
      rest: latency.labels({ face: 'rest', endpoint }),
      graphql: latency.labels({ face: 'graphql', endpoint }),
    };
    const run = engineRun.labels({ endpoint });
    const wait = queueWait.labels({ endpoint });
    const warmOk = warmRuns.labels({ endpoint, outcome: 'ok' });
    const warmFailed = warmRuns.labels({ endpoint, outcome: 'failed' });
    return {
      answered(face, status, cacheOutcome, seconds) {
        const key = `${face} ${status} ${cacheOutcome}`;
        let counter = answered.get(key);
        if (!counter) {
          counter = requests.labels({ face, endpoint, status: String(status), cache: cacheOutcome });
          answered.set(key, counter);
        }
        counter.inc();
        latencyOf[face].observe(seconds);
      },
      ran(runSeconds, waitSeconds) {
        run.observe(runSeconds);
        wait.observe(waitSeconds);
      },
      refused: (code) => refusals.labels({ endpoint, code }).inc(),
      warmed: (failed) => (failed ? warmFailed : warmOk).inc(),
    };
  }

  return {
    contentType: registry.contentType,
    exposition: () => registry.metrics(),
    endpoint(name) {
      let found = endpoints.get(name);
      if (!found) {
        found = endpointMetrics(name);
        endpoints.set(name, found);
      }
      return found;
    },
    ingested(source, records, bytes, commitSeconds) {
      ingestedRecords.labels({ source }).inc(records);
      ingestedBytes.labels({ source }).inc(bytes);
      commitLatency.labels({ source }).observe(commitSeconds);
    },
    evicted: (entries) => evictions.inc(entries),
  };
}
