// First: DuckDB's allocator options, as the server sets them (see src/cli/duckdb-allocator.ts).
import '../src/cli/duckdb-allocator.js';
import { mkdirSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, tmpdir, totalmem } from 'node:os';
import { join } from 'node:path';
import { Command } from 'commander';
import { createDuckDbEngine } from '../src/backends/duckdb/engine.js';
import { loadConfig } from '../src/config.js';
import { loadEndpointRegistry } from '../src/endpoints/registry.js';
import { packageRoot, queriesDir } from '../src/paths.js';
import { loadSqlParser } from '../src/sql/bigquery-ast.js';
import { openDatabase } from '../src/storage/database.js';
import { createLogWriter } from '../src/storage/log-writer.js';
import { logSources } from '../test/helpers/shipped-sources.js';
import { type AdhocLaneResult, describeAdhocLane, measureAdhocLane } from './adhoc-lane.js';
import { type EndpointCase, type InProcessTiming, timeInProcess, timeOverHttp } from './endpoint-latency.js';
import { type FairnessResult, measureFairness } from './fairness.js';
import { benchProjects, generateBenchLogs } from './generate-logs.js';
import { describeHostileBodies, type HostileBodiesResult, measureHostileBodies } from './hostile-bodies.js';
import {
  type IngestionResult,
  measureIngestion,
  measureIngestionBySize,
  measureWideKeys,
  type StoreSizeIngestion,
  type WideKeysResult,
  warmUpRecords,
} from './ingestion.js';
import { describeMemory, type MemoryResult, measureMemory } from './memory.js';
import { measurePeers, type PeerTable, peerTableLines } from './peer-load.js';
import { benchApiKey, startServerProcess } from './processes.js';
import { describeReplicas, measureReplicas, type ReplicasResult } from './replicas.js';
import { ratio, type Timing } from './stats.js';
import { studioStoresBySize } from './studio-scale.js';
import {
  describeStudioGrowth,
  describeStudioSql,
  fillStudioStore,
  parseSizes,
  type StudioGrowthRow,
  type StudioSqlResult,
  studioSpanMs,
  timeStudioSql,
} from './studio-sql.js';
import { describeWarehouseVolume, measureWarehouseVolume } from './warehouse-volume.js';

const program = new Command()
  .name('bench')
  .description('querygate benchmark: every figure measured side by side in one run')
  .option(
    '--rows <n>',
    'edge requests to generate (relay records: half as many)',
    (value) => Number(value),
    10_000_000,
  )
  .option('--repeat <n>', 'timed runs per measure, after 2 warm-up runs', (value) => Number(value), 15)
  .option('--seconds <n>', 'duration of each cached-hit load', (value) => Number(value), 10)
  .option(
    '--rounds <n>',
    'cached-hit loads per target, taken in turn (median reported)',
    (value) => Number(value),
    3,
  )
  .option('--connections <n>', 'concurrent connections of the cached-hit load', (value) => Number(value), 64)
  .option(
    '--slow-callers <n>',
    'clients calling a slow endpoint while the fairness measure times a cheap one',
    (value) => Number(value),
    12,
  )
  .option('--ingest <n>', 'records per ingestion measure (default: min(rows, 200000))', (value) =>
    Number(value),
  )
  .option(
    '--ingest-store <n>',
    'records already in the store for the ingestion-by-store-size measure (default: min(rows, 1000000))',
    (value) => Number(value),
  )
  .option(
    '--memory-seconds <n>',
    "duration of the memory section's serving and new-field phases",
    (value) => Number(value),
    60,
  )
  .option(
    '--replay-runs <n>',
    'runs of the replay against bare node:http POST (the peer table, then its two rows alone)',
    (value) => Number(value),
    5,
  )
  .option(
    '--replay-first <n>',
    'runs of the replay before the peer table too (a diagnostic: the replay on a server that has served nothing else)',
    (value) => Number(value),
    0,
  )
  .option(
    '--replica-calls <n>',
    "distinct calls of the replicas section's traffic",
    (value) => Number(value),
    12,
  )
  .option(
    '--studio-sizes <list>',
    "edge records of the Studio SQL stores, e.g. 1M,3M,10M (default: --rows); the largest is the memory section's store",
  )
  .option(
    '--studio-dir <dir>',
    'where the Studio SQL stores are made and kept (a store already there is used as it is); default: a scratch directory',
  )
  .option(
    '--warehouse-sizes <list>',
    'events of the GA4 exports of the warehouse section (--only warehouse), e.g. 1M,5M',
    '1M',
  )
  .option(
    '--warehouse-dir <dir>',
    'where the warehouse stores are made and kept (a store already there is used as it is); default: a scratch directory',
  )
  .option(
    '--warehouse-runs <n>',
    'warm runs of each warehouse query after its cold one',
    (value) => Number(value),
    3,
  )
  .option('--warehouse-match <regexp>', "time only the warehouse queries whose 'endpoint range' matches")
  .option(
    '--only <section>',
    "run one section only: 'peers' (the data, then the peer table), 'replicas' (three replicas over one Redis), 'studio' (the Studio SQL stores and table), 'ingestion' (its two lines) or 'warehouse' (the GA4 export queries at --warehouse-sizes; never part of a full run)",
  )
  .option('--out <file>', 'JSON results', join(packageRoot, 'bench/results/latest.json'))
  .option(
    '--dist <dir>',
    'the built server to measure, e.g. a copy of an earlier build',
    join(packageRoot, 'dist'),
  )
  .parse();

