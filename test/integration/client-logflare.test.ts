import { gzipSync } from 'node:zlib';
import { describe, expect, it } from 'vitest';
import { fixtureEvents, fixtureNow, nowMicros, projects } from '../fixtures/spec-fixture.js';
import {
  byName,
  endpointIds,
  expectNoServerErrors,
  serveDuringFile,
  testApiKey,
} from '../helpers/querygate-server.js';
import { logSources } from '../helpers/shipped-sources.js';
import { expectedApiCounts, re2AsJs } from '../helpers/spec-expectations.js';

/**
 * The call and ingest forms Logflare accepts, replayed as its clients send them.
 *
 * Endpoint paths and methods: Logflare/logflare `lib/logflare_web/router.ex` (scope
 * "/api/endpoints": GET and POST "/query/:token_or_name", GET "/query/name/:name"; legacy scope
 * "/endpoints/query": GET "/:token_or_name"). Key forms: `lib/logflare_web/controllers/plugs/
 * verify_api_access.ex` (`Authorization: Bearer`, `x-api-key`, `api_key` query parameter).
 * Ingest paths: router.ex (`for path <- ["/logs", "/api/logs", "/api/events"]`, with "/json",
 * "/vector" and "/cloudflare"; Logpush's `text/plain` body is NDJSON, `handle_logpush_headers`).
 * Source forms: `controllers/plugs/fetch_resource.ex` (`source_name`, `source` UUID, the
 * `x-source` header). Bodies and the `message` field: `docs/docs.logflare.com/docs/concepts/
 * ingestion/index.mdx` (`POST /api/logs?source=<uuid>`, `{"message": ...}`, `{"batch": [...]}`).
 */

const dashboard = 'https://dashboard.example.com';
const server = serveDuringFile({
  now: fixtureNow,
  events: fixtureEvents,
  environment: { QUERYGATE_CORS_ORIGINS: dashboard },
});

const apiCountsParams = { project: projects.alpha, interval: 'daily' };
const expectedRows = () =>
  expectedApiCounts(fixtureEvents, { interval: 'daily', urlMatches: re2AsJs(projects.alpha) }, fixtureNow);

async function call(
  method: string,
  path: string,
  init: { headers?: Record<string, string>; body?: string } = {},
) {
  const response = await fetch(`${server().url}${path}`, {
    method,
    headers: init.headers ?? {},
    ...(init.body === undefined ? {} : { body: init.body }),
  });
  const text = await response.text();
  return {
    status: response.status,
    headers: response.headers,
    text,
    body: text ? JSON.parse(text) : undefined,
  };
}

const query = new URLSearchParams(apiCountsParams).toString();
const withKey = { 'x-api-key': testApiKey };

