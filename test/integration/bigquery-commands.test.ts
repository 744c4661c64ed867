import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from '@guanmingchiu/sqlparser-ts';
import { afterEach, describe, expect, it } from 'vitest';
import { runBigQueryCheck, runBigQuerySetup } from '../../src/backends/bigquery/commands.js';
import { createBigQueryEngine } from '../../src/backends/bigquery/engine.js';
import { readBigQueryUdfs } from '../../src/backends/bigquery/udfs.js';
import { type Endpoint, loadEndpointRegistry } from '../../src/endpoints/registry.js';
import { queriesDir } from '../../src/paths.js';
import type { Ast } from '../../src/sql/bigquery-ast.js';
import {
  type BigQueryHarness,
  type HarnessOptions,
  startBigQueryHarness,
} from '../helpers/bigquery-harness.js';
import { logSources } from '../helpers/shipped-sources.js';

const registry = loadEndpointRegistry(queriesDir);
let harness: BigQueryHarness | undefined;

afterEach(async () => {
  await harness?.close();
  harness = undefined;
});

async function start(options: HarnessOptions = {}) {
  harness = await startBigQueryHarness({ withUdfs: false, ...options });
  const lines: string[] = [];
  return { harness, lines, print: (line: string) => lines.push(line), client: harness.client() };
}

