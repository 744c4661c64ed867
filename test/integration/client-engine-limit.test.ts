import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Querygate } from '../../src/server.js';
import { type ServerWithCountingEngine, startWithCountingEngine } from '../helpers/counted-querygate.js';
import type { CountingEngine } from '../helpers/counting-engine.js';
import { byName } from '../helpers/querygate-server.js';

// The per-client bound on engine calls, over real HTTP: two clients told apart by their API
// keys, on the real DuckDB engine behind a counter that holds runs until released.

const keyA = 'client-a-key-0123456789';
const keyB = 'client-b-key-0123456789';
const limit = 2;
const queue = 5;

let server: ServerWithCountingEngine;
let app: Querygate;
let engine: CountingEngine;

beforeAll(async () => {
  server = await startWithCountingEngine({
    QUERYGATE_API_KEYS: `${keyA},${keyB}`,
    QUERYGATE_CLIENT_ENGINE_CALLS: String(limit),
    QUERYGATE_CLIENT_QUEUE: String(queue),
  });
  ({ app, engine } = server);
});

afterAll(async () => {
  await server?.close();
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

it('queues a client’s burst past its cap and answers it all, refusing with 503 ENGINE_BUSY and Retry-After only past its queue, while another client’s call still runs', async () => {
  engine.hold();
  // A dashboard page from one client (Studio fires its report's calls at once): the cap runs,
  // the queue waits, and the one call past both is refused, whichever of them arrives last.
  const burst = Array.from({ length: limit + queue + 1 }, (_, index) => apiCounts(keyA, `p${index}`));
  const refused = await Promise.race(burst);
  expect(refused.status).toBe(503);
  expect(Number(refused.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
  expect(await refused.json()).toMatchObject({ error: { code: 'ENGINE_BUSY' } });
  // The GraphQL face counts against the same client.
  const refusedOperation = await graphqlApiCounts(keyA, 'q1');
  expect((await refusedOperation.json()).errors?.[0]?.extensions?.code).toBe('ENGINE_BUSY');
  await expect.poll(() => engine.running).toBe(limit);
  expect(engine.calls).toHaveLength(limit);

  const other = apiCounts(keyB, 'q2');
  await expect.poll(() => engine.running).toBe(limit + 1);
  engine.release();
  const statuses = await Promise.all([...burst, other].map(async (response) => (await response).status));
  expect(statuses.filter((status) => status === 200)).toHaveLength(limit + queue + 1);
  expect(statuses.filter((status) => status === 503)).toHaveLength(1);
  // Every call answered ran once; the refused one never reached the engine.
  expect(engine.calls).toHaveLength(limit + queue + 1);
  expect(engine.maxRunning).toBe(limit + 1);
  // Its calls answered, the client is under its cap again.
  expect((await apiCounts(keyA, 'q3')).status).toBe(200);
});
