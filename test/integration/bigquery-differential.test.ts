import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createBigQueryEngine } from '../../src/backends/bigquery/engine.js';
import { createDuckDbEngine } from '../../src/backends/duckdb/engine.js';
import type { Endpoint } from '../../src/endpoints/registry.js';
import { loadEndpointRegistry } from '../../src/endpoints/registry.js';
import type { ParameterValues, QueryEngine, QueryResult } from '../../src/engines/query-engine.js';
import { toJson } from '../../src/http/respond.js';
import { queriesDir } from '../../src/paths.js';
import { type BigQueryHarness, startBigQueryHarness } from '../helpers/bigquery-harness.js';
import { type FixtureRecord, fixtureMicros, insertStatement } from '../helpers/log-fixture.js';
import { createScratchEngine, type ScratchEngine } from '../helpers/scratch-engine.js';
import { logSources } from '../helpers/shipped-sources.js';

// The same fixture records in the DuckDB engine's store and in the fake BigQuery's store; every
// endpoint of the manifest over every declared value of its enumerated parameters (plus an
// undeclared one where the contract falls back) must give the same REST body on both engines.
// "Now" is fixed: the DuckDB engine gets it in RunOptions, the fake BigQuery reads it from its
// own clock (on real BigQuery CURRENT_TIMESTAMP() is the server's clock).
const now = new Date('2026-03-10T12:34:56.789Z');
const registry = loadEndpointRegistry(queriesDir);

const url = (project: string, path: string) => `https://${project}.supabase.co${path}`;
const edge = (
  id: string,
  timestamp: string,
  project: string,
  path: string | null,
  status: number | null = 200,
): FixtureRecord => ({
  id,
  timestamp,
  event_message: `GET ${path ?? '-'}`,
  project,
  metadata: {
    request:
      path === null ? null : { url: url(project, path), path, method: 'GET', host: `${project}.supabase.co` },
    response: status === null ? null : { status_code: status, origin_time: 12 },
  },
});

const edgeLogs: FixtureRecord[] = [
  edge('c01', '2026-03-10 12:34:50.123456', 'p1', '/rest/v1/items'),
  edge('c02', '2026-03-10 12:30:00', 'p1', '/storage/v1/object/avatars', 404),
  edge('c03', '2026-03-10 12:00:00.5', 'p1', '/auth/v1/token'),
  edge('c04', '2026-03-10 11:40:00', 'p1', '/realtime/v1/websocket', null),
  edge('c05', '2026-03-10 11:00:00', 'p1', '/rest/v1/storage_usage'),
  edge('c06', '2026-03-09 13:00:00', 'p1', '/auth/v1/user'),
  edge('c07', '2026-03-09 12:00:00', 'p1', '/rest/v1/'),
  edge('c08', '2026-03-05 08:00:00.000001', 'p1', '/rest/v1/x'),
  edge('c09', '2026-02-01 00:00:00', 'p1', '/storage/v1/bucket'),
  edge('c10', '2025-11-01 00:00:00', 'p1', '/rest/v1/old'),
  {
    id: 'c11',
    timestamp: '2026-03-10 12:30:00',
    event_message: 'no metadata',
    project: 'p1',
    metadata: null,
  },
  edge('c12', '2026-03-10 12:30:00', 'p1', null, 500),
  edge('c13', '2026-03-10 12:10:00', 'p2', '/rest/v1/p2'),
  edge('c14', '2026-03-08 00:00:00', 'p2', '/auth/v1/signup'),
  edge('c15', '2026-03-10 12:40:00', 'p1', '/realtime/v1/api'),
];

const relay = (
  id: string,
  timestamp: string,
  projectRef: string,
  functionId: string,
  executionTime: number | null,
  status: number | null,
): FixtureRecord => ({
  id,
  timestamp,
  event_message: `invoke ${functionId}`,
  metadata: {
    project_ref: projectRef,
    function_id: functionId,
    execution_time_ms: executionTime,
    deployment_id: `${functionId}-v1`,
    request: {
      method: 'POST',
      url: `https://${projectRef}.functions.supabase.co/${functionId}`,
      pathname: `/${functionId}`,
    },
    response: status === null ? null : { status_code: status },
  },
});

