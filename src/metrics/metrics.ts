import { collectDefaultMetrics, Gauge, Registry } from 'prom-client';
import { isQuerygateError } from '../errors.js';
import { querygateVersion } from '../paths.js';
import { HistogramCounts, registerCountedFamily, type Sample } from './counted-families.js';

/** Which face answered. */
export type Face = 'rest' | 'graphql';

/**
 * How the resolver layer answered an endpoint call with a result: from a fresh cached result
 * (`hit`), from one whose latest warm run failed (`stale`), by starting a run (`miss`), by joining
 * a run of the same key under way (`joined`), by a run of an endpoint that never caches
 * (`uncached`), or by a run the caller asked for with `Cache-Control: no-cache` (`refresh`).
 */
export type CacheOutcome = 'hit' | 'stale' | 'miss' | 'joined' | 'uncached' | 'refresh';

/** What the registry cannot count itself: read when Prometheus scrapes, never per request. */
export interface MetricsSources {
  /** The result cache now: entries and approximate bytes. */
  readonly cache?: () => { readonly entries: number; readonly bytes: number };
  /** The cache replicas share (Redis): undefined when none is configured. */
  readonly sharedCache?: () =>
    | {
        readonly up: boolean;
        readonly adopted: number;
        readonly leasedRuns: number;
        readonly errors: number;
        readonly unreadable: number;
      }
    | undefined;
  /** Bytes of the store on disk (DuckDB file, WAL and journal); undefined on BigQuery. */
  readonly storeBytes?: () => number | undefined;
}

/**
 * The counters of one endpoint, bound to its label once so a call only counts. `startedAt` is
 * the `performance.now()` at which the call reached its face (REST) or its operation first asked for it (GraphQL).
 */
export interface EndpointMetrics {
  /**
   * A call answered with a result (HTTP 200), and how the resolver layer got it. Without
   * `startedAt`, answered in the instant it was asked (the calls of an answer kept or
   * remembered, see `keptCallsReuser`): its latency is 0, and no clock is read.
   */
  answered(face: Face, cache: CacheOutcome, startedAt?: number): void;
  /**
   * A call answered with an error: counted under the HTTP status REST gives its code (also for a
   * GraphQL field error, whose response is a 200) with cache `none`, and as a refusal when the
   * code is ENGINE_BUSY or ENGINE_TIMEOUT.
   */
  failed(face: Face, error: unknown, startedAt: number): void;
  /** A run of the engine: its time in the engine and the time it waited for its turns before. */
  ran(runSeconds: number, waitSeconds: number): void;
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

/** The codes counted as refusals for load or time. */
const refusalCodes = new Set(['ENGINE_BUSY', 'ENGINE_TIMEOUT']);

/** The HTTP status REST answers an error with (see http/app.ts's error handler). */
function statusOf(error: unknown): number {
  if (isQuerygateError(error)) return error.status;
  const status = (error as { statusCode?: unknown } | null)?.statusCode;
  return typeof status === 'number' && status >= 400 && status < 600 ? status : 500;
}

// Seconds, from a cached hit (tens of µs) to a query at the default timeout (30 s).
const latencyBuckets = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30];

const faces: readonly Face[] = ['rest', 'graphql'];
const cacheOutcomes: readonly CacheOutcome[] = ['hit', 'stale', 'miss', 'joined', 'uncached', 'refresh'];

/** What one endpoint has counted: plain numbers, read at scrape time. */
interface EndpointCounts {
  readonly name: string;
  /** Calls answered with a result, by face and cache outcome. */
  readonly results: Record<Face, Record<CacheOutcome, number>>;
  /** Calls answered with an error, by face and status: `${face} ${status}`. */
  readonly errors: Map<string, number>;
  readonly latency: Record<Face, HistogramCounts>;
  readonly run: HistogramCounts;
  readonly wait: HistogramCounts;
  readonly refusals: Map<string, number>;
  warmOk: number;
  warmFailed: number;
}

interface SourceCounts {
  records: number;
  bytes: number;
  readonly commit: HistogramCounts;
}

const zeroPerOutcome = (): Record<CacheOutcome, number> => ({
  hit: 0,
  stale: 0,
  miss: 0,
  joined: 0,
  uncached: 0,
  refresh: 0,
});

const secondsSince = (startedAt: number) => (performance.now() - startedAt) / 1000;

const add = (counts: Map<string, number>, key: string, by = 1) =>
  counts.set(key, (counts.get(key) ?? 0) + by);

/**
 * The server's Prometheus metrics, in a registry of its own (two servers in one process, as in
 * the tests, never share counters). A call only adds to numbers kept per endpoint (see
 * counted-families.ts); the samples are made when Prometheus scrapes, and the gauges read
 * `sources` then. Process metrics (CPU, RSS, heap, event-loop lag, GC) are prom-client's.
 */
