import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { dropTableSource } from '../../src/cli/sources-commands.js';
import { type Querygate, startQuerygate } from '../../src/server.js';
import { testApiKey, testConfig } from '../helpers/querygate-server.js';
import { readStoreFile } from '../helpers/store-file.js';

// A table source whose declaration changes under a running server and between starts: the
// changes BigQuery's schema updates allow are made in the store, others refused naming each
// column. Every expectation comes from the rows posted here, or plain DuckDB over the file.

interface Column {
  readonly name: string;
  readonly type: string;
  readonly mode?: string;
  readonly fields?: readonly Column[];
}

const page: Column = { name: 'page', type: 'RECORD', fields: [{ name: 'path', type: 'STRING' }] };
const v1: Column[] = [
  { name: 'id', type: 'INTEGER', mode: 'REQUIRED' },
  { name: 'amount', type: 'INTEGER' },
  page,
  { name: 'tags', type: 'RECORD', mode: 'REPEATED', fields: [{ name: 'n', type: 'INTEGER' }] },
];
// What GA4 and BigQuery's ALLOW_FIELD_ADDITION / ALLOW_FIELD_RELAXATION and SET DATA TYPE allow.
const v2: Column[] = [
  { name: 'id', type: 'INTEGER', mode: 'NULLABLE' },
  { name: 'amount', type: 'NUMERIC' },
  { ...page, fields: [...(page.fields ?? []), { name: 'referrer', type: 'STRING' }] },
  {
    name: 'tags',
    type: 'RECORD',
    mode: 'REPEATED',
    fields: [
      { name: 'n', type: 'FLOAT' },
      { name: 'label', type: 'STRING' },
    ],
  },
  { name: 'country', type: 'STRING' },
];

function writeSources(columns: readonly Column[]): void {
  writeFileSync(
    join(queries, 'sources.yaml'),
    `sources:\n  - kind: table\n    name: visits\n    columns: ${JSON.stringify(columns)}\n`,
  );
}

const rows = [
  { id: '1', amount: '250', page: { path: '/a' }, tags: [{ n: '1' }, { n: '2' }] },
  { id: '2', amount: null, page: null, tags: [] },
  { id: '3', amount: '-7', page: { path: '/c' }, tags: [{ n: '3' }] },
];

let dir: string;
let queries: string;
let dataDir: string;
let app: Querygate | undefined;

async function start(): Promise<Querygate> {
  app = await startQuerygate(testConfig(dataDir, { QUERYGATE_QUERIES_DIR: queries }));
  return app;
}

async function stop(): Promise<void> {
  await app?.close();
  app = undefined;
}

async function post(batch: readonly unknown[]) {
  const response = await fetch(`${app?.url}/api/logs?source_name=visits`, {
    method: 'POST',
    headers: { 'x-api-key': testApiKey, 'content-type': 'application/json' },
    body: JSON.stringify({ batch }),
  });
  return { status: response.status, text: await response.text() };
}

async function endpointRows(): Promise<unknown[]> {
  const response = await fetch(`${app?.url}/api/endpoints/visits.amounts`, {
    headers: { 'x-api-key': testApiKey },
  });
  expect(response.status).toBe(200);
  return ((await response.json()) as { result: unknown[] }).result;
}

/** The table as plain DuckDB reads the file: its column types and its rows as JSON. */
function stored() {
  return readStoreFile(join(dataDir, 'querygate.duckdb'), async (connection) => {
    const types = (
      await connection.runAndReadAll(
        `SELECT column_name || ' ' || data_type FROM information_schema.columns WHERE table_name = 'visits' ORDER BY ordinal_position`,
      )
    )
      .getRows()
      .map(([line]) => String(line));
    const values = (await connection.runAndReadAll('SELECT * FROM visits ORDER BY id')).getRowObjectsJson();
    return { types, values };
  });
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'querygate-schema-change-'));
  queries = join(dir, 'queries');
  dataDir = join(dir, 'data');
  mkdirSync(queries);
  writeSources(v1);
  writeFileSync(join(queries, 'visits.amounts.sql'), 'SELECT id, amount FROM visits ORDER BY id\n');
  writeFileSync(
    join(queries, 'visits.amounts.yaml'),
    [
      'name: visits.amounts',
      'id: 5b1f6a2e-3c4d-4e5f-8a9b-0c1d2e3f4a5b',
      'description: Each visit and its amount.',
      'maxRows: 100',
      'cacheSeconds: 60',
      'warmSeconds: null',
      'sandboxed: false',
      'parameters: []',
      'columns:',
      '  id: { description: The visit. }',
      '  amount: { description: What it was worth. }',
      '',
    ].join('\n'),
  );
  await start();
  expect(await post(rows)).toMatchObject({ status: 200 });
});

