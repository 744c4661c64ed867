import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { QuerygateError } from '../../src/errors.js';
import { compiledOperationsOf } from '../../src/graphql/compiled-operations.js';
import type { Querygate } from '../../src/server.js';
import { projects } from '../fixtures/spec-fixture.js';
import { type CountedQuerygate, startCountedQuerygate } from '../helpers/counted-querygate.js';
import type { CountingEngine } from '../helpers/counting-engine.js';
import type { ManualTime } from '../helpers/manual-time.js';
import { byName, testApiKey } from '../helpers/querygate-server.js';

/**
 * The face answers a document yoga has accepted once from a compiled plan, without yoga's
 * request pipeline. Yoga answers the first request of each document; the same request again
 * takes the fast path, and its status, headers and bytes must be yoga's.
 */

let app: Querygate;
let engine: CountingEngine;
let time: ManualTime;
let server: CountedQuerygate | undefined;

beforeAll(async () => {
  server = await startCountedQuerygate();
  ({ app, engine, time } = server);
});

afterAll(async () => {
  await server?.close();
});

interface Sent {
  readonly status: number;
  readonly headers: Record<string, string>;
  readonly text: string;
}

// Framing and the clock, which differ between any two responses.
const perResponse = new Set(['date', 'connection', 'keep-alive']);

async function send(body: unknown, accept?: string): Promise<Sent> {
  const response = await fetch(new URL('/graphql', app.url), {
    method: 'POST',
    headers: {
      'x-api-key': testApiKey,
      'content-type': 'application/json',
      ...(accept ? { accept } : {}),
    },
    body: JSON.stringify(body),
  });
  const headers: Record<string, string> = {};
  response.headers.forEach((value, name) => {
    if (!perResponse.has(name)) headers[name] = value;
  });
  return { status: response.status, headers, text: await response.text() };
}

const operations = () => compiledOperationsOf(app.registry);

/** Operations the fast path answered: run compiled, or spliced from kept encodings. */
const fastAnswers = () => operations().runs + operations().splices;

/** Sends the request twice: yoga answers the first, the fast path the second. */
async function viaYogaThenFast(body: unknown, accept?: string) {
  const before = fastAnswers();
  const yoga = await send(body, accept);
  expect(fastAnswers()).toBe(before);
  const fast = await send(body, accept);
  expect(fastAnswers()).toBe(before + 1);
  return { yoga, fast };
}

const statsQuery = /* GraphQL */ `query Stats($project: String!) {
  functions { invocationStats(project: $project, interval: ONE_DAY) { timestamp count errorCount } }
}`;

describe('the fast path answers as yoga does', () => {
  it('for a successful operation with DateTime results', async () => {
    const { yoga, fast } = await viaYogaThenFast({
      query: statsQuery,
      variables: { project: projects.alpha },
      operationName: 'Stats',
    });
    expect(yoga.status).toBe(200);
    const rows = JSON.parse(yoga.text).data.functions.invocationStats as Array<{ timestamp: string }>;
    expect(rows.length).toBeGreaterThan(0);
    expect(rows[0]?.timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/);
    expect(fast).toEqual(yoga);
  });

  it('for a DateTime variable, normalised as the scalar does', async () => {
    const query = /* GraphQL */ `query Recent($project: String!, $since: DateTime) {
      logs { all(project: $project, projectTier: FREE, isoTimestampStart: $since) { id timestamp } }
    }`;
    const { yoga, fast } = await viaYogaThenFast({
      query,
      variables: { project: projects.beta, since: '2020-01-01T00:00:00.1234567+00:00' },
    });
    expect(yoga.status).toBe(200);
    expect(JSON.parse(yoga.text)).not.toHaveProperty('errors');
    expect(fast).toEqual(yoga);
  });

  it('for an unexpected field error, masked, with the failing endpoint field null and its sibling answered', async () => {
    const query = /* GraphQL */ `{
      a: usage { apiCounts(project: "${projects.gamma}", interval: MINUTELY) { totalRestRequests } }
      b: endpoints { name }
    }`;
    const runs = operations().runs;
    engine.failNext(1, new Error('disk /var/lib/secret failed'));
    const yoga = await send({ query });
    engine.failNext(1, new Error('disk /var/lib/secret failed'));
    const fast = await send({ query });
    expect(operations().runs).toBe(runs + 1);
    const body = JSON.parse(yoga.text);
    // Endpoint fields are nullable (issue 19): the failing one is null, the sibling still answers.
    expect(body.data.a).toEqual({ apiCounts: null });
    expect(body.data.b.map((endpoint: { name: string }) => endpoint.name)).toContain('usage.api-counts');
    expect(body.errors).toHaveLength(1);
    expect(body.errors[0].extensions.code).toBe('INTERNAL');
    expect(yoga.text).not.toContain('secret');
    expect(fast).toEqual(yoga);
  });

  it('for ENGINE_BUSY, with its Retry-After header', async () => {
    const query = /* GraphQL */ `{ usage { apiCounts(project: "${projects.beta}", interval: MINUTELY) { totalAuthRequests } } }`;
    const busy = () =>
      new QuerygateError('ENGINE_BUSY', 'The engine is busy; retry later', {
        details: { retryAfterSeconds: 7 },
      });
    const runs = operations().runs;
    engine.failNext(1, busy());
    const yoga = await send({ query }, 'application/graphql-response+json');
    engine.failNext(1, busy());
    const fast = await send({ query }, 'application/graphql-response+json');
    expect(operations().runs).toBe(runs + 1);
    expect(yoga.headers['retry-after']).toBe('7');
    expect(yoga.headers['content-type']).toBe('application/graphql-response+json; charset=utf-8');
    expect(JSON.parse(yoga.text).errors[0].extensions.code).toBe('ENGINE_BUSY');
    expect(fast).toEqual(yoga);
  });

  it('for variables that cannot be coerced, refused by yoga both times', async () => {
    const runs = operations().runs;
    const bad = { query: statsQuery, variables: { project: 42 } };
    const first = await send(bad);
    const second = await send(bad);
    expect(first.status).toBe(400);
    expect(JSON.parse(first.text).errors[0].extensions.code).toBe('BAD_PARAMETER');
    expect(second).toEqual(first);
    expect(operations().runs).toBe(runs);
  });
});