export function createMetrics(sources: MetricsSources = {}): Metrics {
  const registry = new Registry();
  // The event-loop lag gauges keep prom-client's 10 ms precision, though its timer wakes an idle
  // loop ~100 times a second: Node records the time between timer callbacks, so each gauge reads
  // the precision plus the lag (1.00-1.01 s at rest with 1000 ms, measured), and the dashboard's
  // p99 panel would read the precision.
  collectDefaultMetrics({ register: registry, prefix: 'querygate_' });
  // Prometheus's build_info convention: one sample of value 1 whose labels say what runs.
  new Gauge({
    name: 'querygate_build_info',
    help: "querygate's version (package.json) and Node's, as labels; the value is always 1.",
    labelNames: ['version', 'node'],
    registers: [registry],
  }).set({ version: querygateVersion(), node: process.version }, 1);
  const endpoints = new Map<string, EndpointCounts & EndpointMetrics>();
  const ingestion = new Map<string, SourceCounts>();
  let evictions = 0;

  const perEndpoint = (samplesOf: (counts: EndpointCounts) => Sample[]) => () =>
    [...endpoints.values()].flatMap(samplesOf);
  const perSource = (samplesOf: (source: string, counts: SourceCounts) => Sample[]) => () =>
    [...ingestion].flatMap(([source, counts]) => samplesOf(source, counts));

  registerCountedFamily(registry, {
    name: 'querygate_endpoint_requests_total',
    help: 'Endpoint calls answered, by face, endpoint, HTTP status and cache outcome (none for an error).',
    type: 'counter',
    collect: perEndpoint(({ name, results, errors }) => [
      ...faces.flatMap((face) =>
        cacheOutcomes
          .filter((cache) => results[face][cache] > 0)
          .map((cache) => ({
            labels: { face, endpoint: name, status: '200', cache },
            value: results[face][cache],
          })),
      ),
      ...[...errors].map(([key, value]) => {
        const [face = '', status = ''] = key.split(' ');
        return { labels: { face, endpoint: name, status, cache: 'none' }, value };
      }),
    ]),
  });
  registerCountedFamily(registry, {
    name: 'querygate_endpoint_request_duration_seconds',
    help: 'Time from a call reaching its face (REST) or its operation first asking for it (GraphQL) to its answer, by face and endpoint.',
    type: 'histogram',
    collect: perEndpoint(({ name, latency }) =>
      faces
        .filter((face) => latency[face].count > 0)
        .flatMap((face) =>
          latency[face].samples('querygate_endpoint_request_duration_seconds', { face, endpoint: name }),
        ),
    ),
  });
  registerCountedFamily(registry, {
    name: 'querygate_engine_run_duration_seconds',
    help: 'Time a query spent in the engine once it had its turn, by endpoint (warm runs included).',
    type: 'histogram',
    collect: perEndpoint(({ name, run }) =>
      run.count > 0 ? run.samples('querygate_engine_run_duration_seconds', { endpoint: name }) : [],
    ),
  });
  registerCountedFamily(registry, {
    name: 'querygate_engine_queue_wait_seconds',
    help: "Time a run waited for its turns (its client's, then its endpoint's share of the engine), by endpoint.",
    type: 'histogram',
    collect: perEndpoint(({ name, wait }) =>
      wait.count > 0 ? wait.samples('querygate_engine_queue_wait_seconds', { endpoint: name }) : [],
    ),
  });
  registerCountedFamily(registry, {
    name: 'querygate_engine_refusals_total',
    help: 'Calls answered with a refusal for load or time, by endpoint and code (ENGINE_BUSY, ENGINE_TIMEOUT).',
    type: 'counter',
    collect: perEndpoint(({ name, refusals }) =>
      [...refusals].map(([code, value]) => ({ labels: { endpoint: name, code }, value })),
    ),
  });
  registerCountedFamily(registry, {
    name: 'querygate_warm_runs_total',
    help: 'Runs that refreshed a cached result ahead of use, by endpoint and outcome (ok, failed).',
    type: 'counter',
    collect: perEndpoint(({ name, warmOk, warmFailed }) => [
      ...(warmOk > 0 ? [{ labels: { endpoint: name, outcome: 'ok' }, value: warmOk }] : []),
      ...(warmFailed > 0 ? [{ labels: { endpoint: name, outcome: 'failed' }, value: warmFailed }] : []),
    ]),
  });
  registerCountedFamily(registry, {
    name: 'querygate_cache_evictions_total',
    help: "Cached results dropped to stay within the cache's byte budget.",
    type: 'counter',
    collect: () => [{ labels: {}, value: evictions }],
  });
  registerCountedFamily(registry, {
    name: 'querygate_ingested_records_total',
    help: 'Records acknowledged (stored durably), by source.',
    type: 'counter',
    collect: perSource((source, { records }) => [{ labels: { source }, value: records }]),
  });
  registerCountedFamily(registry, {
    name: 'querygate_ingested_bytes_total',
    help: 'Request body bytes of the acknowledged ingestion requests, by source.',
    type: 'counter',
    collect: perSource((source, { bytes }) => [{ labels: { source }, value: bytes }]),
  });
  registerCountedFamily(registry, {
    name: 'querygate_ingest_commit_duration_seconds',
    help: "Time from an ingestion request's records being read to their acknowledgement, by source.",
    type: 'histogram',
    collect: perSource((source, { commit }) =>
      commit.samples('querygate_ingest_commit_duration_seconds', { source }),
    ),
  });

  // Gauges read at scrape time; a figure a source cannot give (the store on BigQuery) is absent, not 0.
  const { cache, storeBytes, sharedCache } = sources;
  const scraped = (
    name: string,
    help: string,
    read: () => number | undefined,
    type: 'gauge' | 'counter' = 'gauge',
  ) =>
    registerCountedFamily(registry, {
      name,
      help,
      type,
      collect: () => {
        const value = read();
        return value === undefined ? [] : [{ labels: {}, value }];
      },
    });
  scraped('querygate_cache_entries', 'Results held in the cache.', () => cache?.().entries);
  scraped(
    'querygate_cache_bytes',
    'Approximate bytes of the results held in the cache.',
    () => cache?.().bytes,
  );
  const shared =
    (read: (stats: NonNullable<ReturnType<NonNullable<typeof sharedCache>>>) => number) => () => {
      const stats = sharedCache?.();
      return stats && read(stats);
    };
  scraped(
    'querygate_shared_cache_up',
    '1 while the shared cache (Redis) answers, 0 while this replica serves alone (absent without one).',
    shared((stats) => (stats.up ? 1 : 0)),
  );
  scraped(
    'querygate_shared_cache_adopted_total',
    'Results taken from the shared cache that another replica computed, instead of a run here.',
    shared((stats) => stats.adopted),
    'counter',
  );
  scraped(
    'querygate_shared_cache_leased_runs_total',
    "Runs made here holding the key's lease in the shared cache (no other replica ran them).",
    shared((stats) => stats.leasedRuns),
    'counter',
  );
  scraped(
    'querygate_shared_cache_errors_total',
    'Shared-cache commands that failed or timed out; each such call was answered by this replica alone.',
    shared((stats) => stats.errors),
    'counter',
  );
  scraped(
    'querygate_shared_cache_unreadable_total',
    'Values in the shared cache that were not a result of their key (corrupt or foreign), read as misses.',
    shared((stats) => stats.unreadable),
    'counter',
  );
  scraped(
    'querygate_store_bytes',
    'Bytes of the store on disk: the DuckDB file, its WAL and the ingest journal (absent on BigQuery).',
    () => storeBytes?.(),
  );

  function endpointCounts(name: string): EndpointCounts & EndpointMetrics {
    const counts: EndpointCounts & EndpointMetrics = {
      name,
      results: { rest: zeroPerOutcome(), graphql: zeroPerOutcome() },
      errors: new Map(),
      latency: { rest: new HistogramCounts(latencyBuckets), graphql: new HistogramCounts(latencyBuckets) },
      run: new HistogramCounts(latencyBuckets),
      wait: new HistogramCounts(latencyBuckets),
      refusals: new Map(),
      warmOk: 0,
      warmFailed: 0,
      answered(face, cacheOutcome, startedAt) {
        counts.results[face][cacheOutcome] += 1;
        counts.latency[face].observe(startedAt === undefined ? 0 : secondsSince(startedAt));
      },
      failed(face, error, startedAt) {
        add(counts.errors, `${face} ${statusOf(error)}`);
        counts.latency[face].observe(secondsSince(startedAt));
        const code = isQuerygateError(error) ? error.code : undefined;
        if (code !== undefined && refusalCodes.has(code)) add(counts.refusals, code);
      },
      ran(runSeconds, waitSeconds) {
        counts.run.observe(runSeconds);
        counts.wait.observe(waitSeconds);
      },
      warmed(failed) {
        if (failed) counts.warmFailed += 1;
        else counts.warmOk += 1;
      },
    };
    return counts;
  }

  return {
    contentType: registry.contentType,
    exposition: () => registry.metrics(),
    endpoint(name) {
      let found = endpoints.get(name);
      if (!found) {
        found = endpointCounts(name);
        endpoints.set(name, found);
      }
      return found;
    },
    ingested(source, records, bytes, commitSeconds) {
      let counts = ingestion.get(source);
      if (!counts) {
        counts = { records: 0, bytes: 0, commit: new HistogramCounts(latencyBuckets) };
        ingestion.set(source, counts);
      }
      counts.records += records;
      counts.bytes += bytes;
      counts.commit.observe(commitSeconds);
    },
    evicted(entries) {
      evictions += entries;
    },
  };
}