const relayLogs: FixtureRecord[] = [
  relay('r01', '2026-03-10 12:34:30.25', 'p1', 'f1', 10, 200),
  relay('r02', '2026-03-10 12:34:30.9', 'p1', 'f2', 30, 404),
  relay('r03', '2026-03-10 12:31:00', 'p1', 'f1', 25, 500),
  relay('r04', '2026-03-10 12:25:00', 'p1', 'f1', 7, null),
  relay('r05', '2026-03-10 12:00:00', 'p1', 'f2', 100, 201),
  relay('r06', '2026-03-10 02:00:00', 'p1', 'f1', 55, 302),
  relay('r07', '2026-03-05 10:00:00', 'p1', 'f1', 80, 503),
  relay('r08', '2026-02-20 00:00:00', 'p1', 'f1', 20, 200),
  relay('r09', '2026-03-10 12:33:00', 'p2', 'f3', 15, 200),
  { id: 'r10', timestamp: '2026-03-10 12:34:00', event_message: 'no metadata', metadata: null },
  relay('r11', '2026-03-10 12:34:40', 'p1', 'f1', null, 200),
  relay('r12', '2026-03-10 12:34:30.999999', 'p1', 'f1', 12, 101),
];

// The other sources are read by logs.all's CTEs but not returned; a record each keeps them honest.
const otherLogs: Record<string, FixtureRecord[]> = {
  'postgres.logs': [
    {
      id: 'pg1',
      timestamp: '2026-03-10 12:00:00',
      event_message: 'checkpoint',
      project: 'p1',
      metadata: { host: 'db', parsed: { error_severity: 'LOG' } },
    },
  ],
  'deno-subhosting-events': [
    {
      id: 'ev1',
      timestamp: '2026-03-10 12:00:00',
      event_message: 'boot',
      metadata: { project_ref: 'p1', function_id: 'f1', event_type: 'Boot', level: 'info' },
    },
  ],
  'gotrue.logs.prod': [
    {
      id: 'au1',
      timestamp: '2026-03-10 12:00:00',
      event_message: 'login',
      project: 'p1',
      metadata: { project: 'p1', level: 'info', path: '/token', status: 200 },
    },
  ],
};

let duckStore: ScratchEngine;
let duckdb: QueryEngine;
let harness: BigQueryHarness;
let bigquery: QueryEngine;

beforeAll(async () => {
  duckStore = await createScratchEngine();
  harness = await startBigQueryHarness({ now: () => now });
  const inserts = [
    insertStatement('cloudflare.logs.prod', edgeLogs),
    insertStatement('deno-relay-logs', relayLogs),
    ...Object.entries(otherLogs).map(([source, records]) => insertStatement(source, records)),
  ];
  for (const sql of inserts) {
    await duckStore.duckdb(sql);
    await harness.store.duckdb(sql);
  }
  duckdb = await createDuckDbEngine({
    database: duckStore.database,
    sources: logSources,
    queries: registry.endpoints,
    queriesDir,
    timeoutMs: 10_000,
  });
  bigquery = await createBigQueryEngine({
    config: harness.config,
    queries: registry.endpoints,
    sources: harness.sources,
    queriesDir,
    client: harness.client(),
  });
  await bigquery.ready();
});

afterAll(async () => {
  await bigquery?.close();
  await duckdb?.close();
  await harness?.close();
  await duckStore?.close();
});

/** Values tried for the parameters without a declared set, by endpoint and name. */
const freeValues: Record<string, Record<string, readonly (string | null)[]>> = {
  'logs.all': {
    project: ['p1', 'p2', 'nobody'],
    iso_timestamp_start: [null, '2026-03-09T00:00:00Z', '2026-03-10T13:00:00+02:00'],
    iso_timestamp_end: [null, '2026-03-10T12:30:00Z', '2026-03-10'],
  },
  'functions.invocation-stats': { project: ['p1', 'p2'], function_id: [null, 'f1', 'f9'] },
  'usage.api-counts': { project: ['p1\\.supabase', 'supabase\\.co/(rest|auth)', 'nomatch'] },
};

/** Every combination of the values tried for an endpoint's parameters. */
function parameterGrid(endpoint: Endpoint): ParameterValues[] {
  let grid: Record<string, string | null>[] = [{}];
  for (const parameter of endpoint.parameters) {
    const declared = parameter.values
      ? [...parameter.values, ...(parameter.otherValues === 'fallback' ? ['UNDECLARED'] : [])]
      : undefined;
    const values = declared ?? freeValues[endpoint.name]?.[parameter.name];
    if (!values) throw new Error(`No test values for ${endpoint.name} ${parameter.name}`);
    grid = grid.flatMap((partial) => values.map((value) => ({ ...partial, [parameter.name]: value })));
  }
  return grid;
}

const cases = registry.endpoints.flatMap((endpoint) =>
  parameterGrid(endpoint).map((params) => ({
    endpoint,
    params,
    label: `${endpoint.name} ${JSON.stringify(params)}`,
  })),
);

const run = (engine: QueryEngine, endpoint: Endpoint, params: ParameterValues): Promise<QueryResult> =>
  engine.run(endpoint, params, { now });

