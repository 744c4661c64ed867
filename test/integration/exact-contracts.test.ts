import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { GraphQLClient } from 'graphql-request';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSources } from '../../src/endpoints/sources.js';
import { packageRoot } from '../../src/paths.js';
import type { Querygate } from '../../src/server.js';
import {
  type BigQueryHarness,
  startBigQueryHarness,
  startQuerygateOnBigQuery,
} from '../helpers/bigquery-harness.js';
import { type FixtureRecord, insertStatement } from '../helpers/log-fixture.js';
import {
  expectNoServerErrors,
  leaksInternals,
  type QuerygateUnderTest,
  startQuerygateUnderTest,
  testApiKey,
} from '../helpers/querygate-server.js';

// A team's own directory (a copy of examples/queries, whose sources.yaml says nothing of
// undeclared parameters, so they are refused) with one more endpoint, checkout.largest, whose
// parameters have defaults and a range, and whose SQL does `LIMIT @top`, multiplies by @scale and
// divides by @per: a value the engine refuses there is the caller's 400, on both engines.

const largestYaml = `name: checkout.largest
id: 6b1f0c2e-27a4-4c8e-9d10-4f2a7e5b3c27
description: The largest checkout events of a project.
maxRows: 100
cacheSeconds: 60
warmSeconds: null
sandboxed: false
parameters:
  - { name: project, required: true, description: Project whose checkout events are read. }
  - { name: top, required: false, type: integer, default: 3, description: "How many events, largest first." }
  - { name: scale, required: false, type: integer, default: 1, description: Each amount is multiplied by it. }
  - { name: per, required: false, type: integer, default: 1, description: Each amount is divided by it. }
  - name: min_cents
    required: false
    type: integer
    default: 0
    min: 0
    max: 1000000
    description: Only events of at least this amount.
columns:
  order_id: { description: The order. }
  scaled_cents: { description: The amount times scale. }
  per_cents: { description: The amount divided by per. }
`;

const largestSql = `select m.order_id, m.amount_cents * @scale as scaled_cents, div(m.amount_cents, @per) as per_cents
from \`checkout.events\` as t
cross join unnest(t.metadata) as m
where t.project = @project and m.amount_cents >= @min_cents
order by m.amount_cents desc, m.order_id
limit @top
`;

// A sandboxed endpoint: its caller's `sql` is no parameter, a misspelt parameter beside it is.
const paidYaml = `name: checkout.paid
id: 6b1f0c2e-27a4-4c8e-9d10-4f2a7e5b3c28
description: The paid checkout events of a project, for the caller's own SELECT.
maxRows: 100
cacheSeconds: 0
warmSeconds: null
sandboxed: true
parameters:
  - { name: project, required: true, description: Project whose checkout events are read. }
columns:
  order_id: { description: The order. }
`;

const paidSql = `with paid as (
  select m.order_id, m.amount_cents
  from \`checkout.events\` as t
  cross join unnest(t.metadata) as m
  where t.project = @project and m.status = 'paid'
)
select order_id from paid order by order_id
`;

// An endpoint whose SQL raises BigQuery's runtime errors where `check` asks, whatever the project:
// the query's own fault, which BigQuery answers 400 (reason invalidQuery), on both engines.
const checkedYaml = `name: checkout.checked
id: 6b1f0c2e-27a4-4c8e-9d10-4f2a7e5b3c29
description: The checkout events of a project, failing the check the caller names.
maxRows: 100
cacheSeconds: 0
warmSeconds: null
sandboxed: false
parameters:
  - { name: project, required: true, description: Project whose checkout events are read. }
  - { name: check, required: true, description: "The check that fails: error, divide, index, overflow, double, parse, pattern or none." }
columns:
  order_id: { description: The order. }
  checked: { description: The event's status where no check fails. }
`;

