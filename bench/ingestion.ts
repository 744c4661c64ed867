import { mkdtempSync, rmSync } from 'node:fs';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { DuckDBTimestampValue, structValue } from '@duckdb/node-api';
import { packageRoot } from '../src/paths.js';
import { openDatabase } from '../src/storage/database.js';
import { createLogWriter } from '../src/storage/log-writer.js';
import { logSources } from '../test/helpers/shipped-sources.js';
import { benchApiKey, startServerProcess } from './processes.js';

/**
 * Edge-request events shaped as the benchmark data, for the three ingestion paths; ids
 * `<idPrefix>-<i>`, the last one 10 ms before `now`.
 */
export function ingestionEvents(
  count: number,
  now: Date,
  idPrefix = 'ingest',
): Array<Record<string, unknown>> {
  return Array.from({ length: count }, (_, i) => {
    const project = `project-${String(i % 50).padStart(2, '0')}`;
    const path = i % 2 === 0 ? '/rest/v1/todos' : '/storage/v1/object/a.png';
    return {
      id: `${idPrefix}-${i}`,
      timestamp: new Date(now.getTime() - (count - i) * 10).toISOString(),
      event_message: `GET | 200 | ${path}`,
      project,
      metadata: {
        request: {
          url: `https://${project}.supabase.co${path}`,
          path,
          method: 'GET',
          host: `${project}.supabase.co`,
        },
        response: { status_code: 200, origin_time: i % 300 },
      },
    };
  });
}

export interface IngestionResult {
  readonly httpRecordsPerSecond: number;
  /** Records per second of the server's CPU time (all its threads) while it took them over HTTP. */
  readonly httpRecordsPerServerCpuSecond: number;
  /**
   * The server's CPU per record over HTTP, in µs: its main thread (JavaScript) and its other
   * threads (DuckDB's, libuv's pool running DuckDB's calls, file writes and fsyncs, V8's helpers).
   */
  readonly httpCpuMicrosPerRecord: { readonly mainThread: number; readonly otherThreads: number } | undefined;
  /** The machine's 1-minute load average when the HTTP measure ended (the machine may be shared). */
  readonly httpLoadAverage: number;
  /**
   * The same HTTP measure with DuckDB on one thread (QUERYGATE_DUCKDB_THREADS=1): DuckDB's
   * setting is the whole database's, and with a second thread the writer's INSERT costs some
   * 3 µs more CPU per record (measured on 2 cores) without being any faster.
   */
  readonly httpOneDuckdbThread: {
    readonly recordsPerSecond: number;
    readonly cpuMicrosPerRecord: IngestionResult['httpCpuMicrosPerRecord'];
  };
  /**
   * The same HTTP measure into the sources `serve --queries supabase` declares, where Vector
   * sends a self-hosted Supabase's logs: the edge source's typed schema (the 22 fields Studio's
   * reports read, written for every record) and its hourly rollup, kept in each commit.
   */
  readonly httpStudioSources: {
    readonly recordsPerSecond: number;
    readonly cpuMicrosPerRecord: IngestionResult['httpCpuMicrosPerRecord'];
  };
  readonly bulkRecordsPerSecond: number;
  readonly appenderRecordsPerSecond: number;
}

/**
 * The bodies Vector's HTTP sink sends Logflare from a Supabase host: a JSON array of 1000 events,
 * gzipped (compressed before the clock starts, as Vector does on its side).
 */
export function vectorBatches(events: readonly Record<string, unknown>[]): Buffer[] {
  const batches: Buffer[] = [];
  for (let start = 0; start < events.length; start += 1000) {
    batches.push(gzipSync(JSON.stringify(events.slice(start, start + 1000))));
  }
  return batches;
}

/**
 * Sends the batches to `url`'s /api/logs with `senders` requests in flight; answers records per
 * second (acknowledged, so fsynced).
 */
