import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  authRecords,
  edgeRecords,
  project,
  relayRecords,
  supabaseNow,
} from '../fixtures/supabase-fixture.js';
import { postGraphQL } from '../helpers/graphql-request.js';
import { expectNoServerErrors, type QuerygateUnderTest } from '../helpers/querygate-server.js';
import { startSupabaseService, studioToken } from '../helpers/supabase-service.js';

/**
 * Self-hosted Supabase Studio's analytics calls against `querygate serve --queries supabase`,
 * replayed as Studio sends them, over records shaped as self-hosted Supabase's Vector writes them
 * (test/fixtures/supabase-fixture.ts). Every expected row is computed here from the fixture
 * records in plain JavaScript.
 *
 * How Studio calls (supabase/supabase 61af5d5, apps/studio/lib/api/self-hosted/logs.ts,
 * `retrieveAnalyticsData`): `new URL(`${PROJECT_ANALYTICS_URL}endpoints/query/${name}`)` with
 * `project` set to the project ref (`default` when self-hosted) and every other parameter the page
 * passed set with `searchParams.set`, then a GET with `x-api-key: LOGFLARE_PRIVATE_ACCESS_TOKEN`,
 * `Content-Type: application/json` and `Accept: application/json`. `PROJECT_ANALYTICS_URL` is
 * `${LOGFLARE_URL}/api/`.
 */

const now = supabaseNow.getTime();
const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;

let service: QuerygateUnderTest;

beforeAll(async () => {
  service = await startSupabaseService();
});

afterAll(async () => {
  if (service) expectNoServerErrors(service);
  await service?.close();
});

/** Studio's request (lib/api/self-hosted/logs.ts): GET, the name in the path, its three headers. */
async function studioCall(name: string, params: Record<string, string>) {
  const url = new URL(`${service.url}/api/endpoints/query/${name}`);
  url.searchParams.set('project', project);
  for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
  const response = await fetch(url, {
    method: 'GET',
    headers: { 'x-api-key': studioToken, 'Content-Type': 'application/json', Accept: 'application/json' },
  });
  const body = (await response.json()) as { result?: Record<string, unknown>[]; error?: { message: string } };
  return { status: response.status, body };
}

type Unit = 'minute' | 'hour' | 'day';
const unitMs: Record<Unit, number> = { minute: MINUTE, hour: HOUR, day: DAY };

/** The bucket of `ms` as BigQuery's DATETIME(TIMESTAMP_TRUNC(t, unit), 'UTC') reads over REST. */
function bucketOf(ms: number, unit: Unit): string {
  return new Date(Math.floor(ms / unitMs[unit]) * unitMs[unit]).toISOString().slice(0, 19);
}

function groupBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T[]> {
  const groups = new Map<string, T[]>();
  for (const item of items) groups.set(key(item), [...(groups.get(key(item)) ?? []), item]);
  return new Map([...groups].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

describe('usage.api-counts (apps/studio/data/analytics/project-log-stats-query.ts at 12b126d; ProjectUsage.tsx)', () => {
  const windows = {
    '1hr': [HOUR, 'minute'],
    '1day': [DAY, 'hour'],
    '7day': [7 * DAY, 'day'],
    minutely: [60 * MINUTE, 'minute'],
    hourly: [HOUR, 'hour'],
    daily: [7 * DAY, 'day'],
  } as const;

  function expectedCounts(interval: keyof typeof windows) {
    const [span, unit] = windows[interval];
    const inWindow = edgeRecords.filter((r) => r.project === project && r.ms >= now - span);
    return [...groupBy(inWindow, (r) => bucketOf(r.ms, unit))].map(([timestamp, records]) => ({
      timestamp,
      total_rest_requests: records.filter((r) => r.path.includes('/rest')).length,
      total_storage_requests: records.filter((r) => r.path.includes('/storage')).length,
      total_auth_requests: records.filter((r) => r.path.includes('/auth')).length,
      total_realtime_requests: records.filter((r) => r.path.includes('/realtime')).length,
    }));
  }

  it.each(Object.keys(windows) as (keyof typeof windows)[])(
    'answers interval=%s with the project’s requests per bucket and API area',
    async (interval) => {
      const { status, body } = await studioCall('usage.api-counts', { interval });
      expect(status).toBe(200);
      const expected = expectedCounts(interval);
      expect(expected.length).toBeGreaterThan(0);
      expect(body.result).toEqual(expected);
    },
  );

  it('refuses an interval Studio never sends with 400 naming it', async () => {
    const { status, body } = await studioCall('usage.api-counts', { interval: '30day' });
    expect(status).toBe(400);
    expect(body.error?.message).toContain('interval');
  });
});

describe('usage.api-requests-count (apps/studio/data/analytics/project-log-requests-count-query.ts at 080a866)', () => {
  it('answers one row whose count is the project’s edge requests of the last 7 days', async () => {
    const { status, body } = await studioCall('usage.api-requests-count', {});
    expect(status).toBe(200);
    const expected = edgeRecords.filter((r) => r.project === project && r.ms >= now - 7 * DAY).length;
    expect(body.result).toEqual([{ count: expected }]);
  });
});

describe('the function pages (apps/studio/data/analytics/functions-*-query.ts; EdgeFunctionOverview.utils.ts)', () => {
  const windows = {
    '15min': [15 * MINUTE, 'minute'],
    '1hr': [HOUR, 'minute'],
    '3hr': [3 * HOUR, 'minute'],
    '1day': [DAY, 'hour'],
    '7day': [7 * DAY, 'day'],
  } as const;

  function expectedStats(functionId: string, interval: keyof typeof windows) {
    const [span, unit] = windows[interval];
    const invocations = relayRecords.filter(
      (r) => r.projectRef === project && r.functionId === functionId && r.ms >= now - span,
    );
    return [...groupBy(invocations, (r) => bucketOf(r.ms, unit))].map(([timestamp, records]) => {
      const times = records.map((r) => r.executionMs);
      return {
        timestamp,
        success_count: records.filter((r) => r.status >= 200 && r.status < 300).length,
        redirect_count: records.filter((r) => r.status >= 300 && r.status < 400).length,
        client_err_count: records.filter((r) => r.status >= 400 && r.status < 500).length,
        server_err_count: records.filter((r) => r.status >= 500).length,
        avg_execution_time: times.reduce((a, b) => a + b, 0) / times.length,
        max_execution_time: Math.max(...times),
      };
    });
  }

  const resourceColumns = {
    avg_cpu_time_used: null,
    max_cpu_time_used: null,
    avg_memory_used: null,
    avg_heap_memory_used: null,
    avg_external_memory_used: null,
  };

  function closeTo(rows: readonly Record<string, unknown>[]) {
    return rows.map((row) => ({
      ...row,
      avg_execution_time: expect.closeTo(row.avg_execution_time as number, 9),
    }));
  }

  it.each([
    ['fn-hello', '15min'],
    ['fn-hello', '1hr'],
    ['fn-bye', '3hr'],
    ['fn-hello', '1day'],
    ['fn-bye', '7day'],
  ] as const)(
    'functions.req-stats answers %s over %s per bucket by status class',
    async (functionId, interval) => {
      const { status, body } = await studioCall('functions.req-stats', { function_id: functionId, interval });
      expect(status).toBe(200);
      const expected = expectedStats(functionId, interval);
      expect(expected.length).toBeGreaterThan(0);
      expect(body.result).toEqual(closeTo(expected));
    },
  );

  it('functions.inv-stats (older Studio pages) answers the rows of functions.req-stats', async () => {
    const { body } = await studioCall('functions.inv-stats', { function_id: 'fn-hello', interval: '1day' });
    expect(body.result).toEqual(closeTo(expectedStats('fn-hello', '1day')));
  });

  it('functions.combined-stats adds CPU and memory as null, which Studio reads as 0', async () => {
    const { status, body } = await studioCall('functions.combined-stats', {
      function_id: 'fn-hello',
      interval: '1hr',
    });
    expect(status).toBe(200);
    const expected = expectedStats('fn-hello', '1hr').map((row) => ({ ...row, ...resourceColumns }));
    expect(body.result).toEqual(closeTo(expected));
  });

  it('functions.resource-usage answers a bucket per bucket with invocations, its figures null', async () => {
    const { status, body } = await studioCall('functions.resource-usage', {
      function_id: 'fn-bye',
      interval: '1day',
    });
    expect(status).toBe(200);
    const expected = expectedStats('fn-bye', '1day').map(({ timestamp }) => ({
      timestamp,
      ...resourceColumns,
    }));
    expect(body.result).toEqual(expected);
  });

  it('answers no rows for a function without invocations', async () => {
    const { status, body } = await studioCall('functions.req-stats', {
      function_id: 'fn-none',
      interval: '1day',
    });
    expect([status, body.result]).toEqual([200, []]);
  });
});

describe('auth.metrics (apps/studio/data/auth/auth-overview-query.ts at 3d6466d; OverviewUsage.schema.ts)', () => {
  const activeActions = [
    'login',
    'user_signedup',
    'token_refreshed',
    'user_modified',
    'user_recovery_requested',
    'user_reauthenticate_requested',
  ];

  function expectedPeriod(period: 'current' | 'previous', start: number, end: number) {
    const auth = authRecords.filter((r) => r.project === project && r.ms > start && r.ms <= end);
    const edge = edgeRecords.filter((r) => r.project === project && r.ms > start && r.ms <= end);
    const authEdge = edge.filter((r) => r.path.includes('/auth/v1'));
    return {
      period,
      active_users: new Set(auth.filter((r) => activeActions.includes(r.action ?? '')).map((r) => r.actorId))
        .size,
      api_error_requests: edge.filter((r) => r.status >= 400).length,
      api_total_requests: edge.length,
      auth_total_errors: authEdge.filter((r) => r.status >= 400).length,
      auth_total_requests: authEdge.length,
      password_reset_requests: auth.filter((r) => r.action === 'user_recovery_requested').length,
      sign_up_count: auth.filter((r) => r.action === 'user_signedup').length,
    };
  }

  it('answers the current and previous day as Studio’s schema requires (interval=1day, as Studio sends)', async () => {
    const { status, body } = await studioCall('auth.metrics', { interval: '1day' });
    expect(status).toBe(200);
    const expected = [
      expectedPeriod('current', now - DAY, now),
      expectedPeriod('previous', now - 2 * DAY, now - DAY),
    ];
    expect(expected[0]?.sign_up_count).toBeGreaterThan(0);
    expect(body.result).toEqual(expected);
  });

  it('answers both periods with zeros when nothing happened in them', async () => {
    const { body } = await studioCall('auth.metrics', { interval: '1hr' });
    const expected = [
      expectedPeriod('current', now - HOUR, now),
      expectedPeriod('previous', now - 2 * HOUR, now - HOUR),
    ];
    expect(body.result).toEqual(expected);
  });
});

describe('the same endpoints over GraphQL', () => {
  it('answers auth.metrics as auth { metrics } with the rows REST gives, camel-cased', async () => {
    const rest = await studioCall('auth.metrics', { interval: '1day' });
    const graphql = await postGraphQL<{ auth: { metrics: Record<string, unknown>[] } }>(
      service,
      /* GraphQL */ `{ auth { metrics(project: "default", interval: ONE_DAY) { period activeUsers signUpCount apiTotalRequests } } }`,
      undefined,
      { apiKey: studioToken },
    );
    expect(graphql.errors).toEqual([]);
    expect(graphql.data?.auth.metrics).toEqual(
      (rest.body.result ?? []).map((row) => ({
        period: row.period,
        activeUsers: row.active_users,
        signUpCount: row.sign_up_count,
        apiTotalRequests: row.api_total_requests,
      })),
    );
  });
});

describe('logs.all without sql (the collection pages’ time range; Logflare priv/supabase/endpoints/logs.all.sql)', () => {
  const projectEdge = edgeRecords.filter((r) => r.project === project);

  function expectedRows(start: number | undefined, end: number | undefined) {
    return projectEdge
      .filter((r) => (start === undefined || r.ms > start) && (end === undefined || r.ms <= end))
      .sort((a, b) => b.ms - a.ms || (a.id < b.id ? -1 : 1))
      .slice(0, 100)
      .map((r) => ({ id: r.id, timestamp: r.ms * 1000, event_message: r.event_message }));
  }

  const summary = (rows: Record<string, unknown>[] | undefined) =>
    (rows ?? []).map(({ id, timestamp, event_message }) => ({ id, timestamp, event_message }));

  it('answers without project_tier, the newest 100 edge records of the project', async () => {
    const { status, body } = await studioCall('logs.all', {});
    expect(status).toBe(200);
    expect(summary(body.result)).toEqual(expectedRows(undefined, undefined));
  });

  it('excludes iso_timestamp_start and includes iso_timestamp_end, exactly at a record’s time', async () => {
    const [later, earlier] = [projectEdge[20], projectEdge[200]];
    if (!later || !earlier) throw new Error('fixture too small');
    const { status, body } = await studioCall('logs.all', {
      iso_timestamp_start: earlier.timestamp,
      iso_timestamp_end: later.timestamp,
    });
    expect(status).toBe(200);
    const rows = summary(body.result);
    expect(rows).toEqual(expectedRows(earlier.ms, later.ms));
    expect(rows[0]?.id).toBe(later.id);
    expect(rows.map((row) => row.id)).not.toContain(earlier.id);
  });

  it('treats an empty iso_timestamp_start as no lower bound', async () => {
    const end = projectEdge[300];
    if (!end) throw new Error('fixture too small');
    const { body } = await studioCall('logs.all', {
      iso_timestamp_start: '',
      iso_timestamp_end: end.timestamp,
    });
    expect(summary(body.result)).toEqual(expectedRows(undefined, end.ms));
  });

  it('returns metadata as Logflare does: every nested object a list of objects, unset schema fields null', async () => {
    const { body } = await studioCall('logs.all', {});
    const first = body.result?.[0];
    const record = projectEdge.find((r) => r.id === first?.id);
    // supabase/sources.yaml declares more fields than Kong's lines carry (request.url, the
    // headers Studio's reports read, ...): as in a BigQuery table, a field a record lacks is null.
    const metadata = first?.metadata as {
      request: Record<string, unknown>[];
      response: Record<string, unknown>[];
    }[];
    expect(metadata).toHaveLength(1);
    expect(metadata[0]?.request[0]).toMatchObject({
      method: 'GET',
      path: record?.path,
      protocol: 'HTTP/1.1',
      url: null,
      headers: [expect.objectContaining({ user_agent: 'curl/8', referer: null })],
    });
    expect(metadata[0]?.response[0]).toMatchObject({ status_code: record?.status, origin_time: null });
  });
});
