import { Writable } from 'node:stream';
import { pino } from 'pino';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { QuerygateError } from '../../src/errors.js';
import { createGraphQLContext } from '../../src/graphql/context.js';
import { createQuerygateYoga } from '../../src/graphql/yoga.js';
import { createResolver, type Resolver } from '../../src/resolve/resolver.js';
import { type CountingEngine, createCountingEngine } from '../helpers/counting-engine.js';
import { createEndpointEngine, type EndpointEngine, endpointNamed } from '../helpers/endpoint-engine.js';
import { createManualTime } from '../helpers/manual-time.js';

// The GraphQL face in-process through yoga.fetch, on the real DuckDB engine behind a counter.

const t0 = new Date('2026-03-10T12:34:56.789Z');

let store: EndpointEngine;

beforeAll(async () => {
  store = await createEndpointEngine();
  await store.insert('cloudflare.logs.prod', [
    {
      id: 'e1',
      timestamp: '2026-03-10 12:30:00.123456',
      event_message: 'GET /rest/v1/todos',
      project: 'p1',
      metadata: {
        request: {
          url: 'https://p1.supabase.co/rest/v1/todos',
          path: '/rest/v1/todos',
          method: 'GET',
          host: 'h',
        },
        response: { status_code: 200, origin_time: 7 },
      },
    },
  ]);
  await store.insert('deno-relay-logs', [
    {
      id: 'r1',
      timestamp: '2026-03-10 12:34:10.000001',
      event_message: 'f1 200',
      metadata: {
        project_ref: 'p1',
        function_id: 'f1',
        execution_time_ms: 12,
        deployment_id: 'd',
        response: { status_code: 200 },
      },
    },
  ]);
});

afterAll(async () => {
  await store?.close();
});

let engine: CountingEngine;
let resolver: Resolver;
let yoga: ReturnType<typeof createQuerygateYoga>;
let logLines: string[];

beforeEach(() => {
  const time = createManualTime(t0);
  engine = createCountingEngine(store.engine);
  resolver = createResolver({ engine, now: time.now, timers: time.timers });
  logLines = [];
  const logStream = new Writable({
    write(chunk, _encoding, done) {
      logLines.push(String(chunk));
      done();
    },
  });
  yoga = createQuerygateYoga({
    snapshot: () => store.snapshot,
    resolver,
    logger: pino({ level: 'warn' }, logStream),
  });
});

afterEach(async () => {
  await resolver.close();
});

interface GraphQLResponse {
  status: number;
  body: {
    data?: Record<string, unknown> | null;
    errors?: Array<{ message: string; extensions?: Record<string, unknown> }>;
  };
  text: string;
}

async function graphql(query: string, variables?: Record<string, unknown>): Promise<GraphQLResponse> {
  const response = await yoga.fetch('http://querygate.test/graphql', {
    method: 'POST',
    headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' },
    body: JSON.stringify({ query, variables }),
  });
  const text = await response.text();
  return { status: response.status, body: JSON.parse(text), text };
}

describe('one operation', () => {
  it('runs the same endpoint and arguments once, however many aliases ask for them', async () => {
    const { body } = await graphql(/* GraphQL */ `
      {
        logs {
          a: all(project: "p1", projectTier: FREE) { id }
          b: all(project: "p1", projectTier: FREE) { timestamp }
          c: all(project: "p1", projectTier: PRO) { id }
        }
        usage {
          x: apiCounts(project: "p1", interval: HOURLY) { timestamp }
          y: apiCounts(project: "p1", interval: HOURLY) { totalRestRequests }
        }
      }
    `);
    expect(body.errors).toBeUndefined();
    expect(engine.callsOf('logs.all')).toHaveLength(2);
    expect(engine.callsOf('usage.api-counts')).toHaveLength(1);
    expect(body.data).toEqual({
      logs: { a: [{ id: 'e1' }], b: [{ timestamp: '2026-03-10T12:30:00.123456Z' }], c: [{ id: 'e1' }] },
      usage: { x: [{ timestamp: '2026-03-10T12:00:00Z' }], y: [{ totalRestRequests: 1 }] },
    });
  });
});

