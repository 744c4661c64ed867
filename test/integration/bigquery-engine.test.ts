import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createBigQueryEngine } from '../../src/backends/bigquery/engine.js';
import { type Endpoint, loadEndpointRegistry } from '../../src/endpoints/registry.js';
import type { QueryEngine, SavedQuery } from '../../src/engines/query-engine.js';
import { isQuerygateError, type QuerygateError } from '../../src/errors.js';
import { queriesDir } from '../../src/paths.js';
import {
  type BigQueryHarness,
  type HarnessOptions,
  startBigQueryHarness,
} from '../helpers/bigquery-harness.js';
import { fixtureMicros, insertStatement } from '../helpers/log-fixture.js';

const now = new Date('2026-03-10T12:34:56.789Z');
const registry = loadEndpointRegistry(queriesDir);
const endpoint = (name: string) => registry.find(name) as Endpoint;

let harness: BigQueryHarness | undefined;
let engine: QueryEngine | undefined;

afterEach(async () => {
  await engine?.close();
  await harness?.close();
  engine = undefined;
  harness = undefined;
});

async function start(options: HarnessOptions = {}, queries: readonly SavedQuery[] = registry.endpoints) {
  harness = await startBigQueryHarness({ now: () => now, ...options });
  engine = await createBigQueryEngine({
    config: harness.config,
    queries,
    sources: harness.sources,
    queriesDir,
    client: harness.client(),
  });
  return { harness, engine };
}

async function failureOf(promise: Promise<unknown>): Promise<QuerygateError> {
  const error = await promise.then(
    () => expect.fail('expected the run to fail'),
    (caught: unknown) => caught,
  );
  if (!isQuerygateError(error)) throw error;
  return error;
}

/** A saved query reading the edge logs directly, `count` rows of them in id order. */
const edgeQuery = (maxRows: number): SavedQuery => ({
  id: '0d4c1a52-5d2b-4c3e-9b56-000000000001',
  name: 'test.edge-ids',
  sql: 'select id, timestamp from `cloudflare.logs.prod` order by id',
  maxRows,
});

async function insertEdgeRecords(count: number) {
  const records = Array.from({ length: count }, (_, i) => ({
    id: `e${String(i).padStart(3, '0')}`,
    timestamp: `2026-03-10 12:00:${String(i % 60).padStart(2, '0')}.${String(100_000 + i)}`,
    event_message: `event ${i}`,
    project: 'p1',
    metadata: null,
  }));
  await harness?.store.duckdb(insertStatement('cloudflare.logs.prod', records));
  return records;
}

