import { type ChildProcess, spawn } from 'node:child_process';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Command } from 'commander';
import { demoFunctions } from '../src/demo/catalog.js';
import { packageRoot } from '../src/paths.js';

/**
 * Resident memory of a real `querygate serve` process over the demo store (three days of the
 * nine sources), read from /proc/<pid>/status, in three phases:
 * - idle: after start-up and a pause, nothing asked;
 * - serving: readers calling the shipped endpoints as Studio's log pages do;
 * - churn: two writers each posting one event with a metadata field never seen before per
 *   request, beside four readers: every request asks for a schema change.
 * Runnable on its own (`tsx bench/memory.ts --seconds 20`) and a section of `npm run bench`.
 */

export interface MemoryOptions {
  /** Seconds of the churn phase, and of the serving phase unless `servingSeconds` says. */
  readonly seconds: number;
  readonly servingSeconds?: number;
  /**
   * New fields after which the churn phase ends, if before `seconds`: a fixed amount of schema
   * growth, so that runs on machines of different speed (or loads) compare. @default unbounded
   */
  readonly newFields?: number;
  /** Readers calling endpoints during the serving and churn phases. @default 4 */
  readonly readers?: number;
  /** Writers posting new fields during the churn phase. @default 2 */
  readonly writers?: number;
  /** Run the built CLI (dist) or the sources through tsx. @default 'dist' */
  readonly build?: 'dist' | 'tsx';
  /** The checkout whose server runs (to compare with another commit's). @default this one */
  readonly root?: string;
  /**
   * A DuckDB file (closed) to serve a copy of instead of the demo store: the bench's store of
   * the demo's traffic scaled up. The demo is then off. @default the demo store
   */
  readonly store?: string;
  /** Extra environment of the server (e.g. QUERYGATE_DUCKDB_MEMORY_LIMIT). */
  readonly env?: Readonly<Record<string, string>>;
}

export interface MemoryResult {
  /** RSS after start-up (demo store seeded) with nothing asked, in bytes. */
  readonly idleBytes: number;
  /** Highest RSS sampled while readers called endpoints. */
  readonly servingPeakBytes: number;
  /** Highest RSS sampled while writers sent a new field per request beside readers. */
  readonly churnPeakBytes: number;
  /** Reads answered 200 during the serving and churn phases. */
  readonly reads: number;
  /** Ingestion requests answered 200 during the churn phase, each with one new field. */
  readonly newFieldRequests: number;
  /** Reads answered other than 200 (a 503 of a full queue counts here). */
  readonly readFailures: number;
  /** New-field requests answered other than 200: a field refused or lost. */
  readonly writeFailures: number;
  /** Every RSS sample of the churn phase: [ms since its start, bytes]. */
  readonly churnSamples: readonly (readonly [number, number])[];
}

const apiKey = 'memory-bench-key-0123456789';

/** The current resident set size of a process, in bytes (VmRSS); undefined once it has gone. */
export function residentBytes(pid: number | undefined): number | undefined {
  try {
    const kb = /VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
    return kb ? Number(kb) * 1024 : undefined;
  } catch {
    return undefined;
  }
}

const HOUR = 3_600_000;
const edgeJoins = `cross join unnest(metadata) as m
  cross join unnest(m.request) as request
  cross join unnest(m.response) as response`;

/**
 * What Studio's log pages send while a user has them open, against `serve --queries supabase`
 * over the demo's project `default`, each forwarded as apps/studio/lib/api/self-hosted/logs.ts
 * (supabase/supabase 61af5d5) does: the Logs Explorer's API page (genDefaultQuery, genCountQuery
 * and genChartQuery of Settings/Logs/Logs.utils.ts at e4c9079, IS_PLATFORM false) and its auth
 * page, the API report's total requests (SharedAPIReport.constants.ts), the usage counts of the
 * project home, the auth overview and a function's page. The range is the last hour, Studio's
 * default; `logs.all` is not cached, the others are for a minute.
 */