describe('endpoint calls in every form Logflare accepts', () => {
  const forms: ReadonlyArray<
    readonly [string, string, string, { headers?: Record<string, string>; body?: string }]
  > = [
    [
      'GET by UUID',
      'GET',
      `/api/endpoints/query/${endpointIds['usage.api-counts']}?${query}`,
      { headers: withKey },
    ],
    ['GET by name', 'GET', `/api/endpoints/query/usage.api-counts?${query}`, { headers: withKey }],
    [
      'GET by name, deprecated path',
      'GET',
      `/api/endpoints/query/name/usage.api-counts?${query}`,
      { headers: withKey },
    ],
    ['GET legacy path by name', 'GET', `/endpoints/query/usage.api-counts?${query}`, { headers: withKey }],
    [
      'GET legacy path by UUID',
      'GET',
      `/endpoints/query/${endpointIds['usage.api-counts']}?${query}`,
      { headers: withKey },
    ],
    [
      'POST with a JSON body',
      'POST',
      `/api/endpoints/query/usage.api-counts`,
      { headers: { ...withKey, 'content-type': 'application/json' }, body: JSON.stringify(apiCountsParams) },
    ],
    [
      'POST with half in the query, half in the body',
      'POST',
      `/api/endpoints/query/${endpointIds['usage.api-counts']}?project=${projects.alpha}`,
      { headers: { ...withKey, 'content-type': 'application/json' }, body: '{"interval":"daily"}' },
    ],
    [
      'POST with the same value in both',
      'POST',
      `/api/endpoints/query/usage.api-counts?${query}`,
      { headers: { ...withKey, 'content-type': 'application/json' }, body: '{"interval":"daily"}' },
    ],
    [
      'POST with only a query string',
      'POST',
      `/api/endpoints/query/usage.api-counts?${query}`,
      { headers: withKey },
    ],
    [
      'the key as Bearer',
      'GET',
      `/api/endpoints/query/usage.api-counts?${query}`,
      { headers: { authorization: `Bearer ${testApiKey}` } },
    ],
    [
      'the key as ?api_key=',
      'GET',
      `/api/endpoints/query/usage.api-counts?${query}&api_key=${testApiKey}`,
      {},
    ],
  ];

  it.each(forms)(
    '%s gives the rows the spec form gives, from one cache entry',
    async (_label, method, path, init) => {
      const spec = await server().get(byName('usage.api-counts'), apiCountsParams);
      expect(spec.status).toBe(200);
      expect((spec.body as { result: unknown[] }).result).toEqual(expectedRows());
      const before = server().resolverStats();
      const response = await call(method, path, init);
      expect(response.status).toBe(200);
      expect(response.body).toEqual(spec.body);
      expect(server().resolverStats().misses).toBe(before.misses);
    },
  );

  it('returns 400 naming a parameter given different values in the query and the body', async () => {
    const response = await call('POST', `/api/endpoints/query/usage.api-counts?${query}`, {
      headers: { ...withKey, 'content-type': 'application/json' },
      body: '{"interval":"hourly"}',
    });
    expect(response.status).toBe(400);
    expect(response.body).toEqual({
      error: { code: 'BAD_PARAMETER', message: expect.stringContaining("'interval'") },
    });
  });

  it.each(['[1,2]', '"daily"', '{"interval": {"x": 1}}', '{not json'])(
    'returns 400 for the body %s, which is not a JSON object of parameters',
    async (body) => {
      const response = await call('POST', `/api/endpoints/query/usage.api-counts?project=${projects.alpha}`, {
        headers: { ...withKey, 'content-type': 'application/json' },
        body,
      });
      expect(response.status).toBe(400);
      expect(response.body.error.code).toMatch(/^BAD_(REQUEST|PARAMETER)$/);
    },
  );

  it('turns numbers and booleans in the body into text', async () => {
    // interval as a number is no valid interval: the contract check names it, as for the text '7'.
    const response = await call('POST', '/api/endpoints/query/usage.api-counts', {
      headers: { ...withKey, 'content-type': 'application/json' },
      body: JSON.stringify({ project: projects.alpha, interval: 7 }),
    });
    const asText = await server().get(byName('usage.api-counts'), { project: projects.alpha, interval: '7' });
    expect(response.status).toBe(asText.status);
    expect(response.body).toEqual(asText.body);
  });

  it('never binds api_key and keeps it out of the cache key', async () => {
    const before = server().resolverStats();
    const other = 'another-key-that-is-wrong';
    const refused = await call('GET', `/api/endpoints/query/usage.api-counts?${query}&api_key=${other}`);
    expect(refused.status).toBe(401);
    const accepted = await call(
      'GET',
      `/api/endpoints/query/usage.api-counts?api_key=${testApiKey}&${query}`,
    );
    expect(accepted.status).toBe(200);
    expect(server().resolverStats().misses).toBe(before.misses);
  });

  it.each([
    ['a wrong Bearer', { authorization: 'Bearer wrong-key-0123456789' }, ''],
    ['Basic instead of Bearer', { authorization: `Basic ${testApiKey}` }, ''],
    ['a wrong ?api_key=', {}, '&api_key=wrong-key-0123456789'],
    ['a wrong X-API-KEY beside a right ?api_key=', { 'x-api-key': 'wrong' }, `&api_key=${testApiKey}`],
  ])('returns 401 for %s', async (_label, headers, extra) => {
    const response = await call('GET', `/api/endpoints/query/usage.api-counts?${query}${extra}`, { headers });
    expect(response.status).toBe(401);
    expect(response.body).toMatchObject({ error: { code: 'UNAUTHENTICATED' } });
  });

  it('keeps 404 naming the reference for an unknown endpoint on every path', async () => {
    for (const path of [
      '/api/endpoints/query/nope',
      '/api/endpoints/query/name/nope',
      '/endpoints/query/nope',
    ]) {
      const response = await call('GET', path, { headers: withKey });
      expect(response.status).toBe(404);
      expect(response.body).toEqual({
        error: { code: 'NOT_FOUND', message: expect.stringContaining("'nope'") },
      });
    }
  });
});