const checkedSql = `select m.order_id,
  case @check
    when 'error' then error(concat('no checkout for ', @project))
    when 'divide' then cast(div(m.amount_cents, m.amount_cents - m.amount_cents) as string)
    when 'index' then split(m.order_id, 'o')[offset(5)]
    when 'overflow' then cast((m.amount_cents - m.amount_cents + 2) * 9223372036854775807 as string)
    when 'double' then cast(cast(concat(substr(m.order_id, 1, 0), 'abc') as float64) as string)
    when 'parse' then cast(parse_date('%Y-%m-%d', concat(substr(m.order_id, 1, 0), 'nope')) as string)
    when 'pattern' then cast(regexp_contains(m.order_id, concat(substr(m.order_id, 1, 0), 'a**')) as string)
    else m.status
  end as checked
from \`checkout.events\` as t
cross join unnest(t.metadata) as m
where t.project = @project
`;

/**
 * Each check of checkout.checked and its message: ERROR's own, and ZetaSQL's words as the
 * translation raises them (BigQuery's division also names its operands: `division by zero: 1250 / 0`).
 */
const failedChecks = [
  ['error', 'no checkout for shop'],
  ['divide', 'division by zero'],
  ['index', 'Array index 5 is out of bounds (overflow)'],
  // An INT64 overflow of the data, which DuckDB reports in its own words, told in ZetaSQL's.
  ['overflow', 'int64 overflow: 2 * 9223372036854775807'],
  // Text of the data a CAST cannot read, which DuckDB reports in its own words, told in ZetaSQL's.
  ['double', 'Bad double value: abc'],
  // Text of the data PARSE_DATE's format does not read (ZetaSQL compliance testdata date.test), and
  // a pattern of the data RE2 cannot compile (regexp.cc puts RE2's error after its words).
  ['parse', 'Failed to parse input string "nope"'],
  ['pattern', 'Cannot parse regular expression: bad repetition operator: **'],
] as const;

/**
 * checkout.checked failing each check over REST and GraphQL: BigQuery's message under one code
 * and status on both faces, nothing of the server's (a stack, a path, the translation's mark).
 */
async function expectChecksRefused(url: string): Promise<void> {
  const client = new GraphQLClient(new URL('/graphql', url).href, { headers: { 'x-api-key': testApiKey } });
  for (const [check, words] of failedChecks) {
    const message = `checkout.checked stopped on an error of its SQL: ${words}`;
    const response = await fetch(
      new URL(`/api/endpoints/checkout.checked?project=shop&check=${check}`, url),
      {
        headers: { 'x-api-key': testApiKey },
      },
    );
    const text = await response.text();
    expect({ status: response.status, body: JSON.parse(text), leaks: leaksInternals(text) }).toEqual({
      status: 400,
      body: { error: { code: 'INVALID_QUERY', message } },
      leaks: false,
    });
    const graphql = await client
      .rawRequest(/* GraphQL */ `{ checkout { checked(project: "shop", check: "${check}") { orderId } } }`)
      .catch((error: { response: { errors: unknown } }) => error.response);
    expect(graphql.errors).toMatchObject([{ message, extensions: { code: 'INVALID_QUERY' } }]);
  }
}

const orders = [
  { order_id: 'o1', amount_cents: 1250, status: 'paid', project: 'shop', at: '2026-03-10T10:00:00Z' },
  { order_id: 'o2', amount_cents: 400, status: 'pending', project: 'shop', at: '2026-03-10T10:30:00Z' },
  { order_id: 'o3', amount_cents: 9900, status: 'paid', project: 'other', at: '2026-03-10T11:00:00Z' },
  { order_id: 'o4', amount_cents: 3000, status: 'paid', project: 'shop', at: '2026-03-10T11:30:00Z' },
  { order_id: 'o5', amount_cents: 800, status: 'paid', project: 'shop', at: '2026-03-10T11:45:00Z' },
] as const;