const options = program.opts<{
  rows: number;
  repeat: number;
  seconds: number;
  rounds: number;
  connections: number;
  slowCallers: number;
  ingest?: number;
  ingestStore?: number;
  memorySeconds: number;
  replayRuns: number;
  replayFirst: number;
  studioSizes?: string;
  studioDir?: string;
  warehouseSizes: string;
  warehouseDir?: string;
  warehouseRuns: number;
  warehouseMatch?: string;
  only?: string;
  replicaCalls: number;
  out: string;
  dist: string;
}>();
if (
  options.only !== undefined &&
  !['peers', 'replicas', 'studio', 'ingestion', 'warehouse'].includes(options.only)
) {
  throw new Error(
    `--only takes 'peers', 'replicas', 'studio', 'ingestion' or 'warehouse', not '${options.only}'`,
  );
}
if (options.only === 'warehouse') {
  await runWarehouse();
  process.exit(0);
}
if (options.only === 'replicas') {
  process.stdout.write(`${describeReplicas(await runReplicas()).join('\n')}\n`);
  process.exit(0);
}
const edgeRows = Math.round(options.rows);
const studioSizes = options.studioSizes === undefined ? [edgeRows] : parseSizes(options.studioSizes);
const relayRows = Math.round(options.rows / 2);
const now = new Date();
await loadSqlParser();
const registry = loadEndpointRegistry(queriesDir);
const dataDir = mkdtempSync(join(tmpdir(), 'querygate-bench-'));
const log = (line: string) => process.stderr.write(`${line}\n`);

function endpoint(name: string) {
  const found = registry.find(name);
  if (!found) throw new Error(`No endpoint ${name}`);
  return found;
}

// The largest project (about 10% of the rows) and the smallest of the 50.
const projects = benchProjects(50);
const sizes = { large: projects[0] as string, small: projects[projects.length - 1] as string };
const cases: EndpointCase[] = Object.entries(sizes).flatMap(([size, project]): EndpointCase[] => [
  {
    label: `logs.all PAYG (${size})`,
    endpoint: endpoint('logs.all'),
    params: { project, project_tier: 'PAYG', iso_timestamp_start: null, iso_timestamp_end: null },
  },
  {
    label: `functions.invocation-stats 7day (${size})`,
    endpoint: endpoint('functions.invocation-stats'),
    params: { project, interval: '7day', function_id: null },
  },
  {
    label: `functions.invocation-stats 1hr (${size})`,
    endpoint: endpoint('functions.invocation-stats'),
    params: { project, interval: '1hr', function_id: null },
  },
  {
    label: `usage.api-counts daily (${size})`,
    endpoint: endpoint('usage.api-counts'),
    params: { project, interval: 'daily' },
  },
]);