describe('CORS for browser dashboards', () => {
  it('answers a preflight without a key, allowing the key headers', async () => {
    const response = await call('OPTIONS', '/api/endpoints/query/usage.api-counts', {
      headers: {
        origin: dashboard,
        'access-control-request-method': 'GET',
        'access-control-request-headers': 'x-api-key, content-type',
      },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe(dashboard);
    const allowed = (response.headers.get('access-control-allow-headers') ?? '').toLowerCase();
    for (const header of ['x-api-key', 'authorization', 'content-type']) expect(allowed).toContain(header);
  });

  it('answers a GraphQL preflight too', async () => {
    const response = await call('OPTIONS', '/graphql', {
      headers: { origin: dashboard, 'access-control-request-method': 'POST' },
    });
    expect(response.status).toBe(204);
    expect(response.headers.get('access-control-allow-origin')).toBe(dashboard);
  });

  it('sends the allowed origin on a keyed call and none to another origin', async () => {
    const allowed = await call('GET', `/api/endpoints/query/usage.api-counts?${query}`, {
      headers: { ...withKey, origin: dashboard },
    });
    expect(allowed.headers.get('access-control-allow-origin')).toBe(dashboard);
    // Again: a cached hit, written past Fastify's reply with the CORS hook's headers merged in.
    const again = await call('GET', `/api/endpoints/query/usage.api-counts?${query}`, {
      headers: { ...withKey, origin: dashboard },
    });
    expect(again.headers.get('access-control-allow-origin')).toBe(dashboard);
    expect(again.headers.get('cache-control')).toMatch(/^private, max-age=\d+$/);
    expect(again.text).toBe(allowed.text);
    const other = await call('GET', `/api/endpoints/query/usage.api-counts?${query}`, {
      headers: { ...withKey, origin: 'https://evil.example.com' },
    });
    expect(other.headers.get('access-control-allow-origin')).toBeNull();
  });
});

describe('ingestion in every form Logflare accepts', () => {
  const edge = logSources.find((source) => source.name === 'cloudflare.logs.prod');
  if (!edge) throw new Error('no edge source');
  let counter = 0;
  /** A project of its own per case, so each reads back exactly what it sent. */
  const nextProject = () => `ingest-form-${++counter}`;

  async function readBack(project: string) {
    const response = await server().request('GET', byName('logs.all'), {
      params: { project, project_tier: 'ENTERPRISE' },
      headers: { 'cache-control': 'no-cache' },
    });
    expect(response.status).toBe(200);
    return (response.body as { result: Array<{ event_message: string; timestamp: number }> }).result;
  }

  const recent = nowMicros - 60_000_000;
  // logs.all reads edge records that have metadata (it unnests it).
  const metadata = { request: { method: 'POST' } };
  const metadataJson = JSON.stringify(metadata);

  const paths = ['/logs', '/api/logs', '/api/events'].flatMap((base) =>
    ['', '/json', '/vector'].map((sub) => `${base}${sub}`),
  );

  it.each(paths)('stores a batch posted to %s?source=<uuid>', async (path) => {
    const project = nextProject();
    const response = await call('POST', `${path}?source=${edge.id}`, {
      headers: { ...withKey, 'content-type': 'application/json' },
      body: JSON.stringify({ batch: [{ message: 'from a path', project, metadata, timestamp: recent }] }),
    });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ message: 'Logged!', ingested: 1 });
    expect((await readBack(project)).map((row) => row.event_message)).toEqual(['from a path']);
  });

  it.each([
    ['source_name in the query', `?source_name=${edge.name}`, {}, {}],
    ['source=<uuid> in upper case', `?source=${edge.id.toUpperCase()}`, {}, {}],
    ['the x-source header', '', { 'x-source': edge.id }, {}],
    ['source_name in the body', '', {}, { source_name: edge.name }],
    ['source in the body', '', {}, { source: edge.id }],
  ])('names the source by %s', async (_label, search, headers, envelope) => {
    const project = nextProject();
    const response = await call('POST', `/api/logs${search}`, {
      headers: { ...withKey, 'content-type': 'application/json', ...headers },
      body: JSON.stringify({
        ...envelope,
        event_message: 'one object',
        project,
        metadata,
        timestamp: recent,
      }),
    });
    expect(response.status).toBe(200);
    expect((await readBack(project)).map((row) => row.event_message)).toEqual(['one object']);
  });

  it('returns 400 naming the valid sources for an unknown source UUID', async () => {
    const response = await call('POST', '/api/logs?source=00000000-0000-4000-8000-000000000000', {
      headers: { ...withKey, 'content-type': 'application/json' },
      body: '{"message":"x"}',
    });
    expect(response.status).toBe(400);
    expect(response.body.error.message).toContain(edge.name);
    expect(response.body.error.message).toContain(edge.id);
  });

  it('takes the message from event_message, else message, else log_entry (JSON text of an object)', async () => {
    const project = nextProject();
    const events = [
      { event_message: 'first', message: 'ignored', project, metadata, timestamp: recent },
      { message: 'second', log_entry: 'ignored', project, metadata, timestamp: recent - 1 },
      { log_entry: 'third', project, metadata, timestamp: recent - 2 },
      { log_entry: { level: 'info', n: 1 }, project, metadata, timestamp: recent - 3 },
    ];
    const response = await call('POST', `/api/logs?source_name=${edge.name}`, {
      headers: { ...withKey, 'content-type': 'application/json' },
      body: JSON.stringify(events),
    });
    expect(response.status).toBe(200);
    expect((await readBack(project)).map((row) => row.event_message)).toEqual([
      'first',
      'second',
      'third',
      '{"level":"info","n":1}',
    ]);
  });

  it('returns 400 naming the index of an event without any message field', async () => {
    const response = await call('POST', `/api/logs?source_name=${edge.name}`, {
      headers: { ...withKey, 'content-type': 'application/json' },
      body: JSON.stringify([{ message: 'ok' }, { metadata: {} }]),
    });
    expect(response.status).toBe(400);
    expect(response.body.error.message).toMatch(/event 1\b/);
  });

  it('reads 19-digit nanosecond timestamps (number and text) and ISO with nanoseconds, to the microsecond', async () => {
    const project = nextProject();
    const micros = 1_778_848_000_123_456; // 2026-05-15T12:26:40.123456Z, inside the window
    const events = [
      { message: 'ns text', project, metadata, timestamp: `${micros}789` },
      { message: 'ns number', project, metadata, timestamp: Number(`${micros - 1_000_000}000`) },
      { message: 'iso ns', project, metadata, timestamp: '2026-05-15T12:26:38.123456789Z' },
    ];
    const response = await call('POST', `/api/logs?source_name=${edge.name}`, {
      headers: { ...withKey, 'content-type': 'application/json' },
      body: JSON.stringify({ batch: events }),
    });
    expect(response.status).toBe(200);
    const rows = await readBack(project);
    expect(rows.map((row) => [row.event_message, row.timestamp])).toEqual([
      ['ns text', micros],
      ['ns number', micros - 1_000_000],
      ['iso ns', micros - 2_000_000],
    ]);
  });

  it('reads NDJSON, gzipped too', async () => {
    const project = nextProject();
    const ndjson = [
      `{"message":"a","project":"${project}","metadata":${metadataJson},"timestamp":${recent}}`,
      `{"message":"b","project":"${project}","metadata":${metadataJson},"timestamp":${recent - 1}}`,
    ].join('\n');
    const plain = await call('POST', `/api/logs?source_name=${edge.name}`, {
      headers: { ...withKey, 'content-type': 'application/x-ndjson' },
      body: ndjson,
    });
    expect(plain.status).toBe(200);
    const response = await fetch(`${server().url}/api/events?source_name=${edge.name}`, {
      method: 'POST',
      headers: { ...withKey, 'content-type': 'application/x-ndjson', 'content-encoding': 'gzip' },
      body: new Uint8Array(gzipSync(ndjson.replaceAll('"a"', '"c"').replaceAll('"b"', '"d"'))),
    });
    expect(response.status).toBe(200);
    expect((await readBack(project)).map((row) => row.event_message).sort()).toEqual(['a', 'b', 'c', 'd']);
  });

  it('reads Cloudflare Logpush NDJSON sent as text/plain on /cloudflare', async () => {
    const project = nextProject();
    const response = await call('POST', `/api/logs/cloudflare?source=${edge.id}`, {
      headers: { ...withKey, 'content-type': 'text/plain; charset=utf-8' },
      body: `{"message":"logpush","project":"${project}","metadata":${metadataJson},"timestamp":${recent}}\n`,
    });
    expect(response.status).toBe(200);
    expect((await readBack(project)).map((row) => row.event_message)).toEqual(['logpush']);
  });

  it('lists the sources with their UUIDs and columns on GET /api/sources', async () => {
    const response = await call('GET', '/api/sources', { headers: withKey });
    expect(response.status).toBe(200);
    const listed = response.body.result as Array<{
      id: string;
      name: string;
      columns: Array<{ name: string }>;
    }>;
    expect(listed.map((source) => [source.name, source.id])).toEqual(
      logSources.map((source) => [source.name, source.id]),
    );
    expect(listed[0]?.columns.map((column) => column.name)).toEqual([
      'id',
      'timestamp',
      'event_message',
      'project',
      'metadata',
    ]);
  });
});

describe('every response of this file', () => {
  it('was never a 5xx and never carried a stack trace', () => {
    expectNoServerErrors(server());
  });
});
