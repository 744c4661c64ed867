// CPU profile of querygate's cached answers: the built server under `node --cpu-prof`, loaded with
// the peer table's REST hit or replayed GraphQL operation, and the profile summed by function.
//   npm run build && npx tsx bench/profile.ts [--face rest|graphql] [--seconds 10] [--top 40]
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { Command } from 'commander';
import { packageRoot } from '../src/paths.js';
import { openDatabase } from '../src/storage/database.js';
import { createLogWriter } from '../src/storage/log-writer.js';
import { logSources } from '../test/helpers/shipped-sources.js';
import { load } from './cached-load.js';
import { benchProjects, generateBenchLogs } from './generate-logs.js';
import { peerOperation } from './peer-load.js';
import { benchApiKey, servedHeaders, startBareServer, startServerProcess } from './processes.js';
import { argumentSets, variedBodies } from './varied-operations.js';

const options = new Command()
  .option(
    '--face <face>',
    "rest, graphql (replayed), varied (executed GraphQL, the peer table's varied operations), bare (node:http serving the REST hit to a GET) or bare-post (node:http reading the replayed POST and serving its answer)",
    'rest',
  )
  .option('--seconds <n>', 'seconds of load while profiling', (value) => Number(value), 10)
  .option('--connections <n>', 'concurrent connections', (value) => Number(value), 64)
  .option('--rows <n>', 'edge requests to generate', (value) => Number(value), 100_000)
  .option('--top <n>', 'functions to list', (value) => Number(value), 40)
  .option('--dist <dir>', 'the built server to profile', join(packageRoot, 'dist'))
  .parse()
  .opts<{ face: string; seconds: number; connections: number; rows: number; top: number; dist: string }>();

interface ProfileNode {
  readonly id: number;
  readonly callFrame: { functionName: string; url: string; lineNumber: number };
}

const dataDir = mkdtempSync(join(tmpdir(), 'querygate-profile-'));
const profileDir = join(dataDir, 'profile');
try {
  const now = new Date();
  const database = await openDatabase(join(dataDir, 'querygate.duckdb'));
  const writer = createLogWriter(database, { sources: logSources, now: () => now });
  await generateBenchLogs(writer, { now, edgeRows: options.rows, relayRows: options.rows / 2 });
  await writer.close();
  database.close();

  const profiling = [`--cpu-prof`, `--cpu-prof-dir=${profileDir}`];
  const project = benchProjects(50)[0] as string;
  const headers = { 'x-api-key': benchApiKey };
  const restPath = `/api/endpoints/functions.invocation-stats?project=${project}&interval=1hr`;
  const bare = options.face === 'bare' || options.face === 'bare-post';
  const posts = options.face === 'graphql' || options.face === 'bare-post';
  const post = {
    method: 'POST' as const,
    headers: { ...headers, 'content-type': 'application/json' },
    body: JSON.stringify({ query: peerOperation, variables: { project } }),
  };
  let server = await startServerProcess(dataDir, bare ? [] : profiling, options.dist);
  if (bare) {
    const answer = await (posts
      ? fetch(`${server.url}/graphql`, post)
      : fetch(`${server.url}${restPath}`, { headers }));
    const body = await answer.text();
    await server.stop();
    server = await startBareServer(body, profiling, { readsBody: posts, headers: servedHeaders(answer) });
  }
  const varied = options.face === 'varied';
  const bodies = variedBodies(argumentSets(benchProjects(50).slice(0, 12)));
  const request = varied
    ? { url: `${server.url}/graphql`, ...post, body: '', uniqueBodies: true, bodies }
    : posts
      ? { url: `${server.url}${bare ? '/' : '/graphql'}`, ...post }
      : { url: `${server.url}${restPath}`, headers };
  // Twice first: a response is kept for replay once its request has been seen twice.
  for (const body of varied ? bodies.map((one) => one.replace('{n}', '0')) : [post.body])
    for (let i = 0; i < 3; i++) {
      const answer = await fetch(request.url, { ...request, ...(varied ? { body } : {}) });
      if (answer.status !== 200) throw new Error(`${answer.status}: ${await answer.text()}`);
      await answer.arrayBuffer();
    }
  const cpu = () => server.cpuSeconds();
  await load({ ...request, cpuSeconds: cpu }, options.connections, 2);
  // V8 stamps samples on the monotonic clock hrtime reads: only the timed load's are summed.
  const loadStart = Number(process.hrtime.bigint() / 1000n);
  const splitBefore = server.cpuSplitSeconds();
  const result = await load({ ...request, cpuSeconds: cpu }, options.connections, options.seconds);
  const splitAfter = server.cpuSplitSeconds();
  const loadEnd = Number(process.hrtime.bigint() / 1000n);
  await server.stop();
  // User and system CPU apart: the sampler's shares are of wall time, where a write's system
  // time shows as `writev`.
  const requests = result.requestsPerSecond * options.seconds;
  const micros = (part: 'user' | 'system') =>
    splitBefore && splitAfter
      ? ((1e6 * (splitAfter[part] - splitBefore[part])) / requests).toFixed(1)
      : 'n/a';
  process.stdout.write(
    `${options.face}: ${result.requestsPerSecond} req/s, ${result.cpuMicrosPerRequest} µs CPU/request (user ${micros('user')}, system ${micros('system')}), ${result.non2xx} non-2xx\n`,
  );

  const file = readdirSync(profileDir).find((name) => name.endsWith('.cpuprofile'));
  if (!file) throw new Error('no profile written');
  const profile = JSON.parse(readFileSync(join(profileDir, file), 'utf8')) as {
    nodes: ProfileNode[];
    startTime: number;
    samples: number[];
    timeDeltas: number[];
  };
  const hitsOf = new Map<number, number>();
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    at += profile.timeDeltas[i] ?? 0;
    if (at >= loadStart && at <= loadEnd) hitsOf.set(id, (hitsOf.get(id) ?? 0) + 1);
  });
  const selfHits = new Map<string, number>();
  let total = 0;
  for (const node of profile.nodes) {
    const hits = hitsOf.get(node.id) ?? 0;
    const { functionName, url, lineNumber } = node.callFrame;
    // Shares of the time the process was busy.
    if (functionName === '(idle)') continue;
    total += hits;
    const where = url.startsWith('file://') ? relative(packageRoot, url.slice('file://'.length)) : url;
    const name = `${functionName || '(anonymous)'} ${where ? `${where}:${lineNumber + 1}` : ''}`;
    selfHits.set(name, (selfHits.get(name) ?? 0) + hits);
  }
  const sorted = [...selfHits].sort((a, b) => b[1] - a[1]).slice(0, options.top);
  for (const [name, hits] of sorted)
    process.stdout.write(`${((100 * hits) / total).toFixed(1).padStart(5)} %  ${name}\n`);
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
