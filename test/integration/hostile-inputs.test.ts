import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  byName,
  leaksInternals,
  type QuerygateUnderTest,
  startQuerygateUnderTest,
} from '../helpers/querygate-server.js';

/**
 * The hostile inputs that used to answer 5xx (issue 11), each now a 400 naming what is wrong, on
 * the real server over HTTP.
 */

let service: QuerygateUnderTest;

beforeAll(async () => {
  service = await startQuerygateUnderTest({ now: new Date('2026-05-15T12:00:00Z') });
});

afterAll(async () => {
  await service?.close();
});

// DuckDB's RE2 refuses each of these ("pattern too large - compile failed"): \pL is ~390
// instructions of RE2's UTF-8 program and the program may have ~174,700.
const oversizedPatterns = ['\\pL{1000}', '(\\pL{30}){30}', '(?i)\\pL{1000}'];

const graphqlPost = (body: unknown, headers: Record<string, string> = {}) =>
  service.request('POST', '/graphql', {
    body: typeof body === 'string' ? body : JSON.stringify(body),
    headers,
  });

type GraphQLBody = { errors?: Array<{ message: string; extensions?: Record<string, unknown> }> };

describe('a regex parameter larger than RE2 compiles', () => {
  for (const pattern of oversizedPatterns) {
    it(`answers ${pattern} over REST with 400 BAD_PARAMETER naming project`, async () => {
      const response = await service.get(byName('usage.api-counts'), { project: pattern, interval: 'daily' });
      expect(response.status).toBe(400);
      expect(response.body).toEqual({
        error: {
          code: 'BAD_PARAMETER',
          message: expect.stringMatching(/^Parameter 'project' is too large for RE2/),
        },
      });
    });

    it(`answers ${pattern} over GraphQL with a field error BAD_PARAMETER naming the project argument (HTTP 200, as GraphQL over HTTP gives)`, async () => {
      const response = await graphqlPost({
        query:
          /* GraphQL */ 'query ($p: String!) { usage { apiCounts(project: $p, interval: DAILY) { timestamp } } }',
        variables: { p: pattern },
      });
      expect(response.status).toBe(200);
      const [error] = (response.body as GraphQLBody).errors ?? [];
      expect(error?.message).toMatch(/^Argument 'project' is too large for RE2/);
      expect(error?.extensions).toMatchObject({ code: 'BAD_PARAMETER', argument: 'project' });
    });
  }
});

