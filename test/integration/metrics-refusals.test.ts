import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Querygate } from '../../src/server.js';
import { type ServerWithCountingEngine, startWithCountingEngine } from '../helpers/counted-querygate.js';
import type { CountingEngine } from '../helpers/counting-engine.js';
import { parsePrometheusText, sampleValue } from '../helpers/prometheus-text.js';
import { byName, testApiKey } from '../helpers/querygate-server.js';

// Refusals for load and time, driven on a real server (the real DuckDB engine behind a counter
// that holds runs until released): one run per client, one call waiting, a short timeout. What
// /metrics says is compared with the answers the calls got.

// Long enough that the five refusals below are all answered while the waiting call still waits
// (the first GraphQL call loads yoga's path, which under a loaded CI took the 400 ms this was).
const timeoutMs = 2_000;
let server: ServerWithCountingEngine;
let app: Querygate;
let engine: CountingEngine;

beforeAll(async () => {
  server = await startWithCountingEngine({
    QUERYGATE_CLIENT_ENGINE_CALLS: '1',
    QUERYGATE_CLIENT_QUEUE: '1',
    QUERYGATE_QUERY_TIMEOUT_MS: String(timeoutMs),
  });
  ({ app, engine } = server);
});

afterAll(async () => {
  await server?.close();
});

const withKey = { 'x-api-key': testApiKey };

/** A call that must run (`no-cache`), so each one asks for its own turn. */
async function restCall(project: string): Promise<{ status: number; code: string | undefined }> {
  const url = new URL(byName('usage.api-counts'), app.url);
  url.search = new URLSearchParams({ project, interval: 'hourly' }).toString();
  const response = await fetch(url, { headers: { ...withKey, 'cache-control': 'no-cache' } });
  const body = (await response.json()) as { error?: { code?: string } };
  return { status: response.status, code: body.error?.code };
}

/** The same endpoint as a GraphQL field: an error is the field's, in a 200. */
async function graphqlCall(project: string): Promise<{ status: number; code: string | undefined }> {
  const response = await fetch(new URL('/graphql', app.url), {
    method: 'POST',
    headers: { ...withKey, 'content-type': 'application/json' },
    body: JSON.stringify({
      query: `{ usage { apiCounts(project: ${JSON.stringify(project)}, interval: HOURLY) { timestamp } } }`,
    }),
  });
  const body = (await response.json()) as { errors?: { extensions?: { code?: string } }[] };
  return { status: response.status, code: body.errors?.[0]?.extensions?.code };
}

it('counts every ENGINE_BUSY and ENGINE_TIMEOUT answer per endpoint, code and face, as the calls were answered', async () => {
  engine.hold();
  // The client's one turn, held in the engine.
  const running = restCall('refusals-running');
  await expect.poll(() => engine.running).toBe(1);
  // The client's one waiting place: it times out unless the turn comes first.
  const waiting = restCall('refusals-waiting');
  await new Promise((resolve) => setTimeout(resolve, 50));
  // Past the bound and the queue: refused at once, on both faces.
  const refused = [
    await restCall('refusals-a'),
    await restCall('refusals-b'),
    await graphqlCall('refusals-c'),
    await graphqlCall('refusals-d'),
    await graphqlCall('refusals-e'),
  ];
  const waited = await waiting;
  engine.release();
  const ran = await running;
  const rest = [ran, waited, ...refused.slice(0, 2)];
  const graphql = refused.slice(2);
  // Nothing could free the one turn while the waiting call waited.
  expect(waited).toEqual({ status: 504, code: 'ENGINE_TIMEOUT' });

  // What the calls were answered, counted here from the answers themselves.
  const restWith = (code: string) => rest.filter((answer) => answer.code === code).length;
  const graphqlWith = (code: string) => graphql.filter((answer) => answer.code === code).length;
  expect(graphql.map((answer) => answer.status)).toEqual([200, 200, 200]);
  expect(restWith('ENGINE_BUSY') + graphqlWith('ENGINE_BUSY')).toBeGreaterThanOrEqual(4);
  expect(
    rest.filter((answer) => answer.code === 'ENGINE_BUSY').every((answer) => answer.status === 503),
  ).toBe(true);
  expect(
    rest.filter((answer) => answer.code === 'ENGINE_TIMEOUT').every((answer) => answer.status === 504),
  ).toBe(true);

  const scrape = await fetch(new URL('/metrics', app.url), { headers: withKey });
  expect(scrape.status).toBe(200);
  const families = parsePrometheusText(await scrape.text());
  const endpoint = 'usage.api-counts';
  for (const code of ['ENGINE_BUSY', 'ENGINE_TIMEOUT']) {
    expect(sampleValue(families, 'querygate_engine_refusals_total', { endpoint, code }), code).toBe(
      restWith(code) + graphqlWith(code),
    );
  }
  const requests = 'querygate_endpoint_requests_total';
  expect(sampleValue(families, requests, { face: 'rest', endpoint, status: '503', cache: 'none' })).toBe(
    restWith('ENGINE_BUSY'),
  );
  expect(sampleValue(families, requests, { face: 'rest', endpoint, status: '504', cache: 'none' })).toBe(
    restWith('ENGINE_TIMEOUT'),
  );
  // A GraphQL field error is counted under the status REST would answer its code with.
  expect(sampleValue(families, requests, { face: 'graphql', endpoint, status: '503', cache: 'none' })).toBe(
    graphqlWith('ENGINE_BUSY'),
  );
});
