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
  /** Bodies sent in turn in place of `body`, each made unique likewise. */
  readonly bodies?: readonly string[];
  /** The serving process's CPU seconds so far, read before and after a load. */
  readonly cpuSeconds?: () => number | undefined;
}

/**
 * `connections` concurrent keep-alive connections hammering one request for `seconds`, from a
 * fresh process (bench/load-process.ts): the same client for every target and every run. With
 * `cpus` (a `taskset -c` list) the load generator runs on those CPUs only; with `startAt` (epoch
 * ms) it starts loading then, not as soon as it has started.
 */
export async function load(
  request: LoadRequest,
  connections: number,
  seconds: number,
  cpus?: string,
  startAt?: number,
): Promise<LoadResult> {
  const cpuBefore = request.cpuSeconds?.();
  const spec = {
    startAt,
    url: request.url,
    method: request.method ?? 'GET',
    headers: request.headers,
    body: request.body,
    uniqueBodies: request.uniqueBodies,
    bodies: request.bodies,
    connections,
    seconds,
  };
  const node = ['--import', 'tsx', loadProcess];
  const [file, args] =
    cpus === undefined ? [process.execPath, node] : ['taskset', ['-c', cpus, process.execPath, ...node]];
  const { stdout } = await run(file, args, {
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

/**
 * Loads every target at the same time, each by a load process of its own (on `cpus`), for
 * `seconds`. With the servers pinned to one CPU, each gets the same share of it at the same
 * moments, so whatever else the machine does then falls on all of them alike: on a shared host,
 * loads taken in turn saw one server's requests/s move by a factor of 2-6 from one load to the
 * next (another process taking the CPU), which no ordering of loads cancels. Their requests/s
 * then stand in the ratio of what each request costs them, as long as each is kept busy.
 */
const togetherStartMs = 3000;

export async function loadTogether<Name extends string>(
  targets: Record<Name, LoadRequest>,
  connections: number,
  seconds: number,
  cpus?: string,
): Promise<Record<Name, LoadResult>> {
  const names = Object.keys(targets) as Name[];
  // One start time for all: a load process takes a second or more to start on a busy host, and
  // one that starts loading alone has the CPU to itself until the other does.
  const startAt = Date.now() + togetherStartMs;
  const results = await Promise.all(
    names.map((name) => load(targets[name], connections, seconds, cpus, startAt)),
  );
  return Object.fromEntries(names.map((name, i) => [name, results[i]])) as Record<Name, LoadResult>;
}

export interface SideBySideOptions<Name extends string> {
  readonly connections: number;
  readonly seconds: number;
  /** Rounds of one load per target each, in turn; each figure is the median over rounds. */
  readonly rounds: number;
  /**
   * A first, unrecorded load per target, so every server is past JIT warm-up when timed; 0 for
   * none (servers already warm), or per target.
   */
  readonly warmUpSeconds: number | Partial<Record<Name, number>>;
  /** The load generator's CPUs (a `taskset -c` list); undefined lets it run anywhere. */
  readonly loadCpus?: string;
  /**
   * Targets others are measured against: loaded first in every round and once more after the
   * last, so every round's loads lie between two of theirs (see `bracketedRatio`).
   */
  readonly floors?: readonly NoInfer<Name>[];
}

export interface SideBySide<Name extends string> {
  /** Per target, the median of its rounds' requests/s, p50, p99 and CPU per request. */
  readonly medians: Record<Name, LoadResult>;
  /** Per target, its loads round by round; a floor's ends with the closing load. */
  readonly runs: Record<Name, readonly LoadResult[]>;
}

/**
 * Loads every target in turn, round after round, so that whatever else the machine does (a
 * cache warm run, another process) falls on all of them alike rather than on one; reports per
 * target the median of its rounds' requests/s, p50 and p99, and every non-2xx answer.
 */
export async function loadSideBySide<Name extends string>(
  targets: Record<Name, LoadRequest>,
  options: SideBySideOptions<Name>,
): Promise<SideBySide<Name>> {
  const floors = options.floors ?? [];
  const names = [...floors, ...(Object.keys(targets) as Name[]).filter((name) => !floors.includes(name))];
  const loadOf = (name: Name, seconds: number) =>
    load(targets[name], options.connections, seconds, options.loadCpus);
  for (const name of names) {
    const { warmUpSeconds } = options;
    const seconds = typeof warmUpSeconds === 'number' ? warmUpSeconds : (warmUpSeconds[name] ?? 0);
    if (seconds > 0) await loadOf(name, seconds);
  }
  const runs = Object.fromEntries(names.map((name) => [name, [] as LoadResult[]])) as Record<
    Name,
    LoadResult[]
  >;
  for (let round = 0; round < options.rounds; round++) {
    for (const name of names) runs[name].push(await loadOf(name, options.seconds));
  }
  for (const name of floors) runs[name].push(await loadOf(name, options.seconds));
  const medians = {} as Record<Name, LoadResult>;
  for (const name of names) {
    const measured = runs[name].slice(0, options.rounds);
    medians[name] = {
      requestsPerSecond: Math.round(median(measured.map((run) => run.requestsPerSecond))),
      p50Ms: median(measured.map((run) => run.p50Ms)),
      p99Ms: median(measured.map((run) => run.p99Ms)),
      non2xx: runs[name].reduce((sum, run) => sum + run.non2xx, 0),
      cpuMicrosPerRequest: measured.some((run) => run.cpuMicrosPerRequest === undefined)
        ? undefined
        : median(measured.map((run) => run.cpuMicrosPerRequest ?? 0)),
    };
  }
  return { medians, runs };
}

/**
 * `of` over `floor`, one figure per round of `loadSideBySide` (a floor has one load more than the
 * rounds): each round's figure over the geometric mean of the floor's loads just before and just
 * after it, then the median of those. The machine's speed drifts over a run (on a shared host the
 * kernel's copy of a response into the socket took 3% of a server's time in one load and 15% in
 * the next): a ratio of loads minutes apart keeps that drift; one of neighbours in time cancels it.
 */
export function bracketedRatio(of: readonly number[], floor: readonly number[]): number {
  const ratios = of.map((value, round) => {
    const before = floor[round];
    const after = floor[round + 1];
    if (before === undefined || after === undefined)
      throw new Error('a floor needs a load per round and one more');
    return value / Math.sqrt(before * after);
  });
  return median(ratios);
}

const median = (values: number[]) => summarise(values).medianMs;
