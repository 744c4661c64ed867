import { request } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  type EdgeEvent,
  edgeSource,
  fixtureNow,
  HOUR,
  isoAt,
  MINUTE,
  nowMicros,
  toIngestEvent,
} from '../fixtures/spec-fixture.js';
import {
  byId,
  byName,
  type EndpointName,
  endpointIds,
  type HttpResult,
  leaksInternals,
  type QuerygateUnderTest,
  startQuerygateUnderTest,
  testApiKey,
} from '../helpers/querygate-server.js';
import { expectedInvocationStats, expectedLogsAll } from '../helpers/spec-expectations.js';

/**
 * Every error answer of the REST face: bad parameters (400 naming the parameter), unknown
 * endpoints and paths (404), wrong methods (405 with Allow), missing or wrong keys (401, one body
 * on every route), ingestion errors (400, all or nothing), request targets that are no URL (400).
 * No answer is a 5xx or shows a stack trace.
 */

let service: QuerygateUnderTest;

beforeAll(async () => {
  service = await startQuerygateUnderTest({ now: fixtureNow });
});

afterAll(async () => {
  await service?.close();
});

interface ErrorBody {
  readonly error: { readonly code: string; readonly message: string };
}

/**
 * Checks the status and the error envelope `{"error": {"code", "message"}}` (nothing else in it),
 * with `code` one of the given codes, and returns the error.
 */
function expectError(
  response: HttpResult,
  status: number,
  code: string | readonly string[],
): ErrorBody['error'] {
  expect(response.status, response.text).toBe(status);
  expect(response.headers.get('content-type')).toMatch(/^application\/json\b/);
  const body = response.body as ErrorBody;
  expect(Object.keys(body)).toEqual(['error']);
  expect(Object.keys(body.error).sort()).toEqual(['code', 'message']);
  expect(typeof code === 'string' ? [code] : code).toContain(body.error.code);
  expect(typeof body.error.message).toBe('string');
  expect(body.error.message.length).toBeGreaterThan(0);
  expect(leaksInternals(response.text), response.text).toBe(false);
  return body.error;
}

/** A 400 BAD_PARAMETER whose message names `parameter`. */
function expectBadParameter(response: HttpResult, parameter: string): void {
  const error = expectError(response, 400, 'BAD_PARAMETER');
  expect(error.message).toMatch(new RegExp(`\\b${parameter.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\b`));
}

const validParams: Readonly<Record<EndpointName, Readonly<Record<string, string>>>> = {
  'logs.all': { project: 'alpha-ref', project_tier: 'FREE' },
  'functions.invocation-stats': { project: 'alpha-ref', interval: '1day' },
  'usage.api-counts': { project: 'alpha-ref', interval: 'daily' },
};

const paths = (endpoint: EndpointName) => [byName(endpoint), byId(endpoint)];

describe('valid calls (the control for every error case below)', () => {
  it.each(Object.entries(validParams))(
    'answers %s with 200 when every required parameter is valid',
    async (endpoint, params) => {
      for (const path of paths(endpoint as EndpointName)) {
        const response = await service.get(path, params);
        expect(response.status, response.text).toBe(200);
        expect(response.body).toEqual({ result: expect.any(Array) });
      }
    },
  );
});

describe('missing required parameters', () => {
  const required = [
    { endpoint: 'logs.all', parameter: 'project' },
    { endpoint: 'logs.all', parameter: 'project_tier' },
    { endpoint: 'functions.invocation-stats', parameter: 'project' },
    { endpoint: 'functions.invocation-stats', parameter: 'interval' },
    { endpoint: 'usage.api-counts', parameter: 'project' },
    { endpoint: 'usage.api-counts', parameter: 'interval' },
  ] as const;

  it.each(required)(
    'returns 400 naming $parameter when $endpoint is called without it',
    async ({ endpoint, parameter }) => {
      const { [parameter]: _left, ...params } = validParams[endpoint];
      for (const path of paths(endpoint)) expectBadParameter(await service.get(path, params), parameter);
    },
  );

  it.each(required)(
    'returns 400 naming $parameter when $endpoint gets it empty',
    async ({ endpoint, parameter }) => {
      for (const path of paths(endpoint)) {
        expectBadParameter(await service.get(path, { ...validParams[endpoint], [parameter]: '' }), parameter);
      }
    },
  );

  it.each(Object.keys(validParams))(
    'returns 400 naming a required parameter when %s gets no parameters',
    async (endpoint) => {
      const error = expectError(await service.get(byName(endpoint as EndpointName)), 400, 'BAD_PARAMETER');
      expect(error.message).toMatch(/\b(project|project_tier|interval)\b/);
    },
  );
});