try {
  if (options.only === 'ingestion') {
    const { ingestion, ingestionBySize } = await runIngestion();
    mkdirSync(join(options.out, '..'), { recursive: true });
    writeFileSync(
      options.out,
      `${JSON.stringify({ measuredAt: now.toISOString(), ingestion, ingestionBySize }, null, 2)}\n`,
    );
    process.stdout.write(`${ingestionLines(ingestion, ingestionBySize).join('\n')}\n`);
    rmSync(dataDir, { recursive: true, force: true });
    process.exit(0);
  }
  if (options.only === 'studio') {
    const growth = await measureStudioGrowth();
    mkdirSync(join(options.out, '..'), { recursive: true });
    writeFileSync(
      options.out,
      `${JSON.stringify({ measuredAt: now.toISOString(), studioGrowth: growth }, null, 2)}\n`,
    );
    process.stdout.write(`${describeStudioGrowth(growth.rows, growth.load).join('\n')}\n`);
    log(`Results written to ${options.out}`);
    rmSync(dataDir, { recursive: true, force: true });
    process.exit(0);
  }
  // 1. Data, through the project's own bulk path. Reported, not counted.
  log(`Generating ${edgeRows} edge requests and ${relayRows} relay records...`);
  const storePath = join(dataDir, 'querygate.duckdb');
  const database = await openDatabase(storePath);
  const writer = createLogWriter(database, { sources: logSources, now: () => now });
  const generationSeconds = await generateBenchLogs(writer, { now, edgeRows, relayRows });
  await writer.close();
  const checkpoint = await database.connect();
  await checkpoint.run('CHECKPOINT');
  const duckdbVersion = String((await checkpoint.runAndReadAll('SELECT version()')).getRows()[0]?.[0]);
  checkpoint.closeSync();
  const storeBytes = statSync(storePath).size;

  if (options.only === 'peers') {
    database.close();
    const peers = await measurePeersOnServer();
    mkdirSync(join(options.out, '..'), { recursive: true });
    writeFileSync(
      options.out,
      `${JSON.stringify({ measuredAt: now.toISOString(), edgeRows, peers }, null, 2)}\n`,
    );
    process.stdout.write(`${peerTableLines(peers).join('\n')}\n`);
    log(`Results written to ${options.out}`);
    // Nothing else to run: the scratch directory goes now, as the `finally` below would.
    rmSync(dataDir, { recursive: true, force: true });
    process.exit(0);
  }

  // 2. Each endpoint in-process: translated SQL through the engine against the hand-written query.
  log('Timing endpoints in-process...');
  const engine = await createDuckDbEngine({
    database,
    sources: logSources,
    queries: registry.endpoints,
    queriesDir,
    timeoutMs: 600_000,
  });
  const connection = await database.connect();
  const inProcess: InProcessTiming[] = [];
  for (const testCase of cases) {
    inProcess.push(await timeInProcess(engine, connection, testCase, now, options.repeat));
  }
  connection.closeSync();
  await engine.close();
  database.close();

  // 3. The same calls over HTTP (cache bypassed), then cached hits under load.
  log('Timing endpoints over HTTP...');
  const server = await startServerProcess(dataDir, [], options.dist);
  const overHttp: Timing[] = [];
  for (const testCase of cases)
    overHttp.push(await timeOverHttp(server.url, benchApiKey, testCase, options.repeat));

  // 4. Fairness: a cheap call of one endpoint while many clients keep another endpoint busy.
  log(`Timing a cheap call beside ${options.slowCallers} clients of a slow endpoint...`);
  const fairness = await measureFairness(
    benchApiKey,
    {
      slow: {
        label: 'usage.api-counts daily, every url',
        url: `${server.url}/api/endpoints/usage.api-counts?project=.&interval=daily`,
      },
      cheap: {
        label: 'logs.all PAYG (small)',
        url: `${server.url}/api/endpoints/logs.all?project=${sizes.small}&project_tier=PAYG`,
      },
    },
    { slowCallers: options.slowCallers, repeat: options.repeat },
  );

  const peers = await measurePeersOn(server);
  const peakRssBytes = server.peakRssBytes();
  await server.stop();

  // 5. Ingestion, three ways, on the same records.
  const { ingestion, ingestionBySize } = await runIngestion();
  log('Ingesting events with 10,000 distinct keys each...');
  const wideKeys = await measureWideKeys(3, 10_000);
  // 6. Studio's and Logflare's SQL on the demo's traffic scaled to each of the Studio sizes, with
  // the server's default DuckDB memory limit.
  const studioGrowth = await measureStudioGrowth();
  const studioLargest = studioGrowth.rows[studioGrowth.rows.length - 1];
  if (!studioLargest) throw new Error('no Studio store');
  // 7. Resident memory of the server, idle, serving, and under one new field per request: over
  // that store, and over the demo store (the demo's own three days).
  log(
    `Measuring memory (${options.memorySeconds} s serving, ${options.memorySeconds} s of new fields), twice...`,
  );
  const memory = await measureMemory({ seconds: options.memorySeconds, store: studioGrowth.largestPath });
  const demoMemory = await measureMemory({ seconds: options.memorySeconds });
  // 8. Resident memory while hostile clients post GraphQL bodies near the body limit.
  log('Measuring memory under large GraphQL bodies of every content type...');
  const hostileBodies = await measureHostileBodies({ dist: options.dist });
  // 9. The ad-hoc lane: two bombs of caller SQL beside Studio's pages, over the demo store; the
  // bombs run until the query timeout (at most 25 s, the default; shorter with a short run).
  log("Running two bombs of caller SQL beside Studio's pages...");
  const adhocLane = await measureAdhocLane({
    timeoutMs: Math.min(25_000, options.memorySeconds * 1000),
    repeat: options.repeat,
  });

  const replicas = await runReplicas();

  const endpoints = cases.map((testCase, i) => {
    const local = inProcess[i];
    const http = overHttp[i];
    if (!local || !http) throw new Error('missing measure');
    return {
      case: testCase.label,
      rows: local.rows,
      sameRowsAsHandWritten: local.sameRows,
      handWrittenMs: local.handWritten,
      translatedMs: local.translated,
      restMs: http,
      translationRatio: ratio(local.translated.medianMs, local.handWritten.medianMs),
      gatewayOverheadRatio: ratio(http.medianMs, local.translated.medianMs),
    };
  });
  const totalRows = edgeRows + relayRows;
  const results = {
    measuredAt: now.toISOString(),
    machine: {
      cores: cpus().length,
      cpu: cpus()[0]?.model,
      memoryBytes: totalmem(),
      node: process.version,
      duckdb: duckdbVersion,
    },
    data: {
      edgeRows,
      relayRows,
      generationSeconds: Math.round(generationSeconds * 10) / 10,
      generationRecordsPerSecond: Math.round(totalRows / generationSeconds),
      storeBytes,
      storeBytesPerMillionRecords: Math.round(storeBytes / (totalRows / 1e6)),
    },
    endpoints,
    peers,
    ingestion: {
      ...ingestion,
      httpToAppenderRatio: ratio(ingestion.httpRecordsPerSecond, ingestion.appenderRecordsPerSecond),
    },
    ingestionBySize,
    fairness,
    wideKeys,
    studioSql: {
      records: studioLargest.records,
      generationSeconds: Math.round(studioLargest.generationSeconds),
      ...studioLargest.result,
    },
    studioGrowth: studioGrowth.rows,
    studioGrowthLoad: studioGrowth.load,
    // The samples stay out of the file: the peaks are the figures.
    memory: { ...memory, churnSamples: undefined },
    demoMemory: { ...demoMemory, churnSamples: undefined },
    hostileBodies,
    adhocLane,
    replicas,
    peakServerRssBytes: peakRssBytes,
  };
  mkdirSync(join(options.out, '..'), { recursive: true });
  writeFileSync(options.out, `${JSON.stringify(results, null, 2)}\n`);
  printTable(results);
  log(`Results written to ${options.out}`);
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}

