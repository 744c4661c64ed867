import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runQueryCommand } from '../../src/cli/query-command.js';
import { type Config, loadConfig } from '../../src/config.js';
import { openDatabase } from '../../src/storage/database.js';
import { createLogWriter } from '../../src/storage/log-writer.js';
import { logSources } from '../helpers/shipped-sources.js';

// `querygate query` on a real store file, as a user runs it with the server stopped.
let dir: string;
let config: Config;
const now = '2026-03-10T12:00:00Z';
const defaults = { params: [], now, explain: false, maxRows: 100 };

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'querygate-cli-query-'));
  config = loadConfig({ QUERYGATE_DATA_DIR: dir, QUERYGATE_API_KEYS: 'k'.repeat(16) });
  const database = await openDatabase(join(dir, 'querygate.duckdb'));
  const writer = createLogWriter(database, { sources: logSources });
  await writer.ready();
  const event = (id: string, minute: number, project: string, status: number) => ({
    id,
    timestamp: `2026-03-10T11:${String(minute).padStart(2, '0')}:00Z`,
    event_message: `GET ${id}`,
    project,
    metadata: { request: { path: `/rest/v1/${id}` }, response: { status_code: status } },
  });
  await writer.write('cloudflare.logs.prod', [
    event('a', 10, 'p1', 200),
    event('b', 50, 'p1', 500),
    event('c', 55, 'p2', 200),
  ]);
  await writer.close();
  database.close();
});

afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('querygate query', () => {
  it('prints {"result": rows} as REST does, with parameters and a fixed now', async () => {
    const sql = `select r.path, count(*) as n from edge_logs cross join unnest(metadata) as m
      cross join unnest(m.request) as r
      where project = @project and timestamp > timestamp_sub(current_timestamp(), interval 30 minute)
      group by r.path`;
    const output = await runQueryCommand(config, sql, { ...defaults, params: ['project=p1'] });
    // Only b is of p1 and within 30 minutes of 12:00.
    expect(output).toEqual({ ok: true, text: '{"result":[{"path":"/rest/v1/b","n":1}]}', truncated: false });
  });

  it('says the rows were cut when the query has more than --max-rows', async () => {
    const sql = 'select id from edge_logs order by id';
    // The store holds three events, a, b and c.
    const cut = await runQueryCommand(config, sql, { ...defaults, maxRows: 2 });
    expect(cut).toEqual({ ok: true, text: '{"result":[{"id":"a"},{"id":"b"}]}', truncated: true });
    const whole = await runQueryCommand(config, sql, { ...defaults, maxRows: 3 });
    expect(whole).toEqual({
      ok: true,
      text: '{"result":[{"id":"a"},{"id":"b"},{"id":"c"}]}',
      truncated: false,
    });
  });

  it('leaves parameters that are not given unset (NULL)', async () => {
    const output = await runQueryCommand(
      config,
      'select count(*) as n from edge_logs where @p is null',
      defaults,
    );
    expect(JSON.parse(output.text)).toEqual({ result: [{ n: 3 }] });
  });

  it("reads the sources of the served queries directory, so a directory's own source can be queried", async () => {
    const own = loadConfig({
      QUERYGATE_DATA_DIR: await mkdtemp(join(tmpdir(), 'querygate-cli-query-own-')),
      QUERYGATE_API_KEYS: 'k'.repeat(16),
      QUERYGATE_QUERIES_DIR: join(import.meta.dirname, '../../examples/queries'),
    });
    try {
      // A new store: the example's own source `checkout.events` gets its table, empty.
      const output = await runQueryCommand(own, 'select count(*) as n from `checkout.events`', defaults);
      expect(output).toEqual({ ok: true, text: '{"result":[{"n":0}]}', truncated: false });
    } finally {
      await rm(own.dataDir, { recursive: true, force: true });
    }
  });

  it('prints the DuckDB translation with --explain', async () => {
    const output = await runQueryCommand(config, 'select id from edge_logs', { ...defaults, explain: true });
    expect(output.ok).toBe(true);
    expect(output.text).toContain('FROM "cloudflare.logs.prod" AS "edge_logs"');
  });

  it('prints the SQL BigQuery would run with --explain on the BigQuery engine', async () => {
    const bigquery = loadConfig({
      QUERYGATE_ENGINE: 'bigquery',
      QUERYGATE_BIGQUERY_PROJECT: 'acme-logs-prod',
      QUERYGATE_BIGQUERY_DATASET: 'logflare',
      QUERYGATE_API_KEYS: 'k'.repeat(16),
    });
    const output = await runQueryCommand(bigquery, 'select edge_logs.id from edge_logs', {
      ...defaults,
      explain: true,
    });
    expect(output).toEqual({
      ok: true,
      text: 'select edge_logs.id from `acme-logs-prod.logflare.cloudflare_logs_prod` AS `edge_logs`',
    });
  });

  it('prints a refused construct with its line and column', async () => {
    const output = await runQueryCommand(
      config,
      'select id\nfrom edge_logs\nwhere sha512(id) = b""',
      defaults,
    );
    expect(output.ok).toBe(false);
    expect(JSON.parse(output.text).error).toMatchObject({ code: 'UNSUPPORTED_SQL', line: 3, column: 7 });
    const field = await runQueryCommand(
      config,
      'select\n  metadata.nope\nfrom edge_logs cross join unnest(metadata) as metadata',
      defaults,
    );
    expect(JSON.parse(field.text).error).toMatchObject({ code: 'UNSUPPORTED_SQL', line: 2, column: 3 });
  });

  it('refuses a --param the query does not use, and a --now that is not ISO 8601', async () => {
    const param = await runQueryCommand(config, 'select 1 as x', { ...defaults, params: ['nope=1'] });
    expect(JSON.parse(param.text).error).toMatchObject({ code: 'BAD_PARAMETER', parameter: 'nope' });
    const clock = await runQueryCommand(config, 'select 1 as x', { ...defaults, now: 'yesterday' });
    expect(JSON.parse(clock.text).error).toMatchObject({ code: 'BAD_PARAMETER', parameter: 'now' });
  });
});
