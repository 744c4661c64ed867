import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ClientError, GraphQLClient } from 'graphql-request';
import { exportJWK, exportSPKI, generateKeyPair, type JWTPayload, SignJWT, UnsecuredJWT } from 'jose';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { signToken } from '../../src/cli/token-command.js';
import { fixtureEvents, fixtureNow, projects } from '../fixtures/spec-fixture.js';
import { runQuerygate } from '../helpers/querygate-child.js';
import {
  byId,
  byName,
  leaksInternals,
  type QuerygateUnderTest,
  startQuerygateUnderTest,
} from '../helpers/querygate-server.js';
import { type ApiCountsRow, expectedApiCounts, re2AsJs } from '../helpers/spec-expectations.js';

/**
 * Signed tokens (README, "Signed tokens") through the real server: minted by `querygate token`
 * and by jose directly (HS256 with the secret, RS256 from a PEM public key file, ES256 from a
 * JWKS file), called with fetch over REST and with graphql-request over GraphQL. Expected rows
 * come from the fixture (spec-expectations.ts), never from the server's own answers.
 */

const secret = 'signed-token-test-secret-0123456789abcdef';
const otherSecret = 'another-secret-that-signs-nothing-here-0123';
const dailyAlpha = expectedApiCounts(
  fixtureEvents,
  { interval: 'daily', urlMatches: re2AsJs(projects.alpha) },
  fixtureNow,
);
const dailyBeta = expectedApiCounts(
  fixtureEvents,
  { interval: 'daily', urlMatches: re2AsJs(projects.beta) },
  fixtureNow,
);

let service: QuerygateUnderTest;
let keysDir: string;
let rsa: Awaited<ReturnType<typeof generateKeyPair>>;
let ec: Awaited<ReturnType<typeof generateKeyPair>>;

beforeAll(async () => {
  keysDir = await mkdtemp(join(tmpdir(), 'querygate-token-keys-'));
  rsa = await generateKeyPair('RS256');
  ec = await generateKeyPair('ES256');
  await writeFile(join(keysDir, 'rsa.pem'), await exportSPKI(rsa.publicKey));
  const jwk = { ...(await exportJWK(ec.publicKey)), kid: 'team-es', alg: 'ES256', use: 'sig' };
  await writeFile(join(keysDir, 'jwks.json'), JSON.stringify({ keys: [jwk] }));
  service = await startQuerygateUnderTest({
    now: fixtureNow,
    events: fixtureEvents,
    environment: {
      QUERYGATE_JWT_SECRET: secret,
      QUERYGATE_JWT_PUBLIC_KEY_FILE: join(keysDir, 'rsa.pem'),
      QUERYGATE_JWKS_FILE: join(keysDir, 'jwks.json'),
    },
  });
});

afterAll(async () => {
  await service?.close();
  await rm(keysDir, { recursive: true, force: true });
});

/** A token with these claims, signed with HS256 by `key` (the server's secret unless given), living an hour. */
function mint(claims: JWTPayload, key: string = secret, expiresIn: string | number = '1h'): Promise<string> {
  return new SignJWT(claims)
    .setProtectedHeader({ alg: 'HS256' })
    .setExpirationTime(expiresIn)
    .sign(new TextEncoder().encode(key));
}

/** GET with the token as `Authorization: Bearer`, and no API key. */
function getWith(token: string, path: string, params: Record<string, string> = {}) {
  return service.request('GET', path, {
    apiKey: null,
    params,
    headers: { authorization: `Bearer ${token}` },
  });
}

function messageOf(response: { body: unknown }): string {
  return (response.body as { error: { message: string } }).error.message;
}

const alphaUsage = { endpoints: ['usage.api-counts'], params: { project: projects.alpha } };

