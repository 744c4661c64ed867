import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { type Querygate, startQuerygate } from '../../src/server.js';
import { type CountingEngine, createCountingEngine } from '../helpers/counting-engine.js';
import { byName, testConfig } from '../helpers/querygate-server.js';

// The per-client bound on engine calls, over real HTTP: two clients told apart by their API
// keys, on the real DuckDB engine behind a counter that holds runs until released.

const keyA = 'client-a-key-0123456789';
const keyB = 'client-b-key-0123456789';
const limit = 2;

let dataDir: string;
let app: Querygate;
let engine: CountingEngine;

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'querygate-client-limit-'));
  app = await startQuerygate(
    testConfig(dataDir, {
      QUERYGATE_API_KEYS: `${keyA},${keyB}`,
      QUERYGATE_CLIENT_ENGINE_CALLS: String(limit),
    }),
    {
      wrapEngine: (inner) => {
        engine = createCountingEngine(inner);
        return engine;
      },
    },
  );
});

afterAll(async () => {
  engine?.release();
  await app?.close();
  await rm(dataDir, { recursive: true, force: true });
});

/** A call of usage.api-counts that must run (`no-cache`), so each one starts its own engine run. */
function apiCounts(apiKey: string, project: string) {
  const url = new URL(byName('usage.api-counts'), app.url);
  url.searchParams.set('project', project);
  url.searchParams.set('interval', 'hourly');
  return fetch(url, { headers: { 'x-api-key': apiKey, 'cache-control': 'no-cache' } });
}

function graphqlApiCounts(apiKey: string, project: string) {
  return fetch(new URL('/graphql', app.url), {
    method: 'POST',
    headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
    body: JSON.stringify({
      query: `{ usage { apiCounts(project: "${project}", interval: HOURLY) { timestamp } } }`,
    }),
  });
}

it('refuses a client over its cap with 503 ENGINE_BUSY and Retry-After while another client’s call of the same endpoint still runs', async () => {
  engine.hold();
  const held = [apiCounts(keyA, 'p1'), apiCounts(keyA, 'p2')];
  await expect.poll(() => engine.running).toBe(limit);

  const refused = await apiCounts(keyA, 'p3');
  expect(refused.status).toBe(503);
  expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  expect(await refused.json()).toMatchObject({ error: { code: 'ENGINE_BUSY' } });
  // The GraphQL face counts against the same client.
  const refusedOperation = await graphqlApiCounts(keyA, 'p4');
  expect((await refusedOperation.json()).errors?.[0]?.extensions?.code).toBe('ENGINE_BUSY');
  expect(engine.calls).toHaveLength(limit);

  const other = apiCounts(keyB, 'p3');
  await expect.poll(() => engine.running).toBe(limit + 1);
  engine.release();
  const statuses = await Promise.all([...held, other].map(async (response) => (await response).status));
  expect(statuses).toEqual([200, 200, 200]);
  // Its calls answered, the client is under its cap again.
  expect((await apiCounts(keyA, 'p3')).status).toBe(200);
});
