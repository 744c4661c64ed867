import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type DuckDBConnection, DuckDBTimestampValue, TIMESTAMP, VARCHAR } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDuckDbEngine } from '../../src/backends/duckdb/engine.js';
import { decodeRows } from '../../src/backends/duckdb/rows.js';
import { demoProjects, generateDemoLogs } from '../../src/demo/sampler.js';
import { type Endpoint, loadEndpointRegistry } from '../../src/endpoints/registry.js';
import type { ParameterValues, QueryEngine } from '../../src/engines/query-engine.js';
import { queriesDir } from '../../src/paths.js';
import { type Database, openDatabase } from '../../src/storage/database.js';
import { createLogWriter } from '../../src/storage/log-writer.js';
import { logSources } from '../helpers/shipped-sources.js';

// The translated saved queries against hand-written DuckDB queries (test/fixtures/reference-sql)
// on several days of realistic demo logs: for every parameter combination the rows must agree.
const now = new Date('2026-05-15T12:34:56.789Z');
const registry = loadEndpointRegistry(queriesDir);
let dir: string;
let database: Database;
let engine: QueryEngine;
let connection: DuckDBConnection;
let functionIds: string[];

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'querygate-reference-'));
  database = await openDatabase(join(dir, 'store.duckdb'));
  const writer = createLogWriter(database, { sources: logSources });
  for (const [source, events] of generateDemoLogs({ now, days: 8 })) await writer.write(source, events);
  await writer.close();
  engine = await createDuckDbEngine({
    database,
    sources: logSources,
    queries: registry.endpoints,
    queriesDir,
    timeoutMs: 30_000,
  });
  connection = await database.connect();
  const ids = await connection.runAndReadAll(
    `SELECT DISTINCT metadata.function_id AS id FROM "deno-relay-logs" WHERE metadata.project_ref = 'default' ORDER BY 1`,
  );
  functionIds = ids.getRows().map((row) => String(row[0]));
});

afterAll(async () => {
  connection?.closeSync();
  await engine?.close();
  database?.close();
  rmSync(dir, { recursive: true, force: true });
});

async function reference(name: string, params: ParameterValues) {
  const prepared = await connection.prepare(
    readFileSync(join(__dirname, '../fixtures/reference-sql', `${name}.duckdb.sql`), 'utf8'),
  );
  const values: Record<string, string | null | DuckDBTimestampValue> = { ...params };
  const types: Record<string, typeof VARCHAR | typeof TIMESTAMP> = Object.fromEntries(
    Object.keys(params).map((key) => [key, VARCHAR]),
  );
  values.__now = new DuckDBTimestampValue(BigInt(now.getTime()) * 1000n);
  types.__now = TIMESTAMP;
  prepared.bind(values, types);
  return decodeRows(await prepared.runAndReadAll(), 1000).rows;
}

function endpoint(name: string): Endpoint {
  const found = registry.find(name);
  if (!found) throw new Error(`no endpoint ${name}`);
  return found;
}

async function compare(name: string, params: ParameterValues) {
  const translated = await engine.run(endpoint(name), params, { now });
  const expected = await reference(name, params);
  expect(translated.rows).toEqual(expected);
  return expected.length;
}

describe('translated saved queries agree with hand-written DuckDB', () => {
  const bounds: Array<[string | null, string | null]> = [
    [null, null],
    ['2026-05-15T06:00:00Z', null],
    [null, '2026-05-15T10:00:00+02:00'],
    ['2026-05-14T00:00:00-03:30', '2026-05-15T12:00:00.5Z'],
  ];

  it('logs.all for every tier, project and bound', async () => {
    let rows = 0;
    for (const project of [...demoProjects, 'nobody']) {
      for (const tier of ['FREE', 'PRO', 'PAYG', 'ENTERPRISE', 'GOLD']) {
        for (const [start, end] of bounds) {
          rows += await compare('logs.all', {
            project,
            project_tier: tier,
            iso_timestamp_start: start,
            iso_timestamp_end: end,
          });
        }
      }
    }
    expect(rows).toBeGreaterThan(0);
  });

  it('functions.invocation-stats for every interval and function filter', async () => {
    expect(functionIds.length).toBeGreaterThan(1);
    let counted = 0;
    for (const interval of ['5min', '15min', '1hr', '1day', '7day', 'fortnight']) {
      for (const functionId of [null, ...functionIds, 'no-such-function']) {
        await compare('functions.invocation-stats', {
          project: 'default',
          interval,
          function_id: functionId,
        });
        const rows = await reference('functions.invocation-stats', {
          project: 'default',
          interval,
          function_id: functionId,
        });
        counted += rows.reduce((sum, row) => sum + Number(row.count), 0);
      }
    }
    expect(counted).toBeGreaterThan(0);
  });

  it('usage.api-counts for every interval and several patterns', async () => {
    let rows = 0;
    for (const interval of ['minutely', 'hourly', 'daily']) {
      for (const project of [...demoProjects, 'acme-(prod|staging)', '^https://default\\.', 'no-match']) {
        rows += await compare('usage.api-counts', { project, interval });
      }
    }
    expect(rows).toBeGreaterThan(0);
  });
});