describe('splicing the kept JSON of endpoint fields', () => {
  it('writes the bytes execution writes, for aliases, JSON metadata and two namespaces', async () => {
    const query = /* GraphQL */ `query Both($project: String!) {
      recent: logs { all(project: $project, projectTier: FREE) { key: id eventMessage metadata timestamp } }
      functions {
        day: invocationStats(project: $project, interval: ONE_DAY) { count timestamp }
        hour: invocationStats(project: $project, interval: ONE_HOUR) { errorCount }
      }
    }`;
    const body = { query, variables: { project: projects.beta } };
    const splices = operations().splices;
    const { yoga, fast } = await viaYogaThenFast(body);
    expect(operations().splices).toBe(splices + 1);
    const data = JSON.parse(yoga.text).data;
    expect(data.recent.all.length).toBeGreaterThan(0);
    expect(data.recent.all[0]).toHaveProperty('metadata');
    expect(fast).toEqual(yoga);
  });

  it('writes the bytes execution writes for fragments, inline fragments and a leaf asked twice', async () => {
    const query = /* GraphQL */ `query Fragments($project: String!) {
      functions {
        invocationStats(project: $project, interval: ONE_DAY) { count ...Bucket ... on InvocationStatsBucket { errorCount count } }
        ... { hour: invocationStats(project: $project, interval: ONE_HOUR) { ...Bucket } }
      }
    }
    fragment Bucket on InvocationStatsBucket { timestamp count }`;
    const body = { query, variables: { project: projects.beta, ignored: 'x' } };
    const splices = operations().splices;
    const { yoga, fast } = await viaYogaThenFast(body);
    expect(operations().splices).toBe(splices + 1);
    const data = JSON.parse(yoga.text).data;
    expect(Object.keys(data.functions)).toEqual(['invocationStats', 'hour']);
    expect(Object.keys(data.functions.invocationStats[0])).toEqual(['count', 'timestamp', 'errorCount']);
    expect(fast).toEqual(yoga);
  });

  it('leaves a selection with __typename to compiled execution, with the same bytes', async () => {
    const query = /* GraphQL */ `query Typed($project: String!) {
      functions { invocationStats(project: $project, interval: ONE_DAY) { __typename count } }
    }`;
    const body = { query, variables: { project: projects.alpha } };
    const splices = operations().splices;
    const { yoga, fast } = await viaYogaThenFast(body);
    expect(operations().splices).toBe(splices);
    expect(fast).toEqual(yoga);
  });
});

describe('compiling', () => {
  it('compiles a document once, whatever variables it is sent with', async () => {
    const query = /* GraphQL */ `query Hourly($project: String!) {
      functions { invocationStats(project: $project, interval: ONE_HOUR) { timestamp count } }
    }`;
    const compilations = operations().compilations;
    for (let request = 0; request < 4; request++) {
      const answer = await send({ query, variables: { project: projects.alpha, request } });
      expect(answer.status).toBe(200);
    }
    expect(operations().compilations).toBe(compilations + 1);
  });

  it('compiles an operation of a document once per operation name', async () => {
    const query = /* GraphQL */ `
      query One { endpoints { name } }
      query Two { endpoints { name cacheSeconds } }
    `;
    const compilations = operations().compilations;
    for (const operationName of ['One', 'Two', 'One', 'Two']) {
      expect((await send({ query, operationName })).status).toBe(200);
    }
    expect(operations().compilations).toBe(compilations + 2);
  });
});

