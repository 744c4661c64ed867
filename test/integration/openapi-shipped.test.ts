import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureEvents, fixtureNow, projects } from '../fixtures/spec-fixture.js';
import { callEveryOperation, openApiProblems } from '../helpers/openapi-check.js';
import { type QuerygateUnderTest, startQuerygateUnderTest } from '../helpers/querygate-server.js';

// The OpenAPI document of the shipped queries: valid, behind the key, and true of every answer.

let service: QuerygateUnderTest;

beforeAll(async () => {
  service = await startQuerygateUnderTest({ now: fixtureNow, events: fixtureEvents });
});

afterAll(async () => {
  await service?.close();
});

describe('/openapi.json of the shipped queries', () => {
  it('answers 401 without the key, like every API route', async () => {
    expect((await service.request('GET', '/openapi.json', { apiKey: null })).status).toBe(401);
  });

  it('passes a real OpenAPI 3.1 validator', async () => {
    const { status, body } = await service.get('/openapi.json');
    expect(status).toBe(200);
    expect((body as { openapi: string }).openapi).toBe('3.1.0');
    expect(await openApiProblems(structuredClone(body))).toEqual([]);
  });

  it('describes every answer of every operation, by name and by UUID, with the example values', async () => {
    const { body } = await service.get('/openapi.json');
    // The contracts' examples name the demo project; the fixture's has rows for every endpoint.
    const { called, problems, rows } = await callEveryOperation(
      body,
      (path, params) => service.get(path, params),
      {
        project: projects.alpha,
      },
    );
    expect(called.sort()).toEqual([
      'functionsInvocationStats',
      'functionsInvocationStatsById',
      'logsAll',
      'logsAllById',
      'usageApiCounts',
      'usageApiCountsById',
    ]);
    expect(problems).toEqual([]);
    // The schemas were checked against rows, not only against empty results.
    expect(rows).toBeGreaterThan(6);
  });
});