describe('GraphQL requests that cannot be read', () => {
  it('answers a body that is not JSON with a short message, not the body quoted back', async () => {
    const response = await graphqlPost('x'.repeat(100_000));
    expect(response.status).toBe(400);
    const [error, ...others] = (response.body as GraphQLBody).errors ?? [];
    expect(others).toEqual([]);
    expect(error).toMatchObject({
      message: 'POST body sent invalid JSON.',
      extensions: { code: 'BAD_REQUEST' },
    });
    // The parser's own message is kept (yoga answers 400 by it), cut short.
    expect(JSON.stringify(response.body).length).toBeLessThan(1_000);
  });

  it('answers a JSON body sent as multipart/form-data with 400', async () => {
    const response = await graphqlPost(
      { query: '{ endpoints { name } }' },
      { 'content-type': 'multipart/form-data; boundary=x' },
    );
    expect(response.status).toBe(400);
    expect((response.body as GraphQLBody).errors?.[0]?.extensions?.code).toBe('BAD_REQUEST');
  });

  for (const [name, value] of [
    ['variables', '{bad'],
    ['variables', 'not-an-object'],
    ['variables', '[1]'],
    ['extensions', 'bad'],
    ['extensions', '7'],
  ] as const) {
    it(`answers GET with ${name}=${value} with 400 naming ${name}`, async () => {
      const response = await service.get('/graphql', { query: '{ endpoints { name } }', [name]: value });
      expect(response.status).toBe(400);
      const [error] = (response.body as GraphQLBody).errors ?? [];
      expect(error?.message).toBe(`'${name}' must be a JSON object`);
      expect(error?.extensions).toMatchObject({ code: 'BAD_REQUEST', parameter: name });
    });
  }

  it.each(['text/plain', 'application/xml'])(
    'answers a POST of %s with 415 naming its type and the types it reads',
    async (type) => {
      const response = await graphqlPost({ query: '{ endpoints { name } }' }, { 'content-type': type });
      expect(response.status).toBe(415);
      const [error] = (response.body as GraphQLBody).errors ?? [];
      expect(error?.extensions?.code).toBe('UNSUPPORTED_MEDIA_TYPE');
      expect(error?.message).toContain(`'${type}'`);
      expect(error?.message).toContain('application/json');
    },
  );

  it.each(['query', 'operationName', 'variables', 'extensions'])(
    'answers GET with %s given twice with 400 naming it',
    async (name) => {
      const once: Record<string, string> = {
        query: 'query A { endpoints { name } } query B { endpoints { name } }',
        operationName: 'A',
        variables: '{}',
        extensions: '{}',
      };
      const response = await service.get('/graphql', [
        ...Object.entries(once),
        [name, name === 'operationName' ? 'B' : (once[name] as string)],
      ]);
      expect(response.status).toBe(400);
      const [error] = (response.body as GraphQLBody).errors ?? [];
      expect(error?.message).toBe(`'${name}' is given more than once`);
      expect(error?.extensions).toMatchObject({ code: 'BAD_REQUEST', parameter: name });
    },
  );

  it('answers a POST accepting only application/xml with 406 naming the types it answers in', async () => {
    const response = await graphqlPost({ query: '{ endpoints { name } }' }, { accept: 'application/xml' });
    expect(response.status).toBe(406);
    expect(response.headers.get('content-type')).toMatch(/^application\/json/);
    const [error] = (response.body as GraphQLBody).errors ?? [];
    expect(error?.extensions?.code).toBe('BAD_REQUEST');
    expect(error?.message).toContain("'application/xml'");
    expect(error?.message).toContain('application/graphql-response+json');
  });

  it.each([
    ['null', [null, { query: '{ endpoints { name } }' }], 'null'],
    ['a number', [{ query: '{ endpoints { name } }' }, 1], 'number'],
  ])('answers a batch holding %s with 400 naming the operation', async (_label, batch, what) => {
    const response = await graphqlPost(batch);
    expect(response.status).toBe(400);
    const [error] = (response.body as GraphQLBody).errors ?? [];
    const index = batch.findIndex((operation) => typeof operation !== 'object' || operation === null);
    expect(error?.message).toBe(`Operation ${index} of the batch must be a JSON object, not ${what}`);
    expect(error?.extensions?.code).toBe('BAD_REQUEST');
  });
});

describe('a Content-Type that is no media type', () => {
  it.each([
    ['/api/logs?source_name=cloudflare.logs.prod', '{"event_message": "x"}'],
    ['/api/endpoints/query/usage.api-counts', '{"project": "x", "interval": "daily"}'],
  ])('answers POST %s with 415 naming the header sent', async (path, body) => {
    const response = await service.request('POST', path, { body, headers: { 'content-type': ';;;' } });
    expect(response.status).toBe(415);
    expect(response.body).toEqual({
      error: { code: 'UNSUPPORTED_MEDIA_TYPE', message: expect.stringContaining("Content-Type ';;;'") },
    });
  });
});

