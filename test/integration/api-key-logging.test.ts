import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { SignJWT } from 'jose';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { queriesDir } from '../../src/paths.js';
import { startQuerygate } from '../../src/server.js';
import { outputMatching, spawnQuerygate, stopChild } from '../helpers/querygate-child.js';
import { testApiKey, testConfig } from '../helpers/querygate-server.js';

/** A logger at trace level and every line it writes. */
function traceLog() {
  const lines: string[] = [];
  const capture = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(chunk.toString('utf8'));
      done();
    },
  });
  return { lines, logger: createLogger('trace', capture) };
}

describe('api_key in the query string', () => {
  it('never reaches a log line, even at trace level, valid or not, full or ingest-only, on REST, GraphQL and errors', async () => {
    const { lines, logger } = traceLog();
    const dataDir = await mkdtemp(join(tmpdir(), 'querygate-keylog-'));
    const wrongKey = 'wrong-key-that-must-not-be-logged-42';
    const ingestKey = 'ingest-only-key-that-must-not-be-logged-7';
    const app = await startQuerygate(testConfig(dataDir, { QUERYGATE_INGEST_KEYS: ingestKey }), {
      logger,
    });
    try {
      const targets = [
        `/api/endpoints/query/usage.api-counts?project=p&interval=daily&api_key=${testApiKey}`,
        `/api/endpoints/query/usage.api-counts?project=p&interval=daily&api_key=${wrongKey}`,
        `/api/endpoints/query/nope?api_key=${testApiKey}`,
        `/api/endpoints/%E0%A4%A?api_key=${testApiKey}`,
        `/graphql?query=${encodeURIComponent('{ endpoints { name } }')}&api_key=${testApiKey}`,
        `/graphql?query=${encodeURIComponent('{ nope }')}&api_key=${testApiKey}`,
      ];
      const statuses = [];
      for (const target of targets) statuses.push((await fetch(`${app.url}${target}`)).status);
      // A validation error asked for as plain JSON is a 200 (GraphQL over HTTP, application/json).
      expect(statuses).toEqual([200, 401, 404, 404, 200, 200]);
      const posted = await fetch(`${app.url}/api/logs?source_name=postgres.logs&api_key=${testApiKey}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${testApiKey}` },
        body: '{"message":"x"}',
      });
      expect(posted.status).toBe(200);
      // An ingest-only key: refused on a route that reads (403), accepted where it ingests.
      const refused = await fetch(
        `${app.url}/api/endpoints/query/usage.api-counts?project=p&interval=daily&api_key=${ingestKey}`,
      );
      const ingested = await fetch(`${app.url}/api/logs?source_name=postgres.logs&api_key=${ingestKey}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"message":"y"}',
      });
      expect([refused.status, ingested.status]).toEqual([403, 200]);
    } finally {
      await app.close();
      await rm(dataDir, { recursive: true, force: true });
    }
    expect(lines.length).toBeGreaterThan(0);
    const leaked = lines.filter(
      (line) => line.includes(testApiKey) || line.includes(wrongKey) || line.includes(ingestKey),
    );
    expect(leaked).toEqual([]);
  });
});

describe('signed tokens', () => {
  it('never reach a log line, nor does the secret, at trace level, accepted or refused, on REST, GraphQL and ingestion', async () => {
    const { lines, logger } = traceLog();
    const dataDir = await mkdtemp(join(tmpdir(), 'querygate-tokenlog-'));
    const secret = 'a-jwt-secret-that-must-not-be-logged-0123456789';
    const app = await startQuerygate(testConfig(dataDir, { QUERYGATE_JWT_SECRET: secret }), {
      logger,
    });
    const sign = (claims: Record<string, unknown>, key: string, expiresIn: string | number) =>
      new SignJWT(claims)
        .setProtectedHeader({ alg: 'HS256' })
        .setExpirationTime(expiresIn)
        .sign(new TextEncoder().encode(key));
    const granted = { endpoints: ['usage.*'], params: { project: 'p' }, ingest: true };
    const tokens = {
      valid: await sign(granted, secret, '1h'),
      wrongSignature: await sign(granted, 'some-other-secret-0123456789-abcdefgh', '1h'),
      expired: await sign(granted, secret, Math.floor(Date.now() / 1000) - 60),
      noEndpoints: await sign({ endpoints: [] }, secret, '1h'),
    };
    const bearer = (token: string) => ({ authorization: `Bearer ${token}` });
    try {
      const statuses: number[] = [];
      const call = async (path: string, token: string, init: RequestInit = {}) => {
        const response = await fetch(`${app.url}${path}`, {
          ...init,
          headers: { 'content-type': 'application/json', ...bearer(token), ...(init.headers ?? {}) },
        });
        statuses.push(response.status);
      };
      await call('/api/endpoints/usage.api-counts?interval=daily', tokens.valid);
      await call('/api/endpoints/usage.api-counts?interval=daily&project=other', tokens.valid);
      await call('/api/endpoints/logs.all?project=p&project_tier=PRO', tokens.valid);
      await call('/api/endpoints/usage.api-counts?interval=daily', tokens.wrongSignature);
      await call('/api/endpoints/usage.api-counts?interval=daily', tokens.expired);
      await call('/api/endpoints/usage.api-counts?interval=daily', tokens.noEndpoints);
      await call('/api/endpoints/%E0%A4%A', tokens.valid);
      const graphql = (query: string) => ({ method: 'POST', body: JSON.stringify({ query }) });
      await call('/graphql', tokens.valid, graphql('{ usage { apiCounts(interval: DAILY) { timestamp } } }'));
      await call(
        '/graphql',
        tokens.valid,
        graphql('{ logs { all(project: "p", projectTier: PRO) { id } } }'),
      );
      await call('/graphql', tokens.valid, graphql('{ nope }'));
      await call('/api/logs?source_name=postgres.logs', tokens.valid, {
        method: 'POST',
        body: '{"message":"t"}',
      });
      await call('/metrics', tokens.valid);
      // Each refusal is the one its rule gives (so each path above was taken). GraphQL's refusals
      // asked for as plain JSON are 200s, as GraphQL over HTTP gives for application/json.
      expect(statuses).toEqual([200, 403, 403, 401, 401, 403, 401, 200, 200, 200, 200, 403]);
    } finally {
      await app.close();
      await rm(dataDir, { recursive: true, force: true });
    }
    expect(lines.length).toBeGreaterThan(0);
    const secrets = [secret, ...Object.values(tokens)];
    // Each token's signature alone too: a log line that cut the token short would still leak it.
    const signatures = Object.values(tokens).map((token) => token.split('.')[2] as string);
    const leaked = lines.filter((line) => [...secrets, ...signatures].some((value) => line.includes(value)));
    expect(leaked).toEqual([]);
  });
});

/**
 * `querygate serve` in a child process, everything it prints (welcome text on stdout, the log)
 * kept, the server called with each key in each place a client puts it.
 */
async function serveAndCall(dataDir: string, apiKey: string | undefined, env: NodeJS.ProcessEnv = {}) {
  let output = '';
  const child = spawnQuerygate({
    queries: queriesDir,
    dataDir,
    apiKey,
    env,
    onOutput: (text) => {
      output += text;
    },
  });
  try {
    const [, url = ''] = await outputMatching(child, () => output, /listening on (http:\/\/\S+)/);
    await outputMatching(child, () => output, /Health: /);
    const key = apiKey ?? (await readFile(join(dataDir, 'api-key'), 'utf8')).trim();
    const ingestKey = env.QUERYGATE_INGEST_KEYS;
    const statuses: number[] = [];
    const call = async (path: string, init: RequestInit = {}) =>
      statuses.push((await fetch(`${url}${path}`, init)).status);
    const counts = '/api/endpoints/usage.api-counts?project=p&interval=daily';
    await call(counts, { headers: { 'x-api-key': key } });
    await call(counts, { headers: { authorization: `Bearer ${key}` } });
    await call(`${counts}&api_key=${key}`);
    await call(`${counts}&api_key=${key}x`);
    await call('/graphql', {
      method: 'POST',
      headers: { 'x-api-key': key, 'content-type': 'application/json' },
      body: JSON.stringify({ query: '{ nope }' }),
    });
    await call(`/api/logs?source_name=postgres.logs&api_key=${ingestKey ?? key}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"message":"x"}',
    });
    if (ingestKey) await call(`${counts}&api_key=${ingestKey}`);
    expect(statuses).toEqual([200, 200, 200, 401, 200, 200, ...(ingestKey ? [403] : [])]);
    return { output, key };
  } finally {
    await stopChild(child);
  }
}