/** The order ids of project shop of at least `min` cents, largest first, at most `top`: from the fixture. */
const largestOf = (top: number, min = 0) =>
  orders
    .filter((order) => order.project === 'shop' && order.amount_cents >= min)
    .sort((a, b) => b.amount_cents - a.amount_cents)
    .slice(0, top)
    .map((order) => order.order_id);

/** A 400 BAD_PARAMETER with this message. */
function expectBadParameter(answer: { status: number; body: { error?: unknown } }, message: string): void {
  expect(answer.status).toBe(400);
  expect(answer.body.error).toMatchObject({ code: 'BAD_PARAMETER', message });
}

const dirs: string[] = [];
afterAll(() => {
  for (const dir of dirs) rmSync(dir, { recursive: true, force: true });
});

/** A copy of examples/queries with checkout.largest beside its endpoints. */
function ownDirectory(): string {
  const dir = mkdtempSync(join(tmpdir(), 'querygate-exact-'));
  dirs.push(dir);
  const queries = join(dir, 'queries');
  cpSync(join(packageRoot, 'examples/queries'), queries, { recursive: true });
  writeFileSync(join(queries, 'checkout.largest.yaml'), largestYaml);
  writeFileSync(join(queries, 'checkout.largest.sql'), largestSql);
  writeFileSync(join(queries, 'checkout.paid.yaml'), paidYaml);
  writeFileSync(join(queries, 'checkout.paid.sql'), paidSql);
  writeFileSync(join(queries, 'checkout.checked.yaml'), checkedYaml);
  writeFileSync(join(queries, 'checkout.checked.sql'), checkedSql);
  return queries;
}

interface Answer {
  readonly status: number;
  // biome-ignore lint/suspicious/noExplicitAny: response bodies are asserted on freely
  readonly body: any;
}