export function studioReads(now: number): string[] {
  const range = {
    iso_timestamp_start: new Date(now - HOUR).toISOString(),
    iso_timestamp_end: new Date(now).toISOString(),
  };
  const logsAll = (sql: string) =>
    `/api/endpoints/query/logs.all?${new URLSearchParams({ project: 'default', sql, ...range })}`;
  const call = (name: string, params: Record<string, string>) =>
    `/api/endpoints/query/${name}?${new URLSearchParams({ project: 'default', ...params })}`;
  const functionId = demoFunctions('default')[0]?.[1].ids.function_id ?? '';
  return [
    logsAll(`select id, edge_logs.timestamp, event_message, request.method, request.path, response.status_code
from edge_logs ${edgeJoins}
order by timestamp desc
limit 100`),
    logsAll(`SELECT count(*) as count FROM edge_logs ${edgeJoins}`),
    logsAll(`SELECT timestamp_trunc(t.timestamp, minute) as timestamp, count(t.timestamp) as count
FROM edge_logs t ${edgeJoins}
where t.timestamp > '${new Date(now - 7 * HOUR).toISOString()}'
GROUP BY timestamp ORDER BY timestamp ASC`),
    logsAll(`select id, auth_logs.timestamp, event_message, metadata.level, metadata.status, metadata.path, metadata.msg as msg, metadata.error from auth_logs
cross join unnest(metadata) as metadata
order by timestamp desc
limit 100`),
    logsAll(`select cast(timestamp_trunc(t.timestamp, hour) as datetime) as timestamp, count(t.id) as count
FROM edge_logs t ${edgeJoins}
GROUP BY timestamp ORDER BY timestamp ASC`),
    call('usage.api-counts', { interval: '1day' }),
    call('usage.api-requests-count', {}),
    call('auth.metrics', { interval: '1day' }),
    call('functions.combined-stats', { function_id: functionId, interval: '1hr' }),
  ];
}

export async function measureMemory(options: MemoryOptions): Promise<MemoryResult> {
  const dir = mkdtempSync(join(tmpdir(), 'querygate-memory-'));
  if (options.store) {
    mkdirSync(join(dir, 'data'));
    copyFileSync(options.store, join(dir, 'data', 'querygate.duckdb'));
  }
  const server = await startServer(dir, options);
  try {
    const pid = server.child.pid as number;
    await sleep(2000);
    const idleBytes = residentBytes(pid) ?? 0;
    const counts = { reads: 0, writes: 0, readFailures: 0, writeFailures: 0 };
    const reads = studioReads(Date.now());
    const serving = await sampleWhile(pid, options.servingSeconds ?? options.seconds, (until) =>
      Promise.all(
        range(options.readers ?? 4).map((r) =>
          readLoop(server.url, reads, r, { until, done: false }, counts),
        ),
      ),
    );
    let field = 0;
    const newFields = options.newFields ?? Number.POSITIVE_INFINITY;
    const churn = await sampleWhile(pid, options.seconds, (until) => {
      // The phase ends at `until`, or 3 s after the writers have sent `newFields` fields: a
      // request is answered once journaled, and the readers go on while DuckDB commits the last.
      const phase = { until, done: false };
      const writers = Promise.all(
        range(options.writers ?? 2).map((w) =>
          writeLoop(server.url, phase, counts, () =>
            field < newFields ? `churn_w${w}_f${field++}` : undefined,
          ),
        ),
      ).finally(async () => {
        await sleep(3000);
        phase.done = true;
      });
      return Promise.all([
        writers,
        ...range(options.readers ?? 4).map((r) => readLoop(server.url, reads, r, phase, counts)),
      ]);
    });
    return {
      idleBytes,
      servingPeakBytes: Math.max(...serving.map(([, bytes]) => bytes)),
      churnPeakBytes: Math.max(...churn.map(([, bytes]) => bytes)),
      reads: counts.reads,
      newFieldRequests: counts.writes,
      readFailures: counts.readFailures,
      writeFailures: counts.writeFailures,
      churnSamples: churn,
    };
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Runs `load` until `seconds` have passed, sampling the RSS every 100 ms. */
async function sampleWhile(
  pid: number,
  seconds: number,
  load: (until: number) => Promise<unknown>,
): Promise<[number, number][]> {
  const start = Date.now();
  const samples: [number, number][] = [];
  const sample = () => {
    const bytes = residentBytes(pid);
    if (bytes !== undefined) samples.push([Date.now() - start, bytes]);
  };
  const timer = setInterval(sample, 100);
  try {
    await load(start + seconds * 1000);
  } finally {
    clearInterval(timer);
    sample();
  }
  return samples;
}

/** A loaded phase: its deadline, and whether it ended before. */
interface Phase {
  readonly until: number;
  done: boolean;
}

async function readLoop(
  url: string,
  reads: readonly string[],
  reader: number,
  phase: Phase,
  counts: { reads: number; readFailures: number },
): Promise<void> {
  for (let i = reader; Date.now() < phase.until && !phase.done; i++) {
    const response = await fetch(`${url}${reads[i % reads.length]}`, {
      headers: { 'x-api-key': apiKey },
    }).catch(() => undefined);
    await response?.arrayBuffer().catch(() => undefined);
    if (response?.status === 200) counts.reads++;
    else counts.readFailures++;
  }
}

async function writeLoop(
  url: string,
  phase: Phase,
  counts: { writes: number; writeFailures: number },
  nextField: () => string | undefined,
): Promise<void> {
  while (Date.now() < phase.until) {
    const name = nextField();
    if (name === undefined) return;
    const event = {
      message: 'GET /rest/v1/items 200',
      timestamp: new Date().toISOString(),
      metadata: { [name]: 'x', request: { method: 'GET', path: '/rest/v1/items' } },
    };
    const response = await fetch(`${url}/api/logs?source_name=cloudflare.logs.prod`, {
      method: 'POST',
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ batch: [event] }),
    }).catch(() => undefined);
    await response?.arrayBuffer().catch(() => undefined);
    if (response?.status === 200) counts.writes++;
    else counts.writeFailures++;
  }
}