/** How many times `text` holds `key`. */
const occurrences = (text: string, key: string) => text.split(key).length - 1;

describe('what querygate serve prints, welcome text and log', () => {
  it('never holds a key of QUERYGATE_API_KEYS or QUERYGATE_INGEST_KEYS, and names where the key is', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'querygate-keyprint-'));
    const ingestKey = 'ingest-only-key-never-printed-0123';
    try {
      const { output, key } = await serveAndCall(dataDir, 'query-key-never-printed-0123456', {
        QUERYGATE_INGEST_KEYS: ingestKey,
      });
      expect(output).toContain('API key:    the key in QUERYGATE_API_KEYS');
      expect(occurrences(output, key)).toBe(0);
      expect(occurrences(output, ingestKey)).toBe(0);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 120_000);

  it('prints a key it generated once, in the GraphiQL link of the start that made it, and never again', async () => {
    const dataDir = await mkdtemp(join(tmpdir(), 'querygate-keyprint-'));
    try {
      const first = await serveAndCall(dataDir, undefined);
      expect(occurrences(first.output, first.key)).toBe(1);
      expect(first.output).toContain(`/graphql#key=${encodeURIComponent(first.key)}`);
      expect(first.output).toContain(`generated now and kept in ${join(dataDir, 'api-key')}`);

      const second = await serveAndCall(dataDir, undefined);
      expect(second.key).toBe(first.key);
      expect(occurrences(second.output, second.key)).toBe(0);
      expect(second.output).toContain(`API key:    in ${join(dataDir, 'api-key')}`);
    } finally {
      await rm(dataDir, { recursive: true, force: true });
    }
  }, 180_000);
});
