import { writeFileSync } from 'node:fs';
import { loadavg } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { packageRoot } from '../src/paths.js';
import {
  bracketedRatio,
  type LoadRequest,
  type LoadResult,
  loadSideBySide,
  loadTogether,
} from './cached-load.js';
import {
  pinProcess,
  type ServedProcess,
  servedHeaders,
  splitCpus,
  startBareServer,
  startPeerProcess,
} from './processes.js';
import { percentile, ratio } from './stats.js';
import { argumentSets, variedAnswers, variedBodies, variedOperations } from './varied-operations.js';

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
  /**
   * Replayed GraphQL over bare node:http POST in runs of their own after the table (see
   * `ReplayRun`): requests/s and server CPU per request (the POST's µs over ours).
   */
  readonly replayRuns: readonly ReplayRun[];
  /** The same runs before the table (`PeerLoadOptions.replayRunsFirst`); empty unless asked for. */
  readonly replayRunsFirst: readonly ReplayRun[];
  /** The argument sets the varied operations rotate over. */
  readonly variedArgumentSets: number;
  /**
   * querygate's executed GraphQL over mercurius + graphql-jit's, same requests: the fixed
   * operation, and the varied ones (see varied-operations.ts); requests/s and server CPU per
   * request (mercurius's µs over querygate's: above 1, querygate spends less).
   */
  readonly executedVsMercuriusJit: { readonly serving: number; readonly cpu: number | undefined };
  readonly variedVsMercuriusJit: { readonly serving: number; readonly cpu: number | undefined };
}

/**
 * One run of replayed GraphQL beside bare node:http POST: round after round, the two loaded at
 * the same time on the servers' CPU (`loadTogether`), then a second bare POST process beside the
 * first likewise; each figure the median over rounds of the round's ratio. The second bare
 * POST's ratio is the run's noise floor: a server over one that is the same, so whatever it
 * strays from 1 is the machine's (or the pairing's), not querygate's.
 */
export interface ReplayRun {
  readonly serving: number;
  readonly cpu: number;
  readonly control: { readonly serving: number; readonly cpu: number };
  /** The replay's requests/s ratio in each round (the run's figure is their median). */
  readonly rounds: readonly number[];
  /**
   * The warm runs querygate made during each round's replay load (`querygate_warm_runs_total`):
   * its own background work, on the same CPU, which that round's ratio pays for.
   */
  readonly warmRuns: readonly number[];
  /** The 1-minute load average at the run's start and end. */
  readonly load: readonly [number, number];
}

export interface PeerLoadOptions {
  readonly connections: number;
  readonly seconds: number;
  readonly rounds: number;
  readonly scratchDir: string;
  /** Runs of the replay against bare node:http POST, after the table (see `ReplayRun`). */
  readonly replayRuns: number;
  /**
   * Runs of the same before the table too, a diagnostic: the replay on a server that has served
   * no other load yet beside the same server after the table's. @default 0
   */
  readonly replayRunsFirst?: number;
  /** The projects whose cached answers the varied operations rotate over (two windows each). */
  readonly variedProjects: readonly string[];
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
  const sets = argumentSets([project, ...options.variedProjects.filter((other) => other !== project)]);
  const answersFile = join(options.scratchDir, 'peer-answers.json');
  writeFileSync(
    answersFile,
    JSON.stringify(await variedAnswers(`${server.url}/graphql`, graphqlHeaders, sets)),
  );

  // graphql-js ignores variables an operation does not declare: a `request` variable that differs
  // on every request keeps any response from being replayed while the document stays the same,
  // so every server parses and validates once and executes every request.
  const executedBody = JSON.stringify({ query: peerOperation, variables: { project, request: 0 } }).replace(
    '"request":0',
    '"request":{n}',
  );
  const variedBodyList = variedBodies(sets);
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
    // The same again in a process of its own: the replay runs' control.
    const barePostAgain = await startBareServer(graphqlText, [], {
      readsBody: true,
      headers: servedHeaders(graphqlAnswer),
    });
    peers.push(barePostAgain);
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
    for (const body of variedBodyList) {
      const sent = { method: 'POST', headers: graphqlHeaders, body: body.replace('{n}', '0') };
      const [ours, theirs] = await Promise.all(
        [server, mercurius].map(async (served) => (await fetch(`${served.url}/graphql`, sent)).json()),
      );
      if (!isDeepStrictEqual(ours, theirs) || !(ours as { data?: unknown }).data)
        throw new Error(`mercurius answered other data than querygate to ${sent.body}`);
    }