describe('REST with a signed token', () => {
  it('answers the pinned project’s rows when the caller leaves the pinned parameter out', async () => {
    // The test can only pass by pinning: the two projects' rows differ.
    expect(dailyAlpha).not.toEqual(dailyBeta);
    const response = await getWith(await mint(alphaUsage), byName('usage.api-counts'), { interval: 'daily' });
    expect(response.status).toBe(200);
    expect((response.body as { result: ApiCountsRow[] }).result).toEqual(dailyAlpha);
  });

  it('accepts the pinned value sent again, by name and by UUID', async () => {
    const token = await mint(alphaUsage);
    for (const path of [byName('usage.api-counts'), byId('usage.api-counts')]) {
      const response = await getWith(token, path, { project: projects.alpha, interval: 'daily' });
      expect(response.status).toBe(200);
      expect((response.body as { result: ApiCountsRow[] }).result).toEqual(dailyAlpha);
    }
  });

  it('answers 403 naming project when the caller sends another project', async () => {
    const response = await getWith(await mint(alphaUsage), byName('usage.api-counts'), {
      project: projects.beta,
      interval: 'daily',
    });
    expect(response.status).toBe(403);
    expect(response.body).toMatchObject({ error: { code: 'FORBIDDEN' } });
    expect(messageOf(response)).toContain("Parameter 'project' is pinned");
  });

  // Found by fuzzing: a pin of a name the contract does not declare (a sandboxed endpoint's
  // `sql`) silently replaced the caller's other value, answering rows of a query never asked for.
  it('answers 403 when the caller sends another value of a pinned name the endpoint does not declare', async () => {
    const token = await mint({ ...alphaUsage, params: { ...alphaUsage.params, sql: 'select 1 as x' } });
    const params = { interval: 'daily' };
    expect(
      (await getWith(token, byName('usage.api-counts'), { ...params, sql: 'select 1 as x' })).status,
    ).toBe(200);
    const other = await getWith(token, byName('usage.api-counts'), { ...params, sql: 'select 2 as x' });
    expect(other.status).toBe(403);
    expect(messageOf(other)).toContain("Parameter 'sql' is pinned");
  });

  it('answers 403 naming the endpoint for an endpoint outside its endpoints claim, by name and by UUID', async () => {
    const token = await mint(alphaUsage);
    for (const path of [byName('functions.invocation-stats'), byId('logs.all')]) {
      const response = await getWith(token, path, { project: projects.alpha });
      expect(response.status).toBe(403);
      const name = path === byId('logs.all') ? 'logs.all' : 'functions.invocation-stats';
      expect(response.body).toMatchObject({ error: { code: 'FORBIDDEN' } });
      expect(messageOf(response)).toContain(`endpoint '${name}'`);
    }
  });

  it('lists, in /api/endpoints and /openapi.json, only the endpoints its globs match', async () => {
    const token = await mint({ endpoints: ['usage.*', 'functions.*'] });
    const listed = await getWith(token, '/api/endpoints');
    expect(listed.status).toBe(200);
    const names = (listed.body as { result: { name: string }[] }).result.map(({ name }) => name);
    expect(names.sort()).toEqual(['functions.invocation-stats', 'usage.api-counts']);
    const openapi = await getWith(token, '/openapi.json');
    const paths = Object.keys((openapi.body as { paths: Record<string, unknown> }).paths);
    expect(
      paths.filter((path) => path.startsWith('/api/endpoints/') && !path.includes('/query/')).sort(),
    ).toEqual(['/api/endpoints/functions.invocation-stats', '/api/endpoints/usage.api-counts']);
  });

  it('keys the cache by the pinned value: a key’s cached beta result is never its answer, an alpha one is shared', async () => {
    const target = { project: projects.beta, interval: 'hourly' };
    // A key asks for beta twice: the second answer comes from the kept hit, before Fastify.
    expect((await service.get(byName('usage.api-counts'), target)).status).toBe(200);
    expect((await service.get(byName('usage.api-counts'), target)).status).toBe(200);
    const token = await mint(alphaUsage);
    // The same request target with the token pinned to alpha: refused, never beta's kept answer.
    const sameTarget = await getWith(token, byName('usage.api-counts'), target);
    expect(sameTarget.status).toBe(403);
    const hourlyAlpha = expectedApiCounts(
      fixtureEvents,
      { interval: 'hourly', urlMatches: re2AsJs(projects.alpha) },
      fixtureNow,
    );
    const pinned = await getWith(token, byName('usage.api-counts'), { interval: 'hourly' });
    expect((pinned.body as { result: ApiCountsRow[] }).result).toEqual(hourlyAlpha);
    // The key's own call for alpha is then a hit of the entry the token's call made.
    const before = service.resolverStats();
    const byKey = await service.get(byName('usage.api-counts'), {
      project: projects.alpha,
      interval: 'hourly',
    });
    expect((byKey.body as { result: ApiCountsRow[] }).result).toEqual(hourlyAlpha);
    const after = service.resolverStats();
    expect([after.misses, after.hits]).toEqual([before.misses, before.hits + 1]);
  });

  it('may ingest only with the ingest claim, and reaches no route but the endpoints’ (403)', async () => {
    const event = JSON.stringify({ event_message: 'from a token', project: projects.alpha });
    const post = async (token: string) =>
      service.request('POST', '/api/logs', {
        apiKey: null,
        params: { source_name: 'cloudflare.logs.prod' },
        headers: { authorization: `Bearer ${token}` },
        body: event,
      });
    const without = await post(await mint(alphaUsage));
    expect(without.status).toBe(403);
    expect(without.body).toMatchObject({ error: { code: 'FORBIDDEN' } });
    expect((await post(await mint({ ...alphaUsage, ingest: true }))).status).toBe(200);
    const metrics = await getWith(await mint({ endpoints: ['*'] }), '/metrics');
    expect(metrics.status).toBe(403);
  });
});

