import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type BigQueryHarness, startBigQueryHarness } from '../helpers/bigquery-harness.js';
import { insertStatement } from '../helpers/log-fixture.js';

// The fake is only worth what its wire format is: here the client library decodes it with its
// own parser (mergeSchemaWithRows_), through jobs.query as well as jobs.insert + getQueryResults.
const now = new Date('2026-03-10T12:34:56.789Z');
let harness: BigQueryHarness;

beforeAll(async () => {
  harness = await startBigQueryHarness({ now: () => now, pageSize: 2 });
  await harness.store.duckdb(
    insertStatement('cloudflare.logs.prod', [
      {
        id: 'c1',
        timestamp: '2026-03-10 10:00:00.123456',
        event_message: 'GET /rest',
        project: 'p1',
        metadata: {
          request: { url: 'https://p1.supabase.co/rest', path: '/rest', method: 'GET', host: 'h' },
          response: { status_code: 200, origin_time: 5 },
        },
      },
      { id: 'c2', timestamp: '2026-03-10 11:00:00', event_message: 'bare', project: 'p2', metadata: null },
      { id: 'c3', timestamp: '2026-03-10 12:00:00', event_message: 'bare', project: 'p2', metadata: null },
    ]),
  );
});

afterAll(async () => {
  await harness?.close();
});

const table = '`querygate-test.logs.cloudflare_logs_prod`';

describe('the fake BigQuery server', () => {
  it("answers jobs.query in a form the client library's own decoder reads, across pages", async () => {
    const [rows] = await harness.client().query({
      query: `select id, timestamp, metadata, current_timestamp() as now from ${table} order by id`,
    });
    expect(harness.fake.calls('jobs.query')).toHaveLength(1);
    // Two rows a page: the third came from a getQueryResults call with the page token.
    expect(harness.fake.calls('jobs.getQueryResults').some((call) => call.query.pageToken)).toBe(true);
    expect(rows.map((row: { id: string }) => row.id)).toEqual(['c1', 'c2', 'c3']);
    // The library's PreciseDate writes nanoseconds; CURRENT_TIMESTAMP() is the fake's clock.
    expect(rows[0].timestamp.value).toBe('2026-03-10T10:00:00.123456000Z');
    expect(new Date(rows[0].now.value).toISOString()).toBe(now.toISOString());
    expect(rows[0].metadata).toEqual([
      {
        request: [{ url: 'https://p1.supabase.co/rest', path: '/rest', method: 'GET', host: 'h' }],
        response: [{ status_code: 200, origin_time: 5 }],
      },
    ]);
    expect(rows[1].metadata).toEqual([]);
  });

  it('runs a query job with a named STRING parameter and pages its results', async () => {
    const [job] = await harness.client().createQueryJob({
      query: `select count(*) as n from ${table} where project = @project`,
      params: { project: 'p2' },
    });
    const [rows] = await job.getQueryResults();
    expect(rows).toEqual([{ n: 2 }]);
  });

  it('refuses an invalid query on jobs.query with HTTP 400 invalidQuery', async () => {
    await expect(harness.client().query({ query: 'select nope(1)' })).rejects.toMatchObject({
      code: 400,
      errors: [expect.objectContaining({ reason: 'invalidQuery' })],
    });
  });
});
