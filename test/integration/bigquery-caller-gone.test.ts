import { request as httpRequest } from 'node:http';
import { describe, expect, it, vi } from 'vitest';
import type { Querygate } from '../../src/server.js';
import { useQuerygateOnBigQueryPerTest } from '../helpers/bigquery-harness.js';
import type { RecordedRequest } from '../helpers/fake-bigquery-server.js';
import { testApiKey } from '../helpers/querygate-server.js';

// A caller who hangs up mid-query, end to end: the server sees the connection close, the request's
// abort signal goes through the resolver layer to the BigQuery engine, and the engine cancels the
// job on BigQuery instead of leaving it to run (and bill). One server per test, so each job has
// exactly one caller.

const startServer = useQuerygateOnBigQueryPerTest();

/** Waits on what the fake has recorded: polled, and bounded well below the job timeout. */
const recorded = { timeout: 10_000, interval: 20 };

async function start() {
  // A job timeout far beyond the wait, so only the hang-up can cancel the job in time.
  const started = await startServer({ QUERYGATE_BIGQUERY_TIMEOUT_MS: '120000' });
  started.harness.fake.queryDelayMs = 120_000;
  return started;
}

/** A call on its own socket, as a client would send it; the returned function destroys the socket. */
function openCall(service: Querygate, path: string, graphql?: string): () => void {
  const call = httpRequest(new URL(path, service.url), {
    method: graphql === undefined ? 'GET' : 'POST',
    headers: { 'x-api-key': testApiKey, 'content-type': 'application/json' },
  });
  // Destroying the socket fails the call; that is the point.
  call.on('error', () => {});
  call.end(graphql === undefined ? undefined : JSON.stringify({ query: graphql }));
  return () => call.destroy();
}

describe('a caller who hangs up mid-query on the BigQuery engine', () => {
  it.each([
    {
      call: 'REST logs.all (uncached)',
      label: 'logs_all',
      path: '/api/endpoints/logs.all?project=p1&project_tier=FREE',
    },
    {
      call: 'REST usage.api-counts (cached, its only caller)',
      label: 'usage_api-counts',
      path: '/api/endpoints/usage.api-counts?project=p1&interval=daily',
    },
    {
      call: 'GraphQL logs.all (uncached)',
      label: 'logs_all',
      path: '/graphql',
      graphql: /* GraphQL */ `{ logs { all(project: "p1", projectTier: FREE) { id } } }`,
    },
    {
      call: 'GraphQL usage.api-counts (cached, its only caller)',
      label: 'usage_api-counts',
      path: '/graphql',
      graphql: /* GraphQL */ `{ usage { apiCounts(project: "p1", interval: DAILY) { timestamp } } }`,
    },
  ])('gets the BigQuery job of a $call cancelled', async ({ label, path, graphql }) => {
    const { harness, app } = await start();
    const hangUp = openCall(app, path, graphql);
    const insert = await vi.waitFor(() => {
      // The dry runs that derived each endpoint's shape at start are not jobs that run.
      const inserts = harness.fake.calls('jobs.insert').filter((job) => !job.body.configuration.dryRun);
      expect(inserts.map((job) => job.body.configuration.labels.querygate_endpoint)).toEqual([label]);
      return inserts[0] as RecordedRequest;
    }, recorded);
    const jobId = insert.body.jobReference.jobId;
    // The job runs while the caller waits.
    await vi.waitFor(() => expect(harness.fake.calls('jobs.getQueryResults')).not.toEqual([]), recorded);
    expect(harness.fake.calls('jobs.cancel')).toEqual([]);

    hangUp();
    await vi.waitFor(
      () =>
        expect(harness.fake.calls('jobs.cancel').map((call) => call.path)).toEqual([
          `/bigquery/v2/projects/querygate-test/jobs/${jobId}/cancel`,
        ]),
      recorded,
    );
  });
});