describe('querygate bigquery setup', () => {
  it('creates the UDF in the dataset by running its DDL, and running it again is harmless', async () => {
    const { harness, lines, print, client } = await start();
    const engine = await createBigQueryEngine({
      config: harness.config,
      queries: [],
      sources: harness.sources,
      queriesDir,
      client,
    });
    await expect(engine.ready()).rejects.toMatchObject({ code: 'NOT_READY' });
    await runBigQuerySetup({ config: harness.config, client, print });
    await runBigQuerySetup({ config: harness.config, client, print });
    const [udf] = readBigQueryUdfs(queriesDir, harness.config);
    // The file with its function name, and only that, qualified: its comment keeps the placeholder.
    const template = readFileSync(
      join(queriesDir, 'udf', 'generate_timestamp_trunc_array.bigquery.sql'),
      'utf8',
    );
    const placeholder = ['$', '{dataset}'].join('');
    const [head, tail] = template.split(`\`${placeholder}.generate_timestamp_trunc_array\``);
    expect(head).toContain(`\`${placeholder}\` is replaced`);
    expect(udf?.ddl).toBe(`${head}\`querygate-test.logs.generate_timestamp_trunc_array\`${tail}`);
    const jobs = harness.fake.calls('jobs.insert');
    expect(jobs.map((job) => job.body.configuration.query.query)).toEqual([udf?.ddl, udf?.ddl]);
    expect([...harness.fake.routines.keys()]).toEqual(['querygate-test.logs.generate_timestamp_trunc_array']);
    expect(lines).toEqual([
      'Created function querygate-test.logs.generate_timestamp_trunc_array',
      'Created function querygate-test.logs.generate_timestamp_trunc_array',
    ]);
    await expect(engine.ready()).resolves.toBeUndefined();
    expect(harness.fake.createdTables.size).toBe(0);
  });

  it('with --tables creates every source table, partitioned by day on timestamp, and leaves existing ones', async () => {
    const { harness, lines, print, client } = await start();
    await runBigQuerySetup({ config: harness.config, client, print, tables: true });
    expect([...harness.fake.createdTables.keys()].sort()).toEqual(Object.values(harness.tables).sort());
    const edge = harness.fake.createdTables.get('querygate-test.logs.cloudflare_logs_prod');
    expect(edge.timePartitioning).toEqual({ type: 'DAY', field: 'timestamp' });
    expect(
      edge.schema.fields.map((field: { name: string; type: string; mode: string }) => [
        field.name,
        field.type,
        field.mode,
      ]),
    ).toEqual([
      ['id', 'STRING', 'NULLABLE'],
      ['timestamp', 'TIMESTAMP', 'REQUIRED'],
      ['event_message', 'STRING', 'NULLABLE'],
      ['project', 'STRING', 'NULLABLE'],
      ['metadata', 'RECORD', 'REPEATED'],
      ['_extra', 'JSON', 'NULLABLE'],
    ]);
    expect(edge.schema.fields[4].fields[0]).toEqual({
      name: 'request',
      type: 'RECORD',
      mode: 'REPEATED',
      fields: [
        { name: 'url', type: 'STRING', mode: 'NULLABLE' },
        { name: 'path', type: 'STRING', mode: 'NULLABLE' },
        { name: 'method', type: 'STRING', mode: 'NULLABLE' },
        { name: 'host', type: 'STRING', mode: 'NULLABLE' },
      ],
    });
    const relay = harness.fake.createdTables.get('querygate-test.logs.deno_relay_logs');
    expect(relay.schema.fields.map((field: { name: string }) => field.name)).not.toContain('project');
    expect(lines.filter((line) => line.startsWith('Created table'))).toHaveLength(logSources.length);

    lines.length = 0;
    await runBigQuerySetup({ config: harness.config, client, print, tables: true });
    expect(lines.filter((line) => line.endsWith('exists; left as it is'))).toHaveLength(logSources.length);
  });

  it('with --print prints the DDL of the UDF and of the tables and sends nothing to BigQuery', async () => {
    const { harness, lines, print, client } = await start();
    await runBigQuerySetup({ config: harness.config, client, print, printOnly: true, tables: true });
    expect(harness.fake.requests).toHaveLength(0);
    const statements = lines.map((line) => parse(line, 'bigquery') as Ast[]);
    expect(statements.map((parsed) => Object.keys(parsed[0] ?? {})[0])).toEqual([
      'CreateFunction',
      ...logSources.map(() => 'CreateTable'),
    ]);
    const tableNames = statements
      .slice(1)
      .map((parsed) => parsed[0].CreateTable.name.map((part: Ast) => part.Identifier.value).join('.'));
    expect(tableNames).toEqual(logSources.map((source) => harness.tables[source.name]));
    expect(lines[1]).toContain('metadata ARRAY<STRUCT<request ARRAY<STRUCT<url STRING, path STRING');
    expect(
      lines.slice(1).every((line) => line.includes('PARTITION BY TIMESTAMP_TRUNC(timestamp, DAY)')),
    ).toBe(true);
  });

  it('cancels a DDL job still running after the job timeout and fails naming the timeout', async () => {
    const { harness, print, client } = await start({ environment: { QUERYGATE_BIGQUERY_TIMEOUT_MS: '300' } });
    harness.fake.queryDelayMs = 60_000;
    const started = Date.now();
    const failure = await runBigQuerySetup({ config: harness.config, client, print }).then(
      () => expect.fail('expected setup to fail'),
      (error: Error) => error,
    );
    expect(Date.now() - started).toBeLessThan(10_000);
    const jobId = harness.fake.calls('jobs.insert')[0]?.body.jobReference.jobId;
    expect(failure.message).toBe(
      'Creating the function querygate-test.logs.generate_timestamp_trunc_array timed out on BigQuery: ' +
        `job ${jobId} was still running after 300 ms (QUERYGATE_BIGQUERY_TIMEOUT_MS) and was cancelled`,
    );
    expect(harness.fake.calls('jobs.cancel').map((call) => call.path)).toEqual([
      `/bigquery/v2/projects/querygate-test/jobs/${jobId}/cancel`,
    ]);
  });

  it('names the command that creates a missing dataset', async () => {
    const { harness, print, client } = await start({ environment: { QUERYGATE_BIGQUERY_LOCATION: 'EU' } });
    harness.fake.inject({
      api: 'tables.insert',
      status: 404,
      reason: 'notFound',
      message: 'Not found: Dataset querygate-test:logs',
    });
    await expect(runBigQuerySetup({ config: harness.config, client, print, tables: true })).rejects.toThrow(
      'Creating the table querygate-test.logs.cloudflare_logs_prod failed: Not found: Dataset querygate-test:logs. ' +
        'Does the dataset exist? Create it with `bq mk --dataset --location=EU querygate-test:logs`',
    );
  });
});