describe('the BigQuery engine against the DuckDB engine on the same records', () => {
  it('covers every endpoint of the manifest and every declared interval and tier', () => {
    expect(new Set(cases.map((c) => c.endpoint.name))).toEqual(
      new Set(registry.endpoints.map((e) => e.name)),
    );
    const tried = (name: string, parameter: string) =>
      new Set(cases.filter((c) => c.endpoint.name === name).map((c) => c.params[parameter]));
    expect(tried('logs.all', 'project_tier')).toEqual(
      new Set(['FREE', 'PRO', 'PAYG', 'ENTERPRISE', 'UNDECLARED']),
    );
    expect(tried('functions.invocation-stats', 'interval')).toEqual(
      new Set(['5min', '15min', '1hr', '1day', '7day', 'UNDECLARED']),
    );
    expect(tried('usage.api-counts', 'interval')).toEqual(new Set(['minutely', 'hourly', 'daily']));
  });

  it.each(cases)('returns the same REST body for $label', async ({ endpoint, params }) => {
    const [fromDuckDb, fromBigQuery] = await Promise.all([
      run(duckdb, endpoint, params),
      run(bigquery, endpoint, params),
    ]);
    expect(toJson({ result: fromBigQuery.rows })).toBe(toJson({ result: fromDuckDb.rows }));
    expect(fromBigQuery.columns).toEqual(fromDuckDb.columns);
  });
});

describe('Logs Explorer table names on both engines', () => {
  it.each([
    'select edge_logs.id, r.path from edge_logs cross join unnest(metadata) as m cross join unnest(m.request) as r order by edge_logs.id',
    'select function_id, count(*) as n from function_edge_logs cross join unnest(metadata) as m group by function_id order by function_id',
    'select p.error_severity from postgres_logs as t cross join unnest(t.metadata) as m cross join unnest(m.parsed) as p',
  ])('reads the source table for %s', async (sql) => {
    const query = { id: `alias-${sql.length}`, name: 'alias', sql, maxRows: 1000 };
    const [fromDuckDb, fromBigQuery] = await Promise.all([
      duckdb.run(query, {}, { now }),
      bigquery.run(query, {}, { now }),
    ]);
    expect(fromDuckDb.rows.length).toBeGreaterThan(0);
    expect(toJson({ result: fromBigQuery.rows })).toBe(toJson({ result: fromDuckDb.rows }));
  });
});

describe('a STRUCT the query builds, on both engines', () => {
  it('answers it as one object (BigQuery writes it as a NULLABLE RECORD), its stored records still arrays', async () => {
    const sql = `select id, struct(id as i, 1 as n) as s, metadata[offset(0)] as m from edge_logs where id = 'c01'`;
    const query = { id: 'built-struct', name: 'built', sql, maxRows: 10 };
    const [fromDuckDb, fromBigQuery] = await Promise.all([
      duckdb.run(query, {}, { now }),
      bigquery.run(query, {}, { now }),
    ]);
    const [row] = fromDuckDb.rows;
    expect(row?.s).toEqual({ i: 'c01', n: 1 });
    expect(row?.m).toMatchObject({ request: [{ path: '/rest/v1/items' }] });
    expect(toJson({ result: fromBigQuery.rows })).toBe(toJson({ result: fromDuckDb.rows }));
  });
});

