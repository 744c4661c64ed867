import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  authRecords,
  type EdgeRecord,
  edgeRecords,
  project,
  type SupabaseRecord,
  supabaseNow,
} from '../fixtures/supabase-fixture.js';
import { expectNoServerErrors, type QuerygateUnderTest } from '../helpers/querygate-server.js';
import { startSupabaseService, studioToken } from '../helpers/supabase-service.js';

/**
 * Self-hosted Studio's Logs Explorer and log collection pages against `serve --queries supabase`:
 * each call is `logs.all` with the page's generated SQL in `sql` and its time range, as
 * apps/studio/lib/api/self-hosted/logs.ts (supabase/supabase 61af5d5) forwards it: a GET of
 * `/api/endpoints/query/logs.all?project=default&sql=...&iso_timestamp_start=...&iso_timestamp_end=...`.
 * The SQL texts are those of apps/studio/components/interfaces/Settings/Logs/Logs.utils.ts at
 * e4c9079 with IS_PLATFORM false (genDefaultQuery, genCountQuery, genChartQuery,
 * genSingleLogQuery) and Logs.constants.ts at 5375fa7 (TEMPLATES). Expected rows are computed
 * from the fixture records in plain JavaScript.
 */

const now = supabaseNow.getTime();
const HOUR = 3_600_000;

let service: QuerygateUnderTest;

beforeAll(async () => {
  service = await startSupabaseService();
});

afterAll(async () => {
  if (service) expectNoServerErrors(service);
  await service?.close();
});

/** Studio's forwarded call of logs.all with the page's SQL and range. */
async function logsAll(sql: string, range: { start?: string; end?: string }) {
  const url = new URL(`${service.url}/api/endpoints/query/logs.all`);
  url.searchParams.set('project', project);
  url.searchParams.set('sql', sql);
  if (range.start !== undefined) url.searchParams.set('iso_timestamp_start', range.start);
  if (range.end !== undefined) url.searchParams.set('iso_timestamp_end', range.end);
  const response = await fetch(url, {
    method: 'GET',
    headers: { 'x-api-key': studioToken, 'Content-Type': 'application/json', Accept: 'application/json' },
  });
  const body = (await response.json()) as { result?: Record<string, unknown>[]; error?: { code: string } };
  return { status: response.status, body };
}

const iso = (ms: number) => new Date(ms).toISOString();
const range = { start: iso(now - 6 * HOUR), end: iso(now) };
const inRange = (r: SupabaseRecord) => r.ms > now - 6 * HOUR && r.ms <= now;
const projectEdge = edgeRecords.filter((r) => r.project === project);
const newestFirst = (a: SupabaseRecord, b: SupabaseRecord) => b.ms - a.ms || (a.id < b.id ? -1 : 1);

const edgeJoins = `cross join unnest(metadata) as m
  cross join unnest(m.request) as request
  cross join unnest(m.response) as response`;

const edgeDefault = `
-- local dev edge_logs query
select id, edge_logs.timestamp, event_message, request.method, request.path, response.status_code 
from edge_logs 
${edgeJoins}

order by timestamp desc
limit 100;
`;

const edgeRow = (r: EdgeRecord) => ({
  id: r.id,
  timestamp: r.ms * 1000,
  event_message: r.event_message,
  method: 'GET',
  path: r.path,
  status_code: r.status,
});