describe('limits', () => {
  it('refuses an operation of more than 16 distinct endpoint calls and leaves none of its calls running', async () => {
    const aliases = Array.from(
      { length: 17 },
      (_, i) => `c${i}: apiCounts(project: "p${i}", interval: HOURLY) { timestamp }`,
    );
    const response = await graphql(/* GraphQL */ `{ usage { ${aliases.join(' ')} } }`);
    // Endpoint fields are nullable: every call of the refused operation is null, none answered.
    expect(Object.values((response.body.data as { usage: Record<string, unknown> }).usage)).toEqual(
      Array.from({ length: 17 }, () => null),
    );
    expect(response.body.errors).toEqual(
      Array.from({ length: 17 }, () =>
        expect.objectContaining({
          message: 'An operation may run at most 16 distinct endpoint calls',
          extensions: expect.objectContaining({ code: 'BAD_REQUEST' }),
        }),
      ),
    );
    // Whatever reached the engine before the refusal was abandoned with it.
    await expect.poll(() => engine.running).toBe(0);
    expect(engine.calls.every((call) => call.signal?.aborted)).toBe(true);
  });

  it('abandons the calls a refused operation had already started', async () => {
    engine.hold();
    const context = createGraphQLContext({ resolver, maxCallsPerOperation: 2 });
    const usage = endpointNamed(store.registry, 'usage.api-counts');
    const started = [
      context.loadEndpoint(usage, { project: 'p1', interval: 'hourly' }),
      context.loadEndpoint(usage, { project: 'p2', interval: 'hourly' }),
    ].map((promise) =>
      promise.then(
        () => 'answered',
        (error: unknown) => (error as QuerygateError).code,
      ),
    );
    await expect.poll(() => engine.running).toBe(2);
    expect(engine.calls.map((call) => call.signal?.aborted)).toEqual([false, false]);
    await expect(context.loadEndpoint(usage, { project: 'p3', interval: 'hourly' })).rejects.toMatchObject({
      code: 'BAD_REQUEST',
    });
    expect(engine.calls.map((call) => call.signal?.aborted)).toEqual([true, true]);
    engine.release();
    expect(await Promise.all(started)).toEqual(['BAD_REQUEST', 'BAD_REQUEST']);
    expect(engine.callsOf('usage.api-counts')).toHaveLength(2);
  });

  it('fails the calls still waiting for their turn with ENGINE_TIMEOUT when the operation deadline passes, never starting them', async () => {
    const clock = createManualTime(t0);
    engine.hold();
    const context = createGraphQLContext({ resolver, concurrency: 1, timeoutMs: 1000, timers: clock.timers });
    const usage = endpointNamed(store.registry, 'usage.api-counts');
    const outcomes = ['p1', 'p2', 'p3'].map((project) =>
      context.loadEndpoint(usage, { project, interval: 'hourly' }).then(
        () => 'answered',
        (error: unknown) => (error as QuerygateError).code,
      ),
    );
    // One call runs (held by the engine), two wait their turn inside the operation.
    await expect.poll(() => engine.running).toBe(1);
    await clock.advance(999);
    expect(engine.calls[0]?.signal?.aborted).toBe(false);
    await clock.advance(1);
    // The running call is abandoned with the operation; the waiting ones never reach the engine.
    expect(engine.calls[0]?.signal?.aborted).toBe(true);
    engine.release();
    expect(await Promise.all(outcomes)).toEqual(['ENGINE_TIMEOUT', 'ENGINE_TIMEOUT', 'ENGINE_TIMEOUT']);
    expect(engine.callsOf('usage.api-counts')).toHaveLength(1);
  });

  it('clears the operation deadline once the operation ends, so it never fires afterwards', async () => {
    const clock = createManualTime(t0);
    const context = createGraphQLContext({ resolver, timeoutMs: 1000, timers: clock.timers });
    const usage = endpointNamed(store.registry, 'usage.api-counts');
    await context.loadEndpoint(usage, { project: 'p1', interval: 'hourly' });
    expect(clock.pending).toBe(1);
    context.endOperation();
    expect(clock.pending).toBe(0);
  });

  it('runs at most two calls of one operation at once, the rest after them', async () => {
    engine.hold();
    const aliases = Array.from(
      { length: 6 },
      (_, i) => `c${i}: apiCounts(project: "p${i}", interval: HOURLY) { timestamp }`,
    );
    const response = graphql(/* GraphQL */ `{ usage { ${aliases.join(' ')} } }`);
    await expect.poll(() => engine.running).toBe(2);
    engine.release();
    const { body } = await response;
    expect(body.errors).toBeUndefined();
    expect(engine.callsOf('usage.api-counts')).toHaveLength(6);
    expect(engine.maxRunning).toBe(2);
  });

  it('abandons the calls of an operation whose answer is given without them', async () => {
    const context = createGraphQLContext({ resolver });
    engine.hold();
    const usage = endpointNamed(store.registry, 'usage.api-counts');
    const orphan = context.loadEndpoint(usage, { project: 'p1', interval: 'hourly' }).catch(() => 'gone');
    await expect.poll(() => engine.running).toBe(1);
    context.endOperation();
    expect(engine.calls[0]?.signal?.aborted).toBe(true);
    engine.release();
    await orphan;
  });

  it('counts aliases of the same call once', async () => {
    const aliases = Array.from(
      { length: 40 },
      (_, i) => `c${i}: apiCounts(project: "p1", interval: HOURLY) { timestamp }`,
    );
    const response = await graphql(/* GraphQL */ `{ usage { ${aliases.join(' ')} } }`);
    expect(response.body.errors).toBeUndefined();
    expect(engine.callsOf('usage.api-counts')).toHaveLength(1);
  });
});

