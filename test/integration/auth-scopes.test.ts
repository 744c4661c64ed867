import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureNow } from '../fixtures/spec-fixture.js';
import {
  leaksInternals,
  type QuerygateUnderTest,
  startQuerygateUnderTest,
} from '../helpers/querygate-server.js';

/**
 * Keys with scopes, as self-hosted Supabase splits Logflare's two tokens: Vector holds the
 * public one (`LOGFLARE_PUBLIC_ACCESS_TOKEN`, here an ingest-only key of QUERYGATE_INGEST_KEYS),
 * Studio the private one (`LOGFLARE_PRIVATE_ACCESS_TOKEN`, a full key of QUERYGATE_API_KEYS).
 * Every route is called with each kind of key, with a wrong key and with none.
 */

const privateToken = 'studio-private-token-0123456789';
const publicToken = 'vector-public-token-0123456789';
const logsAllId = 'f45bae19-6f69-4f40-8fc7-3177d782efcd';

let service: QuerygateUnderTest;

beforeAll(async () => {
  service = await startQuerygateUnderTest({
    now: fixtureNow,
    environment: { QUERYGATE_API_KEYS: privateToken, QUERYGATE_INGEST_KEYS: publicToken },
  });
});

afterAll(async () => {
  await service?.close();
});

interface Call {
  readonly method: 'GET' | 'POST';
  readonly path: string;
  readonly params?: Record<string, string>;
  readonly body?: string;
  readonly headers?: Record<string, string>;
}

const logsAllParams = { project: 'alpha-ref', project_tier: 'PRO' };
const graphqlBody = JSON.stringify({ query: '{ endpoints { name } }' });
const event = (n: number) => JSON.stringify({ event_message: `scoped ${n}`, project: 'alpha-ref' });

/** The routes that read: a full key only. */
const queryRoutes: readonly (readonly [string, Call])[] = [
  ['GET /api/endpoints/<name>', { method: 'GET', path: '/api/endpoints/logs.all', params: logsAllParams }],
  ['GET /api/endpoints', { method: 'GET', path: '/api/endpoints' }],
  [
    'GET /api/endpoints/query/<name>',
    { method: 'GET', path: '/api/endpoints/query/logs.all', params: logsAllParams },
  ],
  [
    'GET /api/endpoints/query/<uuid>',
    { method: 'GET', path: `/api/endpoints/query/${logsAllId}`, params: logsAllParams },
  ],
  [
    'POST /api/endpoints/query/<name>',
    { method: 'POST', path: '/api/endpoints/query/logs.all', body: JSON.stringify(logsAllParams) },
  ],
  [
    'GET /api/endpoints/query/name/<name>',
    { method: 'GET', path: '/api/endpoints/query/name/logs.all', params: logsAllParams },
  ],
  [
    'GET /endpoints/query/<name> (legacy)',
    { method: 'GET', path: '/endpoints/query/logs.all', params: logsAllParams },
  ],
  ['POST /graphql', { method: 'POST', path: '/graphql', body: graphqlBody }],
  [
    'GET /graphql (an operation)',
    {
      method: 'GET',
      path: '/graphql',
      params: { query: '{ endpoints { name } }' },
      headers: { accept: 'application/graphql-response+json' },
    },
  ],
  ['GET /openapi.json', { method: 'GET', path: '/openapi.json' }],
];

/** The routes that write (and the source list they send to): either kind of key. */
const ingestRoutes: readonly (readonly [string, Call])[] = [
  ...['/logs', '/api/logs', '/api/events'].flatMap((base) =>
    ['', '/json', '/vector', '/cloudflare'].map(
      (sub, index) =>
        [
          `POST ${base}${sub}`,
          {
            method: 'POST',
            path: `${base}${sub}`,
            params: { source_name: 'cloudflare.logs.prod' },
            body: event(index),
          },
        ] as const,
    ),
  ),
  ['GET /api/sources', { method: 'GET', path: '/api/sources' }],
];

/** Routes that need no key at all. */
const publicRoutes: readonly (readonly [string, Call])[] = [
  ['GET /health', { method: 'GET', path: '/health' }],
  ['GET /graphql (the GraphiQL page)', { method: 'GET', path: '/graphql', headers: { accept: 'text/html' } }],
];

function call(route: Call, apiKey: string | null) {
  return service.request(route.method, route.path, {
    apiKey,
    ...(route.params ? { params: route.params } : {}),
    ...(route.body === undefined ? {} : { body: route.body }),
    ...(route.headers ? { headers: route.headers } : {}),
  });
}

describe('a full key (Studio’s private token)', () => {
  it.each([...queryRoutes, ...ingestRoutes, ...publicRoutes])('may call %s', async (_name, route) => {
    const response = await call(route, privateToken);
    expect(response.status).toBe(200);
  });
});

describe('an ingest-only key (Vector’s public token)', () => {
  it.each(queryRoutes)('is refused %s with 403 naming the query scope', async (_name, route) => {
    const response = await call(route, publicToken);
    expect(response.status).toBe(403);
    expect(response.body).toEqual({
      error: {
        code: 'FORBIDDEN',
        message: expect.stringMatching(/ingest scope only.*needs the query scope/),
      },
    });
    expect(response.text).not.toContain(publicToken);
  });

  it.each([...ingestRoutes, ...publicRoutes])('may call %s', async (_name, route) => {
    const response = await call(route, publicToken);
    expect(response.status).toBe(200);
  });

  it('is refused as a bearer token and as ?api_key= too', async () => {
    const bearer = await service.request('GET', '/api/endpoints', {
      apiKey: null,
      headers: { authorization: `Bearer ${publicToken}` },
    });
    const inQuery = await service.request('GET', '/api/endpoints', {
      apiKey: null,
      params: { api_key: publicToken },
    });
    expect([bearer.status, inQuery.status]).toEqual([403, 403]);
  });

  it('gets a 404, not a 403, for a path that names no route', async () => {
    const response = await service.request('GET', '/api/nothing-here', { apiKey: publicToken });
    expect(response.status).toBe(404);
  });

  it('stores what it ingests, which a full key then reads', async () => {
    const message = 'written with the public token';
    const ingested = await service.request('POST', '/api/logs', {
      apiKey: publicToken,
      params: { source_name: 'cloudflare.logs.prod' },
      body: JSON.stringify({
        event_message: message,
        project: 'alpha-ref',
        // logs.all cross joins UNNEST(metadata): a record without metadata is not among its rows.
        metadata: { request: { path: '/rest/v1/t' } },
        timestamp: new Date(fixtureNow.getTime() - 60_000).toISOString(),
      }),
    });
    expect(ingested.status).toBe(200);
    const read = await service.request('GET', '/api/endpoints/logs.all', {
      apiKey: privateToken,
      params: { project: 'alpha-ref', project_tier: 'PRO' },
    });
    const rows = (read.body as { result: { event_message: string }[] }).result;
    expect(rows.map((row) => row.event_message)).toContain(message);
  });
});

describe('a wrong key and no key', () => {
  it.each([...queryRoutes, ...ingestRoutes])('are refused %s with 401', async (_name, route) => {
    expect((await call(route, `${publicToken}x`)).status).toBe(401);
    expect((await call(route, null)).status).toBe(401);
  });

  it.each(publicRoutes)('may still call %s', async (_name, route) => {
    expect((await call(route, null)).status).toBe(200);
  });
});

it('never answers 5xx nor leaks internals', () => {
  for (const response of service.responses) {
    expect(response.status).toBeLessThan(500);
    expect(leaksInternals(response.text)).toBe(false);
  }
});
