import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parsePrometheusText, sampleValue } from '../helpers/prometheus-text.js';
import { querygateCli } from '../helpers/querygate-child.js';
import {
  expectedRequests,
  replicaEndpoint,
  replicaProjects,
  writeReplicaQueries,
} from '../helpers/replica-fixture.js';
import { startFakeBigQueryProcess, startRedis, startReplica } from '../helpers/replica-fleet.js';

// Three querygate processes on the BigQuery engine, one fake BigQuery process that counts its
// query jobs, and Debian's redis-server, all real processes on loopback. The fake holds each job
// for `delayMs`, long enough for calls on other replicas to arrive while it runs.
const apiKey = 'replicas-test-key-0123456789';
const delayMs = 1_000;
const warmSeconds = 3;
const projects = replicaProjects(11);
// Projects 0-5 for the shared runs and warming, 6 for the crash, 7 and 8 for Redis going away,
// 9 for Redis slow and 10 for Redis full.
const shared = projects.slice(0, 6);
const [crashed, whileDown, afterReturn, whileSlow, whileFull] = projects.slice(6) as [
  string,
  string,
  string,
  string,
  string,
];

type Fleet = {
  redis: Awaited<ReturnType<typeof startRedis>>;
  fake: Awaited<ReturnType<typeof startFakeBigQueryProcess>>;
  replicas: Awaited<ReturnType<typeof startReplica>>[];
  dirs: string[];
};
const fleet = {} as Fleet;

async function call(
  replica: { url: string },
  project: string,
): Promise<{ status: number; requests: unknown }> {
  const response = await fetch(`${replica.url}/api/endpoints/${replicaEndpoint}?project=${project}`, {
    headers: { 'x-api-key': apiKey },
  });
  const body = (await response.json()) as { result?: { requests: unknown }[] };
  return { status: response.status, requests: body.result?.[0]?.requests };
}

const answered = (project: string) => ({ status: 200, requests: expectedRequests(project) });

async function jobsOf(project: string): Promise<number> {
  return (await fleet.fake.jobs()).byProject[project] ?? 0;
}

async function metrics(replica: { url: string }) {
  const response = await fetch(`${replica.url}/metrics`, { headers: { 'x-api-key': apiKey } });
  return parsePrometheusText(await response.text());
}

async function health(replica: { url: string }) {
  return (await (await fetch(`${replica.url}/health`)).json()) as {
    status: string;
    conditions?: { kind: string }[];
  };
}