/**
 * The GA4 export queries at each of --warehouse-sizes (warehouse-volume.ts); alone, before the
 * rest of the file has run. Its store stays in --warehouse-dir when given.
 */
async function runWarehouse(): Promise<void> {
  const log = (line: string) => process.stderr.write(`${line}\n`);
  const dir = options.warehouseDir ?? mkdtempSync(join(tmpdir(), 'querygate-warehouse-'));
  mkdirSync(dir, { recursive: true });
  const loads = [loadavg()[0] ?? 0];
  try {
    const results = await measureWarehouseVolume({
      sizes: parseSizes(options.warehouseSizes),
      dir,
      dist: options.dist,
      runs: options.warehouseRuns,
      only: options.warehouseMatch === undefined ? undefined : new RegExp(options.warehouseMatch),
      log,
    });
    loads.push(loadavg()[0] ?? 0);
    const load = `${Math.min(...loads).toFixed(1)}-${Math.max(...loads).toFixed(1)}`;
    mkdirSync(join(options.out, '..'), { recursive: true });
    writeFileSync(
      options.out,
      `${JSON.stringify({ measuredAt: new Date().toISOString(), cpus: cpus().length, load, warehouse: results }, null, 2)}\n`,
    );
    process.stdout.write(`${describeWarehouseVolume(results, load).join('\n')}\n`);
    log(`Results written to ${options.out}`);
  } finally {
    if (options.warehouseDir === undefined) rmSync(dir, { recursive: true, force: true });
  }
}

