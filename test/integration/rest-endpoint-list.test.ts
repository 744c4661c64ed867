import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureNow } from '../fixtures/spec-fixture.js';
import {
  byName,
  type EndpointName,
  endpointIds,
  type QuerygateUnderTest,
  startQuerygateUnderTest,
} from '../helpers/querygate-server.js';

/**
 * `GET /api/endpoints` against the spec: each endpoint's configuration and parameters as
 * shared/spec/endpoint-interface.md states them, and its UUID reaching the same endpoint.
 */

let service: QuerygateUnderTest;

beforeAll(async () => {
  service = await startQuerygateUnderTest({ now: fixtureNow });
});

afterAll(async () => {
  await service?.close();
});

interface ListedEndpoint {
  readonly id: string;
  readonly name: string;
  readonly description: string;
  readonly parameters: ReadonlyArray<{ readonly name: string; readonly required: boolean }>;
  readonly max_rows: number;
  readonly cache_seconds: number;
  readonly warm_seconds: number | null;
  readonly sandboxing: string;
}

// From the spec's "Configuration of the three endpoints" table (max rows, caching, cache warming,
// sandboxing), with caching "disabled" as 0 seconds and warming "none" as null, and from the
// Parameters table of each endpoint (name, required).
const specEndpoints: Readonly<
  Record<EndpointName, Omit<ListedEndpoint, 'id' | 'name' | 'description' | 'parameters'>>
> = {
  'logs.all': { max_rows: 1000, cache_seconds: 0, warm_seconds: null, sandboxing: 'disabled' },
  'functions.invocation-stats': {
    max_rows: 1000,
    cache_seconds: 900,
    warm_seconds: 300,
    sandboxing: 'disabled',
  },
  'usage.api-counts': { max_rows: 1000, cache_seconds: 900, warm_seconds: 300, sandboxing: 'disabled' },
};
const specParameters: Readonly<Record<EndpointName, Readonly<Record<string, boolean>>>> = {
  'logs.all': { project: true, project_tier: true, iso_timestamp_start: false, iso_timestamp_end: false },
  'functions.invocation-stats': { project: true, interval: true, function_id: false },
  'usage.api-counts': { project: true, interval: true },
};
/** Values the spec allows for every required parameter. */
const validParams: Readonly<Record<EndpointName, Readonly<Record<string, string>>>> = {
  'logs.all': { project: 'list-ref', project_tier: 'FREE' },
  'functions.invocation-stats': { project: 'list-ref', interval: '1hr' },
  'usage.api-counts': { project: 'list-ref', interval: 'daily' },
};

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[1-8][0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

async function listed(): Promise<ListedEndpoint[]> {
  const response = await service.get('/api/endpoints');
  expect(response.status, response.text).toBe(200);
  const body = response.body as { result: ListedEndpoint[] };
  expect(Object.keys(body)).toEqual(['result']);
  return body.result;
}

describe('GET /api/endpoints', () => {
  it('lists exactly the three endpoints of the spec, each with the fields of the REST shape', async () => {
    const endpoints = await listed();
    expect(endpoints.map((endpoint) => endpoint.name).sort()).toEqual(Object.keys(specEndpoints).sort());
    for (const endpoint of endpoints) {
      expect(Object.keys(endpoint).sort()).toEqual([
        'cache_seconds',
        'description',
        'id',
        'max_rows',
        'name',
        'parameters',
        'sandboxing',
        'warm_seconds',
      ]);
      expect(endpoint.description.length).toBeGreaterThan(0);
    }
  });

  it.each(Object.entries(specEndpoints))(
    'lists %s with the max rows, caching, warming and sandboxing of the spec',
    async (name, configuration) => {
      const endpoint = (await listed()).find((candidate) => candidate.name === name);
      expect(endpoint).toMatchObject(configuration);
    },
  );

  it.each(Object.entries(specParameters))(
    'lists %s with the parameters of the spec and whether each is required',
    async (name, parameters) => {
      const endpoint = (await listed()).find((candidate) => candidate.name === name);
      expect(
        Object.fromEntries(
          endpoint?.parameters.map((parameter) => [parameter.name, parameter.required]) ?? [],
        ),
      ).toEqual(parameters);
    },
  );

  it('gives each endpoint its fixed UUID from the manifest', async () => {
    for (const endpoint of await listed()) {
      expect(endpoint.id).toMatch(uuid);
      expect(endpoint.id).toBe(endpointIds[endpoint.name as EndpointName]);
    }
  });

  it.each(Object.keys(specEndpoints))(
    'answers %s by its listed UUID with the body it answers by name',
    async (name) => {
      const endpoint = (await listed()).find((candidate) => candidate.name === name);
      const params = validParams[name as EndpointName];
      const byUuid = await service.get(`/api/endpoints/query/${endpoint?.id}`, params);
      const named = await service.get(byName(name as EndpointName), params);
      expect(byUuid.status, byUuid.text).toBe(200);
      expect(byUuid.body).toEqual({ result: expect.any(Array) });
      expect(byUuid.text).toBe(named.text);
    },
  );
});
