// CPU profile of querygate's cached answers: the built server under `node --cpu-prof`, loaded with
// the peer table's REST hit or replayed GraphQL operation, and the profile summed by function.
//   npm run build && npx tsx bench/profile.ts [--face rest|graphql] [--seconds 10] [--top 40]
// With `--between rest,varied,executed` the face is profiled twice in one server process: fresh,
// then again after loads of those faces, the two profiles side by side (what other traffic leaves
// behind in the JIT's state: a function deoptimised or made megamorphic shows there).
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, relative } from 'node:path';
import { Command } from 'commander';
import { packageRoot } from '../src/paths.js';
import { openDatabase } from '../src/storage/database.js';
import { createLogWriter } from '../src/storage/log-writer.js';
import { logSources } from '../test/helpers/shipped-sources.js';
import { type LoadRequest, load } from './cached-load.js';
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
  .option(
    '--between <faces>',
    "faces loaded between two profiles of --face (rest, graphql, varied, executed: the peer table's fixed operation executed), comma-separated",
  )
  .option('--node-args <flags>', "more flags for the server's node, space-separated (e.g. --log-deopt)", '')
  .parse()
  .opts<{
    face: string;
    seconds: number;
    connections: number;
    rows: number;
    top: number;
    dist: string;
    between?: string;
    nodeArgs: string;
  }>();

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
  const nodeArgs = options.nodeArgs.split(' ').filter(Boolean);
  let server = await startServerProcess(dataDir, bare ? [] : [...profiling, ...nodeArgs], options.dist);
  if (bare) {
    const answer = await (posts
      ? fetch(`${server.url}/graphql`, post)
      : fetch(`${server.url}${restPath}`, { headers }));
    const body = await answer.text();
    await server.stop();
    server = await startBareServer(body, [...profiling, ...nodeArgs], {
      readsBody: posts,
      headers: servedHeaders(answer),
    });
  }
  const bodies = variedBodies(argumentSets(benchProjects(50).slice(0, 12)));
  // The peer table's executed case: a variable the operation does not use, different every time.
  const executedBody = JSON.stringify({ query: peerOperation, variables: { project, request: 0 } }).replace(
    '"request":0',
    '"request":{n}',
  );
  const url = server.url;
  const requestOf = (face: string): LoadRequest => {
    const cpuSeconds = () => server.cpuSeconds();
    if (face === 'varied')
      return { url: `${url}/graphql`, ...post, body: '', uniqueBodies: true, bodies, cpuSeconds };
    if (face === 'executed')
      return { url: `${url}/graphql`, ...post, body: executedBody, uniqueBodies: true, cpuSeconds };
    if (face === 'graphql' || face === 'bare-post')
      return { url: `${url}${bare ? '/' : '/graphql'}`, ...post, cpuSeconds };
    if (face === 'rest' || face === 'bare') return { url: `${url}${restPath}`, headers, cpuSeconds };
    throw new Error(`no face ${face}`);
  };
  const between = options.between?.split(',').filter(Boolean) ?? [];
  if (bare && between.length > 0) throw new Error('--between profiles querygate, not a bare peer');
  const request = requestOf(options.face);
  // Twice first: a response is kept for replay once its request has been seen twice.
  for (const body of request.bodies?.map((one) => one.replace('{n}', '0')) ?? [post.body])
    for (let i = 0; i < 3; i++) {
      const answer = await fetch(request.url, { ...request, ...(request.bodies ? { body } : {}) });
      if (answer.status !== 200) throw new Error(`${answer.status}: ${await answer.text()}`);
      await answer.arrayBuffer();
    }
  await load(request, options.connections, 2);
  const windows = [await profiledLoad(request)];
  for (const face of between) {
    process.stdout.write(`loading ${face} for ${options.seconds} s\n`);
    await load(requestOf(face), options.connections, options.seconds);
  }
  if (between.length > 0) windows.push(await profiledLoad(request));
  await server.stop();

  const file = readdirSync(profileDir).find((name) => name.endsWith('.cpuprofile'));
  if (!file) throw new Error('no profile written');
  const profile = JSON.parse(readFileSync(join(profileDir, file), 'utf8')) as {
    nodes: ProfileNode[];
    startTime: number;
    samples: number[];
    timeDeltas: number[];
  };
  const shares = windows.map((window) => selfShares(profile, window.start, window.end));
  const labels = windows.length > 1 ? ['fresh', `after ${between.join(', ')}`] : [''];
  windows.forEach((window, i) => {
    process.stdout.write(`${options.face}${labels[i] ? ` (${labels[i]})` : ''}: ${window.line}\n`);
  });
  // Sorted by the last window's share; with two, the fresh one's share first.
  const last = shares[shares.length - 1] as Map<string, number>;
  const sorted = [...last].sort((a, b) => b[1] - a[1]).slice(0, options.top);
  const percent = (share: number | undefined) => (100 * (share ?? 0)).toFixed(1).padStart(5);
  for (const [name] of sorted)
    process.stdout.write(`${shares.map((one) => `${percent(one.get(name))} %`).join('  ')}  ${name}\n`);

  /** A timed load of `timed`, its samples' window on the monotonic clock V8 stamps them with. */
  async function profiledLoad(timed: LoadRequest) {
    const start = Number(process.hrtime.bigint() / 1000n);
    const splitBefore = server.cpuSplitSeconds();
    const result = await load(timed, options.connections, options.seconds);
    const splitAfter = server.cpuSplitSeconds();
    const end = Number(process.hrtime.bigint() / 1000n);
    // User and system CPU apart: the sampler's shares are of wall time, where a write's system
    // time shows as `writev`.
    const requests = result.requestsPerSecond * options.seconds;
    const micros = (part: 'user' | 'system') =>
      splitBefore && splitAfter
        ? ((1e6 * (splitAfter[part] - splitBefore[part])) / requests).toFixed(1)
        : 'n/a';
    const line = `${result.requestsPerSecond} req/s, ${result.cpuMicrosPerRequest} µs CPU/request (user ${micros('user')}, system ${micros('system')}), ${result.non2xx} non-2xx`;
    return { start, end, line };
  }
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}

/** Each function's share of the samples between `start` and `end` (µs), idle excluded. */
function selfShares(
  profile: { nodes: ProfileNode[]; startTime: number; samples: number[]; timeDeltas: number[] },
  start: number,
  end: number,
): Map<string, number> {
  const hitsOf = new Map<number, number>();
  let at = profile.startTime;
  profile.samples.forEach((id, i) => {
    at += profile.timeDeltas[i] ?? 0;
    if (at >= start && at <= end) hitsOf.set(id, (hitsOf.get(id) ?? 0) + 1);
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
  return new Map([...selfHits].map(([name, hits]) => [name, hits / total]));
}