export interface Server {
  readonly url: string;
  readonly child: ChildProcess;
  stop(): Promise<void>;
}

/** `querygate serve` with the demo store in `dir`, once it listens. */
export function startServer(dir: string, options: MemoryOptions): Promise<Server> {
  const root = options.root ?? packageRoot;
  const args =
    options.build === 'tsx'
      ? ['--import', 'tsx', join(root, 'src/cli/main.ts'), 'serve']
      : [join(root, 'dist/cli/main.js'), 'serve'];
  const child = spawn(process.execPath, args, {
    cwd: root,
    env: {
      ...process.env,
      PORT: '0',
      HOST: '127.0.0.1',
      QUERYGATE_DATA_DIR: join(dir, 'data'),
      QUERYGATE_DEMO: options.store ? '0' : '1',
      QUERYGATE_QUERIES_DIR: join(root, 'supabase'),
      QUERYGATE_API_KEYS: apiKey,
      LOG_LEVEL: 'warn',
      ...options.env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  const stop = () =>
    new Promise<void>((done) => {
      if (child.exitCode !== null || child.signalCode !== null) return done();
      child.once('exit', () => done());
      child.kill('SIGTERM');
    });
  return new Promise((resolve, reject) => {
    const onOutput = (chunk: Buffer) => {
      output += chunk.toString();
      const match = /listening on (http:\/\/\S+)/.exec(output);
      if (!match?.[1]) return;
      child.removeAllListeners('exit');
      child.stdout?.removeListener('data', onOutput);
      resolve({ url: match[1], child, stop });
    };
    child.stdout?.on('data', onOutput);
    child.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString();
    });
    child.once('exit', (code) =>
      reject(new Error(`querygate exited with ${code} before it listened:\n${output}`)),
    );
  });
}

function range(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i);
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

const mib = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MiB`;

/** One line per phase, as the bench prints it; `store` says what the server served. */
export function describeMemory(result: Omit<MemoryResult, 'churnSamples'>, store = 'demo store'): string {
  return [
    `RSS idle (${store}): ${mib(result.idleBytes)}`,
    `RSS serving Studio's endpoints (peak): ${mib(result.servingPeakBytes)}`,
    `RSS under one new field per request beside readers (peak): ${mib(result.churnPeakBytes)} ` +
      `(${result.newFieldRequests} new-field requests acknowledged, ${result.writeFailures} refused; ` +
      `${result.reads} reads answered, ${result.readFailures} not)`,
  ].join('\n');
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const program = new Command()
    .name('bench/memory.ts')
    .option('--seconds <n>', 'duration of the serving and of the churn phase', Number, 20)
    .option('--build <kind>', "'dist' (npm run build first) or 'tsx'", 'tsx')
    .option('--serving-seconds <n>', 'duration of the serving phase (default: --seconds)', Number)
    .option('--fields <n>', 'end the churn phase after this many new fields', Number)
    .option('--root <dir>', 'the checkout to run (e.g. an older commit, to compare)')
    .parse();
  const { seconds, servingSeconds, build, root, fields } = program.opts<{
    seconds: number;
    servingSeconds?: number;
    build: 'dist' | 'tsx';
    root?: string;
    fields?: number;
  }>();
  const result = await measureMemory({
    seconds,
    build,
    ...(servingSeconds ? { servingSeconds } : {}),
    ...(root ? { root } : {}),
    ...(fields ? { newFields: fields } : {}),
  });
  console.log(describeMemory(result));
}