describe('tokens refused with 401, naming the rule', () => {
  const now = () => Math.floor(Date.now() / 1000);
  const cases: [string, () => Promise<string>, string][] = [
    ['a wrong signature', () => mint(alphaUsage, otherSecret), 'its signature does not verify'],
    [
      'alg: none',
      async () => new UnsecuredJWT(alphaUsage).setExpirationTime('1h').encode(),
      'its alg is not one this server accepts',
    ],
    ['an expired token', () => mint(alphaUsage, secret, now() - 60), 'it has expired'],
    [
      'a token without exp',
      () =>
        new SignJWT(alphaUsage).setProtectedHeader({ alg: 'HS256' }).sign(new TextEncoder().encode(secret)),
      'it has no exp claim',
    ],
    [
      'a token not valid before a time to come (nbf)',
      () =>
        new SignJWT(alphaUsage)
          .setProtectedHeader({ alg: 'HS256' })
          .setExpirationTime('2h')
          .setNotBefore('1h')
          .sign(new TextEncoder().encode(secret)),
      'it is not valid yet (nbf)',
    ],
    [
      'RS256 signed by a key not configured',
      async () =>
        new SignJWT(alphaUsage)
          .setProtectedHeader({ alg: 'RS256' })
          .setExpirationTime('1h')
          .sign((await generateKeyPair('RS256')).privateKey),
      'its signature does not verify',
    ],
    ['a malformed token', async () => 'abc.def.ghi', 'it is not a well-formed signed JWT'],
    ['a claim of the wrong type', () => mint({ endpoints: [42] }), 'its endpoints claim must be'],
  ];

  it.each(cases)('refuses %s, reading nothing', async (_name, make, why) => {
    const token = await make();
    const before = service.resolverStats();
    const response = await getWith(token, byName('usage.api-counts'), { interval: 'daily' });
    expect(response.status).toBe(401);
    expect(response.body).toMatchObject({ error: { code: 'UNAUTHENTICATED' } });
    expect(messageOf(response)).toContain(`The signed token is refused: ${why}`);
    expect(response.headers.get('www-authenticate')).toBe('Bearer error="invalid_token"');
    expect(response.text).not.toContain(secret);
    expect(response.text).not.toContain(token);
    expect(leaksInternals(response.text)).toBe(false);
    const after = service.resolverStats();
    expect([after.misses, after.hits, after.uncached]).toEqual([before.misses, before.hits, before.uncached]);
  });
});

describe('tokens signed elsewhere', () => {
  it.each([
    ['RS256 verified by the PEM public key file', { alg: 'RS256' }, () => rsa.privateKey],
    ['ES256 verified by the JWKS file, chosen by kid', { alg: 'ES256', kid: 'team-es' }, () => ec.privateKey],
  ] as const)('accepts %s', async (_name, header, key) => {
    const token = await new SignJWT(alphaUsage)
      .setProtectedHeader(header)
      .setExpirationTime('5m')
      .sign(key());
    const response = await getWith(token, byName('usage.api-counts'), { interval: 'daily' });
    expect(response.status).toBe(200);
    expect((response.body as { result: ApiCountsRow[] }).result).toEqual(dailyAlpha);
  });

  it('refuses HS256 made with the public key as its secret (algorithm confusion)', async () => {
    const pem = await exportSPKI(rsa.publicKey);
    const response = await getWith(await mint(alphaUsage, pem), byName('usage.api-counts'), {
      interval: 'daily',
    });
    expect(response.status).toBe(401);
    expect(messageOf(response)).toContain('its signature does not verify');
  });
});