export async function sendVectorBatches(
  url: string,
  batches: readonly Buffer[],
  records: number,
  senders: number,
): Promise<number> {
  let next = 0;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: senders }, async () => {
      while (next < batches.length) {
        const body = new Uint8Array(batches[next++] as Buffer);
        const response = await fetch(`${url}/api/logs?source_name=cloudflare.logs.prod`, {
          method: 'POST',
          headers: {
            'x-api-key': benchApiKey,
            'content-type': 'application/json',
            'content-encoding': 'gzip',
          },
          body,
        });
        if (response.status !== 200)
          throw new Error(`ingestion answered ${response.status}: ${await response.text()}`);
      }
    }),
  );
  return Math.round(records / ((performance.now() - started) / 1000));
}

/**
 * The same records three ways, each into a fresh store: POST /api/logs as Vector sends them
 * (vectorBatches) from `concurrency` senders, the bulk path (the writer, as `querygate import`
 * uses it), and DuckDB's own appender.
 */
export async function measureIngestion(
  count: number,
  now: Date,
  concurrency: number,
  dist?: string,
): Promise<IngestionResult> {
  const events = ingestionEvents(count, now);
  const batches = vectorBatches(events);
  const overHttp = async (env: Readonly<Record<string, string>>) => {
    const httpDir = mkdtempSync(join(tmpdir(), 'querygate-bench-http-'));
    try {
      return await ingestOverHttp(httpDir, batches, count, concurrency, dist, env);
    } finally {
      rmSync(httpDir, { recursive: true, force: true });
    }
  };
  const http = await overHttp({});
  const oneThread = await overHttp({ QUERYGATE_DUCKDB_THREADS: '1' });
  const studioSources = await overHttp({ QUERYGATE_QUERIES_DIR: join(packageRoot, 'supabase') });

  const bulkDir = mkdtempSync(join(tmpdir(), 'querygate-bench-bulk-'));
  const bulkDatabase = await openDatabase(join(bulkDir, 'store.duckdb'));
  const writer = createLogWriter(bulkDatabase, { sources: logSources });
  await writer.ready();
  const bulkStarted = performance.now();
  for (let start = 0; start < events.length; start += 10_000) {
    await writer.write('cloudflare.logs.prod', events.slice(start, start + 10_000));
  }
  const bulkSeconds = (performance.now() - bulkStarted) / 1000;
  await writer.close();

  // DuckDB's appender on the same records, into a table of the same shape.
  const connection = await bulkDatabase.connect();
  await connection.run('CREATE TABLE appended AS SELECT * FROM "cloudflare.logs.prod" LIMIT 0');
  const appendStarted = performance.now();
  const appender = await connection.createAppender('appended');
  for (const event of events) {
    const metadata = event.metadata as {
      request: Record<string, string>;
      response: { status_code: number; origin_time: number };
    };
    appender.appendVarchar(event.id as string);
    appender.appendTimestamp(new DuckDBTimestampValue(BigInt(Date.parse(event.timestamp as string)) * 1000n));
    appender.appendVarchar(event.event_message as string);
    appender.appendVarchar(event.project as string);
    appender.appendValue(
      structValue({
        request: structValue({ ...metadata.request }),
        response: structValue({
          status_code: BigInt(metadata.response.status_code),
          origin_time: BigInt(metadata.response.origin_time),
        }),
      }),
    );
    appender.appendNull();
    appender.endRow();
  }
  appender.flushSync();
  appender.closeSync();
  const appendSeconds = (performance.now() - appendStarted) / 1000;
  connection.closeSync();
  bulkDatabase.close();
  rmSync(bulkDir, { recursive: true, force: true });

  return {
    httpRecordsPerSecond: http.recordsPerSecond,
    httpRecordsPerServerCpuSecond: http.recordsPerServerCpuSecond,
    httpCpuMicrosPerRecord: http.cpuMicrosPerRecord,
    httpLoadAverage: http.loadAverage,
    httpOneDuckdbThread: {
      recordsPerSecond: oneThread.recordsPerSecond,
      cpuMicrosPerRecord: oneThread.cpuMicrosPerRecord,
    },
    httpStudioSources: {
      recordsPerSecond: studioSources.recordsPerSecond,
      cpuMicrosPerRecord: studioSources.cpuMicrosPerRecord,
    },
    bulkRecordsPerSecond: Math.round(count / bulkSeconds),
    appenderRecordsPerSecond: Math.round(count / appendSeconds),
  };
}

