import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { packageRoot } from '../src/paths.js';
import { bracketedRatio, type LoadResult, loadSideBySide } from './cached-load.js';
import {
  pinProcess,
  type ServedProcess,
  servedHeaders,
  splitCpus,
  startBareServer,
  startPeerProcess,
} from './processes.js';
import { ratio } from './stats.js';

/** One row of the peer table: a server answering the same bytes (or the same GraphQL data). */
export interface PeerRow extends LoadResult {
  readonly case: string;
  /**
   * requests/s over bare node:http's (a GET, its request body-less), round by round against the
   * bare loads either side (see `bracketedRatio`), median over rounds.
   */
  readonly servingRatio: number;
  /** The same over the bare node:http POST peer's (it reads a JSON body, as replayed GraphQL does). */
  readonly postServingRatio: number;
  /** bare node:http's server CPU per request over this row's, likewise: 1 is as cheap as the bare GET. */
  readonly cpuRatio: number | undefined;
  /** The bare POST peer's server CPU per request over this row's. */
  readonly postCpuRatio: number | undefined;
  /** Every load's requests/s and server CPU µs per request, round by round (a floor's closing one last). */
  readonly loads: readonly (readonly [number, number | undefined])[];
}

export interface PeerTable {
  readonly answer: { readonly endpoint: string; readonly rows: number; readonly bytes: number };
  readonly connections: number;
  readonly seconds: number;
  readonly rounds: number;
  /** The servers' and the load generator's CPUs (`taskset -c` lists); undefined when not pinned. */
  readonly cpus: { readonly servers: string; readonly load: string } | undefined;
  readonly rows: readonly PeerRow[];
  /** querygate's executed GraphQL requests/s over mercurius + graphql-jit's, same operation. */
  readonly executedVsMercuriusJit: number;
}

export interface PeerLoadOptions {
  readonly connections: number;
  readonly seconds: number;
  readonly rounds: number;
  readonly scratchDir: string;
}

// The 61-row answer issue 20 measures: an hour of per-minute edge-function statistics.
export const peerOperation = /* GraphQL */ `query Stats($project: String!) {
  functions {
    invocationStats(project: $project, interval: ONE_HOUR) {
      timestamp minExecutionTime maxExecutionTime avgExecutionTime p95ExecutionTime p99ExecutionTime count errorCount
    }
  }
}`;

/**
 * Cached answers of querygate beside its peers, loaded in turn round after round: bare node:http
 * and a bare Fastify route serving the REST hit's bytes, querygate's REST hit, its replayed and
 * its executed GraphQL, and mercurius with graphql-jit executing the same operation over the same
 * SDL and rows. Each figure is the median of the rounds, with the serving process’s CPU per request;
 * each server runs on one CPU and the load generator on the others (see `splitCpus`).
 */
