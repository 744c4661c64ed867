import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { packageRoot } from '../src/paths.js';
import { type LoadResult, loadSideBySide } from './cached-load.js';
import { type ServedProcess, startBareServer, startPeerProcess } from './processes.js';
import { ratio } from './stats.js';

/** One row of the peer table: a server answering the same bytes (or the same GraphQL data). */
export interface PeerRow extends LoadResult {
  readonly case: string;
  /** requests/s over bare node:http's (a GET, its request body-less). */
  readonly servingRatio: number;
  /** requests/s over the bare node:http POST peer's (it reads a JSON body, as replayed GraphQL does). */
  readonly postServingRatio: number;
  /** bare node:http's server CPU per request over this row's: 1 is as cheap as the bare GET. */
  readonly cpuRatio: number | undefined;
  /** The bare POST peer's server CPU per request over this row's. */
  readonly postCpuRatio: number | undefined;
}

export interface PeerTable {
  readonly answer: { readonly endpoint: string; readonly rows: number; readonly bytes: number };
  readonly connections: number;
  readonly seconds: number;
  readonly rounds: number;
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
 * SDL and rows. Each figure is the median of the rounds, with the serving process's CPU per request.
 */
export async function measurePeers(
  server: ServedProcess,
  apiKey: string,
  project: string,
  options: PeerLoadOptions,
): Promise<PeerTable> {
  const headers = { 'x-api-key': apiKey };
  const restUrl = `${server.url}/api/endpoints/functions.invocation-stats?project=${encodeURIComponent(project)}&interval=1hr`;
  const restBody = await (await fetch(restUrl, { headers })).text();
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
    const bare = await startBareServer(restBody);
    peers.push(bare);
    // Replayed GraphQL is a POST answered from its JSON body: its ceiling reads that body and
    // sends the replayed answer's bytes.
    const barePost = await startBareServer(graphqlText, [], { readsBody: true });
    peers.push(barePost);
    const fastify = await startPeerProcess('bare-fastify.ts', { BODY: restBody });
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
    const results = await loadSideBySide(
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
      },
    );
    const floor = results['bare node:http'];
    const postFloor = results['bare node:http POST (reads the body)'];
    const cpuRatio = (of: number | undefined, over: number | undefined) =>
      of === undefined || over === undefined ? undefined : ratio(of, over);
    const rows = Object.entries(results).map(([name, result]) => {
      if (result.non2xx > 0)
        throw new Error(`${name} answered ${result.non2xx} requests with a non-2xx status`);
      return {
        case: name,
        ...result,
        servingRatio: ratio(result.requestsPerSecond, floor.requestsPerSecond),
        postServingRatio: ratio(result.requestsPerSecond, postFloor.requestsPerSecond),
        cpuRatio: cpuRatio(floor.cpuMicrosPerRequest, result.cpuMicrosPerRequest),
        postCpuRatio: cpuRatio(postFloor.cpuMicrosPerRequest, result.cpuMicrosPerRequest),
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
      rows,
      executedVsMercuriusJit: ratio(
        results['querygate GraphQL executed'].requestsPerSecond,
        results['mercurius + graphql-jit executed'].requestsPerSecond,
      ),
    };
  } finally {
    await Promise.all(peers.map((peer) => peer.stop()));
  }
}

export function peerTableLines(table: PeerTable): string[] {
  const cell = (value: number | undefined) => (value === undefined ? 'n/a' : String(value));
  return [
    `| cached answers, ${table.answer.endpoint} (${table.answer.rows} rows, ${table.answer.bytes} B; ${table.connections} connections, median of ${table.rounds} × ${table.seconds} s) | req/s | p50 ms | p99 ms | server CPU µs/request | vs bare node:http | vs bare POST | CPU vs bare | CPU vs bare POST |`,
    '|---|---|---|---|---|---|---|---|---|',
    ...table.rows.map(
      (row) =>
        `| ${row.case} | ${row.requestsPerSecond} | ${row.p50Ms} | ${row.p99Ms} | ${cell(row.cpuMicrosPerRequest)} | ${row.servingRatio} | ${row.postServingRatio} | ${cell(row.cpuRatio)} | ${cell(row.postCpuRatio)} |`,
    ),
    `executed GraphQL, querygate over mercurius + graphql-jit: ${table.executedVsMercuriusJit}`,
  ];
}