describe('malformed ISO 8601 timestamps', () => {
  const malformed = [
    'yesterday',
    'now',
    '2026-02-30T00:00:00Z', // no February 30th
    '2025-02-29T00:00:00Z', // 2025 is no leap year
    '2026-13-01T00:00:00Z',
    '2026-00-10T00:00:00Z',
    '2026-04-31T00:00:00Z',
    '2026-05-15T25:00:00Z',
    '2026-05-15T12:60:00Z',
    '2026-05-15T12:00:61Z',
    '2026-05-15T12:00:00+25:00',
    '15/05/2026',
    '2026-5-15',
    '2026-05-15T12:00:00Zjunk',
    '2026-05-15T',
    'T12:00:00Z',
    '1778848496',
  ];

  for (const parameter of ['iso_timestamp_start', 'iso_timestamp_end'] as const) {
    it.each(malformed)(`returns 400 naming ${parameter} when it is '%s'`, async (value) => {
      for (const path of paths('logs.all')) {
        expectBadParameter(
          await service.get(path, { ...validParams['logs.all'], [parameter]: value }),
          parameter,
        );
      }
    });
  }

  it('names the bad bound when only one of two bounds is malformed', async () => {
    const response = await service.get(byName('logs.all'), {
      ...validParams['logs.all'],
      iso_timestamp_start: '2026-05-14T00:00:00Z',
      iso_timestamp_end: '2026-02-30T00:00:00Z',
    });
    expectBadParameter(response, 'iso_timestamp_end');
    expect((response.body as ErrorBody).error.message).not.toMatch(/iso_timestamp_start/);
  });

  it('accepts a real leap day, 2024-02-29T12:00:00+01:00', async () => {
    const response = await service.get(byName('logs.all'), {
      ...validParams['logs.all'],
      iso_timestamp_start: '2024-02-29T12:00:00+01:00',
    });
    expect(response.status, response.text).toBe(200);
  });
});

describe('usage.api-counts interval outside minutely, hourly, daily', () => {
  it.each(['weekly', 'MINUTELY', 'Daily', '1day', '5min', 'minute', 'daily ', 'hourly,daily'])(
    "returns 400 naming interval when it is '%s'",
    async (interval) => {
      for (const path of paths('usage.api-counts')) {
        expectBadParameter(await service.get(path, { project: 'alpha-ref', interval }), 'interval');
      }
    },
  );
});

describe('usage.api-counts project that is not a valid RE2 pattern', () => {
  it.each([
    ['(', 'an unclosed group'],
    ['[z-a]', 'a reversed class range'],
    ['*a', 'a repetition of nothing'],
    ['\\', 'a trailing backslash'],
    ['(?=a)', 'a lookahead, valid in JavaScript only'],
    ['(?!a)', 'a negative lookahead, valid in JavaScript only'],
    ['(?<=a)b', 'a lookbehind, valid in JavaScript only'],
    ['(a)\\1', 'a backreference, valid in JavaScript only'],
    ['a{1001}', 'a repeat count above RE2’s 1000, valid in JavaScript'],
  ])("returns 400 naming project when it is '%s' (%s)", async (project) => {
    for (const path of paths('usage.api-counts')) {
      expectBadParameter(await service.get(path, { project, interval: 'daily' }), 'project');
    }
  });

  it('takes project of logs.all and functions.invocation-stats as plain text, so "(" is no error there', async () => {
    for (const endpoint of ['logs.all', 'functions.invocation-stats'] as const) {
      const response = await service.get(byName(endpoint), { ...validParams[endpoint], project: '(' });
      expect(response.status, response.text).toBe(200);
    }
  });
});