/** Three querygate replicas over one Redis and the fake BigQuery, each its own process. */
function runReplicas(): Promise<ReplicasResult> {
  // Not `log`: this also runs alone (`--only replicas`), before the rest of the file has run.
  process.stderr.write(
    `Driving ${options.replicaCalls} distinct calls across three replicas sharing one Redis...\n`,
  );
  return measureReplicas({ dist: options.dist, calls: options.replicaCalls });
}

/**
 * The Studio SQL stores, one per size (see studio-scale.ts), each timed with the server's default
 * DuckDB memory limit; every store but the largest is removed once timed.
 */
async function measureStudioGrowth(): Promise<{
  rows: StudioGrowthRow[];
  load: string;
  largestPath: string;
}> {
  const memoryLimit = loadConfig({}).duckdbMemoryLimit;
  const rows: StudioGrowthRow[] = [];
  const loads: number[] = [];
  let largestPath = '';
  const dir = options.studioDir ?? dataDir;
  mkdirSync(dir, { recursive: true });
  const stores = studioStoresBySize(dir, studioSizes, {
    now,
    spanMs: studioSpanMs,
    fill: async (path, edgeRecords, storeNow) => {
      log(`Generating the demo's traffic scaled to ${edgeRecords} edge records...`);
      const store = await fillStudioStore(path, { edgeRecords, now: storeNow, memoryLimit });
      store.database.close();
      return store;
    },
  });
  for await (const store of stores) {
    log(`Timing Studio/Logflare SQL at ${store.edgeRecords} edge records...`);
    const database = await openDatabase(store.path, { memoryLimit });
    loads.push(loadavg()[0] ?? 0);
    const result = await timeStudioSql(database, { now: store.now, repeat: Math.min(options.repeat, 5) });
    loads.push(loadavg()[0] ?? 0);
    database.close();
    const row = {
      edgeRecords: store.edgeRecords,
      records: store.records,
      generationSeconds: store.generationSeconds,
      storeBytes: statSync(store.path).size,
      result,
    };
    rows.push(row);
    // Each size's table as soon as it is measured: the larger sizes take long.
    log(
      describeStudioGrowth(
        [row],
        loads
          .slice(-2)
          .map((value) => value.toFixed(1))
          .join('-'),
      ).join('\n'),
    );
    if (largestPath !== '' && options.studioDir === undefined) rmSync(largestPath, { force: true });
    largestPath = store.path;
  }
  const load = `${Math.min(...loads).toFixed(1)}-${Math.max(...loads).toFixed(1)}`;
  return { rows, load, largestPath };
}