describe('querygate bigquery check', () => {
  // Per the contracts: the first declared value, NULL when optional, the placeholder when
  // required; endpoints in the order of their files' names.
  const representative: Record<string, Record<string, string | null>> = {
    'functions.invocation-stats': { project: 'querygate-check', interval: '5min', function_id: null },
    'logs.all': {
      project: 'querygate-check',
      project_tier: 'FREE',
      iso_timestamp_start: null,
      iso_timestamp_end: null,
    },
    'usage.api-counts': { project: 'querygate-check', interval: 'minutely' },
  };

  it('dry-runs every endpoint with a representative value per parameter and prints them, whether it compiles and the bytes it would scan', async () => {
    const { harness, lines, print, client } = await start();
    harness.fake.bytesProcessed = 3 * 1024 * 1024;
    const { ok, endpoints } = await runBigQueryCheck({ config: harness.config, client, print });
    expect(ok).toBe(true);
    expect(
      endpoints.map((endpoint) => [endpoint.name, endpoint.ok, endpoint.bytes, endpoint.parameters]),
    ).toEqual(Object.entries(representative).map(([name, values]) => [name, true, 3_145_728n, values]));
    expect(lines).toEqual([
      '✓ functions.invocation-stats: compiles, would scan 3.0 MiB (3145728 bytes)',
      '  dry-run with project="querygate-check", interval="5min", function_id=NULL',
      '✓ logs.all: compiles, would scan 3.0 MiB (3145728 bytes)',
      '  dry-run with project="querygate-check", project_tier="FREE", iso_timestamp_start=NULL, iso_timestamp_end=NULL',
      '✓ usage.api-counts: compiles, would scan 3.0 MiB (3145728 bytes)',
      '  dry-run with project="querygate-check", interval="minutely"',
    ]);
    const dryRuns = harness.fake.calls('jobs.insert');
    expect(dryRuns.map((dryRun) => dryRun.body.configuration.dryRun)).toEqual([true, true, true]);
    expect(
      dryRuns.map((dryRun) =>
        Object.fromEntries(
          dryRun.body.configuration.query.queryParameters.map(
            (parameter: {
              name: string;
              parameterType: { type: string };
              parameterValue: { value?: string };
            }) => [
              parameter.name,
              parameter.parameterType.type === 'STRING'
                ? (parameter.parameterValue.value ?? null)
                : parameter,
            ],
          ),
        ),
      ),
    ).toEqual(Object.values(representative));
  });

  it('fails an endpoint whose scan is over its bytes cap', async () => {
    const { harness, lines, print, client } = await start({
      environment: { QUERYGATE_BIGQUERY_MAX_BYTES_BILLED: '1000000' },
    });
    harness.fake.bytesProcessed = 2_000_000;
    const { ok } = await runBigQueryCheck({ config: harness.config, client, print });
    expect(ok).toBe(false);
    expect(lines[0]).toBe(
      '✗ functions.invocation-stats: compiles, but would scan 1.9 MiB (2000000 bytes), more than its cap of 1000000 bytes: calls would answer 400',
    );
  });

  it("fails an endpoint that does not compile, with BigQuery's message", async () => {
    const { harness, lines, print, client } = await start();
    const broken: Endpoint = {
      ...(registry.find('logs.all') as Endpoint),
      id: '0d4c1a52-5d2b-4c3e-9b56-000000000003',
      name: 'test.broken',
      sql: 'select no_such_function(1) as x',
      parameters: [],
    };
    const withBroken = { ...registry, endpoints: [...registry.endpoints, broken], find: () => undefined };
    const { ok, endpoints } = await runBigQueryCheck({
      config: harness.config,
      client,
      print,
      registry: withBroken,
    });
    expect(ok).toBe(false);
    expect(endpoints.at(-1)).toMatchObject({ name: 'test.broken', ok: false });
    expect(lines.at(-1)).toMatch(
      /^✗ test\.broken is not a valid BigQuery query: Syntax error: .*NO_SUCH_FUNCTION/,
    );
  });
});