afterAll(async () => {
  await stop();
  rmSync(dir, { recursive: true, force: true });
});

describe('a table source whose declaration changes', () => {
  it('migrates on reload a column added, nested fields added, INT64 widened and REQUIRED relaxed, keeping every row', async () => {
    // REQUIRED holds before the change.
    expect((await post([{ id: null, amount: '1' }])).status).toBe(400);
    expect(await endpointRows()).toEqual([
      { id: 1, amount: 250 },
      { id: 2, amount: null },
      { id: 3, amount: -7 },
    ]);
    writeSources(v2);
    const outcome = await app?.reload();
    expect(outcome).toMatchObject({
      ok: true,
      changed: ['visits.amounts'],
      migrated: [
        'visits.amount: INT64 to NUMERIC',
        'visits.page.referrer: added, STRING',
        'visits.tags.n: INT64 to FLOAT64',
        'visits.tags.label: added, STRING',
        'visits.country: added, STRING',
      ],
    });
    // The endpoint was checked and planned anew: amount is NUMERIC now (text in BigQuery's JSON),
    // and the answer cached before the change (cacheSeconds 60) is not served.
    expect(await endpointRows()).toEqual([
      { id: 1, amount: '250' },
      { id: 2, amount: null },
      { id: 3, amount: '-7' },
    ]);
    // Rows are held to the new declaration: a country, a referrer, and no id (relaxed).
    expect(
      await post([{ id: null, amount: '0.5', page: { path: '/d', referrer: '/a' }, country: 'FR' }]),
    ).toMatchObject({ status: 200 });
  });

  it('refuses a reload that narrows, drops or moves columns, one line per column with both types and the command that resolves it', async () => {
    const served = await endpointRows();
    writeSources([
      { name: 'id', type: 'STRING' },
      { name: 'amount', type: 'INTEGER' },
      { name: 'note', type: 'STRING' },
      { ...page, fields: [{ name: 'path', type: 'STRING' }] },
      v2[3] as Column,
    ]);
    const outcome = await app?.reload();
    expect(outcome?.ok).toBe(false);
    const problems = outcome?.ok === false ? outcome.problems : [];
    expect(problems[0]).toMatch(/^Table visits in the store differs from its declaration/);
    const lines = problems.slice(1, -1).map((line) => line.trim());
    expect(lines).toEqual([
      expect.stringMatching(/^visits\.country: declared \(not declared\), stored STRING: /),
      expect.stringMatching(/^visits\.id: declared STRING, stored INT64: .*widening/),
      expect.stringMatching(/^visits\.amount: declared INT64, stored NUMERIC: .*widening/),
      expect.stringMatching(/^visits\.page\.referrer: declared \(not declared\), stored STRING: /),
      expect.stringMatching(
        /^visits\.note: declared STRING before page, stored \(not stored\): .*at the end/,
      ),
    ]);
    expect(problems.at(-1)).toContain('querygate sources drop-table visits');
    for (const line of problems) expect(line.length).toBeLessThan(300);
    // The old set still serves, as it did.
    expect(await endpointRows()).toEqual(served);
  });

  it('migrates at start, and the store holds every row under the declared types (plain DuckDB)', async () => {
    await stop();
    const v3 = [
      ...v2,
      { name: 'session', type: 'RECORD', fields: [{ name: 'n', type: 'INTEGER', mode: 'REQUIRED' }] },
    ];
    writeSources(v3);
    await start();
    await stop();
    const { types, values } = await stored();
    expect(types).toEqual([
      'id BIGINT',
      'amount DECIMAL(38,9)',
      'page STRUCT(path VARCHAR, referrer VARCHAR)',
      // DuckDB quotes label, a keyword of its own.
      'tags STRUCT(n DOUBLE, "label" VARCHAR)[]',
      'country VARCHAR',
      'session STRUCT(n BIGINT)',
    ]);
    expect(values).toEqual([
      // DuckDB orders NULL ids last by default.
      ...rows.map((row) => ({
        id: row.id,
        amount: row.amount === null ? null : `${row.amount}.000000000`,
        page: row.page && { path: row.page.path, referrer: null },
        tags: row.tags.map((tag) => ({ n: Number(tag.n), label: null })),
        country: null,
        session: null,
      })),
      {
        id: null,
        amount: '0.500000000',
        page: { path: '/d', referrer: '/a' },
        // A REPEATED field a row leaves out is an empty array, as BigQuery stores it.
        tags: [],
        country: 'FR',
        session: null,
      },
    ]);
  });

  it('refuses to start on a change it cannot make, naming the column and leaving the store as it was', async () => {
    writeSources([...v2.slice(0, 4), { name: 'country', type: 'INTEGER' }]);
    const before = await stored();
    await expect(start()).rejects.toThrow(/visits\.country: declared INT64, stored STRING: /);
    app = undefined;
    expect(await stored()).toEqual(before);
  });

  it('starts under that declaration once querygate sources drop-table has dropped the table, which it does only with --yes', async () => {
    const options = { queriesDir: queries, dataDir, name: 'visits' };
    expect(await dropTableSource({ ...options, yes: false })).toEqual({ rows: 4, dropped: false });
    expect((await stored()).values).toHaveLength(4);
    expect(await dropTableSource({ ...options, yes: true })).toEqual({ rows: 4, dropped: true });
    await start();
    expect(await endpointRows()).toEqual([]);
    await stop();
    expect((await stored()).types.at(-1)).toBe('country BIGINT');
  });
});