/** The peer table against `server` (its peak RSS is the caller's to read). */
function measurePeersOn(server: Awaited<ReturnType<typeof startServerProcess>>): Promise<PeerTable> {
  log('Loading cached answers beside the peers...');
  return measurePeers(server, benchApiKey, sizes.large, {
    connections: options.connections,
    seconds: options.seconds,
    rounds: options.rounds,
    scratchDir: dataDir,
    variedProjects: projects.slice(0, 12),
    replayRuns: options.replayRuns,
    replayRunsFirst: options.replayFirst,
  });
}

/** The peer table against a server of its own. */
async function measurePeersOnServer(): Promise<PeerTable> {
  const server = await startServerProcess(dataDir, [], options.dist);
  try {
    return await measurePeersOn(server);
  } finally {
    await server.stop();
  }
}

function printTable(results: {
  machine: Record<string, unknown>;
  data: {
    edgeRows: number;
    relayRows: number;
    generationSeconds: number;
    generationRecordsPerSecond: number;
    storeBytesPerMillionRecords: number;
  };
  endpoints: Array<{
    case: string;
    rows: number;
    sameRowsAsHandWritten: boolean;
    handWrittenMs: { medianMs: number; p95Ms: number };
    translatedMs: { medianMs: number; p95Ms: number };
    restMs: { medianMs: number; p95Ms: number };
    translationRatio: number;
    gatewayOverheadRatio: number;
  }>;
  peers: PeerTable;
  ingestion: IngestionResult & { records: number };
  ingestionBySize: StoreSizeIngestion;
  fairness: FairnessResult;
  wideKeys: WideKeysResult;
  studioSql: StudioSqlResult & { records: Record<string, number> };
  studioGrowth: StudioGrowthRow[];
  studioGrowthLoad: string;
  memory: Omit<MemoryResult, 'churnSamples'>;
  demoMemory: Omit<MemoryResult, 'churnSamples'>;
  hostileBodies: HostileBodiesResult;
  adhocLane: AdhocLaneResult;
  replicas: ReplicasResult;
  peakServerRssBytes: number | undefined;
}) {
  const mb = (bytes: number | undefined) => (bytes === undefined ? 'n/a' : `${Math.round(bytes / 1e6)} MB`);
  const ms = (timing: { medianMs: number; p95Ms: number }) =>
    `${timing.medianMs.toFixed(1)} / ${timing.p95Ms.toFixed(1)}`;
  const lines = [
    `querygate bench: ${results.data.edgeRows} edge + ${results.data.relayRows} relay records; ${results.machine.cores} cores, Node ${results.machine.node}, DuckDB ${results.machine.duckdb}`,
    `data: generated in ${results.data.generationSeconds} s (${results.data.generationRecordsPerSecond}/s through the bulk path); store ${(results.data.storeBytesPerMillionRecords / 1e6).toFixed(1)} MB per million records`,
    '',
    '| case | rows | hand-written ms (median / p95) | translated ms | REST uncached ms | translation ratio | gateway overhead | same rows |',
    '|---|---|---|---|---|---|---|---|',
    ...results.endpoints.map(
      (row) =>
        `| ${row.case} | ${row.rows} | ${ms(row.handWrittenMs)} | ${ms(row.translatedMs)} | ${ms(row.restMs)} | ${row.translationRatio} | ${row.gatewayOverheadRatio} | ${row.sameRowsAsHandWritten ? 'yes' : 'NO'} |`,
    ),
    '',
    ...peerTableLines(results.peers),
    '',
    ...ingestionLines(results.ingestion, results.ingestionBySize),
    `wide events (${results.wideKeys.requests} × ${results.wideKeys.keysPerEvent} distinct keys): server peak RSS ${mb(results.wideKeys.startedPeakRssBytes)} started → ${mb(results.wideKeys.peakServerRssBytes)} after; ${results.wideKeys.medianWideRequestMs} ms per wide POST (median), ${results.wideKeys.smallRequestMs} ms for a 1-event POST after; logs.all ${results.wideKeys.logsAll.before.ms} ms / ${results.wideKeys.logsAll.before.bytes} B before, ${results.wideKeys.logsAll.after.ms} ms / ${results.wideKeys.logsAll.after.bytes} B after`,
    `fairness: ${results.fairness.cheap} ${results.fairness.quietMs.medianMs.toFixed(1)} ms quiet, ${results.fairness.loadedMs.medianMs.toFixed(1)} ms (p95 ${results.fairness.loadedMs.p95Ms.toFixed(1)}) beside ${results.fairness.slowCallers} clients of ${results.fairness.slow}: ratio ${results.fairness.ratio}; slow calls answered ${JSON.stringify(results.fairness.slowStatuses)}`,
    `peak server RSS: ${mb(results.peakServerRssBytes)}`,
    ...describeStudioSql(results.studioSql, results.studioSql.records['cloudflare.logs.prod'] ?? 0),
    ...(results.studioGrowth.length > 1
      ? describeStudioGrowth(results.studioGrowth, results.studioGrowthLoad)
      : []),
    describeMemory(
      results.memory,
      `the demo's traffic scaled to ${Object.values(results.studioSql.records).reduce((a, b) => a + b, 0)} records`,
    ),
    describeMemory(results.demoMemory),
    describeHostileBodies(results.hostileBodies),
    ...describeAdhocLane(results.adhocLane),
    // The line for replicas stays the last line of the bench.
    ...describeReplicas(results.replicas),
  ];
  process.stdout.write(`${lines.join('\n')}\n`);
}