    const cpu = (served: ServedProcess) => () => served.cpuSeconds();
    const post = (url: string, served: ServedProcess, body: string, uniqueBodies = false) => ({
      url,
      method: 'POST' as const,
      headers: graphqlHeaders,
      body,
      uniqueBodies,
      cpuSeconds: cpu(served),
    });
    const varied = (url: string, served: ServedProcess) => ({
      ...post(url, served, '', true),
      bodies: variedBodyList,
    });
    const floorNames = [
      'bare node:http',
      'bare node:http POST (reads the body)',
      'mercurius + graphql-jit executed',
      'mercurius + graphql-jit executed, varied',
    ] as const;
    // Each server on the servers' CPU for the table's length, the querygate server given back
    // every CPU after it (the full bench goes on using it).
    const cpus = splitCpus();
    if (cpus !== undefined) for (const served of [server, ...peers]) pinProcess(served, cpus.servers);
    const sideBySide = <Name extends string>(
      targets: Record<Name, LoadRequest>,
      floors: readonly NoInfer<Name>[],
      warmUpSeconds: number | Partial<Record<NoInfer<Name>, number>> = options.seconds,
    ) =>
      loadSideBySide(targets, {
        connections: options.connections,
        seconds: options.seconds,
        rounds: options.rounds,
        warmUpSeconds,
        loadCpus: cpus?.load,
        floors,
      });
    const replayed = post(`${server.url}/graphql`, server, graphqlBody);
    const barePosted = post(barePost.url, barePost, graphqlBody);
    // The replay's ratio to its ceiling in runs of their own, loaded together with it on the
    // servers' CPU (see `loadTogether`): loads in turn, even bracketed, saw the same bare POST
    // server stray 0.68-1.53 from itself on this shared 2-core host (load average 7-10), and the
    // replay's ratio move with it. Each round loads the replay beside the bare POST, then a
    // second bare POST process beside the first: that ratio is the round's noise floor.
    const barePostedAgain = post(barePostAgain.url, barePostAgain, graphqlBody);
    const together = <Name extends string>(targets: Record<Name, LoadRequest>) =>
      loadTogether(targets, options.connections, options.seconds, cpus?.load);
    // Warm runs of the keys the table's loads cached come due together, `warmSeconds` after
    // those loads, and run on the servers' CPU: counted per round, a round they fell in shows.
    const warmRunsSoFar = async () => {
      const text = await (await fetch(`${server.url}/metrics`, { headers })).text();
      let total = 0;
      for (const [, value] of text.matchAll(/^querygate_warm_runs_total\{[^}]*\} (\S+)$/gm))
        total += Number(value);
      return total;
    };
    const measureReplayRuns = async (count: number): Promise<ReplayRun[]> => {
      // Warm: what has not been loaded yet is warmed here (the table warms the replay and the
      // first bare POST, not the second).
      await together({ bare: barePosted, again: barePostedAgain, replayed });
      const measured: ReplayRun[] = [];
      for (let run = 0; run < count; run++) {
        const loadAtStart = loadavg()[0] as number;
        const rounds: { replay: PairRatio; control: PairRatio; warmRuns: number }[] = [];
        for (let round = 0; round < options.rounds; round++) {
          const warmedBefore = await warmRunsSoFar();
          const beside = await together({ bare: barePosted, replayed });
          const warmRuns = (await warmRunsSoFar()) - warmedBefore;
          const control = await together({ bare: barePosted, again: barePostedAgain });
          rounds.push({
            replay: pairRatio(beside.replayed, beside.bare),
            control: pairRatio(control.again, control.bare),
            warmRuns,
          });
        }
        const medianOf = (pick: (round: (typeof rounds)[number]) => PairRatio) => ({
          serving: ratio(
            percentile(
              rounds.map((round) => pick(round).serving),
              0.5,
            ),
            1,
          ),
          cpu: ratio(
            percentile(
              rounds.map((round) => pick(round).cpu),
              0.5,
            ),
            1,
          ),
        });
        measured.push({
          ...medianOf((round) => round.replay),
          control: medianOf((round) => round.control),
          rounds: rounds.map((round) => ratio(round.replay.serving, 1)),
          warmRuns: rounds.map((round) => round.warmRuns),
          load: [ratio(loadAtStart, 1), ratio(loadavg()[0] as number, 1)],
        });
      }
      return measured;
    };
    // A diagnostic: the same runs on the server before it has served the table's other loads.
    const replayRunsFirst = await measureReplayRuns(options.replayRunsFirst ?? 0);
    const { medians, runs } = await sideBySide(
      {
        'bare node:http': { url: bare.url, headers, cpuSeconds: cpu(bare) },
        'bare node:http POST (reads the body)': barePosted,
        'bare Fastify 5 route': { url: fastify.url, headers, cpuSeconds: cpu(fastify) },
        'querygate cached REST': { url: restUrl, headers, cpuSeconds: cpu(server) },
        'querygate GraphQL replayed': replayed,
        'querygate GraphQL executed': post(`${server.url}/graphql`, server, executedBody, true),
        'mercurius + graphql-jit executed': post(`${mercurius.url}/graphql`, mercurius, executedBody, true),
        'querygate GraphQL executed, varied': varied(`${server.url}/graphql`, server),
        'mercurius + graphql-jit executed, varied': varied(`${mercurius.url}/graphql`, mercurius),
      },
      floorNames,
    );
    const replayRuns: ReplayRun[] = [];
    try {
      replayRuns.push(...(await measureReplayRuns(options.replayRuns)));
    } finally {
      if (cpus !== undefined) pinProcess(server, cpus.all);
    }
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
      replayRuns,
      replayRunsFirst,
      variedArgumentSets: sets.length,
      executedVsMercuriusJit: against('querygate GraphQL executed', 'mercurius + graphql-jit executed'),
      variedVsMercuriusJit: against(
        'querygate GraphQL executed, varied',
        'mercurius + graphql-jit executed, varied',
      ),
    };
  } finally {
    await Promise.all(peers.map((peer) => peer.stop()));
  }
}