export async function measurePeers(
  server: ServedProcess,
  apiKey: string,
  project: string,
  options: PeerLoadOptions,
): Promise<PeerTable> {
  const headers = { 'x-api-key': apiKey };
  const restUrl = `${server.url}/api/endpoints/functions.invocation-stats?project=${encodeURIComponent(project)}&interval=1hr`;
  const restAnswer = await fetch(restUrl, { headers });
  const restBody = await restAnswer.text();
  const graphqlBody = JSON.stringify({ query: peerOperation, variables: { project } });
  const graphqlHeaders = { ...headers, 'content-type': 'application/json' };
  const graphqlAnswer = await fetch(`${server.url}/graphql`, {
    method: 'POST',
    headers: graphqlHeaders,
    body: graphqlBody,
  });
  const graphqlText = await graphqlAnswer.text();
  const answered = JSON.parse(graphqlText) as { data?: { functions: Record<string, unknown> } };
  if (graphqlAnswer.status !== 200 || !answered.data)
    throw new Error(`querygate's GraphQL answered ${graphqlAnswer.status}`);
  const answersFile = join(options.scratchDir, 'peer-answers.json');
  writeFileSync(answersFile, JSON.stringify(answered.data));

  // graphql-js ignores variables an operation does not declare: a `request` variable that differs
  // on every request keeps any response from being replayed while the document stays the same,
  // so every server parses and validates once and executes every request.
  const executedBody = JSON.stringify({ query: peerOperation, variables: { project, request: 0 } }).replace(
    '"request":0',
    '"request":{n}',
  );
  const peers: ServedProcess[] = [];
  try {
    // The floors send the bytes querygate sends, headers included (`cache-control` and `age` on
    // a REST hit, which its route must send), so their ratios are what querygate costs beyond them.
    const restHeaders = servedHeaders(restAnswer);
    const bare = await startBareServer(restBody, [], { headers: restHeaders });
    peers.push(bare);
    // Replayed GraphQL is a POST answered from its JSON body: its ceiling reads that body and
    // sends the replayed answer's bytes.
    const barePost = await startBareServer(graphqlText, [], {
      readsBody: true,
      headers: servedHeaders(graphqlAnswer),
    });
    peers.push(barePost);
    const fastify = await startPeerProcess('bare-fastify.ts', {
      BODY: restBody,
      HEADERS: JSON.stringify(restHeaders),
    });
    peers.push(fastify);
    const mercurius = await startPeerProcess('mercurius-jit.ts', {
      SCHEMA_FILE: join(packageRoot, 'schema/schema.graphql'),
      ANSWERS_FILE: answersFile,
    });
    peers.push(mercurius);
    const peerAnswer = await (
      await fetch(`${mercurius.url}/graphql`, { method: 'POST', headers: graphqlHeaders, body: graphqlBody })
    ).json();
    if (!isDeepStrictEqual(peerAnswer, answered))
      throw new Error('mercurius answered other data than querygate for the same operation');

    const cpu = (served: ServedProcess) => () => served.cpuSeconds();
    const post = (url: string, served: ServedProcess, body: string, uniqueBodies = false) => ({
      url,
      method: 'POST' as const,
      headers: graphqlHeaders,
      body,
      uniqueBodies,
      cpuSeconds: cpu(served),
    });
    const floorNames = [
      'bare node:http',
      'bare node:http POST (reads the body)',
      'mercurius + graphql-jit executed',
    ] as const;
    // Each server on the servers' CPU for the table's length, the querygate server given back
    // every CPU after it (the full bench goes on using it).
    const cpus = splitCpus();
    if (cpus !== undefined) for (const served of [server, ...peers]) pinProcess(served, cpus.servers);
    const { medians, runs } = await loadSideBySide(
      {
        'bare node:http': { url: bare.url, headers, cpuSeconds: cpu(bare) },
        'bare node:http POST (reads the body)': post(barePost.url, barePost, graphqlBody),
        'bare Fastify 5 route': { url: fastify.url, headers, cpuSeconds: cpu(fastify) },
        'querygate cached REST': { url: restUrl, headers, cpuSeconds: cpu(server) },
        'querygate GraphQL replayed': post(`${server.url}/graphql`, server, graphqlBody),
        'querygate GraphQL executed': post(`${server.url}/graphql`, server, executedBody, true),
        'mercurius + graphql-jit executed': post(`${mercurius.url}/graphql`, mercurius, executedBody, true),
      },
      {
        connections: options.connections,
        seconds: options.seconds,
        rounds: options.rounds,
        warmUpSeconds: options.seconds,
        loadCpus: cpus?.load,
        floors: floorNames,
      },
    ).finally(() => {
      if (cpus !== undefined) pinProcess(server, cpus.all);
    });
    const requestsPerSecond = (name: keyof typeof runs) => runs[name].map((run) => run.requestsPerSecond);
    // Requests per CPU second: its ratio is the floor's CPU per request over the row's.
    const perCpuSecond = (name: keyof typeof runs) =>
      runs[name].some((run) => run.cpuMicrosPerRequest === undefined)
        ? undefined
        : runs[name].map((run) => 1 / (run.cpuMicrosPerRequest as number));
    const against = (name: keyof typeof runs, floor: (typeof floorNames)[number]) => {
      const ofCpu = perCpuSecond(name);
      const floorCpu = perCpuSecond(floor);
      const of = (values: number[], floorValues: number[]) =>
        name === floor ? 1 : ratio(bracketedRatio(values.slice(0, options.rounds), floorValues), 1);
      return {
        serving: of(requestsPerSecond(name), requestsPerSecond(floor)),
        cpu: ofCpu === undefined || floorCpu === undefined ? undefined : of(ofCpu, floorCpu),
      };
    };
    const rows = (Object.keys(medians) as (keyof typeof medians)[]).map((name) => {
      const result = medians[name];
      if (result.non2xx > 0)
        throw new Error(`${name} answered ${result.non2xx} requests with a non-2xx status`);
      const get = against(name, 'bare node:http');
      const post = against(name, 'bare node:http POST (reads the body)');
      return {
        case: name,
        ...result,
        servingRatio: get.serving,
        postServingRatio: post.serving,
        cpuRatio: get.cpu,
        postCpuRatio: post.cpu,
        loads: runs[name].map((run) => [run.requestsPerSecond, run.cpuMicrosPerRequest] as const),
      };
    });
    return {
      answer: {
        endpoint: 'functions.invocation-stats 1hr',
        rows: (JSON.parse(restBody) as { result: unknown[] }).result.length,
        bytes: Buffer.byteLength(restBody),
      },
      connections: options.connections,
      seconds: options.seconds,
      rounds: options.rounds,
      cpus: cpus && { servers: cpus.servers, load: cpus.load },
      rows,
      executedVsMercuriusJit: against('querygate GraphQL executed', 'mercurius + graphql-jit executed')
        .serving,
    };
  } finally {
    await Promise.all(peers.map((peer) => peer.stop()));
  }
}

export function peerTableLines(table: PeerTable): string[] {
  const cell = (value: number | undefined) => (value === undefined ? 'n/a' : String(value));
  return [
    `| cached answers, ${table.answer.endpoint} (${table.answer.rows} rows, ${table.answer.bytes} B; ${table.connections} connections, median of ${table.rounds} × ${table.seconds} s; ${table.cpus ? `servers on CPU ${table.cpus.servers}, load on ${table.cpus.load}` : 'not pinned'}) | req/s | p50 ms | p99 ms | server CPU µs/request | vs bare node:http | vs bare POST | CPU vs bare | CPU vs bare POST |`,
    '|---|---|---|---|---|---|---|---|---|',
    ...table.rows.map(
      (row) =>
        `| ${row.case} | ${row.requestsPerSecond} | ${row.p50Ms} | ${row.p99Ms} | ${cell(row.cpuMicrosPerRequest)} | ${row.servingRatio} | ${row.postServingRatio} | ${cell(row.cpuRatio)} | ${cell(row.postCpuRatio)} |`,
    ),
    'Ratios are taken round by round against the peer loaded just before and just after, then the median.',
    `executed GraphQL, querygate over mercurius + graphql-jit: ${table.executedVsMercuriusJit}`,
  ];
}
