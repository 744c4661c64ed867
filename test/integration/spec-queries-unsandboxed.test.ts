import { describe, expect, it } from 'vitest';
import { loadEndpointRegistry } from '../../src/endpoints/registry.js';
import { queriesDir } from '../../src/paths.js';
import { fixtureEvents, fixtureNow, projects } from '../fixtures/spec-fixture.js';
import { byId, byName, serveDuringFile } from '../helpers/querygate-server.js';

// The shipped queries/ follows shared/spec/endpoint-interface.md: sandboxing disabled for all
// three endpoints, so a caller's `sql` is ignored there, and logs.all still requires project_tier.

const service = serveDuringFile({ now: fixtureNow, events: fixtureEvents });

describe('the shipped queries/ stays unsandboxed', () => {
  it('declares sandboxing disabled for every endpoint', () => {
    const registry = loadEndpointRegistry(queriesDir);
    expect(registry.endpoints.map((endpoint) => [endpoint.name, endpoint.sandboxed])).toEqual(
      registry.endpoints.map((endpoint) => [endpoint.name, false]),
    );
  });

  it('still requires project_tier on logs.all when the call carries sql', async () => {
    const response = await service().get(byId('logs.all'), {
      project: projects.alpha,
      sql: 'select count(*) as n from edge_logs',
    });
    expect(response.status).toBe(400);
    expect(response.body).toMatchObject({ error: { code: 'BAD_PARAMETER' } });
    expect(JSON.stringify(response.body)).toMatch(/project_tier/);
  });

  it.each([
    ['in the query string', 'GET'],
    ['in a JSON POST body', 'POST'],
  ])('ignores sql %s and answers the saved query', async (_where, method) => {
    const params = { project: projects.alpha, project_tier: 'PRO' };
    const saved = await service().get(byName('logs.all'), params);
    const sql = 'select count(*) as n from edge_logs';
    const withSql =
      method === 'GET'
        ? await service().get(byName('logs.all'), { ...params, sql })
        : await service().request('POST', byId('logs.all'), { body: JSON.stringify({ ...params, sql }) });
    expect(saved.status).toBe(200);
    expect(withSql.status).toBe(200);
    expect(withSql.body).toEqual(saved.body);
    expect((withSql.body as { result: unknown[] }).result.length).toBeGreaterThan(1);
  });
});
