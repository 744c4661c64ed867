import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Command } from 'commander';
import { type Bomb, memoryBombs, runawayQueries } from '../test/helpers/sandbox-attacks.js';
import { residentBytes, startServer, studioReads } from './memory.js';
import { type Timing, timeRuns } from './stats.js';

/**
 * The ad-hoc lane (issue 27): two bombs of caller SQL sent with Studio's key beside Studio's
 * pages, over the demo store. What Studio then waits for its Logs Explorer list (ad-hoc SQL, the
 * same key) and the usage counts (a saved endpoint), and the server's peak RSS; once with two
 * runaways (time), once with two memory bombs.
 */
export interface AdhocPhase {
  readonly bombs: readonly string[];
  /** How the bombs were answered, by status. */
  readonly bombStatuses: Record<string, number>;
  /** Studio's Logs Explorer list while the bombs ran. */
  readonly pageMs: Timing;
  readonly usageMs: Timing;
  /** Answers of the timed calls other than 200, by status. */
  readonly failures: Record<string, number>;
  readonly peakBytes: number;
  /** RSS 3 s after the bombs were answered. */
  readonly afterBytes: number;
}

export interface AdhocLaneResult {
  readonly timeoutMs: number;
  readonly idleBytes: number;
  readonly quietPageMs: Timing;
  readonly runaways: AdhocPhase;
  readonly memory: AdhocPhase;
}

/** Same key as bench/memory.ts's server: Studio's. */
const apiKey = 'memory-bench-key-0123456789';

export async function measureAdhocLane(options: {
  timeoutMs: number;
  repeat: number;
  /** Run the built CLI (dist) or the sources through tsx. @default 'dist' */
  build?: 'dist' | 'tsx';
}): Promise<AdhocLaneResult> {
  const dir = mkdtempSync(join(tmpdir(), 'querygate-adhoc-'));
  const server = await startServer(dir, {
    seconds: 0,
    ...(options.build ? { build: options.build } : {}),
    env: { QUERYGATE_QUERY_TIMEOUT_MS: String(options.timeoutMs) },
  });
  const pid = server.child.pid as number;
  const [page = '', , , , , usage = ''] = studioReads(Date.now());
  const timed = (path: string, failures: Record<string, number>) => async () => {
    const response = await fetch(`${server.url}${path}`, {
      headers: { 'x-api-key': apiKey, 'cache-control': 'no-cache' },
    });
    await response.arrayBuffer();
    if (response.status !== 200) failures[response.status] = (failures[response.status] ?? 0) + 1;
  };
  const phase = async (bombs: readonly Bomb[]): Promise<AdhocPhase> => {
    let peakBytes = residentBytes(pid) ?? 0;
    const sampler = setInterval(() => {
      peakBytes = Math.max(peakBytes, residentBytes(pid) ?? 0);
    }, 100);
    const bombStatuses: Record<string, number> = {};
    const failures: Record<string, number> = {};
    const running = bombs.map(async (bomb) => {
      const sql = new URLSearchParams({ project: 'default', sql: bomb.sql });
      const response = await fetch(`${server.url}/api/endpoints/query/logs.all?${sql}`, {
        headers: { 'x-api-key': apiKey, 'cache-control': 'no-cache' },
      });
      await response.arrayBuffer();
      bombStatuses[response.status] = (bombStatuses[response.status] ?? 0) + 1;
    });
    // Past the lane's short time (3 s): the bombs are long by the time Studio's pages are timed.
    await new Promise((resolve) => setTimeout(resolve, Math.min(3_500, options.timeoutMs / 2)));
    const pageMs = await timeRuns(0, options.repeat, timed(page, failures));
    const usageMs = await timeRuns(0, options.repeat, timed(usage, failures));
    await Promise.all(running);
    await new Promise((resolve) => setTimeout(resolve, 3_000));
    clearInterval(sampler);
    return {
      bombs: bombs.map((bomb) => bomb.name),
      bombStatuses,
      pageMs,
      usageMs,
      failures,
      peakBytes,
      afterBytes: residentBytes(pid) ?? 0,
    };
  };
  try {
    await new Promise((resolve) => setTimeout(resolve, 2_000));
    const idleBytes = residentBytes(pid) ?? 0;
    const quietPageMs = await timeRuns(1, options.repeat, timed(page, {}));
    const runaways = await phase(runawayQueries);
    const memory = await phase(memoryBombs.slice(0, 2));
    return { timeoutMs: options.timeoutMs, idleBytes, quietPageMs, runaways, memory };
  } finally {
    await server.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

const mib = (bytes: number) => `${Math.round(bytes / 2 ** 20)} MiB`;
const ms = (timing: Timing) => `${timing.medianMs.toFixed(0)} / ${timing.p95Ms.toFixed(0)} ms`;

/** The lines `npm run bench` prints. */
export function describeAdhocLane(result: AdhocLaneResult): string[] {
  const line = (label: string, phase: AdhocPhase) =>
    `ad-hoc lane, ${label} (${phase.bombs.join('; ')}) from Studio's key: Logs Explorer list ${ms(phase.pageMs)} (median / p95; quiet ${ms(result.quietPageMs)}), usage.api-counts ${ms(phase.usageMs)}, other than 200 ${JSON.stringify(phase.failures)}; bombs answered ${JSON.stringify(phase.bombStatuses)}; RSS idle ${mib(result.idleBytes)}, peak ${mib(phase.peakBytes)}, 3 s after ${mib(phase.afterBytes)}`;
  return [
    line(`two runaways (timeout ${result.timeoutMs} ms)`, result.runaways),
    line('two memory bombs', result.memory),
  ];
}

/** Runnable on its own: `tsx bench/adhoc-lane.ts --timeout-ms 25000 --repeat 10`. */
if (import.meta.url === pathToFileURL(process.argv[1] ?? '').href) {
  const { timeoutMs, repeat, build } = new Command()
    .name('bench/adhoc-lane.ts')
    .option('--timeout-ms <n>', 'the query timeout the bombs run until', Number, 25_000)
    .option('--repeat <n>', 'timed calls of each page', Number, 10)
    .option('--build <kind>', "'dist' (npm run build first) or 'tsx'", 'tsx')
    .parse()
    .opts<{ timeoutMs: number; repeat: number; build: 'dist' | 'tsx' }>();
  console.log(describeAdhocLane(await measureAdhocLane({ timeoutMs, repeat, build })).join('\n'));
}
