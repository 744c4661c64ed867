import { describe, expect, it } from 'vitest';
import { project, supabaseNow } from '../fixtures/supabase-fixture.js';
import { studioToken, supabaseServiceDuringFile } from '../helpers/supabase-service.js';

/**
 * Caller SQL that BigQuery (and so Logflare) runs, sent through the Logs Explorer's endpoint as
 * self-hosted Studio forwards it (GET /api/endpoints/query/logs.all?project=default&sql=...), on
 * `serve --queries supabase` with the fixture's edge, relay and auth records ingested over HTTP.
 * Expected rows are BigQuery's documented results or computed from the fixture records.
 */

const service = supabaseServiceDuringFile();

interface Answer {
  readonly status: number;
  readonly body: { result?: Record<string, unknown>[]; error?: { code: string; message: string } };
}

async function logsAll(sql: string): Promise<Answer> {
  const { status, body } = await service().request('GET', '/api/endpoints/query/logs.all', {
    apiKey: studioToken,
    params: { project, sql },
  });
  return { status, body: body as Answer['body'] };
}

describe('SQL that reads none of the endpoint tables', () => {
  it('answers a constant SELECT with its row, as BigQuery does', async () => {
    expect(await logsAll('select 1 as x')).toEqual({ status: 200, body: { result: [{ x: 1 }] } });
  });

  it('answers CURRENT_TIMESTAMP() with the time of the call', async () => {
    // The service runs at the fixture's fixed "now"; a TIMESTAMP is microseconds on Logflare's wire.
    expect(await logsAll('select current_timestamp() as now')).toEqual({
      status: 200,
      body: { result: [{ now: supabaseNow.getTime() * 1000 }] },
    });
  });

  it("answers a caller's own WITH under a set operation", async () => {
    // UNION ALL has no order of its own: compared as a set of rows.
    const { status, body } = await logsAll('with t as (select 1 as a) select a from t union all select 2');
    expect(status).toBe(200);
    expect(body.result).toHaveLength(2);
    expect(body.result).toEqual(expect.arrayContaining([{ a: 1 }, { a: 2 }]));
  });
});