describe('unknown endpoints', () => {
  it.each([
    '/api/endpoints/logs.nope',
    '/api/endpoints/logs',
    '/api/endpoints/usage.api-count',
    '/api/endpoints/query/00000000-0000-4000-8000-000000000000',
    `/api/endpoints/query/${endpointIds['logs.all'].replace(/.$/, (last) => (last === '0' ? '1' : '0'))}`,
    '/api/endpoints/query/not-a-uuid',
    '/api/endpoints/query/logs.nope',
    '/api/endpoints/logs.all/extra',
    '/api/endpoints/%E0%A4%A',
  ])('returns 404 for %s', async (path) => {
    expectError(await service.get(path, validParams['logs.all']), 404, 'NOT_FOUND');
  });

  it.each(['/', '/api', '/nothing', '/api/endpoints/query/', '/api/log'])(
    'returns 404 for the unknown path %s',
    async (path) => {
      expectError(await service.get(path), 404, 'NOT_FOUND');
    },
  );
});

describe('wrong method', () => {
  it.each([
    ['POST', byName('logs.all'), 'GET'],
    ['PUT', byId('functions.invocation-stats'), 'GET'],
    ['DELETE', byName('usage.api-counts'), 'GET'],
    ['PATCH', byId('logs.all'), 'GET'],
    ['POST', '/api/endpoints', 'GET'],
    ['GET', '/api/logs', 'POST'],
    ['DELETE', '/api/logs', 'POST'],
    ['POST', '/openapi.json', 'GET'],
    ['PATCH', '/openapi.json', 'GET'],
    ['POST', '/health', 'GET'],
  ])('returns 405 with an Allow header for %s %s', async (method, path, allowed) => {
    const response = await service.request(method, path, {
      params: validParams['logs.all'],
      ...(method === 'GET' || method === 'DELETE' ? {} : { body: '{}' }),
    });
    expectError(response, 405, 'METHOD_NOT_ALLOWED');
    const allow = (response.headers.get('allow') ?? '').split(',').map((part) => part.trim());
    expect(allow).toContain(allowed);
    expect(allow).not.toContain(method);
  });
});

describe('authentication', () => {
  const routes: ReadonlyArray<readonly [string, string, Record<string, string>?, string?]> = [
    ['GET', byName('logs.all'), validParams['logs.all']],
    ['GET', byId('logs.all'), validParams['logs.all']],
    ['GET', byName('functions.invocation-stats'), validParams['functions.invocation-stats']],
    ['GET', byId('functions.invocation-stats'), validParams['functions.invocation-stats']],
    ['GET', byName('usage.api-counts'), validParams['usage.api-counts']],
    ['GET', byId('usage.api-counts'), validParams['usage.api-counts']],
    ['GET', byName('logs.all')], // missing parameters: 401 comes first
    ['GET', '/api/endpoints'],
    [
      'POST',
      '/api/logs',
      { source_name: edgeSource },
      '{"batch": [{"event_message": "x", "project": "auth-ref"}]}',
    ],
    ['POST', '/api/logs', { source_name: 'no-such-source' }, 'not json'],
    ['GET', '/api/endpoints/logs.nope'],
    ['GET', '/api/endpoints/query/00000000-0000-4000-8000-000000000000'],
    ['POST', byName('logs.all')],
    ['GET', '/nothing/here'],
    ['GET', '/'],
  ];
  const badKeys: ReadonlyArray<readonly [string, string | null]> = [
    ['no key', null],
    ['an empty key', ''],
    ['a wrong key', 'not-the-key-0123456789'],
    ['the key in upper case', testApiKey.toUpperCase()],
    ['the key with a prefix', `Bearer ${testApiKey}`],
    ['a prefix of the key', testApiKey.slice(0, -1)],
  ];
  const bodies = new Set<string>();

  it.each(badKeys)('returns 401 on every route, known or not, with %s', async (_label, apiKey) => {
    for (const [method, path, params, body] of routes) {
      const response = await service.request(method, path, {
        apiKey,
        ...(params ? { params } : {}),
        ...(body ? { body } : {}),
      });
      expectError(response, 401, 'UNAUTHENTICATED');
      bodies.add(response.text);
    }
  });

  it('sends the identical 401 body on every route', () => {
    expect(bodies.size).toBe(1);
  });

  it('stores nothing that was posted without a valid key', async () => {
    const response = await service.get(byName('logs.all'), {
      project: 'auth-ref',
      project_tier: 'ENTERPRISE',
    });
    expect(response.status).toBe(200);
    expect(response.body).toEqual({ result: [] });
  });

  it('answers GET /health without a key', async () => {
    const response = await service.request('GET', '/health', { apiKey: null });
    expect(response.status).toBe(200);
  });
});

