import { Agent, request as httpRequest } from 'node:http';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureEvents, fixtureNow } from '../fixtures/spec-fixture.js';
import { readContractFiles } from '../helpers/contract-files.js';
import {
  byId,
  byName,
  endpointIds,
  type QuerygateUnderTest,
  startQuerygateUnderTest,
  testApiKey,
} from '../helpers/querygate-server.js';

/**
 * A repeated REST call answered from the cache is answered before the router (src/rest/cached-hits.ts):
 * these check, on the real server, that such an answer is the route's answer in every way a
 * client sees (bytes, headers, counts, the key check per request on one kept-alive connection),
 * and that what the early answer does not handle still reaches the route.
 */

const ingestKey = 'querygate-ingest-key-0123456789';
let service: QuerygateUnderTest;

beforeAll(async () => {
  service = await startQuerygateUnderTest({
    now: fixtureNow,
    events: fixtureEvents,
    environment: { QUERYGATE_INGEST_KEYS: ingestKey },
  });
});

afterAll(async () => {
  await service?.close();
});

// The contract's cache lifetime, read from its file: what `max-age` must say.
const usageCacheSeconds = readContractFiles().find((contract) => contract.name === 'usage.api-counts')
  ?.cacheSeconds as number;

interface Answer {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly body: string;
}

/** One request over `agent`'s single kept-alive connection, so successive calls share a socket. */
function send(agent: Agent, path: string, headers: Record<string, string> = {}, method = 'GET') {
  const url = new URL(path, service.url);
  return new Promise<Answer & { readonly socketPort: number | undefined }>((resolve, reject) => {
    const req = httpRequest(url, { method, headers, agent }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({
          status: res.statusCode ?? 0,
          headers: res.headers,
          body: Buffer.concat(chunks).toString('utf8'),
          socketPort: req.socket?.localPort,
        }),
      );
      res.on('error', reject);
    });
    req.on('error', reject);
    req.end();
  });
}

const oneConnection = () => new Agent({ keepAlive: true, maxSockets: 1 });
const withKey = { 'x-api-key': testApiKey };

describe('a cached REST hit', () => {
  it("has the bytes and headers of the route's first answer, with max-age of the contract's cache seconds", async () => {
    const agent = oneConnection();
    const path = `${byName('usage.api-counts')}?project=hits-bytes&interval=hourly`;
    const before = service.resolverStats();
    const first = await send(agent, path, withKey);
    const again = await send(agent, path, withKey);
    const after = service.resolverStats();
    agent.destroy();
    expect(after.misses - before.misses).toBe(1);
    expect(after.hits - before.hits).toBe(1);
    expect([first.status, again.status]).toEqual([200, 200]);
    expect(again.body).toBe(first.body);
    expect(JSON.parse(again.body)).toHaveProperty('result');
    for (const answer of [first, again]) {
      expect(answer.headers['content-type']).toBe('application/json; charset=utf-8');
      expect(answer.headers['content-length']).toBe(String(Buffer.byteLength(answer.body)));
      expect(answer.headers['cache-control']).toBe(`private, max-age=${usageCacheSeconds}`);
      // The clock is fixed: the result is as old as it was when computed.
      expect(answer.headers.age).toBe('0');
    }
  });

  it('is the same answer by name, by UUID and by name on each of Logflare paths, all one cache entry', async () => {
    const agent = oneConnection();
    const query = '?project=hits-paths&interval=hourly';
    const paths = [
      byName('usage.api-counts'),
      byId('usage.api-counts'),
      '/api/endpoints/query/usage.api-counts',
      `/endpoints/query/${endpointIds['usage.api-counts']}`,
      '/endpoints/query/name/usage.api-counts',
      '/api/endpoints/query/name/usage.api-counts',
    ];
    const before = service.resolverStats();
    const answers = [];
    for (const path of [...paths, ...paths]) answers.push(await send(agent, `${path}${query}`, withKey));
    const after = service.resolverStats();
    agent.destroy();
    expect(answers.map((answer) => answer.status)).toEqual(answers.map(() => 200));
    expect(new Set(answers.map((answer) => answer.body)).size).toBe(1);
    expect(after.misses - before.misses).toBe(1);
    expect(after.hits - before.hits).toBe(2 * paths.length - 1);
  });

  it('checks the key of every request on one connection: a valid one before does not let a wrong one in', async () => {
    const agent = oneConnection();
    const path = `${byName('usage.api-counts')}?project=hits-keys&interval=hourly`;
    const answers = [
      await send(agent, path, withKey),
      await send(agent, path, withKey),
      await send(agent, path, { 'x-api-key': `${testApiKey}x` }),
      await send(agent, path, { 'x-api-key': testApiKey.slice(0, -1) }),
      await send(agent, path, {}),
      await send(agent, path, { 'x-api-key': ingestKey }),
      await send(agent, path, { authorization: `Bearer ${testApiKey}` }),
      await send(agent, `${path}&api_key=${testApiKey}`),
      await send(agent, `${path}&api_key=wrong-key-0123456789`),
      await send(agent, path, withKey),
    ];
    agent.destroy();
    // All on one connection, so a key remembered for it is what is being tested.
    expect(new Set(answers.map((answer) => answer.socketPort)).size).toBe(1);
    expect(answers.map((answer) => answer.status)).toEqual([
      200, 200, 401, 401, 401, 403, 200, 200, 401, 200,
    ]);
    expect(answers[4]?.headers['www-authenticate']).toBe('X-API-KEY');
    const refused = JSON.parse(answers[5]?.body ?? '{}') as { error?: { code?: string } };
    expect(refused.error?.code).toBe('FORBIDDEN');
  });

  it('leaves to the route what it does not answer: no-cache, HEAD, a refused value, a wrong method', async () => {
    const agent = oneConnection();
    const path = `${byName('usage.api-counts')}?project=hits-route&interval=hourly`;
    await send(agent, path, withKey);
    const before = service.resolverStats();
    const refreshed = await send(agent, path, { ...withKey, 'cache-control': 'no-cache' });
    const afterRefresh = service.resolverStats();
    expect(refreshed.status).toBe(200);
    expect(afterRefresh.refreshes - before.refreshes).toBe(1);

    const head = await send(agent, path, withKey, 'HEAD');
    expect(head.status).toBe(200);
    expect(head.body).toBe('');

    const refused = await send(
      agent,
      `${byName('usage.api-counts')}?project=hits-route&interval=weekly`,
      withKey,
    );
    expect(refused.status).toBe(400);
    expect((JSON.parse(refused.body) as { error: { code: string } }).error.code).toBe('BAD_PARAMETER');

    const twice = await send(agent, `${path}&interval=hourly`, withKey);
    expect(twice.status).toBe(400);

    const deleted = await send(agent, path, withKey, 'DELETE');
    expect(deleted.status).toBe(405);
    expect(deleted.headers.allow).toBe('GET, HEAD');
    agent.destroy();
  });

  it('names a missing endpoint as the route does', async () => {
    const agent = oneConnection();
    const missing = await send(agent, '/api/endpoints/no.such-endpoint?project=x', withKey);
    // A UUID is not a name on querygate's own path.
    const byUuid = await send(agent, `/api/endpoints/${endpointIds['usage.api-counts']}?project=x`, withKey);
    agent.destroy();
    expect([missing.status, byUuid.status]).toEqual([404, 404]);
  });
});
