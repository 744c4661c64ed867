import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureNow } from '../fixtures/spec-fixture.js';
import { postGraphQL } from '../helpers/graphql-request.js';
import {
  byName,
  leaksInternals,
  type QuerygateUnderTest,
  startQuerygateUnderTest,
} from '../helpers/querygate-server.js';

/**
 * The GraphQL face's rules at the edge, on the real server: X-API-KEY on every operation (the
 * GraphiQL page excepted), and errors with REST's codes: a bad argument value is BAD_PARAMETER
 * whether GraphQL's types or the parameter contract catch it; a malformed document is BAD_REQUEST.
 */

let service: QuerygateUnderTest;

beforeAll(async () => {
  service = await startQuerygateUnderTest({ now: fixtureNow });
});

afterAll(async () => {
  await service?.close();
});

const endpointsQuery = /* GraphQL */ `{ endpoints { name } }`;

describe('auth', () => {
  it('answers an operation without X-API-KEY with 401 and the same body as every other route', async () => {
    const graphql = await postGraphQL(service, endpointsQuery, undefined, { apiKey: null });
    const rest = await service.request('GET', '/api/endpoints', { apiKey: null });
    expect(graphql.status).toBe(401);
    expect(graphql.text).toBe(rest.text);
    expect(graphql.body).toEqual({ error: { code: 'UNAUTHENTICATED', message: expect.any(String) } });
    expect(graphql.headers.get('www-authenticate')).toBe('X-API-KEY');
  });

  it('answers an operation with a wrong key with 401', async () => {
    const response = await postGraphQL(service, endpointsQuery, undefined, { apiKey: `${service.apiKey}x` });
    expect(response.status).toBe(401);
    expect(response.data).toBeUndefined();
  });

  it('answers a GET operation without a key with 401', async () => {
    const response = await service.request('GET', '/graphql', {
      apiKey: null,
      params: { query: endpointsQuery },
      headers: { accept: 'application/graphql-response+json' },
    });
    expect(response.status).toBe(401);
  });

  it('runs the operation with the key', async () => {
    const response = await postGraphQL(service, endpointsQuery);
    expect(response.status).toBe(200);
    expect(response.data).toEqual({
      endpoints: [{ name: 'logs.all' }, { name: 'functions.invocation-stats' }, { name: 'usage.api-counts' }],
    });
  });

  it('serves the GraphiQL page to a browser without a key', async () => {
    const response = await service.request('GET', '/graphql', {
      apiKey: null,
      headers: { accept: 'text/html,application/xhtml+xml,application/xml;q=0.9,*/*;q=0.8' },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('text/html; charset=utf-8');
    // Checked with includes: a failing toContain would print all 9 MB of the page.
    expect(response.text.includes('<title>querygate GraphiQL</title>')).toBe(true);
    expect(response.text.includes('X-API-KEY')).toBe(true);
  });

  it('only ever serves the page, never data, to a browser GET without a key, even with a query', async () => {
    const response = await service.request('GET', '/graphql', {
      apiKey: null,
      params: { query: endpointsQuery },
      headers: { accept: 'text/html' },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toMatch(/^text\/html/);
    expect(response.text.startsWith('{'), 'a JSON answer').toBe(false);
    expect(response.text.includes('{"data":'), 'data in the page').toBe(false);
  });

  it('does not serve the page without a key on other methods or paths', async () => {
    const post = await service.request('POST', '/graphql', {
      apiKey: null,
      headers: { accept: 'text/html' },
      body: JSON.stringify({ query: endpointsQuery }),
    });
    expect(post.status).toBe(401);
    const other = await service.request('GET', '/graphql/extra', {
      apiKey: null,
      headers: { accept: 'text/html' },
    });
    expect(other.status).toBe(401);
  });
});

describe('errors', () => {
  const code = async (query: string, variables?: Record<string, unknown>) => {
    const response = await postGraphQL(service, query, variables);
    expect(response.status).toBe(400);
    expect(response.errors.length).toBeGreaterThan(0);
    return { code: response.errors[0]?.extensions?.code, message: response.errors[0]?.message ?? '' };
  };

  it.each([
    [/* GraphQL */ 'logs { all(project: "p", projectTier: GOLD) { id } }', 'ProjectTier'],
    [
      /* GraphQL */ 'functions { invocationStats(project: "p", interval: TWO_WEEKS) { count } }',
      'InvocationInterval',
    ],
    [/* GraphQL */ 'usage { apiCounts(project: "p", interval: WEEKLY) { timestamp } }', 'UsageInterval'],
    [/* GraphQL */ 'usage { apiCounts(project: "p", interval: "daily") { timestamp } }', 'UsageInterval'],
  ])('answers a value outside an enum (%s) with BAD_PARAMETER', async (selection, enumName) => {
    const error = await code(`{ ${selection} }`);
    expect(error.code).toBe('BAD_PARAMETER');
    expect(error.message).toContain(enumName);
  });

  it('answers a variable outside an enum with BAD_PARAMETER', async () => {
    const error = await code(
      /* GraphQL */ `query ($interval: UsageInterval!) { usage { apiCounts(project: "p", interval: $interval) { timestamp } } }`,
      { interval: 'daily' },
    );
    expect(error).toEqual({ code: 'BAD_PARAMETER', message: expect.stringContaining('$interval') });
  });

  it.each(['yesterday', '2026-05-15', '2026-05-15T12:00:00', '2026-13-01T00:00:00Z', '2026-05-15T25:00:00Z'])(
    "answers the DateTime '%s' with BAD_PARAMETER, as a literal and as a variable",
    async (value) => {
      const literal = await code(
        /* GraphQL */ `{ logs { all(project: "p", projectTier: FREE, isoTimestampStart: ${JSON.stringify(value)}) { id } } }`,
      );
      expect(literal).toEqual({ code: 'BAD_PARAMETER', message: expect.stringContaining('DateTime') });
      const variable = await code(
        /* GraphQL */ `query ($end: DateTime) { logs { all(project: "p", projectTier: FREE, isoTimestampEnd: $end) { id } } }`,
        { end: value },
      );
      expect(variable).toEqual({ code: 'BAD_PARAMETER', message: expect.stringContaining('$end') });
    },
  );

  it('answers a DateTime that is not a string with BAD_PARAMETER', async () => {
    const error = await code(
      /* GraphQL */ '{ logs { all(project: "p", projectTier: FREE, isoTimestampEnd: 1715774096) { id } } }',
    );
    expect(error.code).toBe('BAD_PARAMETER');
  });

  it('answers a missing required argument with BAD_PARAMETER naming it', async () => {
    const error = await code(/* GraphQL */ '{ functions { invocationStats(interval: ONE_DAY) { count } } }');
    expect(error).toEqual({ code: 'BAD_PARAMETER', message: expect.stringContaining('"project"') });
  });

  it('answers a project of the wrong type with BAD_PARAMETER', async () => {
    const error = await code(/* GraphQL */ '{ logs { all(project: 7, projectTier: FREE) { id } } }');
    expect(error.code).toBe('BAD_PARAMETER');
  });

  it('answers a project that is not an RE2 pattern with 200 and a BAD_PARAMETER field error naming the argument (REST: 400)', async () => {
    const graphql = await postGraphQL(
      service,
      /* GraphQL */ '{ usage { apiCounts(project: "a(b", interval: DAILY) { timestamp } } }',
    );
    const rest = await service.get(byName('usage.api-counts'), { project: 'a(b', interval: 'daily' });
    expect(rest.body).toMatchObject({ error: { code: 'BAD_PARAMETER' } });
    expect(rest.status).toBe(400);
    // A field error does not fail the request (GraphQL over HTTP): clients read it from `errors`.
    expect(graphql.status).toBe(200);
    expect(graphql.errors).toEqual([
      expect.objectContaining({
        path: ['usage', 'apiCounts'],
        message: expect.stringMatching(/^Argument 'project' /),
        extensions: { code: 'BAD_PARAMETER', parameter: 'project', argument: 'project' },
      }),
    ]);
  });

  it.each([
    ['an unknown field', /* GraphQL */ '{ logs { recent { id } } }'],
    ['a syntax error', /* GraphQL */ '{ logs { all(project: "p", projectTier: FREE) { id } }'],
    [
      'a selection missing on a list of objects',
      /* GraphQL */ '{ logs { all(project: "p", projectTier: FREE) } }',
    ],
  ])('answers %s with BAD_REQUEST', async (_what, query) => {
    expect((await code(query)).code).toBe('BAD_REQUEST');
  });

  it('answers a body that is not a GraphQL request with 400', async () => {
    const response = await service.request('POST', '/graphql', { body: '{"nope": true}' });
    expect(response.status).toBe(400);
  });
});

describe('every response of this file', () => {
  it('was never a 5xx and never carried a stack trace', () => {
    // The GraphiQL page is minified JavaScript, not an answer that could leak a trace.
    const answers = service.responses.filter(
      (response) => !response.headers.get('content-type')?.startsWith('text/html'),
    );
    const offenders = answers
      .filter((response) => response.status >= 500 || leaksInternals(response.text))
      .map(
        (response) =>
          `${response.status} ${response.method} ${response.path}: ${response.text.slice(0, 200)}`,
      );
    expect(offenders).toEqual([]);
  });
});