async function until(check: () => Promise<boolean>, what: string, ms = 30_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting until ${what}`);
    await sleep(50);
  }
}

beforeAll(async () => {
  fleet.dirs = [writeReplicaQueries({ cacheSeconds: 60, warmSeconds })];
  [fleet.redis, fleet.fake] = await Promise.all([
    startRedis(),
    startFakeBigQueryProcess({ projects: projects.length, delayMs }),
  ]);
  fleet.replicas = await Promise.all(
    [0, 1, 2].map(() => {
      const dataDir = mkdtempSync(join(tmpdir(), 'querygate-replica-'));
      fleet.dirs.push(dataDir);
      return startReplica({
        queries: fleet.dirs[0] as string,
        dataDir,
        bigQueryUrl: fleet.fake.url,
        apiKey,
        redisUrl: fleet.redis.url,
        builtCli: querygateCli(),
        // A Redis command slowed by a loaded machine must not count as Redis failing.
        env: { QUERYGATE_REDIS_LEASE_MS: '1000', QUERYGATE_REDIS_TIMEOUT_MS: '3000' },
      });
    }),
  );
}, 180_000);

afterAll(async () => {
  await Promise.all((fleet.replicas ?? []).map((replica) => replica.stop()));
  await Promise.all([fleet.fake?.stop(), fleet.redis?.stop()]);
  for (const dir of fleet.dirs ?? []) rmSync(dir, { recursive: true, force: true });
}, 60_000);

describe('replicas sharing one Redis over one BigQuery', () => {
  it('runs each distinct call once on BigQuery, whichever replicas it reaches and however often (J = C)', async () => {
    // Every replica asks for every project at once (concurrent misses on three processes), then
    // each project is asked again round-robin.
    const first = await Promise.all(shared.flatMap((project) => fleet.replicas.map((r) => call(r, project))));
    const repeats = await Promise.all(
      shared.map((project, index) => call(fleet.replicas[index % 3] as { url: string }, project)),
    );
    expect(first).toEqual(shared.flatMap((project) => [0, 1, 2].map(() => answered(project))));
    expect(repeats).toEqual(shared.map(answered));
    expect(await Promise.all(shared.map(jobsOf))).toEqual(shared.map(() => 1));
  }, 60_000);

  it('warms each live result once per warm interval across the fleet, not once per replica', async () => {
    const before = await Promise.all(shared.map(jobsOf));
    const startedAt = Date.now();
    await sleep(2 * warmSeconds * 1000);
    const intervals = Math.ceil((Date.now() - startedAt) / (warmSeconds * 1000));
    const warmRuns = (await Promise.all(shared.map(jobsOf))).map((jobs, i) => jobs - (before[i] ?? 0));
    // Each result was warmed, and at most once per interval begun: three replicas warming on
    // their own would have run each three times per interval.
    for (const runs of warmRuns) {
      expect(runs).toBeGreaterThanOrEqual(1);
      expect(runs).toBeLessThanOrEqual(intervals);
    }
  }, 60_000);

  it('takes a key over from a replica killed (kill -9) while it holds the lease and runs the key', async () => {
    const [holder, ...others] = fleet.replicas as [Fleet['replicas'][0], ...Fleet['replicas']];
    const held = call(holder, crashed).catch(() => undefined);
    await until(async () => (await jobsOf(crashed)) === 1, "the holder's job reached BigQuery");
    const waiting = others.map((replica) => call(replica, crashed));
    await sleep(100);
    await holder.kill();
    await held;
    expect(await Promise.all(waiting)).toEqual(others.map(() => answered(crashed)));
    // The dead holder's job, and one run by whichever replica took its lease over.
    expect(await jobsOf(crashed)).toBe(2);
    fleet.replicas = others;
  }, 60_000);

  it('answers every call 200 while Redis is slow (all its clients paused past the command timeout) and while it is full', async () => {
    const { replicas } = fleet;
    const admin = new Redis(fleet.redis.url, { lazyConnect: true, maxRetriesPerRequest: 0 });
    await admin.connect();
    try {
      // Slow: Redis answers no command for 5 s, past the replicas' 3 s command timeout.
      await admin.call('CLIENT', 'PAUSE', '5000', 'ALL');
      expect(await Promise.all(replicas.map((replica) => call(replica, whileSlow)))).toEqual(
        replicas.map(() => answered(whileSlow)),
      );
      await admin.call('CLIENT', 'UNPAUSE');
      // Full: every write refused (OOM command not allowed), as a Redis at maxmemory with noeviction.
      await admin.call('CONFIG', 'SET', 'maxmemory-policy', 'noeviction');
      await admin.call('CONFIG', 'SET', 'maxmemory', '1');
      expect(await Promise.all(replicas.map((replica) => call(replica, whileFull)))).toEqual(
        replicas.map(() => answered(whileFull)),
      );
    } finally {
      await admin.call('CLIENT', 'UNPAUSE').catch(() => {});
      await admin.call('CONFIG', 'SET', 'maxmemory', '0');
      admin.disconnect();
    }
  }, 90_000);

  it('answers every call 200 while Redis is stopped, says so on /health and /metrics, and shares again once it returns', async () => {
    const { replicas } = fleet;
    await fleet.redis.stop();
    const calls = [...shared, crashed, whileDown].flatMap((project) => replicas.map((r) => call(r, project)));
    expect(await Promise.all(calls)).toEqual(
      [...shared, crashed, whileDown].flatMap((project) => replicas.map(() => answered(project))),
    );
    for (const replica of replicas) {
      const seen = await health(replica);
      expect(seen.status).toBe('degraded');
      expect(seen.conditions?.map((condition) => condition.kind)).toContain('shared-cache-unavailable');
      expect(sampleValue(await metrics(replica), 'querygate_shared_cache_up')).toBe(0);
    }

    fleet.redis = await startRedis(fleet.redis.port);
    for (const replica of replicas) {
      await until(async () => (await health(replica)).status === 'ok', 'the replica saw Redis again');
      expect(sampleValue(await metrics(replica), 'querygate_shared_cache_up')).toBe(1);
    }
    // Shared again: the second replica takes the first one's result instead of running it.
    const [first, second] = replicas as unknown as [{ url: string }, { url: string }];
    expect(await call(first, afterReturn)).toEqual(answered(afterReturn));
    expect(await call(second, afterReturn)).toEqual(answered(afterReturn));
    expect(await jobsOf(afterReturn)).toBe(1);
  }, 90_000);
});
