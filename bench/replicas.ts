import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { replicaEndpoint, replicaProjects, writeReplicaQueries } from '../test/helpers/replica-fixture.js';
import { startFakeBigQueryProcess, startRedis, startReplica } from '../test/helpers/replica-fleet.js';
import { benchApiKey } from './processes.js';
import { summarise, type Timing, timeInTurn } from './stats.js';

/** The `replicas` section: three querygate processes sharing one Redis over one (fake) BigQuery. */
export interface ReplicasResult {
  /** Distinct calls of the dashboard's traffic, and the replicas it went to. */
  readonly calls: number;
  readonly replicas: number;
  /** BigQuery jobs the traffic caused, as the fake counted them. */
  readonly jobs: number;
  /** Jobs per warm interval after the traffic (over three intervals), and the interval. */
  readonly warmRuns: number;
  readonly warmSeconds: number;
  /** Calls answered 200 while Redis was stopped, of those made. */
  readonly stopped: { readonly answered: number; readonly total: number };
  /** Redis commands that failed or timed out on the replicas (Redis's stop included). */
  readonly redisErrors: number;
  /**
   * A cached hit: on a process without Redis, on a replica from its own copy, and on a replica
   * asked first for a result another replica computed (read from Redis).
   */
  readonly hitMs: { readonly alone: Timing; readonly local: Timing; readonly shared: Timing };
}

const replicaCount = 3;
// Longer than the traffic takes, so the jobs it counts are the traffic's, not a first warm wave's.
const warmSeconds = 5;
/** Intervals over which the warm runs are counted (see warmRuns). */
const warmIntervals = 3;
// Each job takes this long on the fake: time for calls on other replicas to arrive meanwhile.
const jobDelayMs = 50;

/**
 * Starts Debian's redis-server, the fake BigQuery as its own process and three built querygate
 * processes on the BigQuery engine; drives a dashboard's `calls` distinct calls across them
 * round-robin (every call at once, each also on a second replica, then twice more on the others),
 * counts the jobs, the warm runs over one interval, and the calls answered while Redis is stopped.
 */
export async function measureReplicas(options: {
  readonly dist: string;
  readonly calls: number;
}): Promise<ReplicasResult> {
  const { calls } = options;
  // The traffic's projects, then new ones for the calls while Redis is stopped and the shared hits.
  const projects = replicaProjects(3 * calls);
  const traffic = projects.slice(0, calls);
  const whileStopped = projects.slice(calls, 2 * calls);
  const sharedHits = projects.slice(2 * calls);
  const queries = writeReplicaQueries({ cacheSeconds: 60, warmSeconds });
  const dirs = [queries];
  const dataDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'querygate-bench-replica-'));
    dirs.push(dir);
    return dir;
  };
  let redis = await startRedis();
  const fake = await startFakeBigQueryProcess({ projects: projects.length, delayMs: jobDelayMs });
  const started: Awaited<ReturnType<typeof startReplica>>[] = [];
  const start = (redisUrl: string | undefined) =>
    startReplica({
      queries,
      dataDir: dataDir(),
      bigQueryUrl: fake.url,
      apiKey: benchApiKey,
      redisUrl,
      builtCli: join(options.dist, 'cli/main.js'),
    }).then((replica) => {
      started.push(replica);
      return replica;
    });
  try {
    const replicas = await Promise.all(Array.from({ length: replicaCount }, () => start(redis.url)));
    const alone = await start(undefined);
    const call = async (replica: { url: string }, project: string) => {
      const response = await fetch(`${replica.url}/api/endpoints/${replicaEndpoint}?project=${project}`, {
        headers: { 'x-api-key': benchApiKey },
      });
      await response.arrayBuffer();
      return response.status;
    };
    const on = (index: number) => replicas[index % replicaCount] as { url: string };
    const jobs = async () => (await fake.jobs()).queryJobs;

    const before = await jobs();
    await Promise.all(traffic.flatMap((project, i) => [call(on(i), project), call(on(i + 1), project)]));
    for (const round of [1, 2])
      await Promise.all(traffic.map((project, i) => call(on(i + round + 1), project)));
    const trafficJobs = (await jobs()) - before;

    // Each key warms once an interval, but a window of exactly one interval can take one key's
    // run on both of its edges or on neither: the runs of three intervals, per interval.
    const warmFrom = await jobs();
    await sleep(warmIntervals * warmSeconds * 1000);
    const warmRuns = Math.round(((await jobs()) - warmFrom) / warmIntervals);

    await redis.stop();
    const statuses = await Promise.all([
      ...traffic.map((project, i) => call(on(i), project)),
      ...whileStopped.map((project, i) => call(on(i), project)),
    ]);
    redis = await startRedis(redis.port);
    for (const replica of replicas) {
      for (let tries = 0; (await healthStatus(replica.url)) !== 'ok'; tries++) {
        if (tries > 200) throw new Error('a replica never saw Redis again');
        await sleep(50);
      }
    }

    const redisErrors = (await Promise.all(replicas.map((replica) => sharedCacheErrors(replica.url)))).reduce(
      (sum, errors) => sum + errors,
      0,
    );
    const [hot] = traffic as [string];
    await call(alone, hot);
    const hits = await timeInTurn(20, 200, { alone: () => call(alone, hot), local: () => call(on(0), hot) });
    const shared: number[] = [];
    for (const project of sharedHits) {
      await call(on(0), project);
      const begun = performance.now();
      await call(on(1), project);
      shared.push(performance.now() - begun);
    }
    return {
      calls,
      replicas: replicaCount,
      jobs: trafficJobs,
      warmRuns,
      warmSeconds,
      stopped: { answered: statuses.filter((status) => status === 200).length, total: statuses.length },
      redisErrors,
      hitMs: { alone: hits.alone, local: hits.local, shared: summarise(shared) },
    };
  } finally {
    await Promise.all(started.map((replica) => replica.stop()));
    await Promise.all([fake.stop(), redis.stop()]);
    for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
  }
}

async function healthStatus(url: string): Promise<string> {
  return ((await (await fetch(`${url}/health`)).json()) as { status: string }).status;
}

async function sharedCacheErrors(url: string): Promise<number> {
  const text = await (await fetch(`${url}/metrics`, { headers: { 'x-api-key': benchApiKey } })).text();
  return Number(/^querygate_shared_cache_errors_total (\S+)$/m.exec(text)?.[1] ?? 0);
}

/** The hit latencies, then, as the section's last line, the line. */
export function describeReplicas(result: ReplicasResult): string[] {
  const ms = (timing: Timing) => `${timing.medianMs.toFixed(2)} ms (p95 ${timing.p95Ms.toFixed(2)})`;
  return [
    `replicas hit latency: alone (no Redis) ${ms(result.hitMs.alone)}, local copy on a replica ${ms(result.hitMs.local)}, shared (first call on a replica, from Redis) ${ms(result.hitMs.shared)}; ${result.redisErrors} failed Redis commands`,
    `replicas: ${result.calls} distinct calls on ${result.replicas} replicas, ${result.jobs} BigQuery jobs, ${result.warmRuns} warm runs per interval, Redis stopped: ${result.stopped.answered}/${result.stopped.total} answered`,
  ];
}