describe('BigQuery job requests', () => {
  it('sends the saved SQL with mapped table names, named STRING parameters, NULL for unset ones, labels, the cap and the timeout', async () => {
    const { harness, engine } = await start({
      environment: {
        QUERYGATE_BIGQUERY_TABLES: 'cloudflare.logs.prod=edge-project.edge.requests',
        QUERYGATE_BIGQUERY_MAX_BYTES_BILLED: '50000000',
        QUERYGATE_BIGQUERY_TIMEOUT_MS: '7000',
        QUERYGATE_BIGQUERY_LOCATION: 'EU',
      },
    });
    await engine.run(
      endpoint('logs.all'),
      {
        project: 'p1',
        project_tier: 'PRO',
        iso_timestamp_start: '2026-03-01T00:00:00Z',
        iso_timestamp_end: null,
      },
      { now },
    );
    const [insert] = harness.fake.calls('jobs.insert');
    const { configuration, jobReference } = insert?.body ?? {};
    // Expected text: the saved file with each backticked source replaced by its configured table.
    let expectedSql = readFileSync(join(queriesDir, 'logs.all.sql'), 'utf8');
    for (const [logical, table] of Object.entries(harness.tables)) {
      expectedSql = expectedSql.replaceAll(`\`${logical}\``, `\`${table}\``);
    }
    expect(configuration.query.query).toBe(expectedSql);
    expect(configuration.query.query).toContain('`edge-project.edge.requests` as t');
    expect(configuration.query.query).toContain('`querygate-test.logs.deno_relay_logs` as t');
    expect(configuration.query.useLegacySql).toBe(false);
    expect(configuration.query.parameterMode).toBe('NAMED');
    expect(configuration.query.queryParameters).toEqual([
      { name: 'iso_timestamp_end', parameterType: { type: 'STRING' }, parameterValue: {} },
      {
        name: 'iso_timestamp_start',
        parameterType: { type: 'STRING' },
        parameterValue: { value: '2026-03-01T00:00:00Z' },
      },
      { name: 'project', parameterType: { type: 'STRING' }, parameterValue: { value: 'p1' } },
      { name: 'project_tier', parameterType: { type: 'STRING' }, parameterValue: { value: 'PRO' } },
    ]);
    expect(configuration.query.maximumBytesBilled).toBe('50000000');
    expect(configuration.jobTimeoutMs).toBe('7000');
    expect(configuration.labels).toEqual({
      querygate_endpoint: 'logs_all',
      querygate_endpoint_id: 'f45bae19-6f69-4f40-8fc7-3177d782efcd',
    });
    expect(jobReference).toMatchObject({ projectId: 'querygate-test', location: 'EU' });
    expect(jobReference.jobId).toMatch(/^querygate_logs_all_[0-9a-f-]{36}$/);
    expect(insert?.authorization).toBe('Bearer fake-token');
    const [results] = harness.fake.calls('jobs.getQueryResults');
    expect(results?.path).toBe(`/bigquery/v2/projects/querygate-test/queries/${jobReference.jobId}`);
    expect(results?.query).toMatchObject({
      location: 'EU',
      maxResults: '1000',
      'formatOptions.useInt64Timestamp': 'true',
    });
    // BigQuery may hold the results call at most as long as the run has left.
    expect(Number(results?.query.timeoutMs)).toBeGreaterThan(0);
    expect(Number(results?.query.timeoutMs)).toBeLessThanOrEqual(7000);
  });

  it('qualifies the UDF call and sanitises a dotted, dashed endpoint name into the label', async () => {
    const { harness, engine } = await start();
    await engine.run(
      endpoint('functions.invocation-stats'),
      { project: 'p1', interval: '1hr', function_id: null },
      { now },
    );
    const { configuration } = harness.fake.calls('jobs.insert')[0]?.body ?? {};
    expect(configuration.query.query).toContain(
      "`querygate-test.logs.generate_timestamp_trunc_array`(1, 'hour_minute')",
    );
    expect(configuration.query.query).not.toMatch(/[^.]generate_timestamp_trunc_array\(/);
    expect(configuration.labels.querygate_endpoint).toBe('functions_invocation-stats');
    expect(configuration.query.queryParameters).toContainEqual({
      name: 'function_id',
      parameterType: { type: 'STRING' },
      parameterValue: {},
    });
  });

  it("lets an endpoint's maximumBytesBilled in its contract file override the global cap", async () => {
    // A copy of the queries with the override written into its contract, loaded as start-up does.
    const copy = mkdtempSync(join(tmpdir(), 'querygate-queries-'));
    try {
      cpSync(queriesDir, copy, { recursive: true });
      const contractFile = join(copy, 'usage.api-counts.yaml');
      writeFileSync(contractFile, `${readFileSync(contractFile, 'utf8')}\nmaximumBytesBilled: '20000000'\n`);
      const copied = loadEndpointRegistry(copy);
      const { harness, engine } = await start(
        { environment: { QUERYGATE_BIGQUERY_MAX_BYTES_BILLED: '1000' } },
        copied.endpoints,
      );
      harness.fake.bytesProcessed = 10_000;
      await engine.run(
        copied.find('usage.api-counts') as Endpoint,
        { project: 'p1', interval: 'daily' },
        { now },
      );
      await expect(
        engine.run(
          copied.find('functions.invocation-stats') as Endpoint,
          { project: 'p1', interval: '1day', function_id: null },
          { now },
        ),
      ).rejects.toMatchObject({ code: 'BAD_REQUEST' });
      expect(
        harness.fake
          .calls('jobs.insert')
          .map((insert) => [
            insert.body.configuration.labels.querygate_endpoint,
            insert.body.configuration.query.maximumBytesBilled,
          ]),
      ).toEqual([
        ['usage_api-counts', '20000000'],
        ['functions_invocation-stats', '1000'],
      ]);
    } finally {
      rmSync(copy, { recursive: true, force: true });
    }
  });

  it('sends no cap when neither the environment nor the contract sets one', async () => {
    const { harness, engine } = await start();
    await engine.run(endpoint('usage.api-counts'), { project: 'p1', interval: 'daily' }, { now });
    expect(harness.fake.calls('jobs.insert')[0]?.body.configuration.query).not.toHaveProperty(
      'maximumBytesBilled',
    );
  });
});

describe('BigQuery timeouts and cancellation', () => {
  it('answers ENGINE_TIMEOUT when the job outlasts the timeout, and cancels the job', async () => {
    const { harness, engine } = await start({ environment: { QUERYGATE_BIGQUERY_TIMEOUT_MS: '300' } });
    harness.fake.queryDelayMs = 5_000;
    const started = Date.now();
    const error = await failureOf(
      engine.run(endpoint('usage.api-counts'), { project: 'p1', interval: 'daily' }, { now }),
    );
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(error.code).toBe('ENGINE_TIMEOUT');
    expect(error.status).toBe(504);
    expect(error.message).toBe(
      'usage.api-counts did not finish within 300 ms; its BigQuery job was cancelled',
    );
    const jobId = harness.fake.calls('jobs.insert')[0]?.body.jobReference.jobId;
    await vi.waitFor(() =>
      expect(harness.fake.calls('jobs.cancel').map((call) => call.path)).toEqual([
        `/bigquery/v2/projects/querygate-test/jobs/${jobId}/cancel`,
      ]),
    );
  });

  it('cancels the job when the caller goes away', async () => {
    const { harness, engine } = await start();
    harness.fake.queryDelayMs = 5_000;
    const caller = new AbortController();
    const running = engine.run(
      endpoint('logs.all'),
      { project: 'p1', project_tier: 'FREE', iso_timestamp_start: null, iso_timestamp_end: null },
      {
        now,
        signal: caller.signal,
      },
    );
    await vi.waitFor(() => expect(harness.fake.calls('jobs.getQueryResults').length).toBeGreaterThan(0));
    caller.abort();
    const error = await failureOf(running);
    expect(error.code).toBe('ENGINE_ERROR');
    expect(error.message).toBe('logs.all was cancelled');
    await vi.waitFor(() => expect(harness.fake.calls('jobs.cancel')).toHaveLength(1));
  });

  it('waits out BigQuery long-polls that end with jobComplete false, then reads the rows', async () => {
    const { harness, engine } = await start();
    await insertEdgeRecords(3);
    harness.fake.queryDelayMs = 700;
    harness.fake.longPollMs = 200;
    const result = await engine.run(edgeQuery(10), {}, { now });
    expect(result.rows.map((row) => row.id)).toEqual(['e000', 'e001', 'e002']);
    // 700 ms of work in 200 ms long-polls: the first calls come back incomplete.
    expect(harness.fake.calls('jobs.getQueryResults').length).toBeGreaterThanOrEqual(3);
  });
});

describe('BigQuery errors', () => {
  it('answers 400 BAD_REQUEST naming the cap when the job would bill more bytes than allowed', async () => {
    const { harness, engine } = await start({ environment: { QUERYGATE_BIGQUERY_MAX_BYTES_BILLED: '1000' } });
    harness.fake.bytesProcessed = 10_485_760;
    const error = await failureOf(
      engine.run(endpoint('usage.api-counts'), { project: 'p1', interval: 'daily' }, { now }),
    );
    expect(error.code).toBe('BAD_REQUEST');
    expect(error.status).toBe(400);
    expect(error.message).toBe(
      'usage.api-counts would bill more bytes than its cap of 1000 bytes (maximumBytesBilled): ' +
        'Query exceeded limit for bytes billed: 1000. 10485760 or higher required.',
    );
  });

  it("answers 502 ENGINE_ERROR with BigQuery's message for an invalid query", async () => {
    const broken: SavedQuery = {
      id: '0d4c1a52-5d2b-4c3e-9b56-000000000002',
      name: 'test.broken',
      sql: 'select no_such_function(t.id) as x from `cloudflare.logs.prod` as t',
      maxRows: 10,
    };
    const { engine } = await start({}, [broken]);
    const error = await failureOf(engine.run(broken, {}, { now }));
    expect(error.code).toBe('ENGINE_ERROR');
    expect(error.status).toBe(502);
    expect(error.message).toMatch(
      /^test\.broken is not a valid BigQuery query: Syntax error: .*NO_SUCH_FUNCTION/,
    );
  });

  it('answers 502 ENGINE_ERROR with a credentials hint when BigQuery denies access', async () => {
    const { harness, engine } = await start();
    harness.fake.inject({
      api: 'jobs.insert',
      status: 403,
      reason: 'accessDenied',
      message:
        'Access Denied: Project querygate-test: User does not have bigquery.jobs.create permission in project querygate-test.',
    });
    const error = await failureOf(
      engine.run(endpoint('usage.api-counts'), { project: 'p1', interval: 'daily' }, { now }),
    );
    expect(error.code).toBe('ENGINE_ERROR');
    expect(error.status).toBe(502);
    expect(error.message).toContain('User does not have bigquery.jobs.create permission');
    expect(error.message).toContain('GOOGLE_APPLICATION_CREDENTIALS');
    expect(error.message).not.toMatch(/\n|\bat .*:\d+:\d+/);
  });

  it('answers 429 RATE_LIMITED at once when BigQuery rate-limits, without retrying in the background', async () => {
    const { harness, engine } = await start();
    harness.fake.inject({
      api: 'jobs.insert',
      status: 403,
      reason: 'rateLimitExceeded',
      message: 'Exceeded rate limits: too many concurrent queries for this project_and_region.',
    });
    const error = await failureOf(
      engine.run(endpoint('usage.api-counts'), { project: 'p1', interval: 'daily' }, { now }),
    );
    expect(error.code).toBe('RATE_LIMITED');
    expect(error.status).toBe(429);
    expect(harness.fake.calls('jobs.insert')).toHaveLength(1);
  });

  it('reads the results of a job whose insert was answered 409 because an earlier attempt created it', async () => {
    const { harness, engine } = await start();
    await insertEdgeRecords(2);
    harness.fake.inject({
      api: 'jobs.insert',
      status: 409,
      reason: 'duplicate',
      message: 'Already Exists: Job querygate-test:US.querygate_test',
      afterHandling: true,
    });
    const result = await engine.run(edgeQuery(10), {}, { now });
    expect(result.rows.map((row) => row.id)).toEqual(['e000', 'e001']);
  });

  it('reads the job a retried insert had created in the location BigQuery chose, when none is configured', async () => {
    const { harness, engine } = await start();
    await insertEdgeRecords(2);
    // The dataset's region, where BigQuery puts a job whose request names no location.
    harness.fake.defaultLocation = 'europe-west1';
    // The first insert creates the job but its answer is lost; the client's retry is told 409.
    harness.fake.inject({
      api: 'jobs.insert',
      status: 503,
      reason: 'backendError',
      message: 'Error encountered during execution. Retrying may solve the problem.',
      afterHandling: true,
    });
    const result = await engine.run(edgeQuery(10), {}, { now });
    expect(result.rows.map((row) => row.id)).toEqual(['e000', 'e001']);
    const inserts = harness.fake.calls('jobs.insert');
    expect(inserts).toHaveLength(2);
    expect(inserts[0]?.body.jobReference).not.toHaveProperty('location');
    expect(harness.fake.calls('jobs.getQueryResults').map((call) => call.query.location)).toEqual([
      'europe-west1',
    ]);
  });

  it('is not ready, naming the setup command, while the UDF does not exist', async () => {
    const { engine } = await start({ withUdfs: false });
    const error = await failureOf(engine.ready());
    expect(error.code).toBe('NOT_READY');
    expect(error.message).toBe(
      'The BigQuery function querygate-test.logs.generate_timestamp_trunc_array does not exist; create it with `querygate bigquery setup`',
    );
  });
});

describe('BigQuery result pages', () => {
  it('reads every page of a multi-page result', async () => {
    const { harness, engine } = await start({ pageSize: 7 });
    const records = await insertEdgeRecords(30);
    const result = await engine.run(edgeQuery(1000), {}, { now });
    expect(result.rows).toEqual(
      records.map((record) => ({ id: record.id, timestamp: fixtureMicros(record.timestamp) })),
    );
    const pages = harness.fake.calls('jobs.getQueryResults');
    expect(pages).toHaveLength(5);
    expect(pages[0]?.query).not.toHaveProperty('pageToken');
    expect(pages.slice(1).every((page) => typeof page.query.pageToken === 'string')).toBe(true);
  });

  it('stops at max rows, asking each page for no more than the rows still wanted', async () => {
    const { harness, engine } = await start({ pageSize: 7 });
    const records = await insertEdgeRecords(30);
    const result = await engine.run(edgeQuery(20), {}, { now });
    expect(result.rows.map((row) => row.id)).toEqual(records.slice(0, 20).map((record) => record.id));
    expect(harness.fake.calls('jobs.getQueryResults').map((page) => page.query.maxResults)).toEqual([
      '20',
      '13',
      '6',
    ]);
  });

  it('reads TIMESTAMPs sent as float seconds in E notation to the microsecond', async () => {
    const { harness, engine } = await start();
    const records = await insertEdgeRecords(4);
    harness.fake.timestampFormat = 'float';
    const result = await engine.run(edgeQuery(10), {}, { now });
    expect(result.rows.map((row) => row.timestamp)).toEqual(
      records.map((record) => fixtureMicros(record.timestamp)),
    );
  });
});

describe('typed parameters and dry-run shapes', () => {
  /** Edge records at or after @since whose id sorts at or after @from_index-th, as a typed query. */
  const typedQuery: SavedQuery = {
    id: '0d4c1a52-5d2b-4c3e-9b56-000000000020',
    name: 'test.typed',
    sql: 'select id, timestamp, @limit_to as limit_to, @flag as flag, @ratio as ratio from `cloudflare.logs.prod` where timestamp >= @since and @flag order by id limit 2',
    maxRows: 10,
    parameterTypes: { since: 'TIMESTAMP', limit_to: 'INT64', flag: 'BOOL', ratio: 'FLOAT64' },
  };

  it('sends each parameter as a named parameter of its type and gets rows bound by those types', async () => {
    const { harness, engine } = await start({}, [typedQuery]);
    const records = await insertEdgeRecords(5);
    const since = '2026-03-10T12:00:02Z';
    const result = await engine.run(
      typedQuery,
      { since, limit_to: '9007199254740993', flag: 'true', ratio: '0.25' },
      { now },
    );
    const sent = harness.fake.calls('jobs.insert')[0]?.body.configuration.query.queryParameters;
    expect([...sent].sort((a: { name: string }, b: { name: string }) => (a.name < b.name ? -1 : 1))).toEqual([
      { name: 'flag', parameterType: { type: 'BOOL' }, parameterValue: { value: 'true' } },
      { name: 'limit_to', parameterType: { type: 'INT64' }, parameterValue: { value: '9007199254740993' } },
      { name: 'ratio', parameterType: { type: 'FLOAT64' }, parameterValue: { value: '0.25' } },
      { name: 'since', parameterType: { type: 'TIMESTAMP' }, parameterValue: { value: since } },
    ]);
    // Records at 12:00:02 and later, by the fixture's own timestamps; INT64 beyond 2^53 exact.
    const expected = records.filter((record) => record.timestamp >= '2026-03-10 12:00:02').slice(0, 2);
    expect(result.rows.map((row) => [row.id, row.limit_to, row.flag, row.ratio])).toEqual(
      expected.map((record) => [record.id, 9007199254740993n, true, 0.25]),
    );
  });

  it("describes a query's columns from a dry run's schema", async () => {
    const { engine } = await start({}, [typedQuery]);
    expect(await engine.describe(typedQuery)).toEqual([
      { name: 'id', type: 'STRING', nullable: true },
      { name: 'timestamp', type: 'TIMESTAMP', nullable: true },
      { name: 'limit_to', type: 'INT64', nullable: true },
      { name: 'flag', type: 'BOOL', nullable: true },
      { name: 'ratio', type: 'FLOAT64', nullable: true },
    ]);
  });
});