/** The server's CPU per record split by thread, as the ingestion line prints it. */
function cpuPerRecord(split: IngestionResult['httpCpuMicrosPerRecord']): string {
  return split === undefined
    ? ''
    : `: main thread ${split.mainThread} µs and other threads ${split.otherThreads} µs per record`;
}

/** Ingestion three ways, then over HTTP against store size (`--ingest`, `--ingest-store`). */
async function runIngestion() {
  const records = options.ingest ?? Math.min(Math.round(options.rows), 200_000);
  log(`Ingesting ${records} records three ways...`);
  const ingestion = { records, ...(await measureIngestion(records, now, 4, options.dist)) };
  const stored = options.ingestStore ?? Math.min(Math.round(options.rows), 1_000_000);
  log(`Ingesting ${records} records over HTTP into an empty store and one of ${stored} records...`);
  const ingestionBySize = await measureIngestionBySize(records, stored, now, 4, options.dist);
  return { ingestion, ingestionBySize };
}

function ingestionLines(ingestion: IngestionResult & { records: number }, bySize: StoreSizeIngestion) {
  return [
    `ingestion (${ingestion.records} records): HTTP as Vector (gzipped arrays of 1000, 4 senders, after ${warmUpRecords(ingestion.records)} records not counted) ${ingestion.httpRecordsPerSecond}/s (${ingestion.httpRecordsPerServerCpuSecond} per server CPU-second${cpuPerRecord(ingestion.httpCpuMicrosPerRecord)}, load average ${ingestion.httpLoadAverage}); with DuckDB on one thread ${ingestion.httpOneDuckdbThread.recordsPerSecond}/s${cpuPerRecord(ingestion.httpOneDuckdbThread.cpuMicrosPerRecord)}; into Studio's sources (supabase/: its edge schema and hourly rollup) ${ingestion.httpStudioSources.recordsPerSecond}/s${cpuPerRecord(ingestion.httpStudioSources.cpuMicrosPerRecord)}; bulk path ${ingestion.bulkRecordsPerSecond}/s, DuckDB appender ${ingestion.appenderRecordsPerSecond}/s`,
    `ingestion against store size (HTTP as above, ${bySize.records} records; load average ${bySize.loadAverage}): empty store ${bySize.emptyRecordsPerSecond}/s (${bySize.emptyRecordsPerServerCpuSecond} per server CPU-second), store of ${bySize.storedRecords} records ${bySize.fullRecordsPerSecond}/s (${bySize.fullRecordsPerServerCpuSecond} per server CPU-second)`,
  ];
}