describe('operations after one another', () => {
  it('share cached results through the resolver layer, but run logs.all each time', async () => {
    const query = /* GraphQL */ `{
      usage { apiCounts(project: "p1", interval: DAILY) { timestamp } }
      logs { all(project: "p1", projectTier: FREE) { id } }
    }`;
    await graphql(query);
    await graphql(query);
    expect(engine.callsOf('usage.api-counts')).toHaveLength(1);
    expect(engine.callsOf('logs.all')).toHaveLength(2);
  });
});

describe('arguments', () => {
  it('reach the engine as the contract text: enum values as declared, empty functionId unset', async () => {
    await graphql(/* GraphQL */ `{
      functions {
        a: invocationStats(project: "p1", interval: FIVE_MINUTES) { count }
        b: invocationStats(project: "p1", interval: SEVEN_DAYS, functionId: "") { count }
        c: invocationStats(project: "p1", interval: ONE_HOUR, functionId: "f1") { count }
      }
    }`);
    expect(engine.callsOf('functions.invocation-stats').map((call) => call.params)).toEqual([
      { project: 'p1', interval: '5min', function_id: null },
      { project: 'p1', interval: '7day', function_id: null },
      { project: 'p1', interval: '1hr', function_id: 'f1' },
    ]);
  });

  it('pass DateTime values on as ISO 8601 text with their microseconds and offset', async () => {
    await graphql(
      /* GraphQL */ `query ($start: DateTime) {
        logs { all(project: "p1", projectTier: PAYG, isoTimestampStart: $start, isoTimestampEnd: "2026-03-10T14:00:00.000001+02:00") { id } }
      }`,
      { start: '2026-03-10T12:30:00.123455Z' },
    );
    expect(engine.callsOf('logs.all')[0]?.params).toEqual({
      project: 'p1',
      project_tier: 'PAYG',
      iso_timestamp_start: '2026-03-10T12:30:00.123455Z',
      iso_timestamp_end: '2026-03-10T14:00:00.000001+02:00',
    });
  });
});

describe('rows', () => {
  it('carry timestamps in UTC with microseconds and metadata as repeated records', async () => {
    const { body } = await graphql(/* GraphQL */ `{
      logs { all(project: "p1", projectTier: FREE) { id timestamp eventMessage metadata } }
    }`);
    expect(body.data).toEqual({
      logs: {
        all: [
          {
            id: 'e1',
            timestamp: '2026-03-10T12:30:00.123456Z',
            eventMessage: 'GET /rest/v1/todos',
            metadata: [
              {
                request: [
                  {
                    url: 'https://p1.supabase.co/rest/v1/todos',
                    path: '/rest/v1/todos',
                    method: 'GET',
                    host: 'h',
                  },
                ],
                response: [{ status_code: 200, origin_time: 7 }],
              },
            ],
          },
        ],
      },
    });
  });

  it('fill every statistic of a bucket with invocations and leave empty buckets with nulls', async () => {
    const { body } = await graphql(/* GraphQL */ `{
      functions { invocationStats(project: "p1", interval: FIFTEEN_MINUTES) {
        timestamp minExecutionTime maxExecutionTime avgExecutionTime p95ExecutionTime p99ExecutionTime count errorCount
      } }
    }`);
    const { functions } = body.data as { functions: { invocationStats: Array<Record<string, unknown>> } };
    const buckets = functions.invocationStats;
    // 15 minutes before 12:34:56.789 truncated to the minute is 12:19; one bucket a minute to 12:34.
    expect(buckets).toHaveLength(16);
    expect(buckets[0]?.timestamp).toBe('2026-03-10T12:19:00Z');
    expect(buckets.at(-1)).toEqual({
      timestamp: '2026-03-10T12:34:00Z',
      minExecutionTime: 12,
      maxExecutionTime: 12,
      avgExecutionTime: 12,
      p95ExecutionTime: 12,
      p99ExecutionTime: 12,
      count: 1,
      errorCount: 0,
    });
    expect(buckets[0]).toEqual({
      timestamp: '2026-03-10T12:19:00Z',
      minExecutionTime: null,
      maxExecutionTime: null,
      avgExecutionTime: null,
      p95ExecutionTime: null,
      p99ExecutionTime: null,
      count: 0,
      errorCount: 0,
    });
  });
});