interface PairRatio {
  /** requests/s of the one over the other's, loaded together. */
  readonly serving: number;
  /** The other's server CPU per request over the one's: above 1, the one spends less. */
  readonly cpu: number;
}

function pairRatio(one: LoadResult, other: LoadResult): PairRatio {
  return {
    serving: one.requestsPerSecond / other.requestsPerSecond,
    cpu: (other.cpuMicrosPerRequest ?? Number.NaN) / (one.cpuMicrosPerRequest ?? Number.NaN),
  };
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
    ...(table.replayRunsFirst.length > 0
      ? [
          'before the table (the server fresh):',
          ...replayRunLines(table.replayRunsFirst, table.rounds),
          'after the table:',
        ]
      : []),
    ...replayRunLines(table.replayRuns, table.rounds),
    `executed GraphQL, querygate over mercurius + graphql-jit (req/s; CPU): fixed ${table.executedVsMercuriusJit.serving}; ${cell(table.executedVsMercuriusJit.cpu)}, varied ${table.variedVsMercuriusJit.serving}; ${cell(table.variedVsMercuriusJit.cpu)} (${variedOperations.length} operations × ${table.variedArgumentSets} argument sets)`,
  ];
}

/** The replay runs' lines: each run's ratios, their spread over runs, the noise floor, the load. */
export function replayRunLines(runs: readonly ReplayRun[], rounds: number): string[] {
  const spread = (values: number[]) =>
    values.length === 0
      ? 'n/a'
      : `min ${Math.min(...values)}, median ${percentile(values, 0.5)}, max ${Math.max(...values)}`;
  return [
    `replayed GraphQL over bare node:http POST, ${runs.length} runs of ${rounds} rounds, the two loaded together on one CPU, each run the median of its rounds (req/s; CPU per request, which, loaded together, also follows each one's req/s: fewer requests a wake-up cost more each): ${runs.map((run) => `${run.serving}; ${run.cpu}`).join(', ')}`,
    `  ratio over runs (req/s): ${spread(runs.map((run) => run.serving))}; rounds: ${runs.map((run) => run.rounds.join(' ')).join(' | ')}`,
    `  querygate's warm runs during each round's replay load: ${runs.map((run) => run.warmRuns.join(' ')).join(' | ')}`,
    `  a second bare POST beside the first, the same rounds (the noise floor): ${runs.map((run) => `${run.control.serving}; ${run.control.cpu}`).join(', ')}`,
    `  load average at each run's start-end: ${runs.map((run) => run.load.join('-')).join(', ')}`,
  ];
}