describe('GraphQL with a signed token (graphql-request)', () => {
  const client = (token: string) =>
    new GraphQLClient(`${service.url}/graphql`, { headers: { authorization: `Bearer ${token}` } });
  const countsQuery = /* GraphQL */ `
    query Counts {
      usage { apiCounts(interval: DAILY) { totalRestRequests totalStorageRequests totalAuthRequests totalRealtimeRequests } }
    }
  `;
  const totals = (rows: readonly ApiCountsRow[]) =>
    rows.map((row) => ({
      totalRestRequests: row.total_rest_requests,
      totalStorageRequests: row.total_storage_requests,
      totalAuthRequests: row.total_auth_requests,
      totalRealtimeRequests: row.total_realtime_requests,
    }));

  /** graphql-request's error for a document sent with a token pinned to alpha (it must throw). */
  async function refusedWithAlphaToken(document: string): Promise<ClientError> {
    const error = await client(await mint(alphaUsage))
      .request(document)
      .catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ClientError);
    return error as ClientError;
  }

  it('answers a granted field with the pinned project’s rows, the pinned argument left out', async () => {
    const data = await client(await mint(alphaUsage)).request<{ usage: { apiCounts: unknown[] } }>(
      countsQuery,
    );
    expect(data.usage.apiCounts).toEqual(totals(dailyAlpha));
  });

  it('lists only its endpoints in `endpoints` and in introspection', async () => {
    const data = await client(await mint(alphaUsage)).request<{
      endpoints: { name: string }[];
      __schema: { queryType: { fields: { name: string }[] }; types: { name: string }[] };
    }>(/* GraphQL */ `
      { endpoints { name } __schema { queryType { fields { name } } types { name } } }
    `);
    expect(data.endpoints.map(({ name }) => name)).toEqual(['usage.api-counts']);
    expect(data.__schema.queryType.fields.map(({ name }) => name).sort()).toEqual(['endpoints', 'usage']);
    const typeNames = data.__schema.types.map(({ name }) => name);
    expect(typeNames).not.toContain('LogsQueries');
    expect(typeNames).not.toContain('ProjectTier');
  });

  it('refuses a field outside its endpoints claim with 403 naming the endpoint', async () => {
    const { response } = await refusedWithAlphaToken(/* GraphQL */ `
      { logs { all(project: "alpha-ref", projectTier: PRO) { id } } }
    `);
    expect(response.status).toBe(403);
    expect(response.errors?.[0]?.extensions).toMatchObject({ code: 'FORBIDDEN', endpoint: 'logs.all' });
  });

  it('refuses another value of a pinned argument, naming the parameter', async () => {
    const { response } = await refusedWithAlphaToken(/* GraphQL */ `
      { usage { apiCounts(project: "beta-ref", interval: DAILY) { totalRestRequests } } }
    `);
    expect(response.errors?.[0]?.extensions).toMatchObject({ code: 'FORBIDDEN', parameter: 'project' });
    expect(response.data).toEqual({ usage: { apiCounts: null } });
  });

  it('is never answered from a key’s kept response to the same request', async () => {
    const body = /* GraphQL */ `{ usage { apiCounts(project: "beta-ref", interval: DAILY) { totalRestRequests } } }`;
    const byKey = new GraphQLClient(`${service.url}/graphql`, { headers: { 'x-api-key': service.apiKey } });
    // Seen twice with a key, then kept and replayed.
    for (let i = 0; i < 3; i++) await byKey.request(body);
    const { response } = await refusedWithAlphaToken(body);
    expect(response.errors?.[0]?.extensions).toMatchObject({ code: 'FORBIDDEN' });
  });
});

describe('querygate token', () => {
  it('mints a token the server accepts, with the endpoints, pinned values and ingest flags given', async () => {
    const { code, stdout, stderr } = await runQuerygate(
      [
        'token',
        '--endpoints',
        'usage.*',
        '--param',
        `project=${projects.alpha}`,
        '--expires-in',
        '10m',
        '--ingest',
      ],
      { QUERYGATE_JWT_SECRET: secret, QUERYGATE_API_KEYS: '' },
    );
    expect(code, stderr).toBe(0);
    const token = stdout.trim();
    const response = await getWith(token, byName('usage.api-counts'), { interval: 'daily' });
    expect(response.status).toBe(200);
    expect((response.body as { result: ApiCountsRow[] }).result).toEqual(dailyAlpha);
    const refused = await getWith(token, byName('logs.all'), { project: projects.alpha });
    expect(refused.status).toBe(403);
    const ingested = await service.request('POST', '/api/logs', {
      apiKey: null,
      params: { source_name: 'cloudflare.logs.prod' },
      headers: { authorization: `Bearer ${token}` },
      body: JSON.stringify({ event_message: 'minted by the CLI' }),
    });
    expect(ingested.status).toBe(200);
  }, 120_000);
});

describe('querygate token with arguments that make no usable token', () => {
  const claims = { endpoints: ['usage.*'], params: [], expiresIn: '1h', ingest: false };

  it.each(['-5h', '0s', '5 hours ago'])(
    'refuses --expires-in %s, which is no time ahead',
    async (expiresIn) => {
      await expect(signToken(secret, { ...claims, expiresIn })).rejects.toThrow(`--expires-in ${expiresIn}`);
    },
  );

  it('refuses --endpoints that names no endpoint, for a token that may not ingest either', async () => {
    await expect(signToken(secret, { ...claims, endpoints: [''] })).rejects.toThrow('--endpoints');
    await expect(signToken(secret, { ...claims, endpoints: [], ingest: true })).resolves.toMatch(/^ey/);
  });
});

describe('every answer', () => {
  it('was never a 5xx nor leaked internals', () => {
    for (const response of service.responses) {
      expect(response.status).toBeLessThan(500);
      expect(leaksInternals(response.text)).toBe(false);
    }
  });
});