describe('the API collection page (edge_logs)', () => {
  it('lists the newest 100 requests of the range with the default query', async () => {
    const { status, body } = await logsAll(edgeDefault, range);
    expect(status).toBe(200);
    expect(body.result).toEqual(projectEdge.filter(inRange).sort(newestFirst).slice(0, 100).map(edgeRow));
  });

  it('counts the requests of the range with the count query', async () => {
    const { body } = await logsAll(`SELECT count(*) as count FROM edge_logs ${edgeJoins} `, range);
    expect(body.result).toEqual([{ count: projectEdge.filter(inRange).length }]);
  });

  it('charts the requests per minute with the chart query (6 hours before the range start)', async () => {
    const chartStart = now - 12 * HOUR;
    const sql = `
SELECT
-- log-event-chart
  timestamp_trunc(t.timestamp, minute) as timestamp,
  count(t.timestamp) as count
FROM
  edge_logs t
  ${edgeJoins}
  where t.timestamp > '${iso(chartStart)}'
GROUP BY
timestamp
ORDER BY
  timestamp ASC
  `;
    const { body } = await logsAll(sql, range);
    const buckets = new Map<number, number>();
    for (const r of projectEdge.filter((r) => inRange(r) && r.ms > chartStart)) {
      const minute = Math.floor(r.ms / 60_000) * 60_000;
      buckets.set(minute, (buckets.get(minute) ?? 0) + 1);
    }
    const expected = [...buckets]
      .sort(([a], [b]) => a - b)
      .map(([ms, count]) => ({ timestamp: ms * 1000, count }));
    expect(body.result).toEqual(expected);
  });

  it('opens one log with the single-log query', async () => {
    const record = projectEdge[3];
    if (!record) throw new Error('fixture too small');
    const { body } = await logsAll(
      `select id, timestamp, event_message, metadata from edge_logs where id = '${record.id}' limit 1`,
      range,
    );
    expect(body.result?.map(({ id, timestamp }) => ({ id, timestamp }))).toEqual([
      { id: record.id, timestamp: record.ms * 1000 },
    ]);
  });

  it('pages back with iso_timestamp_end set to the last row’s time, which is included again', async () => {
    const first = await logsAll(edgeDefault, { start: iso(now - 10 * 24 * HOUR), end: iso(now) });
    const last = first.body.result?.at(-1);
    expect(first.body.result).toHaveLength(100);
    // Studio turns the last row's microseconds into ISO (Logs.utils.ts unixMicroToIsoTimestamp).
    const end = new Date(Number(last?.timestamp) / 1000).toISOString();
    const second = await logsAll(edgeDefault, { start: iso(now - 10 * 24 * HOUR), end });
    const endMs = Number(last?.timestamp) / 1000;
    const expected = projectEdge
      .filter((r) => r.ms > now - 10 * 24 * HOUR && r.ms <= endMs)
      .sort(newestFirst)
      .slice(0, 100)
      .map(edgeRow);
    expect(second.body.result).toEqual(expected);
    expect(second.body.result?.[0]?.id).toBe(last?.id);
  });

  it('runs the "500 Request Codes" template', async () => {
    const sql = `select
  cast(timestamp as datetime) as timestamp,
  event_message,
  r.status_code
from edge_logs
  cross join unnest(metadata) as m
  cross join unnest(m.response) as r
where
  r.status_code >= 500
order by
  timestamp desc
limit 100
`;
    const { body } = await logsAll(sql, range);
    const expected = projectEdge.filter((r) => inRange(r) && r.status >= 500).sort(newestFirst);
    expect(body.result?.map((row) => [row.event_message, row.status_code])).toEqual(
      expected.map((r) => [r.event_message, r.status]),
    );
    // cast(timestamp as datetime): the record's UTC wall time, as DATETIME reads over REST.
    const newest = expected[0];
    if (!newest) throw new Error('the fixture has no 5xx request in the range');
    expect(String(body.result?.[0]?.timestamp).startsWith(iso(newest.ms).slice(0, 19))).toBe(true);
  });
});

describe('the Auth collection page (auth_logs)', () => {
  it('lists GoTrue’s lines with their level, status, path and message', async () => {
    const sql = `select id, auth_logs.timestamp, event_message, metadata.level, metadata.status, metadata.path, metadata.msg as msg, metadata.error from auth_logs
  cross join unnest(metadata) as metadata
  
  order by timestamp desc
  limit 100
    `;
    const { body } = await logsAll(sql, range);
    const expected = authRecords
      .filter((r) => r.project === project && inRange(r))
      .sort(newestFirst)
      .slice(0, 100)
      .map((r) => ({
        id: r.id,
        timestamp: r.ms * 1000,
        event_message: r.event_message,
        level: 'info',
        status: 200,
        path: '/token',
        msg: r.action === undefined ? 'request completed' : 'audit',
        error: null,
      }));
    expect(body.result).toEqual(expected);
  });
});

