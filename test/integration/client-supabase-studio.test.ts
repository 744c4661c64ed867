import { describe, expect, it } from 'vitest';
import { fixtureEvents, fixtureNow, projects } from '../fixtures/spec-fixture.js';
import {
  byName,
  endpointIds,
  expectNoServerErrors,
  serveDuringFile,
  testApiKey,
} from '../helpers/querygate-server.js';
import { expectedApiCounts, expectedLogsAll, re2AsJs } from '../helpers/spec-expectations.js';

/**
 * Self-hosted Supabase Studio's analytics calls, replayed as Studio sends them.
 *
 * Source: supabase/supabase `apps/studio/lib/api/self-hosted/logs.ts` (`retrieveAnalyticsData`):
 * `new URL(`${PROJECT_ANALYTICS_URL}endpoints/query/${name}`)`, `project` set to the project ref,
 * every other query parameter Studio's page passed copied with `searchParams.set`, then
 * `fetch(url, { method: 'GET', headers: { 'x-api-key': LOGFLARE_PRIVATE_ACCESS_TOKEN,
 * 'Content-Type': 'application/json', Accept: 'application/json' } })`. `PROJECT_ANALYTICS_URL`
 * is `${LOGFLARE_URL}/api/` (`apps/studio/lib/constants/api.ts`). The parameters per endpoint
 * come from `apps/studio/data/analytics/project-log-stats-query.ts` (usage.api-counts:
 * `interval`) and the logs explorer (logs.all: ISO timestamps).
 */

const server = serveDuringFile({ now: fixtureNow, events: fixtureEvents });

/** Studio's request: the endpoint by name under `${LOGFLARE_URL}/api/`, its three headers. */
async function studioCall(name: string, project: string, params: Record<string, string>) {
  const url = new URL(`${server().url}/api/endpoints/query/${name}`);
  url.searchParams.set('project', project);
  for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
  const response = await fetch(url, {
    method: 'GET',
    headers: { 'x-api-key': testApiKey, 'Content-Type': 'application/json', Accept: 'application/json' },
  });
  return { status: response.status, body: (await response.json()) as { result?: unknown[] } };
}

describe('Supabase Studio (self-hosted) against querygate as LOGFLARE_URL', () => {
  it('loads usage.api-counts by name, with the rows the spec gives and the spec form shares', async () => {
    const before = server().resolverStats();
    const studio = await studioCall('usage.api-counts', projects.alpha, { interval: 'daily' });
    expect(studio.status).toBe(200);
    expect(studio.body.result?.length).toBeGreaterThan(0);
    expect(studio.body.result).toEqual(
      expectedApiCounts(
        fixtureEvents,
        { interval: 'daily', urlMatches: re2AsJs(projects.alpha) },
        fixtureNow,
      ),
    );
    const spec = await server().get(byName('usage.api-counts'), {
      project: projects.alpha,
      interval: 'daily',
    });
    expect(spec.body).toEqual(studio.body);
    // One run for both forms: the spec form was a hit on the entry Studio's call made.
    const after = server().resolverStats();
    expect(after.misses - before.misses).toBe(1);
    expect(after.hits - before.hits).toBe(1);
  });

  it('loads logs.all by name with ISO bounds, as the logs explorer asks', async () => {
    const params = {
      project_tier: 'PRO',
      iso_timestamp_start: '2026-05-15T00:00:00.000Z',
      iso_timestamp_end: '2026-05-15T12:00:00.000Z',
    };
    const studio = await studioCall('logs.all', projects.beta, params);
    expect(studio.status).toBe(200);
    expect(studio.body.result?.length).toBeGreaterThan(0);
    expect(studio.body.result).toEqual(
      expectedLogsAll(fixtureEvents, { project: projects.beta, ...params }, fixtureNow),
    );
  });

  it('loads the same endpoint by its UUID on the same path', async () => {
    const byUuid = await studioCall(endpointIds['usage.api-counts'], projects.alpha, { interval: 'daily' });
    const byEndpointName = await studioCall('usage.api-counts', projects.alpha, { interval: 'daily' });
    expect(byUuid).toEqual(byEndpointName);
  });

  it('gets 404 naming the endpoint for the endpoints Studio calls that the spec does not define', async () => {
    for (const name of ['functions.inv-stats', 'functions.combined-stats', 'usage.api-requests-count']) {
      const response = await studioCall(name, projects.alpha, { interval: '15min' });
      expect(response.status).toBe(404);
      expect(response.body).toMatchObject({
        error: { code: 'NOT_FOUND', message: expect.stringContaining(name) },
      });
    }
  });

  // Newer Studio (apps/studio/components/interfaces/Home/ProjectUsage.tsx) asks usage.api-counts
  // for interval 1hr, 1day or 7day; the spec defines minutely, hourly and daily only.
  it.each(['1hr', '1day', '7day'])(
    'refuses newer Studio interval %s with 400 naming interval',
    async (interval) => {
      const response = await studioCall('usage.api-counts', projects.alpha, { interval });
      expect(response.status).toBe(400);
      expect(response.body).toMatchObject({
        error: { code: 'BAD_PARAMETER', message: expect.stringContaining("'interval'") },
      });
    },
  );

  it('never answered 5xx or leaked internals', () => {
    expectNoServerErrors(server());
  });
});