async function call(url: string, path: string, init: RequestInit = {}): Promise<Answer> {
  const response = await fetch(new URL(path, url), {
    ...init,
    headers: { 'x-api-key': testApiKey, 'content-type': 'application/json; charset=utf-8' },
  });
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

const ids = (answer: Answer) => (answer.body.result as { order_id: string }[]).map((row) => row.order_id);

describe('a team’s own directory on the embedded engine', () => {
  let service: QuerygateUnderTest;
  const get = (path: string, init?: RequestInit) => call(service.url, path, init);

  beforeAll(async () => {
    service = await startQuerygateUnderTest({
      now: new Date('2026-03-10T12:00:00Z'),
      environment: { QUERYGATE_QUERIES_DIR: ownDirectory() },
    });
    const ingested = await service.ingest(
      'checkout.events',
      orders.map((order) => ({
        timestamp: order.at,
        event_message: `order ${order.order_id} ${order.status}`,
        project: order.project,
        metadata: { order_id: order.order_id, amount_cents: order.amount_cents, status: order.status },
      })),
    );
    expect(ingested.status).toBe(200);
  });
  afterAll(async () => {
    await service?.close();
  });

  it('answers 400 naming a misspelt parameter and the one it most likely meant, instead of every row', async () => {
    expectBadParameter(
      await get('/api/endpoints/checkout.orders?project=shop&min_amout_cents=500'),
      'unknown parameter "min_amout_cents"; did you mean "min_amount_cents"?',
    );
    const spelt = await get('/api/endpoints/checkout.orders?project=shop&min_amount_cents=500');
    expect(spelt.status).toBe(200);
    expect(ids(spelt).sort()).toEqual(
      orders
        .filter((order) => order.project === 'shop' && order.amount_cents >= 500)
        .map((order) => order.order_id)
        .sort(),
    );
  });

  it('refuses an undeclared parameter in a POST body on Logflare’s path, and on a cached endpoint', async () => {
    const posted = await get('/api/endpoints/query/checkout.orders', {
      method: 'POST',
      body: JSON.stringify({ project: 'shop', stauts: 'paid' }),
    });
    expect(posted.status).toBe(400);
    expect(posted.body.error.message).toBe('unknown parameter "stauts"; did you mean "status"?');
    // checkout.largest is cached: a hit is answered before the router, and still refuses.
    expect((await get('/api/endpoints/checkout.largest?project=shop')).status).toBe(200);
    expect((await get('/api/endpoints/checkout.largest?project=shop')).status).toBe(200);
    const extra = await get('/api/endpoints/checkout.largest?project=shop&limit=2');
    expect(extra.status).toBe(400);
    expect(extra.body.error.message).toBe(
      'unknown parameter "limit"; checkout.largest takes project, top, scale, per, min_cents',
    );
  });

  it('takes sql on a sandboxed endpoint, refuses a misspelt parameter beside it on REST and GraphQL, and sql elsewhere', async () => {
    const paid = orders
      .filter((order) => order.project === 'shop' && order.status === 'paid')
      .map((order) => order.order_id)
      .sort();
    const sql = encodeURIComponent('select order_id from paid order by order_id');
    const answered = await get(`/api/endpoints/checkout.paid?project=shop&sql=${sql}`);
    expect(answered.status).toBe(200);
    expect(ids(answered)).toEqual(paid);
    const misspelt = await get(`/api/endpoints/checkout.paid?projet=shop&project=shop&sql=${sql}`);
    expect(misspelt.status).toBe(400);
    expect(misspelt.body.error.message).toBe('unknown parameter "projet"; did you mean "project"?');
    const client = new GraphQLClient(new URL('/graphql', service.url).href, {
      headers: { 'x-api-key': testApiKey },
    });
    const query = /* GraphQL */ `query ($params: JSON) {
      sandboxedQuery(endpoint: "checkout.paid", sql: "select order_id from paid", params: $params) { rows }
    }`;
    await expect(client.request(query, { params: { project: 'shop', projetc: 'shop' } })).rejects.toThrow(
      'unknown parameter "projetc"; did you mean "project"?',
    );
    const notSandboxed = await get(`/api/endpoints/checkout.largest?project=shop&sql=${sql}`);
    expect(notSandboxed.status).toBe(400);
    expect(notSandboxed.body.error.message).toBe(
      'unknown parameter "sql"; checkout.largest is not sandboxed, so it takes no sql',
    );
  });

  it('binds each default when the parameter is absent or empty, on REST and GraphQL alike', async () => {
    const absent = await get('/api/endpoints/checkout.largest?project=shop');
    const empty = await get('/api/endpoints/checkout.largest?project=shop&top=&min_cents=');
    expect(ids(absent)).toEqual(largestOf(3));
    expect(ids(empty)).toEqual(largestOf(3));
    expect((absent.body.result as { scaled_cents: number }[]).map((row) => row.scaled_cents)).toEqual(
      largestOf(3).map((id) => orders.find((order) => order.order_id === id)?.amount_cents),
    );
    const client = new GraphQLClient(new URL('/graphql', service.url).href, {
      headers: { 'x-api-key': testApiKey },
    });
    const data = await client.request<{ checkout: { largest: { orderId: string }[] } }>(
      /* GraphQL */ `{ checkout { largest(project: "shop") { orderId } } }`,
    );
    expect(data.checkout.largest.map((row) => row.orderId)).toEqual(largestOf(3));
  });

  it('refuses a value outside the declared range, naming the parameter and the range', async () => {
    const below = await get('/api/endpoints/checkout.largest?project=shop&min_cents=-5');
    expect(below.status).toBe(400);
    expect(below.body.error).toMatchObject({
      code: 'BAD_PARAMETER',
      message: "Parameter 'min_cents' must be from 0 to 1000000 (got '-5')",
    });
    const inside = await get('/api/endpoints/checkout.largest?project=shop&min_cents=1000&top=10');
    expect(ids(inside)).toEqual(largestOf(10, 1000));
  });

  it('shows defaults and ranges in OpenAPI and in GraphQL introspection', async () => {
    const document = (await get('/openapi.json')).body;
    const parameters = document.paths['/api/endpoints/checkout.largest'].get.parameters as {
      name: string;
      schema: Record<string, unknown>;
    }[];
    expect(parameters.find((parameter) => parameter.name === 'min_cents')?.schema).toEqual({
      type: 'integer',
      format: 'int64',
      minimum: 0,
      maximum: 1000000,
      default: 0,
    });
    expect(parameters.find((parameter) => parameter.name === 'top')?.schema).toEqual({
      type: 'integer',
      format: 'int64',
      default: 3,
    });
    const introspection = await get('/graphql', {
      method: 'POST',
      body: JSON.stringify({
        query: /* GraphQL */ `{ __type(name: "CheckoutQueries") { fields { name args { name defaultValue description } } } }`,
      }),
    });
    const namespaceType = introspection.body.data.__type;
    const largest = namespaceType.fields.find((field: { name: string }) => field.name === 'largest');
    expect(largest.args).toContainEqual({
      name: 'minCents',
      defaultValue: '0',
      description: 'Only events of at least this amount. From 0 to 1000000.',
    });
    const restList = (await get('/api/endpoints')).body.result.find(
      (endpoint: { name: string }) => endpoint.name === 'checkout.largest',
    );
    expect(restList.parameters).toContainEqual({
      name: 'min_cents',
      required: false,
      description: 'Only events of at least this amount.',
      format: 'text',
      default: 0,
      min: 0,
      max: 1000000,
    });
    const listed = await get('/graphql', {
      method: 'POST',
      body: JSON.stringify({
        query: /* GraphQL */ `{ endpoints { name parameters { name default min max } } }`,
      }),
    });
    const listedLargest = listed.body.data.endpoints.find(
      (endpoint: { name: string }) => endpoint.name === 'checkout.largest',
    );
    expect(listedLargest.parameters).toContainEqual({
      name: 'min_cents',
      default: '0',
      min: 0,
      max: 1000000,
    });
    expect(largest.args).toContainEqual({
      name: 'top',
      defaultValue: '3',
      description: 'How many events, largest first.',
    });
  });

  it('answers 400 naming the parameter when DuckDB refuses its value, in BigQuery’s words: a negative LIMIT, an INT64 overflow', async () => {
    const negative = await get('/api/endpoints/checkout.largest?project=shop&top=-1');
    expect(negative.status).toBe(400);
    expect(negative.body.error.code).toBe('BAD_PARAMETER');
    expect(negative.body.error.message).toBe(
      "Parameter 'top' is -1, which checkout.largest cannot run with: Limit requires non-negative count and offset",
    );
    // 1250 * (2^63 - 1) does not fit INT64.
    const overflow = await get('/api/endpoints/checkout.largest?project=shop&scale=9223372036854775807');
    expect(overflow.status).toBe(400);
    expect(overflow.body.error.message).toMatch(
      /^Parameter 'scale' is 9223372036854775807, which checkout.largest cannot run with: int64 overflow: \d+ \* 9223372036854775807$/,
    );
    expectNoServerErrors(service);
  });

  it('answers 400 naming the divisor for a division by a zero parameter, as BigQuery refuses it, and the quotients for others', async () => {
    // DuckDB's DIV (and /) by zero is NULL; BigQuery's is the error "division by zero".
    expectBadParameter(
      await get('/api/endpoints/checkout.largest?project=shop&per=0'),
      "Parameter 'per' is 0, which checkout.largest cannot run with: division by zero",
    );
    const seven = await get('/api/endpoints/checkout.largest?project=shop&per=7');
    expect(seven.status).toBe(200);
    // DIV truncates toward zero: from the fixture's amounts.
    expect((seven.body.result as { per_cents: number }[]).map((row) => row.per_cents)).toEqual(
      largestOf(3).map((id) =>
        Math.trunc((orders.find((order) => order.order_id === id)?.amount_cents ?? 0) / 7),
      ),
    );
    expectNoServerErrors(service);
  });

  it("answers 400 INVALID_QUERY with BigQuery's message for an error its SQL raises, on REST and GraphQL alike", async () => {
    await expectChecksRefused(service.url);
    const passed = await get('/api/endpoints/checkout.checked?project=shop&check=none');
    expect(passed.status).toBe(200);
    expectNoServerErrors(service);
  });
});

describe('the shipped directory, as Logflare', () => {
  it('ignores a parameter its endpoint does not declare', async () => {
    const service = await startQuerygateUnderTest({ now: new Date('2026-03-10T12:00:00Z') });
    try {
      const answer = await call(
        service.url,
        '/api/endpoints/usage.api-counts?project=default&interval=daily&projectRef=default&extra=1',
      );
      expect(answer.status).toBe(200);
    } finally {
      await service.close();
    }
  });
});

describe('a team’s own directory on BigQuery', () => {
  let harness: BigQueryHarness;
  let app: Querygate;
  const get = (path: string) => call(app.url, path);

  beforeAll(async () => {
    const queriesDir = ownDirectory();
    const sources = readSources(queriesDir);
    const now = new Date('2026-03-10T12:00:00Z');
    harness = await startBigQueryHarness({ now: () => now, sources });
    const records: FixtureRecord[] = orders.map((order) => ({
      id: order.order_id,
      timestamp: order.at.replace('T', ' ').replace('Z', ''),
      event_message: `order ${order.order_id} ${order.status}`,
      project: order.project,
      metadata: { order_id: order.order_id, amount_cents: order.amount_cents, status: order.status },
    }));
    await harness.store.duckdb(insertStatement('checkout.events', records, sources));
    app = await startQuerygateOnBigQuery(harness, { now: () => now, queriesDir });
  });
  afterAll(async () => {
    await app?.close();
    await harness?.close();
  });

  it('answers the defaults as on the embedded engine', async () => {
    expect(ids(await get('/api/endpoints/checkout.largest?project=shop'))).toEqual(largestOf(3));
  });

  it('answers 400 naming the parameter for BigQuery’s negative LIMIT and INT64 overflow', async () => {
    const negative = await get('/api/endpoints/checkout.largest?project=shop&top=-1');
    expect(negative.status).toBe(400);
    expect(negative.body.error.message).toBe(
      "Parameter 'top' is -1, which checkout.largest cannot run with: Limit requires non-negative count and offset",
    );
    const overflow = await get('/api/endpoints/checkout.largest?project=shop&scale=9223372036854775807');
    expect(overflow.status).toBe(400);
    expect(overflow.body.error.message).toMatch(
      /^Parameter 'scale' is 9223372036854775807, which checkout.largest cannot run with: int64 overflow: \d+ \* 9223372036854775807$/,
    );
  });

  it("answers 400 INVALID_QUERY with BigQuery's message for an error its SQL raises, as the embedded engine does", async () => {
    await expectChecksRefused(app.url);
  });

  it('answers 400 naming the divisor for BigQuery’s division by zero', async () => {
    // DuckDB answers NULL where BigQuery refuses to divide by zero, so the fake is told to refuse.
    harness.fake.inject({
      api: 'jobs.insert',
      status: 400,
      reason: 'invalidQuery',
      message: 'division by zero: 3000 / 0',
    });
    const zero = await get('/api/endpoints/checkout.largest?project=shop&per=0&min_cents=0');
    expect(zero.status).toBe(400);
    expect(zero.body.error).toMatchObject({
      code: 'BAD_PARAMETER',
      message: "Parameter 'per' is 0, which checkout.largest cannot run with: division by zero: 3000 / 0",
    });
  });
});