describe('errors', () => {
  it('pass a QuerygateError through with its code and message, in a 200 (a field error does not fail the request)', async () => {
    engine.failNext(
      1,
      new QuerygateError('ENGINE_TIMEOUT', 'usage.api-counts did not finish within 25000 ms'),
    );
    const response = await graphql(
      /* GraphQL */ `{ usage { apiCounts(project: "p1", interval: HOURLY) { timestamp } } }`,
    );
    expect(response.status).toBe(200);
    // The endpoint field is nullable: only it is null, its namespace stands.
    expect(response.body.data).toEqual({ usage: { apiCounts: null } });
    expect(response.body.errors).toEqual([
      expect.objectContaining({
        message: 'usage.api-counts did not finish within 25000 ms',
        path: ['usage', 'apiCounts'],
        extensions: { code: 'ENGINE_TIMEOUT' },
      }),
    ]);
  });

  it('answer an engine refusing a call as busy with a field error ENGINE_BUSY, HTTP 200 and its Retry-After header', async () => {
    engine.failNext(
      1,
      new QuerygateError('ENGINE_BUSY', 'Too many calls of this endpoint', {
        details: { retryAfterSeconds: 3 },
      }),
    );
    const response = await yoga.fetch('http://querygate.test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' },
      body: JSON.stringify({
        query: '{ usage { apiCounts(project: "p1", interval: HOURLY) { timestamp } } }',
      }),
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('retry-after')).toBe('3');
    expect((await response.json()).errors).toEqual([
      expect.objectContaining({ extensions: { code: 'ENGINE_BUSY', retryAfterSeconds: 3 } }),
    ]);
  });

  it('mask an unexpected error to the client and log it in full', async () => {
    engine.failNext(1, new Error('connection to 10.0.0.7 refused, password=hunter2'));
    const response = await graphql(
      /* GraphQL */ `{ usage { apiCounts(project: "p1", interval: HOURLY) { timestamp } } }`,
    );
    expect(response.body.errors).toEqual([
      expect.objectContaining({
        message: 'Internal error; the server log has the details',
        extensions: { code: 'INTERNAL' },
      }),
    ]);
    expect(response.text).not.toContain('hunter2');
    expect(response.text).not.toMatch(/\bat .+\.ts:\d+/);
    expect(logLines.join('')).toContain('hunter2');
  });

  it('mask a row the engine returned without a non-null field as INTERNAL, not a client fault', async () => {
    // An engine (BigQuery, say) handing back a record without an id breaks the schema's promise:
    // the server's fault, so masked and logged, never a BAD_REQUEST.
    const idless: typeof store.engine = {
      ...store.engine,
      run: async (...args) => {
        const result = await store.engine.run(...args);
        return { ...result, rows: result.rows.map((row) => ({ ...row, id: null })) };
      },
    };
    const own = createQuerygateYoga({
      snapshot: () => store.snapshot,
      resolver: createResolver({ engine: idless, now: () => t0 }),
      logger: pino({ level: 'silent' }),
    });
    const response = await own.fetch('http://querygate.test/graphql', {
      method: 'POST',
      headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' },
      body: JSON.stringify({ query: '{ logs { all(project: "p1", projectTier: PAYG) { id } } }' }),
    });
    const body = (await response.json()) as GraphQLResponse['body'];
    expect(body.errors).toEqual([
      expect.objectContaining({
        message: 'Internal error; the server log has the details',
        extensions: { code: 'INTERNAL' },
      }),
    ]);
  });

  it('name the GraphQL argument when the contract refuses a value', async () => {
    const response = await graphql(
      /* GraphQL */ `{ usage { apiCounts(project: "(unclosed", interval: HOURLY) { timestamp } } }`,
    );
    expect(response.status).toBe(200);
    expect(response.body.errors?.[0]).toMatchObject({
      message: expect.stringMatching(/^Argument 'project' is not a valid RE2 regular expression/),
      extensions: { code: 'BAD_PARAMETER', parameter: 'project', argument: 'project' },
    });
    expect(engine.calls).toHaveLength(0);
  });

  it('never cache a failure: the next operation runs the query again', async () => {
    engine.failNext(1, new QuerygateError('ENGINE_ERROR', 'usage.api-counts failed on DuckDB: boom'));
    const query = /* GraphQL */ `{ usage { apiCounts(project: "p1", interval: HOURLY) { totalRestRequests } } }`;
    expect((await graphql(query)).body.errors?.[0]?.extensions?.code).toBe('ENGINE_ERROR');
    expect((await graphql(query)).body).toEqual({
      data: { usage: { apiCounts: [{ totalRestRequests: 1 }] } },
    });
    expect(engine.calls).toHaveLength(2);
  });
});