/** The records sent to a server before its rate is measured: a fifth of those measured, at most 20,000. */
export function warmUpRecords(records: number): number {
  return Math.min(20_000, Math.ceil(records / 5));
}

/**
 * A server started over `dataDir`, warmed up, takes the batches as Vector sends them; its rate
 * and CPU cost.
 */
async function ingestOverHttp(
  dataDir: string,
  batches: readonly Buffer[],
  records: number,
  senders: number,
  dist?: string,
  env: Readonly<Record<string, string>> = {},
): Promise<{
  recordsPerSecond: number;
  recordsPerServerCpuSecond: number;
  cpuMicrosPerRecord: IngestionResult['httpCpuMicrosPerRecord'];
  loadAverage: number;
}> {
  const server = await startServerProcess(dataDir, [], dist, env);
  try {
    // A server a Vector host ships to is warm (compiled code, tables and types made): the
    // records of its first seconds are sent first and not counted.
    const warmUp = warmUpRecords(records);
    await sendVectorBatches(
      server.url,
      vectorBatches(ingestionEvents(warmUp, new Date(), 'warm')),
      warmUp,
      senders,
    );
    const cpuBefore = server.cpuSeconds();
    const mainBefore = server.mainThreadCpuSeconds();
    const recordsPerSecond = await sendVectorBatches(server.url, batches, records, senders);
    const cpuAfter = server.cpuSeconds();
    const mainAfter = server.mainThreadCpuSeconds();
    const cpu = cpuBefore === undefined || cpuAfter === undefined ? undefined : cpuAfter - cpuBefore;
    const main = mainBefore === undefined || mainAfter === undefined ? undefined : mainAfter - mainBefore;
    const micros = (seconds: number) => Math.round((seconds * 1e7) / records) / 10;
    return {
      recordsPerSecond,
      recordsPerServerCpuSecond: cpu ? Math.round(records / cpu) : 0,
      cpuMicrosPerRecord:
        cpu === undefined || main === undefined
          ? undefined
          : { mainThread: micros(main), otherThreads: micros(cpu - main) },
      loadAverage: Math.round((loadavg()[0] ?? 0) * 10) / 10,
    };
  } finally {
    await server.stop();
  }
}

export interface StoreSizeIngestion {
  /** Records already in the store when the measure began. */
  readonly storedRecords: number;
  readonly records: number;
  readonly emptyRecordsPerSecond: number;
  readonly emptyRecordsPerServerCpuSecond: number;
  readonly fullRecordsPerSecond: number;
  readonly fullRecordsPerServerCpuSecond: number;
  readonly loadAverage: number;
}

/**
 * Ingestion rate against store size: the same Vector batches over HTTP into an empty store and
 * into one already holding `storedRecords` edge records (loaded through the bulk path first, in
 * chunks, so they are never all in memory), measured one after the other.
 */
export async function measureIngestionBySize(
  records: number,
  storedRecords: number,
  now: Date,
  concurrency: number,
  dist?: string,
): Promise<StoreSizeIngestion> {
  const batches = vectorBatches(ingestionEvents(records, now));
  const emptyDir = mkdtempSync(join(tmpdir(), 'querygate-bench-empty-'));
  const fullDir = mkdtempSync(join(tmpdir(), 'querygate-bench-full-'));
  try {
    const database = await openDatabase(join(fullDir, 'querygate.duckdb'));
    const writer = createLogWriter(database, { sources: logSources });
    const chunk = 20_000;
    for (let start = 0; start < storedRecords; start += chunk) {
      const events = ingestionEvents(Math.min(chunk, storedRecords - start), now, `stored-${start}`);
      await writer.write('cloudflare.logs.prod', events);
    }
    await writer.close();
    database.close();
    const empty = await ingestOverHttp(emptyDir, batches, records, concurrency, dist);
    const full = await ingestOverHttp(fullDir, batches, records, concurrency, dist);
    return {
      storedRecords,
      records,
      emptyRecordsPerSecond: empty.recordsPerSecond,
      emptyRecordsPerServerCpuSecond: empty.recordsPerServerCpuSecond,
      fullRecordsPerSecond: full.recordsPerSecond,
      fullRecordsPerServerCpuSecond: full.recordsPerServerCpuSecond,
      loadAverage: Math.max(empty.loadAverage, full.loadAverage),
    };
  } finally {
    rmSync(emptyDir, { recursive: true, force: true });
    rmSync(fullDir, { recursive: true, force: true });
  }
}