describe('ingestion errors', () => {
  const project = 'delta-ref';

  /** Valid edge events of `project`, inside the one-day window of the fixed now. */
  const goodEvents: EdgeEvent[] = [0, 1, 3].map((n) => {
    const micros = nowMicros - HOUR - n * MINUTE;
    const path = '/rest/v1/orders';
    return {
      source: edgeSource,
      id: `ingest-${n}`,
      micros,
      timestamp: isoAt(micros, n === 1 ? 120 : 0),
      event_message: `GET ${path}`,
      project,
      metadata: {
        request: {
          url: `https://${project}.supabase.co${path}`,
          path,
          method: 'GET',
          host: `${project}.supabase.co`,
        },
        response: { status_code: 200, origin_time: 10 + n },
      },
    };
  });
  const [first, second, fourth] = goodEvents.map(toIngestEvent) as [unknown, unknown, unknown];

  const storedRows = async () => {
    const response = await service.get(byName('logs.all'), { project, project_tier: 'FREE' });
    expect(response.status).toBe(200);
    return (response.body as { result: unknown[] }).result;
  };

  it('returns 400 naming source_name when it is unknown', async () => {
    expectBadParameter(await service.ingest('no.such.source', [first]), 'source_name');
    expect(await storedRows()).toEqual([]);
  });

  it('returns 400 naming source_name when it is given twice, and stores nothing', async () => {
    const response = await service.request('POST', '/api/logs', {
      params: [
        ['source_name', edgeSource],
        ['source_name', 'postgres.logs'],
      ],
      body: JSON.stringify({ batch: [first] }),
    });
    expectError(response, 400, 'BAD_PARAMETER');
    expect((response.body as { error: { message: string } }).error.message).toBe(
      "Parameter 'source_name' is given more than once",
    );
    expect(await storedRows()).toEqual([]);
  });

  it.each([
    ['missing', {}],
    ['empty', { source_name: '' }],
  ])('returns 400 naming source_name when it is %s', async (_label, params) => {
    const response = await service.request('POST', '/api/logs', {
      params,
      body: JSON.stringify({ batch: [first] }),
    });
    expectBadParameter(response, 'source_name');
    expect(await storedRows()).toEqual([]);
  });

  it.each([
    ['a cut-off body', `{"batch": [${JSON.stringify(first)}`],
    ['a trailing comma', `{"batch": [${JSON.stringify(first)},]}`],
    ['plain text', 'not json at all'],
    ['single quotes', "{'batch': []}"],
  ])('returns 400 for malformed JSON (%s) and stores nothing', async (_label, body) => {
    const response = await service.request('POST', '/api/logs', {
      params: { source_name: edgeSource },
      body,
    });
    expectError(response, 400, 'BAD_REQUEST');
    expect(await storedRows()).toEqual([]);
  });

  it('returns 400 when batch is not an array', async () => {
    const response = await service.request('POST', '/api/logs', {
      params: { source_name: edgeSource },
      body: JSON.stringify({ batch: 'events' }),
    });
    expectError(response, 400, 'BAD_REQUEST');
  });

  it.each([
    ['a timestamp that is no time', { event_message: 'bad', project, timestamp: 'half past nine' }],
    ['an impossible date', { event_message: 'bad', project, timestamp: '2026-02-30T00:00:00Z' }],
    ['no event_message', { project, timestamp: isoAt(nowMicros - HOUR) }],
    ['metadata that is an array', { event_message: 'bad', project, metadata: [1, 2] }],
    ['a project that is a number', { event_message: 'bad', project: 42 }],
    ['a string instead of an object', 'just a string'],
  ])('returns 400 naming index 2 for an event with %s, and stores none of the batch', async (_label, bad) => {
    const response = await service.ingest(edgeSource, [first, second, bad, fourth]);
    const error = expectError(response, 400, ['BAD_REQUEST', 'BAD_PARAMETER']);
    expect(error.message).toMatch(/\b(event|index)\s*#?\s*2\b/i);
    expect(error.message).not.toMatch(/\b(event|index)\s*#?\s*[013]\b/i);
    expect(await storedRows()).toEqual([]);
  });

  it('stores the same batch without the bad event, visible to the next query (the control)', async () => {
    const response = await service.ingest(edgeSource, [first, second, fourth]);
    expect(response.status, response.text).toBe(200);
    expect(await storedRows()).toEqual(
      expectedLogsAll(goodEvents, { project, project_tier: 'FREE' }, fixtureNow),
    );
  });
});

describe('hostile input', () => {
  it('returns 200 and no rows for an injection attempt in project, which is only text', async () => {
    const response = await service.get(byName('logs.all'), {
      project: "x' OR '1'='1",
      project_tier: 'FREE',
    });
    expect(response.status, response.text).toBe(200);
    expect(response.body).toEqual({ result: [] });
  });

  it('returns 200 and only empty buckets for a NUL byte in project, which is only text', async () => {
    const params = { project: 'a\u0000b', interval: '1day' };
    const response = await service.get(byName('functions.invocation-stats'), params);
    expect(response.status, response.text).toBe(200);
    expect(response.body).toEqual({ result: expectedInvocationStats([], params, fixtureNow) });
  });

  it('returns 200 for an interval of 2000 characters, which behaves as 1day', async () => {
    const params = { project: 'a', interval: 'x'.repeat(2000) };
    const response = await service.get(byName('functions.invocation-stats'), params);
    expect(response.status, response.text).toBe(200);
    expect(response.body).toEqual({
      result: expectedInvocationStats([], { project: 'a', interval: '1day' }, fixtureNow),
    });
  });

  it('returns 400 naming project when it is 5000 characters long', async () => {
    const response = await service.get(byName('usage.api-counts'), {
      project: 'a'.repeat(5000),
      interval: 'daily',
    });
    expectBadParameter(response, 'project');
  });

  it('returns 200 for a catastrophic-backtracking pattern, which RE2 matches in linear time', async () => {
    const response = await service.get(byName('usage.api-counts'), { project: '(a+)+$', interval: 'daily' });
    expect(response.status, response.text).toBe(200);
    // No url stored by this file ends in 'a'.
    expect(response.body).toEqual({ result: [] });
  });

  it('returns 400 naming project when it is given twice', async () => {
    const response = await service.get(byName('logs.all'), [
      ['project', 'a'],
      ['project', 'b'],
      ['project_tier', 'FREE'],
    ]);
    expectBadParameter(response, 'project');
  });
});

describe('request targets that fetch would normalise', () => {
  /** A GET whose request target goes out exactly as written. */
  const getTarget = (target: string, apiKey: string | null) =>
    new Promise<HttpResult>((resolve, reject) => {
      const { hostname, port } = new URL(service.url);
      const headers: Record<string, string> = apiKey === null ? {} : { 'x-api-key': apiKey };
      const outgoing = request({ hostname, port, path: target, headers }, (incoming) => {
        let text = '';
        incoming.setEncoding('utf8');
        incoming.on('data', (chunk: string) => {
          text += chunk;
        });
        incoming.on('end', () => {
          const responseHeaders = new Headers();
          for (const [name, value] of Object.entries(incoming.headers)) {
            if (typeof value === 'string') responseHeaders.set(name, value);
          }
          let body: unknown;
          try {
            body = JSON.parse(text);
          } catch {
            body = undefined;
          }
          resolve({
            method: 'GET',
            path: target,
            sent: target,
            status: incoming.statusCode ?? 0,
            headers: responseHeaders,
            text,
            body,
          });
        });
      });
      outgoing.on('error', reject);
      outgoing.end();
    });

  const paths = ['//', '///', '//x', '//api/endpoints', '//querygate.example/health'];

  it.each(paths)('returns 404 for %s, a path with an empty first segment', async (target) => {
    expectError(await getTarget(target, testApiKey), 404, 'NOT_FOUND');
  });

  it.each(paths)('returns 401 for %s without a key', async (target) => {
    expectError(await getTarget(target, null), 401, 'UNAUTHENTICATED');
  });

  it.each(['http://[', 'http://[::1/health'])(
    'returns 400 for %s, which is no URL, with a key and without',
    async (target) => {
      for (const apiKey of [testApiKey, null]) {
        expectError(await getTarget(target, apiKey), 400, 'BAD_REQUEST');
      }
    },
  );
});

describe('every response of this file', () => {
  it('was never a 5xx and never carried a stack trace', () => {
    expect(service.responses.length).toBeGreaterThan(100);
    const offenders = service.responses
      .filter((response) => response.status >= 500 || leaksInternals(response.text))
      .map(
        (response) =>
          `${response.status} ${response.method} ${response.path}: ${response.text.slice(0, 200)}`,
      );
    expect(offenders).toEqual([]);
  });
});