describe('the reports (their SQL as Studio sends it, no filters)', () => {
  const hour = (ms: number) => Math.floor(ms / HOUR) * HOUR;

  it('API report, total requests (Reports.constants.ts at 9a5f1be, totalRequests): per hour', async () => {
    const sql = `
        -- reports-api-total-requests
        select
          cast(timestamp_trunc(t.timestamp, hour) as datetime) as timestamp,
          count(t.id) as count
        FROM edge_logs t
          cross join unnest(metadata) as m
          cross join unnest(m.response) as response
          cross join unnest(m.request) as request
          cross join unnest(request.headers) as headers
          
        GROUP BY
          timestamp
        ORDER BY
          timestamp ASC`;
    const { body } = await logsAll(sql, range);
    const counts = new Map<number, number>();
    for (const r of projectEdge.filter(inRange)) counts.set(hour(r.ms), (counts.get(hour(r.ms)) ?? 0) + 1);
    const expected = [...counts]
      .sort(([a], [b]) => a - b)
      .map(([ms, count]) => ({ timestamp: iso(ms).slice(0, 19), count }));
    expect(body.result).toEqual(expected);
  });

  it('Auth report, total sign-ups (auth.config.ts at 92010a2, TotalSignUps): per hour, newest first', async () => {
    const sql = `
        --total-signups
        select 
          timestamp_trunc(timestamp, hour) as timestamp,
          
          count(*) as count
        from auth_logs
        where json_value(event_message, "$.auth_event.action") = 'user_signedup'
        
        group by timestamp
        order by timestamp desc
      `;
    const { body } = await logsAll(sql, range);
    const counts = new Map<number, number>();
    for (const r of authRecords.filter(
      (r) => r.project === project && inRange(r) && r.action === 'user_signedup',
    ))
      counts.set(hour(r.ms), (counts.get(hour(r.ms)) ?? 0) + 1);
    const expected = [...counts]
      .sort(([a], [b]) => b - a)
      .map(([ms, count]) => ({ timestamp: ms * 1000, count }));
    expect(expected.length).toBeGreaterThan(0);
    expect(body.result).toEqual(expected);
  });

  it('Storage report, cache hit rate: no rows, as Kong’s lines on self-hosted carry no response headers', async () => {
    const sql = `
        -- reports-storage-cache-hit-rate
SELECT
  timestamp_trunc(timestamp, hour) as timestamp,
  countif( h.cf_cache_status in ('HIT', 'STALE', 'REVALIDATED', 'UPDATING') ) as hit_count,
  countif( h.cf_cache_status in ('MISS', 'NONE/UNKNOWN', 'EXPIRED', 'BYPASS', 'DYNAMIC') ) as miss_count
from edge_logs f
  cross join unnest(f.metadata) as m
  cross join unnest(m.request) as r
  cross join unnest(m.response) as res
  cross join unnest(res.headers) as h
where starts_with(r.path, '/storage/v1/object') and r.method = 'GET'
  
group by timestamp
order by timestamp desc
`;
    expect(await logsAll(sql, range)).toEqual({ status: 200, body: { result: [] } });
  });

  it('Edge function report, invocations (edge-functions.config.ts at f1b0fbf): no rows without response headers', async () => {
    const sql = `
--edgefn-report-invocations
select
  timestamp_trunc(timestamp, hour) as timestamp,
  function_id,
  count(*) as count
from
  function_edge_logs
  CROSS JOIN UNNEST(metadata) AS m
  CROSS JOIN UNNEST(m.request) AS request
  CROSS JOIN UNNEST(m.response) AS response
  CROSS JOIN UNNEST(response.headers) AS h
  
group by
  timestamp,
  function_id
order by
  timestamp desc;
`;
    expect(await logsAll(sql, range)).toEqual({ status: 200, body: { result: [] } });
  });

  // The Edge Functions report's API charts: SHARED_API_REPORT_SQL with filterBy 'functions', which
  // reads function_edge_logs filtered by REGEXP_CONTAINS(request.path, '/functions')
  // (SharedAPIReport.constants.ts at 574f741; its whitespace folded here). Vector's relay lines carry
  // no request, so no rows.
  it('Edge function report, API charts over function_edge_logs: total requests, slow routes, traffic', async () => {
    const joins = `cross join unnest(metadata) as m
          cross join unnest(m.response) as response
          cross join unnest(m.request) as request
          cross join unnest(request.headers) as headers`;
    const where = "WHERE REGEXP_CONTAINS(request.path, '/functions')";
    const queries = [
      `select cast(timestamp_trunc(t.timestamp, hour) as datetime) as timestamp, count(t.id) as count
        FROM function_edge_logs t ${joins} ${where} GROUP BY timestamp ORDER BY timestamp ASC`,
      `select request.path as path, request.method as method, request.search as search,
          response.status_code as status_code, count(t.id) as count, avg(response.origin_time) as avg
        from function_edge_logs t ${joins} ${where}
        group by request.path, request.method, request.search, response.status_code order by avg desc limit 10`,
      `select cast(timestamp_trunc(t.timestamp, hour) as datetime) as timestamp,
          coalesce(safe_divide(sum(cast(coalesce(headers.content_length, "0") as int64)), 1000000), 0) as ingress_mb,
          coalesce(safe_divide(sum(cast(coalesce(resp_headers.content_length, "0") as int64)), 1000000), 0) as egress_mb,
        FROM function_edge_logs t ${joins} cross join unnest(response.headers) as resp_headers ${where}
        GROUP BY timestamp ORDER BY timestamp ASC`,
    ];
    for (const sql of queries)
      expect(await logsAll(sql, range)).toEqual({ status: 200, body: { result: [] } });
  });
});

