import { afterAll, beforeAll, expect, it } from 'vitest';
import type { Endpoint } from '../../src/endpoints/registry.js';
import { createResponseReplay } from '../../src/graphql/response-replay.js';
import { createResolver, type Resolver } from '../../src/resolve/resolver.js';
import { createEndpointEngine, type EndpointEngine, endpointNamed } from '../helpers/endpoint-engine.js';
import { createManualTime } from '../helpers/manual-time.js';

// A reload that changes an endpoint drops the GraphQL answers kept for replay that were made of
// it (their bytes go), not only stops sending them; answers of unchanged endpoints stay.

let store: EndpointEngine;
let resolver: Resolver;

beforeAll(async () => {
  store = await createEndpointEngine();
  const time = createManualTime(new Date('2026-03-10T12:00:00Z'));
  resolver = createResolver({ engine: store.engine, now: time.now, timers: time.timers });
});

afterAll(async () => {
  await resolver.close();
  await store.close();
});

/** Resolves one call and keeps an answer made of it under `key`, as the GraphQL route would. */
async function keepAnswer(replay: ReturnType<typeof createResponseReplay>, key: string, endpoint: Endpoint) {
  const params = Object.fromEntries(endpoint.parameters.map((parameter) => [parameter.name, null]));
  const { result } = await resolver.resolve(endpoint, { ...params, project: 'p', interval: 'hourly' });
  const body = Buffer.from(JSON.stringify({ data: { endpoint: endpoint.name } }));
  replay.keep(
    key,
    { status: 200, headers: { 'content-type': 'application/json' }, body },
    { calls: [{ endpoint, params: { ...params, project: 'p', interval: 'hourly' }, result }], clean: true },
  );
}

it('drops the kept answers made of an endpoint a reload changed and keeps the others', async () => {
  const replay = createResponseReplay({ resolver });
  const changed = endpointNamed(store.registry, 'usage.api-counts');
  const unchanged = endpointNamed(store.registry, 'functions.invocation-stats');
  await keepAnswer(replay, 'GET /graphql?changed', changed);
  await keepAnswer(replay, 'GET /graphql?unchanged', unchanged);
  expect(replay.size).toBe(2);
  expect(replay.find('GET /graphql?changed')).toBeDefined();

  replay.retain((endpoint) => endpoint.hash !== changed.hash);

  expect(replay.size).toBe(1);
  expect(replay.find('GET /graphql?changed')).toBeUndefined();
  expect(replay.find('GET /graphql?unchanged')?.body).toBe(
    JSON.stringify({ data: { endpoint: 'functions.invocation-stats' } }),
  );
});