// The differential above could pass on two equally wrong engines; these work the answers out
// from the fixture records directly.
describe('BigQuery engine answers worked out from the fixture', () => {
  const micros = (record: FixtureRecord) => fixtureMicros(record.timestamp);
  const nowMicros = now.getTime() * 1000;
  const day = 86_400_000_000;

  it.each(cases.filter((c) => c.endpoint.name === 'logs.all'))(
    'logs.all returns the expected records for $label',
    async ({ endpoint, params }) => {
      const retentionDays = { FREE: 1, PRO: 7, PAYG: 90, ENTERPRISE: 90 }[params.project_tier as string] ?? 1;
      const start = params.iso_timestamp_start ? Date.parse(params.iso_timestamp_start) * 1000 : undefined;
      const end = params.iso_timestamp_end ? Date.parse(params.iso_timestamp_end) * 1000 : undefined;
      const expected = edgeLogs
        .filter(
          (record) =>
            record.project === params.project &&
            record.metadata !== null &&
            micros(record) > nowMicros - retentionDays * day &&
            (start === undefined || micros(record) > start) &&
            (end === undefined || micros(record) <= end),
        )
        .sort((a, b) => micros(b) - micros(a) || a.id.localeCompare(b.id))
        .slice(0, 100);
      const { rows } = await run(bigquery, endpoint, params);
      expect(rows.map((row) => [row.id, row.timestamp])).toEqual(
        expected.map((record) => [record.id, micros(record)]),
      );
      for (const row of rows) {
        const record = expected.find((candidate) => candidate.id === row.id) as FixtureRecord;
        const request = record.metadata?.request as Record<string, unknown> | null;
        expect(row.metadata).toEqual([
          {
            request: request === null ? [] : [request],
            response: record.metadata?.response === null ? [] : [record.metadata?.response],
          },
        ]);
      }
    },
  );

  const truncate = (value: number, unit: 'second' | 'minute' | 'hour' | 'day') =>
    value - (value % { second: 1e6, minute: 6e7, hour: 3.6e9, day: day }[unit]);
  const civil = (value: number) => new Date(value / 1000).toISOString().slice(0, 19);

  it.each(cases.filter((c) => c.endpoint.name === 'usage.api-counts'))(
    'usage.api-counts counts the expected requests for $label',
    async ({ endpoint, params }) => {
      const { windowStart, unit } = {
        minutely: { windowStart: nowMicros - 60 * 6e7, unit: 'minute' as const },
        hourly: { windowStart: nowMicros - 3.6e9, unit: 'hour' as const },
        daily: { windowStart: nowMicros - 7 * day, unit: 'day' as const },
      }[params.interval as 'minutely' | 'hourly' | 'daily'];
      const pattern = new RegExp(params.project as string);
      const buckets = new Map<number, number[]>();
      for (const record of edgeLogs) {
        const request = record.metadata?.request as { url: string; path: string } | null | undefined;
        if (!request || micros(record) < windowStart || !pattern.test(request.url)) continue;
        const counts = buckets.get(truncate(micros(record), unit)) ?? [0, 0, 0, 0];
        ['/rest', '/storage', '/auth', '/realtime'].forEach((fragment, i) => {
          if (request.path.includes(fragment)) counts[i] = (counts[i] as number) + 1;
        });
        buckets.set(truncate(micros(record), unit), counts);
      }
      const expected = [...buckets.entries()]
        .sort(([a], [b]) => a - b)
        .map(([bucket, [rest, storage, auth, realtime]]) => ({
          timestamp: civil(bucket),
          total_rest_requests: rest,
          total_storage_requests: storage,
          total_auth_requests: auth,
          total_realtime_requests: realtime,
        }));
      expect((await run(bigquery, endpoint, params)).rows).toEqual(expected);
    },
  );

  it.each(cases.filter((c) => c.endpoint.name === 'functions.invocation-stats'))(
    'functions.invocation-stats gives every bucket its count, errors, min, max and mean for $label',
    async ({ endpoint, params }) => {
      const series = {
        '5min': { span: 5 * 6e7, unit: 'second' as const, step: 1e6 },
        '15min': { span: 15 * 6e7, unit: 'minute' as const, step: 6e7 },
        '1hr': { span: 3.6e9, unit: 'minute' as const, step: 6e7 },
        '1day': { span: day, unit: 'hour' as const, step: 3.6e9 },
        '7day': { span: 7 * day, unit: 'day' as const, step: day },
      }[params.interval as string] ?? { span: day, unit: 'hour' as const, step: 3.6e9 };
      const first = truncate(nowMicros - series.span, series.unit);
      const buckets: number[] = [];
      for (let bucket = first; bucket <= truncate(nowMicros, series.unit); bucket += series.step)
        buckets.push(bucket);
      const invocations = relayLogs.filter(
        (record) =>
          record.metadata?.project_ref === params.project &&
          (!params.function_id || record.metadata?.function_id === params.function_id) &&
          micros(record) >= first,
      );
      const expected = buckets.map((bucket) => {
        const inBucket = invocations.filter((record) => truncate(micros(record), series.unit) === bucket);
        const times = inBucket
          .map((record) => record.metadata?.execution_time_ms as number | null)
          .filter((time): time is number => time !== null);
        return {
          timestamp: bucket,
          count: inBucket.length,
          error_count: inBucket.filter(
            (record) =>
              ((record.metadata?.response as { status_code: number } | null)?.status_code ?? 0) >= 400,
          ).length,
          min_execution_time: times.length ? Math.min(...times) : null,
          max_execution_time: times.length ? Math.max(...times) : null,
          avg_execution_time: times.length ? times.reduce((sum, time) => sum + time, 0) / times.length : null,
        };
      });
      const { rows } = await run(bigquery, endpoint, params);
      expect(
        rows.map(
          ({
            timestamp,
            count,
            error_count,
            min_execution_time,
            max_execution_time,
            avg_execution_time,
          }) => ({
            timestamp,
            count,
            error_count,
            min_execution_time,
            max_execution_time,
            avg_execution_time,
          }),
        ),
      ).toEqual(expected);
      expect(
        expected.some((bucket) => bucket.count > 0) || params.project !== 'p1' || params.function_id === 'f9',
      ).toBe(true);
    },
  );
});
