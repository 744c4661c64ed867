import type { ChildProcess } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runQueriesCheck, runQueriesLock } from '../../src/cli/queries-commands.js';
import { callEveryOperation, openApiProblems } from '../helpers/openapi-check.js';
import { serveExamplesCopy, stopChild } from '../helpers/querygate-child.js';

// A user's own queries directory, served by the real CLI in a child process: a copy of
// examples/queries in a temporary directory, changed on disk and reloaded with SIGHUP.

const apiKey = 'own-queries-test-key-0123456789';
let dir: string;
let queries: string;
let server: ChildProcess;
let url: string;
let output = '';

/** Resolves once the server's output (stdout and log) has a line matching `pattern` after `from`. */
async function outputLine(pattern: RegExp, from: number): Promise<string> {
  for (let waited = 0; waited < 20_000; waited += 50) {
    const line = output
      .slice(from)
      .split('\n')
      .find((candidate) => pattern.test(candidate));
    if (line !== undefined) return line;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`no output line matched ${pattern}; output was:\n${output.slice(from)}`);
}

/** Sends SIGHUP and waits for the log line of the reload's outcome. */
async function reload(): Promise<Record<string, unknown>> {
  const from = output.length;
  server.kill('SIGHUP');
  return JSON.parse(await outputLine(/"msg":"(reloaded|reload refused)/, from)) as Record<string, unknown>;
}

async function get(path: string, params: Record<string, string> = {}) {
  const target = new URL(path, url);
  for (const [name, value] of Object.entries(params)) target.searchParams.set(name, value);
  const response = await fetch(target, { headers: { 'x-api-key': apiKey } });
  const text = await response.text();
  return { status: response.status, body: JSON.parse(text) as unknown };
}

async function graphql(query: string) {
  const response = await fetch(new URL('/graphql', url), {
    method: 'POST',
    headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
    body: JSON.stringify({ query }),
  });
  return (await response.json()) as { data?: Record<string, unknown>; errors?: Array<{ message: string }> };
}

async function ingest(source: string, events: readonly unknown[]) {
  const response = await fetch(new URL(`/api/logs?source_name=${source}`, url), {
    method: 'POST',
    headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
    body: JSON.stringify({ batch: events }),
  });
  expect(response.status, await response.text()).toBe(200);
}

/** `querygate queries <command> --queries <dir>`, in this process; its lines and whether it passed. */
async function queriesCommand(command: 'check' | 'lock') {
  const lines: string[] = [];
  const run = command === 'check' ? runQueriesCheck : runQueriesLock;
  const ok = await run({ queriesDir: queries, print: (line) => lines.push(line) });
  return { ok, stdout: lines.join('\n') };
}

// --- the fixture, and what the endpoints must answer for it, worked out here ---------------------

const now = Date.now();
const since = new Date(now - 2 * 3600_000).toISOString();
const at = (minutesAgo: number) => new Date(now - minutesAgo * 60_000).toISOString();

const edgeRequests = [
  { path: '/rest/v1/todos', status: 200, minutesAgo: 10 },
  { path: '/rest/v1/todos', status: 503, minutesAgo: 11 },
  { path: '/rest/v1/todos', status: 500, minutesAgo: 12 },
  { path: '/auth/v1/token', status: 401, minutesAgo: 13 },
  { path: '/auth/v1/token', status: 200, minutesAgo: 14 },
  { path: '/storage/v1/object', status: 502, minutesAgo: 15 },
  // Before `since`: not counted.
  { path: '/rest/v1/todos', status: 500, minutesAgo: 200 },
];

const checkoutEvents = [
  { order_id: 'o1', amount_cents: 1200, status: 'paid', minutesAgo: 5 },
  { order_id: 'o2', amount_cents: 300, status: 'pending', minutesAgo: 6 },
  { order_id: 'o3', amount_cents: 4500, status: 'paid', minutesAgo: 7 },
  { order_id: 'o4', amount_cents: 999, status: 'refunded', minutesAgo: 8 },
];

/** edge.error-rate by its definition: per path since `since`, errors at or above `minStatus`. */
function expectedErrorRate(minStatus: number) {
  const byPath = new Map<string, { requests: number; errors: number }>();
  for (const request of edgeRequests.filter((r) => r.minutesAgo < 120)) {
    const counts = byPath.get(request.path) ?? { requests: 0, errors: 0 };
    counts.requests += 1;
    if (request.status >= minStatus) counts.errors += 1;
    byPath.set(request.path, counts);
  }
  return [...byPath]
    .map(([path, { requests, errors }]) => ({ path, requests, errors, error_rate: errors / requests }))
    .sort((a, b) => b.error_rate - a.error_rate || (a.path < b.path ? -1 : 1));
}

beforeAll(async () => {
  ({
    dir,
    queries,
    child: server,
  } = serveExamplesCopy({
    apiKey,
    onOutput: (text) => {
      output += text;
    },
  }));
  const listening = await outputLine(/querygate is listening on /, 0);
  url = /listening on (http:\/\/[^ ]+)/.exec(listening)?.[1] as string;
  await ingest(
    'cloudflare.logs.prod',
    edgeRequests.map((request, i) => ({
      id: `edge-${i}`,
      timestamp: at(request.minutesAgo),
      event_message: `GET ${request.path} ${request.status}`,
      project: 'shop',
      metadata: {
        request: { url: `https://shop.example${request.path}`, path: request.path, method: 'GET', host: 'h' },
        response: { status_code: request.status, origin_time: 3 },
      },
    })),
  );
  await ingest(
    'checkout.events',
    checkoutEvents.map((event) => ({
      timestamp: at(event.minutesAgo),
      event_message: `${event.order_id} ${event.status}`,
      project: 'shop',
      metadata: { order_id: event.order_id, amount_cents: event.amount_cents, status: event.status },
    })),
  );
});

afterAll(async () => {
  await stopChild(server);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe("a user's own queries directory", () => {
  it('answers the error-rate endpoint over REST with typed parameters bound as their types', async () => {
    const response = await get('/api/endpoints/edge.error-rate', {
      project: 'shop',
      since,
      min_status: '500',
    });
    expect(response).toEqual({ status: 200, body: { result: expectedErrorRate(500) } });
    // `+0400` is the integer 400: the same query, counted with the lower threshold.
    const lower = await get('/api/endpoints/edge.error-rate', {
      project: 'shop',
      since,
      min_status: '+0400',
    });
    expect(lower.body).toEqual({ result: expectedErrorRate(400) });
  });

  it('answers 400 naming the parameter when a typed value does not parse', async () => {
    const integer = await get('/api/endpoints/edge.error-rate', {
      project: 'shop',
      since,
      min_status: 'five',
    });
    expect(integer.status).toBe(400);
    expect(JSON.stringify(integer.body)).toContain("Parameter 'min_status' must be a whole number");
    const timestamp = await get('/api/endpoints/edge.error-rate', {
      project: 'shop',
      since: 'yesterday',
      min_status: '500',
    });
    expect(timestamp.status).toBe(400);
    expect(JSON.stringify(timestamp.body)).toContain("Parameter 'since' must be an ISO 8601 timestamp");
  });

  it('ingests into and queries a source the directory declares itself', async () => {
    const response = await get('/api/endpoints/checkout.orders', { project: 'shop', status: 'paid' });
    expect(response.status).toBe(200);
    const rows = (response.body as { result: Array<Record<string, unknown>> }).result;
    const paid = checkoutEvents
      .filter((event) => event.status === 'paid')
      .sort((a, b) => a.minutesAgo - b.minutesAgo);
    expect(rows.map(({ order_id, status, amount_cents }) => ({ order_id, status, amount_cents }))).toEqual(
      paid.map(({ order_id, status, amount_cents }) => ({ order_id, status, amount_cents })),
    );
    const big = await get('/api/endpoints/checkout.orders', { project: 'shop', min_amount_cents: '1000' });
    expect(
      (big.body as { result: Array<{ order_id: string }> }).result.map((row) => row.order_id).sort(),
    ).toEqual(['o1', 'o3']);
  });

  it('serves each endpoint as a typed GraphQL field with typed arguments', async () => {
    const types = await graphql(`{
      edge: __type(name: "EdgeQueries") { fields { name args { name type { kind name ofType { name } } } } }
      checkout: __type(name: "CheckoutQueries") { fields { name args { name type { kind name ofType { name } } } } }
    }`);
    const signature = (type: unknown) =>
      (
        type as {
          fields: Array<{ name: string; args: Array<{ name: string; type: Record<string, unknown> }> }>;
        }
      ).fields.map((field) => ({
        field: field.name,
        args: field.args.map((arg) =>
          arg.type.kind === 'NON_NULL'
            ? `${arg.name}: ${(arg.type.ofType as { name: string }).name}!`
            : `${arg.name}: ${arg.type.name}`,
        ),
      }));
    // Each endpoint also has its page field (rows, rowCount, truncated), with the same arguments.
    const errorRateArgs = ['project: String!', 'since: DateTime!', 'minStatus: Int!'];
    expect(signature(types.data?.edge)).toEqual([
      { field: 'errorRate', args: errorRateArgs },
      { field: 'errorRatePage', args: errorRateArgs },
    ]);
    const ordersArgs = ['project: String!', 'status: CheckoutStatus', 'minAmountCents: Int'];
    expect(signature(types.data?.checkout)).toEqual([
      { field: 'orders', args: ordersArgs },
      { field: 'ordersPage', args: ordersArgs },
    ]);
    const answer = await graphql(`{
      edge { errorRate(project: "shop", since: "${since}", minStatus: 500) { path requests errors errorRate } }
      checkout { orders(project: "shop", status: PAID) { orderId amountCents status } }
    }`);
    expect(answer.errors).toBeUndefined();
    expect(answer.data).toEqual({
      edge: {
        errorRate: expectedErrorRate(500).map(({ path, requests, errors, error_rate }) => ({
          path,
          requests,
          errors,
          errorRate: error_rate,
        })),
      },
      checkout: {
        orders: [
          // An INT64 column not declared 32-bit is BigInt: its exact decimal text.
          { orderId: 'o1', amountCents: '1200', status: 'paid' },
          { orderId: 'o3', amountCents: '4500', status: 'paid' },
        ],
      },
    });
  });

  it('publishes /openapi.json that a real OpenAPI 3.1 validator accepts and every response matches', async () => {
    const { status, body } = await get('/openapi.json');
    expect(status).toBe(200);
    expect(await openApiProblems(structuredClone(body))).toEqual([]);
    const { called, problems } = await callEveryOperation(body, get);
    expect(called.sort()).toEqual([
      'checkoutOrders',
      'checkoutOrdersById',
      'edgeErrorRate',
      'edgeErrorRateById',
    ]);
    expect(problems).toEqual([]);
  });

  it('adds an endpoint on SIGHUP to REST, GraphQL and OpenAPI together', async () => {
    const listed = async () => {
      const endpoints = (await graphql('{ endpoints { name } }')).data?.endpoints as
        | Array<{ name: string }>
        | undefined;
      return (endpoints ?? []).map((endpoint) => endpoint.name);
    };
    // Asked twice, so the answer is kept for replay: a reload must not leave it answering.
    await listed();
    expect(await listed()).not.toContain('edge.requests');
    writeFileSync(
      join(queries, 'edge.requests.sql'),
      'select count(*) as requests from `cloudflare.logs.prod` as t where t.project = @project',
    );
    writeFileSync(
      join(queries, 'edge.requests.yaml'),
      [
        'name: edge.requests',
        'id: 5e8a1c2d-3b4f-4a6e-9c7d-1f2e3d4c5b6a',
        'description: How many edge requests a project has.',
        'maxRows: 1',
        'cacheSeconds: 0',
        'warmSeconds: null',
        'sandboxed: false',
        'parameters:',
        '  - { name: project, required: true, description: The project. }',
        'columns:',
        '  requests: { description: The count., nullable: false }',
        'examples:',
        '  - { project: shop }',
      ].join('\n'),
    );
    const outcome = await reload();
    expect(outcome).toMatchObject({
      msg: expect.stringContaining('now serving version 2'),
      added: ['edge.requests'],
    });
    expect(await get('/api/endpoints/edge.requests', { project: 'shop' })).toEqual({
      status: 200,
      body: { result: [{ requests: edgeRequests.length }] },
    });
    expect((await graphql('{ edge { requests(project: "shop") { requests } } }')).data).toEqual({
      edge: { requests: [{ requests: String(edgeRequests.length) }] },
    });
    expect(await listed()).toContain('edge.requests');
    const document = (await get('/openapi.json')).body as { paths: Record<string, unknown> };
    expect(Object.keys(document.paths)).toContain('/api/endpoints/edge.requests');
  });

  it('keeps serving the old set when a reloaded endpoint is broken, and says why', async () => {
    writeFileSync(
      join(queries, 'edge.requests.sql'),
      'select count(*) as requests from `cloudflare.logs.prod` as t where t.project = @project and t.id = @id',
    );
    const outcome = await reload();
    expect(outcome.msg).toBe('reload refused; still serving version 2');
    expect(JSON.stringify(outcome.problems)).toContain(
      'the SQL uses @id, which the contract does not declare',
    );
    expect((await get('/api/endpoints/edge.requests', { project: 'shop' })).status).toBe(200);
    expect(((await get('/openapi.json')).body as { info: { version: string } }).info.version).toBe(
      'queries-2',
    );
    // /health still answers 200 (the old set serves) but says the reload was refused, and why.
    const health = await fetch(new URL('/health', url));
    expect(health.status).toBe(200);
    expect(await health.json()).toMatchObject({
      status: 'degraded',
      conditions: [
        {
          kind: 'reload-refused',
          version: 2,
          problems: [expect.stringContaining('the SQL uses @id, which the contract does not declare')],
        },
      ],
    });
    // Mended again for what follows.
    writeFileSync(
      join(queries, 'edge.requests.sql'),
      'select count(*) as requests from `cloudflare.logs.prod` as t where t.project = @project',
    );
  });

  it('says ok on /health again once a reload succeeds', async () => {
    expect((await reload()).msg).toMatch(/^reloaded .*: now serving version 3$/);
    const health = await fetch(new URL('/health', url));
    expect(health.status).toBe(200);
    expect(await health.json()).toEqual({ status: 'ok', engine: 'duckdb' });
  });

  it('refuses a changed column until `queries lock` accepts it', async () => {
    const sqlFile = join(queries, 'edge.error-rate.sql');
    const contractFile = join(queries, 'edge.error-rate.yaml');
    writeFileSync(sqlFile, readFileSync(sqlFile, 'utf8').replace('as errors,', 'as failures,'));
    writeFileSync(contractFile, readFileSync(contractFile, 'utf8').replace('  errors: {', '  failures: {'));
    const refused = await reload();
    expect(refused.msg).toMatch(/^reload refused/);
    expect(JSON.stringify(refused.problems)).toContain(
      'differs from its lock (accept it with querygate queries lock): column errors is gone; column failures (INT64) is new',
    );
    const check = await queriesCommand('check');
    expect(check.ok).toBe(false);
    expect(check.stdout).toContain(
      `✗ ${join(queries, 'edge.error-rate.lock.json')}: the result of edge.error-rate differs`,
    );
    expect(
      (
        (await get('/api/endpoints/edge.error-rate', { project: 'shop', since, min_status: '500' })).body as {
          result: Array<Record<string, unknown>>;
        }
      ).result[0],
    ).toHaveProperty('errors');

    const locked = await queriesCommand('lock');
    expect(locked.ok).toBe(true);
    const accepted = await reload();
    expect(accepted).toMatchObject({ changed: ['edge.error-rate'] });
    const rows = (await get('/api/endpoints/edge.error-rate', { project: 'shop', since, min_status: '500' }))
      .body as {
      result: Array<Record<string, unknown>>;
    };
    expect(rows.result).toEqual(
      expectedErrorRate(500).map(({ path, requests, errors, error_rate }) => ({
        path,
        requests,
        failures: errors,
        error_rate,
      })),
    );
    const answer = await graphql(
      `{ edge { errorRate(project: "shop", since: "${since}", minStatus: 500) { failures } } }`,
    );
    expect(answer.errors).toBeUndefined();
  });

  it('refuses a reload that changes sources.yaml, with a log line asking for a restart', async () => {
    const sourcesFile = join(queries, 'sources.yaml');
    const sources = readFileSync(sourcesFile, 'utf8');
    writeFileSync(
      sourcesFile,
      `${sources.trimEnd()}\n  - name: shop.audit\n    id: 9b2e4c6a-8d1f-4e3a-b5c7-2a4f6e8d0c1b\n    description: Audit trail of a shop\n    hasProject: true\n    metadata: { actor: STRING }\n`,
    );
    try {
      const before = ((await get('/openapi.json')).body as { info: { version: string } }).info.version;
      const refused = await reload();
      expect(refused.msg, JSON.stringify(refused.problems)).toMatch(
        /^reload refused: sources\.yaml changed, which needs a restart; still serving/,
      );
      expect(refused.problems).toEqual([
        `${sourcesFile}: source shop.audit is new: sources apply only at start, so restart querygate to serve this directory`,
      ]);
      expect(((await get('/openapi.json')).body as { info: { version: string } }).info.version).toBe(before);
      // /health names the file relative to the directory: no path of the host.
      const health = (await (await fetch(new URL('/health', url))).json()) as Record<string, unknown>;
      expect(health).toMatchObject({ status: 'degraded', conditions: [{ kind: 'reload-refused' }] });
      expect(health.conditions).toMatchObject([
        {
          problems: [
            'sources.yaml: source shop.audit is new: sources apply only at start, so restart querygate to serve this directory',
          ],
        },
      ]);
      expect(JSON.stringify(health)).not.toContain(dir);
      expect((await get('/api/endpoints/checkout.orders', { project: 'shop' })).status).toBe(200);
    } finally {
      writeFileSync(sourcesFile, sources);
    }
  });
});
