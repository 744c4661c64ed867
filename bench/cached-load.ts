import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { packageRoot } from '../src/paths.js';
import { summarise } from './stats.js';

const run = promisify(execFile);
const loadProcess = join(packageRoot, 'bench/load-process.ts');

export interface LoadResult {
  readonly requestsPerSecond: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly non2xx: number;
  /** The server's CPU time (user + system) per answered request, in µs; undefined without /proc. */
  readonly cpuMicrosPerRequest: number | undefined;
}

export interface LoadRequest {
  readonly url: string;
  readonly method?: 'GET' | 'POST';
  readonly headers?: Record<string, string>;
  readonly body?: string;
  /** Makes every request's body unique by putting a counter in place of `{n}` in `body`. */
  readonly uniqueBodies?: boolean;
  /** The serving process's CPU seconds so far, read before and after a load. */
  readonly cpuSeconds?: () => number | undefined;
}

/**
 * `connections` concurrent keep-alive connections hammering one request for `seconds`, from a
 * fresh process (bench/load-process.ts): the same client for every target and every run.
 */
export async function load(request: LoadRequest, connections: number, seconds: number): Promise<LoadResult> {
  const cpuBefore = request.cpuSeconds?.();
  const spec = {
    url: request.url,
    method: request.method ?? 'GET',
    headers: request.headers,
    body: request.body,
    uniqueBodies: request.uniqueBodies,
    connections,
    seconds,
  };
  const { stdout } = await run(process.execPath, ['--import', 'tsx', loadProcess], {
    env: { ...process.env, LOAD: JSON.stringify(spec) },
    maxBuffer: 1 << 20,
  });
  const result = JSON.parse(stdout) as {
    average: number;
    total: number;
    p50: number;
    p99: number;
    non2xx: number;
  };
  return {
    requestsPerSecond: Math.round(result.average),
    p50Ms: result.p50,
    p99Ms: result.p99,
    non2xx: result.non2xx,
    cpuMicrosPerRequest: cpuPerRequest(cpuBefore, request.cpuSeconds?.(), result.total),
  };
}

function cpuPerRequest(before: number | undefined, after: number | undefined, requests: number) {
  if (before === undefined || after === undefined || requests === 0) return undefined;
  return Math.round(((after - before) * 1e7) / requests) / 10;
}

export interface SideBySideOptions {
  readonly connections: number;
  readonly seconds: number;
  /** Rounds of one load per target each, in turn; each figure is the median over rounds. */
  readonly rounds: number;
  /** A first, unrecorded load per target, so every server is past JIT warm-up when timed. */
  readonly warmUpSeconds: number;
}

/**
 * Loads every target in turn, round after round, so that whatever else the machine does (a
 * cache warm run, another process) falls on all of them alike rather than on one; reports per
 * target the median of its rounds' requests/s, p50 and p99, and every non-2xx answer.
 */
export async function loadSideBySide<Name extends string>(
  targets: Record<Name, LoadRequest>,
  options: SideBySideOptions,
): Promise<Record<Name, LoadResult>> {
  const names = Object.keys(targets) as Name[];
  for (const name of names) await load(targets[name], options.connections, options.warmUpSeconds);
  const runs = new Map<Name, LoadResult[]>(names.map((name) => [name, []]));
  for (let round = 0; round < options.rounds; round++) {
    for (const name of names)
      runs.get(name)?.push(await load(targets[name], options.connections, options.seconds));
  }
  const median = (values: number[]) => summarise(values).medianMs;
  const results = {} as Record<Name, LoadResult>;
  for (const name of names) {
    const measured = runs.get(name) ?? [];
    results[name] = {
      requestsPerSecond: Math.round(median(measured.map((run) => run.requestsPerSecond))),
      p50Ms: median(measured.map((run) => run.p50Ms)),
      p99Ms: median(measured.map((run) => run.p99Ms)),
      non2xx: measured.reduce((sum, run) => sum + run.non2xx, 0),
      cpuMicrosPerRequest: measured.some((run) => run.cpuMicrosPerRequest === undefined)
        ? undefined
        : median(measured.map((run) => run.cpuMicrosPerRequest ?? 0)),
    };
  }
  return results;
}