export interface WideKeysResult {
  readonly keysPerEvent: number;
  readonly requests: number;
  /** The server's peak RSS once started, before the wide events. */
  readonly startedPeakRssBytes: number | undefined;
  /** The server's peak RSS after every wide event was stored. */
  readonly peakServerRssBytes: number | undefined;
  /** Median time to store one event with `keysPerEvent` new keys. */
  readonly medianWideRequestMs: number;
  /** A one-event ingest of known fields, after the wide events. */
  readonly smallRequestMs: number;
  /** `logs.all` over the same project before and after the wide events: time and body size. */
  readonly logsAll: {
    readonly before: { readonly ms: number; readonly bytes: number };
    readonly after: { readonly ms: number; readonly bytes: number };
  };
}

/**
 * Hostile keys: `requests` POSTs, one event each whose metadata has `keys` keys never seen
 * before, into a fresh server. The field cap keeps the typed schema at 500 fields and the rest
 * in `_extra`, so memory and the cost of later calls stay flat.
 */
export async function measureWideKeys(requests: number, keys: number): Promise<WideKeysResult> {
  const dir = mkdtempSync(join(tmpdir(), 'querygate-bench-wide-'));
  const server = await startServerProcess(dir);
  try {
    const post = async (event: Record<string, unknown>) => {
      const started = performance.now();
      const response = await fetch(`${server.url}/api/logs?source_name=cloudflare.logs.prod`, {
        method: 'POST',
        headers: { 'x-api-key': benchApiKey, 'content-type': 'application/json' },
        body: JSON.stringify(event),
      });
      if (response.status !== 200)
        throw new Error(`wide ingestion answered ${response.status}: ${await response.text()}`);
      return performance.now() - started;
    };
    const logsAll = async () => {
      const started = performance.now();
      const response = await fetch(`${server.url}/api/endpoints/logs.all?project=wide&project_tier=FREE`, {
        headers: { 'x-api-key': benchApiKey },
      });
      const body = await response.arrayBuffer();
      if (response.status !== 200) throw new Error(`logs.all answered ${response.status}`);
      return { ms: Math.round(performance.now() - started), bytes: body.byteLength };
    };
    // Edge records logs.all lists (it reads metadata.request), before and after the wide ones.
    const edge = (i: number) => ({
      event_message: `GET /rest/v1/t${i}`,
      project: 'wide',
      metadata: { request: { path: `/rest/v1/t${i}`, method: 'GET' }, response: { status_code: 200 } },
    });
    await post({ batch: Array.from({ length: 20 }, (_, i) => edge(i)) });
    await logsAll();
    const before = await logsAll();
    const startedPeakRssBytes = server.peakRssBytes();
    const times: number[] = [];
    for (let request = 0; request < requests; request += 1) {
      const metadata = Object.fromEntries(
        Array.from({ length: keys }, (_, i) => [`r${request}_key_${i}`, i % 3 === 0 ? `v${i}` : i]),
      );
      times.push(
        await post({
          event_message: 'wide',
          project: 'wide',
          metadata: { ...edge(0).metadata, ...metadata },
        }),
      );
    }
    const smallRequestMs = await post(edge(20));
    await logsAll();
    const after = await logsAll();
    times.sort((a, b) => a - b);
    return {
      keysPerEvent: keys,
      requests,
      startedPeakRssBytes,
      peakServerRssBytes: server.peakRssBytes(),
      medianWideRequestMs: Math.round(times[Math.floor(times.length / 2)] ?? 0),
      smallRequestMs: Math.round(smallRequestMs),
      logsAll: { before, after },
    };
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}