describe('an endpoint body compressed or in another charset', () => {
  // Logflare reads its API bodies through PlugCaisson (gzip, deflate, br); a charset other than
  // UTF-8 would be read as UTF-8 and the value silently changed.
  const path = '/api/endpoints/query/usage.api-counts';
  const params = JSON.stringify({ project: 'café', interval: 'daily' });
  const gzipped = new Uint8Array(gzipSync(params));

  it('reads a gzip body over REST and GraphQL as the same body uncompressed', async () => {
    const response = await service.request('POST', path, {
      body: gzipped,
      headers: { 'content-encoding': 'gzip' },
    });
    // The store is empty: read, the body's parameters give no rows; unread, 'project' is missing.
    expect([response.status, response.body]).toEqual([200, { result: [] }]);
    const graphql = await service.request('POST', '/graphql', {
      body: new Uint8Array(gzipSync(JSON.stringify({ query: '{ endpoints { name } }' }))),
      headers: { 'content-encoding': 'gzip' },
    });
    expect(graphql.status).toBe(200);
    expect((graphql.body as { data?: unknown }).data).toMatchObject({ endpoints: expect.any(Array) });
  });

  it('answers a body that is not UTF-8 and names no charset with 400, not a value with U+FFFD in it', async () => {
    const response = await service.request('POST', path, {
      body: new Uint8Array(Buffer.from(params, 'latin1')),
      headers: { 'content-type': 'application/json' },
    });
    expect([response.status, response.body]).toEqual([
      400,
      { error: { code: 'BAD_REQUEST', message: 'The request body is not valid UTF-8' } },
    ]);
  });

  it.each([
    [
      'a charset other than UTF-8',
      { 'content-type': 'application/json; charset=iso-8859-1' },
      "charset 'iso-8859-1'",
    ],
    ['an encoding it does not read', { 'content-encoding': 'zstd' }, "Content-Encoding 'zstd'"],
  ])('answers %s with 415 naming it, over REST and GraphQL', async (_, headers, named) => {
    for (const target of [path, '/graphql']) {
      const response = await service.request('POST', target, {
        body: new Uint8Array(Buffer.from(params, 'latin1')),
        headers,
      });
      expect([response.status, response.body]).toEqual([
        415,
        { error: { code: 'UNSUPPORTED_MEDIA_TYPE', message: expect.stringContaining(named) } },
      ]);
    }
  });
});

describe('GraphQL documents beyond the limits', () => {
  const nested = (depth: number) => `{ endpoints ${'{ name '.repeat(depth)}${'}'.repeat(depth)} }`;

  it('answers a selection set nested 2,000 deep with 400, not a stack overflow', async () => {
    const response = await graphqlPost({ query: nested(2000) });
    expect(response.status).toBe(400);
    expect((response.body as GraphQLBody).errors?.[0]).toMatchObject({
      message: 'The document has more than 2000 tokens',
      extensions: { code: 'BAD_REQUEST' },
    });
  });

  it('answers a selection set nested deeper than 12 within the token limit with 400 naming the depth limit', async () => {
    const response = await graphqlPost({ query: nested(20) });
    expect(response.status).toBe(400);
    expect((response.body as GraphQLBody).errors?.[0]?.message).toMatch(/depth limit of 12/);
  });

  it('answers more than 64 aliases with 400 naming the alias limit', async () => {
    const aliases = Array.from({ length: 65 }, (_, i) => `a${i}: endpoints { name }`).join(' ');
    const response = await graphqlPost({ query: `{ ${aliases} }` });
    expect(response.status).toBe(400);
    expect((response.body as GraphQLBody).errors?.[0]?.message).toMatch(/[Aa]liases limit of 64/);
  });

  it('still answers the introspection query GraphiQL sends', async () => {
    const { getIntrospectionQuery } = await import('graphql');
    const response = await graphqlPost({ query: getIntrospectionQuery() });
    expect(response.status).toBe(200);
    expect((response.body as GraphQLBody).errors).toBeUndefined();
  });
});

describe('every response of this file', () => {
  it('was never a 5xx and never carried a stack trace', () => {
    expect(service.responses.length).toBeGreaterThan(10);
    for (const response of service.responses) {
      expect(response.status).toBeLessThan(500);
      expect(leaksInternals(response.text)).toBe(false);
    }
  });
});