// A store written before DATETIME columns were TIMESTAMPTZ held them as TIMESTAMP_NS, which ends
// in 2262: opened now, they are migrated in place, every value kept, and then hold BigQuery's whole
// DATETIME range (data-types.md: 0001-01-01 00:00:00 to 9999-12-31 23:59:59.999999).
describe('a store whose DATETIME columns are TIMESTAMP_NS, as querygate stored them before', () => {
  const spans: Column[] = [
    { name: 'id', type: 'INTEGER' },
    { name: 'valid_to', type: 'DATETIME' },
    {
      name: 'history',
      type: 'RECORD',
      mode: 'REPEATED',
      fields: [
        { name: 'at', type: 'DATETIME' },
        { name: 'note', type: 'STRING' },
      ],
    },
  ];
  let spansDir: string;
  let spansApp: Querygate | undefined;
  const spansStore = () => join(spansDir, 'data', 'querygate.duckdb');

  async function call(endpoint: string): Promise<unknown[]> {
    const response = await fetch(`${spansApp?.url}/api/endpoints/${endpoint}`, {
      headers: { 'x-api-key': testApiKey },
    });
    expect(response.status).toBe(200);
    return ((await response.json()) as { result: unknown[] }).result;
  }

  function endpoint(name: string, sql: string, columns: readonly string[], id: string): void {
    writeFileSync(join(spansDir, 'queries', `${name}.sql`), `${sql}\n`);
    writeFileSync(
      join(spansDir, 'queries', `${name}.yaml`),
      [
        `name: ${name}`,
        `id: ${id}`,
        'description: Spans of validity.',
        'maxRows: 100',
        'cacheSeconds: 0',
        'warmSeconds: null',
        'sandboxed: false',
        'parameters: []',
        'columns:',
        ...columns.map((column) => `  ${column}: { description: The ${column}. }`),
        '',
      ].join('\n'),
    );
  }

  beforeAll(async () => {
    spansDir = mkdtempSync(join(tmpdir(), 'querygate-stored-datetime-'));
    mkdirSync(join(spansDir, 'queries'));
    mkdirSync(join(spansDir, 'data'));
    writeFileSync(
      join(spansDir, 'queries', 'sources.yaml'),
      `sources:\n  - kind: table\n    name: spans\n    columns: ${JSON.stringify(spans)}\n`,
    );
    endpoint(
      'spans.all',
      'SELECT id, valid_to, history FROM spans ORDER BY id',
      ['id', 'valid_to', 'history'],
      '7c2a9e41-5d3b-4f6a-9b8c-1d2e3f4a5b6c',
    );
    endpoint(
      'spans.open',
      "SELECT DATETIME_TRUNC(valid_to, YEAR) AS year, COUNT(*) AS n FROM spans WHERE valid_to > DATETIME '2100-01-01 00:00:00' GROUP BY year ORDER BY year",
      ['year', 'n'],
      '8d3b0f52-6e4c-4a7b-8c9d-2e3f4a5b6c7d',
    );
    // The table as the old code made it (table-columns.ts then: DATETIME is TIMESTAMP_NS).
    const instance = await DuckDBInstance.create(spansStore());
    const connection = await instance.connect();
    await connection.run(
      'CREATE TABLE spans (id BIGINT, valid_to TIMESTAMP_NS, history STRUCT("at" TIMESTAMP_NS, note VARCHAR)[])',
    );
    await connection.run(
      "INSERT INTO spans VALUES (1, TIMESTAMP_NS '2024-02-29 13:45:07.123456', [{'at': TIMESTAMP_NS '1970-01-01 00:00:00', 'note': 'opened'}])",
    );
    connection.closeSync();
    instance.closeSync();
    spansApp = await startQuerygate(
      testConfig(join(spansDir, 'data'), { QUERYGATE_QUERIES_DIR: join(spansDir, 'queries') }),
    );
  });

  afterAll(async () => {
    await spansApp?.close();
    rmSync(spansDir, { recursive: true, force: true });
  });

  it('opens migrated to TIMESTAMPTZ, keeping the stored row exactly (plain DuckDB), and answers it', async () => {
    await spansApp?.close();
    spansApp = undefined;
    const { types, values } = await readStoreFile(spansStore(), async (connection) => ({
      types: (
        await connection.runAndReadAll(
          `SELECT column_name || ' ' || data_type FROM information_schema.columns WHERE table_name = 'spans' ORDER BY ordinal_position`,
        )
      )
        .getRows()
        .map(([line]) => String(line)),
      values: (
        await connection.runAndReadAll(
          `SELECT strftime(valid_to AT TIME ZONE 'UTC', '%Y-%m-%d %H:%M:%S.%f') AS valid_to, strftime(history[1].at AT TIME ZONE 'UTC', '%Y-%m-%d %H:%M:%S.%f') AS at FROM spans`,
        )
      ).getRowObjectsJson(),
    }));
    expect(types).toEqual([
      'id BIGINT',
      'valid_to TIMESTAMP WITH TIME ZONE',
      'history STRUCT("at" TIMESTAMP WITH TIME ZONE, note VARCHAR)[]',
    ]);
    expect(values).toEqual([{ valid_to: '2024-02-29 13:45:07.123456', at: '1970-01-01 00:00:00.000000' }]);
    spansApp = await startQuerygate(
      testConfig(join(spansDir, 'data'), { QUERYGATE_QUERIES_DIR: join(spansDir, 'queries') }),
    );
    expect(await call('spans.all')).toEqual([
      {
        id: 1,
        valid_to: '2024-02-29T13:45:07.123456',
        history: [{ at: '1970-01-01T00:00:00', note: 'opened' }],
      },
    ]);
  });

  it("stores BigQuery's first and last DATETIME, top-level and in a REPEATED RECORD, and answers them exactly", async () => {
    const response = await fetch(`${spansApp?.url}/api/logs?source_name=spans`, {
      method: 'POST',
      headers: { 'x-api-key': testApiKey, 'content-type': 'application/json' },
      body: JSON.stringify({
        batch: [
          {
            id: '2',
            valid_to: '9999-12-31T23:59:59.999999',
            history: [
              { at: '0001-01-01T00:00:00', note: 'first' },
              { at: '9999-12-31 23:59:59', note: 'last' },
            ],
          },
        ],
      }),
    });
    expect(response.status).toBe(200);
    // BigQuery's JSON form of a DATETIME: YYYY-MM-DDTHH:MM:SS, the fraction only when non-zero.
    expect((await call('spans.all'))[1]).toEqual({
      id: 2,
      valid_to: '9999-12-31T23:59:59.999999',
      history: [
        { at: '0001-01-01T00:00:00', note: 'first' },
        { at: '9999-12-31T23:59:59', note: 'last' },
      ],
    });
    // The open span alone is past 2100; its year truncated is 9999-01-01.
    expect(await call('spans.open')).toEqual([{ year: '9999-01-01T00:00:00', n: 1 }]);
  });
});
