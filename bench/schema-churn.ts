import { copyFileSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Command } from 'commander';
import { residentBytes, startServer } from './memory.js';

/**
 * Issue 32's churn case on a real `querygate serve`: readers calling `logs.all` with
 * `Cache-Control: no-cache` back to back while writers each post one event carrying new
 * `metadata` fields to `cloudflare.logs.prod`, so the paced schema change that promotes the
 * queued fields runs beside the readers. Counts every answer by status (a 5xx is a failure; a
 * 503 with Retry-After is the server saying it is busy), polls /health, samples RSS every 100 ms.
 */
export interface ChurnOptions {
  readonly seconds: number;
  readonly readers?: number;
  readonly writers?: number;
  /** New fields each write carries. @default 2 */
  readonly fieldsPerWrite?: number;
  /**
   * New fields of one event posted first, beside the readers: the source's first schema change
   * promotes them all at once, however few requests the writers then manage. @default 0
   */
  readonly openingFields?: number;
  /** A closed DuckDB file to serve a copy of instead of the demo store. */
  readonly store?: string;
  readonly build?: 'dist' | 'tsx';
  /** The checkout whose server runs (to compare with another commit's). @default this one */
  readonly root?: string;
  readonly env?: Readonly<Record<string, string>>;
}

export interface ChurnResult {
  readonly peakBytes: number;
  /** Answers by status: `reads`, `writes` and `health`, each a map of status to count. */
  readonly reads: Readonly<Record<number, number>>;
  readonly writes: Readonly<Record<number, number>>;
  readonly health: Readonly<Record<number, number>>;
  /** 503 answers without a Retry-After header (clients not told when to come back). */
  readonly unannounced503: number;
  readonly output: string;
}

const apiKey = 'memory-bench-key-0123456789';

export async function measureSchemaChurn(options: ChurnOptions): Promise<ChurnResult> {
  const dir = mkdtempSync(join(tmpdir(), 'querygate-churn-'));
  if (options.store) {
    mkdirSync(join(dir, 'data'));
    copyFileSync(options.store, join(dir, 'data', 'querygate.duckdb'));
  }
  const server = await startServer(dir, { ...options, build: options.build ?? 'tsx' });
  let output = '';
  server.child.stdout?.on('data', (chunk) => {
    output += String(chunk);
  });
  server.child.stderr?.on('data', (chunk) => {
    output += String(chunk);
  });
  const pid = server.child.pid as number;
  const reads: Record<number, number> = {};
  const writes: Record<number, number> = {};
  const health: Record<number, number> = {};
  let unannounced503 = 0;
  let peakBytes = 0;
  const sampler = setInterval(() => {
    peakBytes = Math.max(peakBytes, residentBytes(pid) ?? 0);
  }, 100);
  const until = Date.now() + options.seconds * 1000;
  const count = (counts: Record<number, number>, response: Response | undefined) => {
    const status = response?.status ?? 0;
    counts[status] = (counts[status] ?? 0) + 1;
    if (status === 503 && !response?.headers.get('retry-after')) unannounced503++;
  };
  const call = async (counts: Record<number, number>, path: string, init: RequestInit = {}) => {
    const response = await fetch(`${server.url}${path}`, init).catch(() => undefined);
    await response?.arrayBuffer().catch(() => undefined);
    count(counts, response);
  };
  const now = Date.now();
  const logsAll = `/api/endpoints/query/logs.all?${new URLSearchParams({
    project: 'default',
    iso_timestamp_start: new Date(now - 3_600_000).toISOString(),
    iso_timestamp_end: new Date(now + 3_600_000).toISOString(),
    sql: 'select id, timestamp, event_message from edge_logs order by timestamp desc limit 100',
  })}`;
  let field = 0;
  const post = (metadata: Record<string, unknown>) =>
    call(writes, '/api/logs?source_name=cloudflare.logs.prod', {
      method: 'POST',
      headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
      body: JSON.stringify({ event_message: 'GET /rest/v1/items 200', metadata }),
    });
  try {
    await Promise.all([
      (async () => {
        if (!options.openingFields) return;
        // After the readers' first calls, so the change runs beside them.
        await new Promise((done) => setTimeout(done, 500));
        await post(
          Object.fromEntries(Array.from({ length: options.openingFields }, (_, i) => [`opening_${i}`, 'x'])),
        );
      })(),
      ...range(options.readers ?? 4).map(async () => {
        while (Date.now() < until)
          await call(reads, logsAll, { headers: { 'x-api-key': apiKey, 'cache-control': 'no-cache' } });
      }),
      ...range(options.writers ?? 2).map(async (w) => {
        while (Date.now() < until) {
          const metadata: Record<string, unknown> = { request: { method: 'GET', path: '/rest/v1/items' } };
          for (let f = 0; f < (options.fieldsPerWrite ?? 2); f++) metadata[`churn_w${w}_f${field++}`] = 'x';
          await post(metadata);
        }
      }),
      (async () => {
        while (Date.now() < until) {
          await call(health, '/health');
          await new Promise((done) => setTimeout(done, 250));
        }
      })(),
    ]);
  } finally {
    clearInterval(sampler);
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
  return { peakBytes, reads, writes, health, unannounced503, output };
}

function range(n: number): number[] {
  return Array.from({ length: n }, (_, i) => i);
}

/** 5xx answers in a count by status (0, no answer at all, counts too). */
export function serverErrors(counts: Readonly<Record<number, number>>): number {
  return Object.entries(counts).reduce(
    (sum, [status, n]) => sum + (Number(status) >= 500 || Number(status) === 0 ? n : 0),
    0,
  );
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const program = new Command()
    .name('bench/schema-churn.ts')
    .option('--seconds <n>', 'duration of the churn', Number, 30)
    .option('--store <file>', 'serve a copy of this DuckDB file instead of the demo store')
    .option('--build <kind>', "'dist' (npm run build first) or 'tsx'", 'tsx')
    .option('--root <dir>', 'the checkout to run (e.g. an older commit, to compare)')
    .option('--opening-fields <n>', 'new fields of one event posted first', Number, 0)
    .parse();
  const opts = program.opts<{
    seconds: number;
    store?: string;
    build: 'dist' | 'tsx';
    root?: string;
    openingFields: number;
  }>();
  const result = await measureSchemaChurn(opts);
  console.log(
    JSON.stringify(
      { ...result, output: undefined, peakMiB: Math.round(result.peakBytes / 1024 / 1024) },
      null,
      1,
    ),
  );
  console.log(result.output.split('\n').slice(0, 40).join('\n'));
}