describe('values of the declared variables answered before', () => {
  const twiceQuery = /* GraphQL */ `query Twice($project: String!, $interval: InvocationInterval!) {
    functions {
      a: invocationStats(project: $project, interval: $interval) { count }
      b: invocationStats(project: $project, interval: $interval) { timestamp count }
    }
  }`;

  it('are answered with the bytes yoga writes, whatever undeclared variables change, one hit per distinct call', async () => {
    const variables = (request: number) => ({ project: projects.beta, interval: 'ONE_DAY', request });
    const { yoga, fast } = await viaYogaThenFast({ query: twiceQuery, variables: variables(0) });
    expect(yoga.status).toBe(200);
    expect(JSON.parse(yoga.text).data.functions.a.length).toBeGreaterThan(0);
    const runs = engine.calls.length;
    const hits = app.resolver.stats().hits;
    for (let request = 1; request <= 3; request++)
      expect(await send({ query: twiceQuery, variables: variables(request) })).toEqual(fast);
    expect(fast).toEqual(yoga);
    // Two aliases of one call: one call, as the operation's loader runs it.
    expect(app.resolver.stats().hits - hits).toBe(3);
    expect(engine.calls.length).toBe(runs);
  });

  it('keep a request answered from them twice for replay, as the route would', async () => {
    const query = /* GraphQL */ `query Kept($project: String!) {
      functions { invocationStats(project: $project, interval: ONE_DAY) { timestamp count } }
    }`;
    const body = (request: number) => ({ query, variables: { project: projects.beta, request } });
    // Yoga, then the fast path (which remembers the calls), then the remembered calls.
    for (let request = 0; request < 3; request++) expect((await send(body(request))).status).toBe(200);
    const splices = operations().splices;
    const remembered = await send(body(3));
    const again = await send(body(3));
    expect(operations().splices).toBe(splices + 2);
    // Seen twice: replayed now, not spliced again.
    const replayed = await send(body(3));
    expect(operations().splices).toBe(splices + 2);
    expect(again).toEqual(remembered);
    expect(replayed).toEqual(remembered);
  });

  it('are told apart from values of another JSON type, which graphql-js refuses as before', async () => {
    const query = /* GraphQL */ `query Named($project: String!) {
      functions { invocationStats(project: $project, interval: ONE_DAY) { count } }
    }`;
    for (let request = 0; request < 3; request++)
      expect((await send({ query, variables: { project: '42', request } })).status).toBe(200);
    const refused = await send({ query, variables: { project: 42 } });
    expect(refused.status).toBe(400);
    expect(JSON.parse(refused.text).errors[0].message).toBe(
      'Variable "$project" got invalid value 42; String cannot represent a non string value: 42',
    );
  });

  it('give way to the result a REST no-cache call computed after new records arrived', async () => {
    // A project of its own, so the records it adds change no other test's expectations.
    const project = 'remembered-ref';
    const record = (id: string) => ({
      id,
      timestamp: new Date(time.now().getTime() - 5 * 60_000).toISOString(),
      event_message: 'GET /rest/v1/items',
      project,
      metadata: { request: { url: `https://${project}.supabase.co/rest/v1/items`, path: '/rest/v1/items' } },
    });
    const ingest = async (id: string) => {
      const response = await fetch(
        new URL(`/api/logs?source_name=${encodeURIComponent('cloudflare.logs.prod')}`, app.url),
        {
          method: 'POST',
          headers: { 'x-api-key': testApiKey, 'content-type': 'application/json' },
          body: JSON.stringify({ batch: [record(id)] }),
        },
      );
      expect(response.status).toBe(200);
    };
    const query = /* GraphQL */ `query Daily($project: String!) {
      usage { apiCounts(project: $project, interval: DAILY) { totalRestRequests } }
    }`;
    let request = 0;
    const totals = async () =>
      JSON.parse((await send({ query, variables: { project, request: request++ } })).text).data.usage
        .apiCounts;

    await ingest('remembered-1');
    for (let i = 0; i < 3; i++) expect(await totals()).toEqual([{ totalRestRequests: 1 }]);
    await ingest('remembered-2');
    // Cached for 900 s, as the spec says: the remembered calls still answer with the entry's result.
    expect(await totals()).toEqual([{ totalRestRequests: 1 }]);
    const refreshed = await fetch(
      new URL(`${byName('usage.api-counts')}?project=${project}&interval=daily`, app.url),
      { headers: { 'x-api-key': testApiKey, 'cache-control': 'no-cache' } },
    );
    expect(refreshed.status).toBe(200);
    expect(await totals()).toEqual([{ totalRestRequests: 2 }]);
    expect(await totals()).toEqual([{ totalRestRequests: 2 }]);
  });
});