describe('the unified logs page (UnifiedLogs.queries.bq.ts at 051c828)', () => {
  // Studio's CASE on a Kong line's status, and the branch its path puts it in.
  const level = (code: number) =>
    code >= 200 && code <= 299
      ? 'success'
      : code >= 400 && code <= 499
        ? 'warning'
        : code >= 500
          ? 'error'
          : 'success';
  const logType = (path: string) =>
    path.includes('/rest/') ? 'postgrest' : path.includes('/storage/') ? 'storage' : 'edge';

  it('lists the newest 50 of all six log types: Kong’s lines as edge, postgrest or storage by path', async () => {
    const sql = readFileSync(join(__dirname, '../fixtures/studio-sql/unified-logs-bq-all-types.sql'), 'utf8');
    const { status, body } = await logsAll(sql, range);
    expect(status).toBe(200);
    // Relay lines carry no request, so their cross join drops them (as BigQuery's does); auth lines
    // carry no request_id and there are no Postgres lines: only Kong's lines remain.
    const expected = projectEdge
      .filter(inRange)
      .sort((a, b) => b.ms - a.ms || (a.id < b.id ? 1 : -1))
      .slice(0, 50)
      .map((r) => ({
        id: r.id,
        source_id: null,
        timestamp: r.ms * 1000,
        log_type: logType(r.path),
        status: String(r.status),
        level: level(r.status),
        pathname: r.path,
        event_message: null,
        method: 'GET',
        log_count: null,
        logs: null,
      }));
    expect(new Set(expected.map((row) => row.log_type)).size).toBe(3);
    expect(body.result).toEqual(expected);
  });
  it('counts the range by log type, level, method, status and matching path for the filter bar', async () => {
    const sql = readFileSync(join(__dirname, '../fixtures/studio-sql/unified-logs-bq-counts.sql'), 'utf8');
    const { status, body } = await logsAll(sql, range);
    expect(status).toBe(200);
    const rows = projectEdge.filter(inRange);
    const tally = (dimension: string, values: string[]) =>
      [...new Set(values)].map((value) => ({
        dimension,
        value,
        count: values.filter((v) => v === value).length,
      }));
    const counted = (dimension: string, keys: string[], values: string[]) =>
      keys.map((value) => ({ dimension, value, count: values.filter((v) => v === value).length }));
    const expected = [
      { dimension: 'total', value: 'all', count: rows.length },
      ...counted(
        'log_type',
        ['edge', 'postgrest', 'storage', 'postgres', 'edge function', 'auth'],
        rows.map((r) => logType(r.path)),
      ),
      ...counted(
        'level',
        ['success', 'warning', 'error'],
        rows.map((r) => level(r.status)),
      ),
      ...tally(
        'method',
        rows.map(() => 'GET'),
      ),
      ...tally(
        'status',
        rows.map((r) => String(r.status)),
      ),
      ...tally(
        'pathname',
        rows.map((r) => r.path).filter((path) => path.includes('auth')),
      ),
    ];
    // The facets are GROUP BYs without ORDER BY, so their rows come in no set order.
    const key = (row: Record<string, unknown>) => `${row.dimension}|${row.value}|${row.count}`;
    expect(body.result?.map(key).sort()).toEqual(expected.map(key).sort());
    expect(rows.some((r) => !r.path.includes('auth'))).toBe(true);
  });
});

describe('a unified-logs row’s detail (ServiceFlow.sql.ts at 165dd41)', () => {
  it('answers a PostgREST request’s fields, NULL where Kong’s line has none, and the raw line', async () => {
    const record = projectEdge.find((r) => inRange(r) && r.path.includes('/rest/'));
    if (!record) throw new Error('the fixture has no REST request in the range');
    const sql = readFileSync(join(__dirname, '../fixtures/studio-sql/service-flow-postgrest.sql'), 'utf8');
    const { status, body } = await logsAll(sql.replace("'LOG_ID'", `'${record.id}'`), range);
    expect(status).toBe(200);
    expect(body.result).toHaveLength(1);
    const row = body.result?.[0] ?? {};
    const level = record.status >= 500 ? 'error' : record.status >= 400 ? 'warning' : 'success';
    const present = {
      id: record.id,
      timestamp: record.ms * 1000,
      log_type: 'postgrest',
      status: String(record.status),
      level,
      request_path: record.path,
      request_method: 'GET',
      headers_user_agent: 'curl/8',
    };
    expect(Object.fromEntries(Object.entries(row).filter(([, value]) => value !== null))).toEqual({
      ...present,
      raw_log_data: expect.objectContaining({ id: record.id, event_message: record.event_message }),
    });
    // Every other column of Studio’s select list is there, NULL: id and 62 aliased, 63 in all.
    expect(Object.keys(row)).toHaveLength(63);
  });
});

describe('SQL self-hosted Supabase cannot run either', () => {
  it('refuses a table that is none of the CTEs (pg_cron_logs, a platform-only source) with a 400', async () => {
    const { status } = await logsAll('select id, timestamp from pg_cron_logs limit 10', range);
    expect(status).toBe(400);
  });
});
