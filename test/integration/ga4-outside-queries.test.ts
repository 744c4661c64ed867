import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSourceDeclarations } from '../../src/endpoints/sources.js';
import type { TableSource } from '../../src/endpoints/table-source.js';
import type { Querygate } from '../../src/server.js';
import { openDatabase } from '../../src/storage/database.js';
import { importTableFiles } from '../../src/storage/table-import.js';
import { ensureWarehouseTables } from '../../src/storage/warehouse-tables.js';
import {
  type BigQueryHarness,
  startBigQueryHarness,
  startQuerygateOnBigQuery,
} from '../helpers/bigquery-harness.js';
import { createGa4Oracle, writeGa4Export } from '../helpers/ga4-export-fixture.js';
import { ga4QueryCases } from '../helpers/ga4-query-cases.js';
import { postGraphQL } from '../helpers/graphql-request.js';
import { callEveryOperation, openApiProblems } from '../helpers/openapi-check.js';
import {
  expectNoServerErrors,
  type QuerygateUnderTest,
  startQuerygateUnderTest,
  testApiKey,
} from '../helpers/querygate-server.js';
import { type BigQueryType, expectOracleRows, type WarehouseCase } from '../helpers/warehouse-cases.js';
import type { Oracle } from '../helpers/warehouse-fixture.js';
import { expectOracleGraphQLRows, rowsOf, warehouseOperation } from '../helpers/warehouse-graphql.js';

// An outside check as a new user with a GA4 export would make it: test/fixtures/ga4-queries holds
// the export's table declared by `querygate sources add-table` and GA4 queries as people publish
// them (each .sql cites its page), parameterised as a user would. A seeded export (three daily
// NDJSON files) is loaded by `querygate import`'s path; every query is asked over REST and
// GraphQL on the embedded engine and over REST on the fake BigQuery, and each answer compared
// with plain DuckDB SQL over the same files laid out as BigQuery holds them (one table per day).
const queriesDir = join(import.meta.dirname, '..', 'fixtures', 'ga4-queries');
let dataDir: string;
let files: string[];
let events: TableSource;
let oracle: Oracle;
let duckdb: QuerygateUnderTest;
let harness: BigQueryHarness;
let bigquery: Querygate;

async function importExport(connector: { connect(): Promise<import('@duckdb/node-api').DuckDBConnection> }) {
  const connection = await connector.connect();
  try {
    await ensureWarehouseTables(connection, [events]);
    await importTableFiles(connection, events, files);
  } finally {
    connection.closeSync();
  }
}

beforeAll(async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'querygate-ga4-'));
  files = writeGa4Export(dataDir);
  const found = readSourceDeclarations(queriesDir).tables.find((table) => table.name === 'events');
  if (!found) throw new Error('test/fixtures/ga4-queries declares no events table');
  events = found;
  oracle = await createGa4Oracle(files);
  duckdb = await startQuerygateUnderTest({
    now: new Date('2024-04-02T00:00:00Z'),
    environment: { QUERYGATE_QUERIES_DIR: queriesDir },
    prepare: async (dir) => {
      const database = await openDatabase(join(dir, 'querygate.duckdb'));
      try {
        await importExport(database);
      } finally {
        database.close();
      }
    },
  });
  harness = await startBigQueryHarness({ sources: [], warehouseTables: [events] });
  await importExport(harness.store.database);
  bigquery = await startQuerygateOnBigQuery(harness, { queriesDir });
}, 120_000);

afterAll(async () => {
  await bigquery?.close();
  await harness?.close();
  await duckdb?.close();
  oracle?.close();
  await rm(dataDir, { recursive: true, force: true });
});

/** The OpenAPI schema REST promises for a column of a BigQuery type (README, "Your own warehouse tables"). */
function openApiType(type: BigQueryType): Record<string, unknown> {
  switch (type) {
    case 'INT64':
    case 'TIMESTAMP':
      return { type: ['integer', 'null'], format: 'int64' };
    case 'FLOAT64':
      // A number, or the text BigQuery's REST API gives a non-finite one.
      return {
        anyOf: [
          { type: 'number', format: 'double' },
          { type: 'string', enum: ['Infinity', '-Infinity', 'NaN'] },
          { type: 'null' },
        ],
      };
    case 'DATE':
      return { type: ['string', 'null'], format: 'date' };
    default:
      return { type: ['string', 'null'] };
  }
}

const endpointCases = ga4QueryCases.map((testCase) => [testCase.endpoint, testCase] as const);

/** The GraphQL operation of a case, its integer parameters (the contracts' `type: integer`) as Int literals. */
function graphqlOperation(testCase: WarehouseCase): string {
  const integers: Record<string, string> = {
    idle_minutes: 'idleMinutes',
    top: 'top',
    max_days: 'maxDays',
    min_sessions: 'minSessions',
  };
  return Object.entries(testCase.params ?? {}).reduce(
    (operation, [name, value]) =>
      integers[name]
        ? operation.replace(`${integers[name]}: "${value}"`, `${integers[name]}: ${value}`)
        : operation,
    warehouseOperation(testCase),
  );
}

/**
 * ga4.dedup-events answers every column of the export (`* EXCEPT(row)` after the table's day):
 * each row has the declared columns and the two it adds, and, projected to what the oracle
 * reads, the oracle's rows of the day (no event repeats, so every one is kept).
 */
async function expectDedupedDay(rows: readonly Record<string, unknown>[]): Promise<void> {
  const declared = events.columns.map((column) => column.name);
  for (const row of rows)
    expect(Object.keys(row).sort()).toEqual(['is_intraday', 'table_date', ...declared].sort());
  const expected =
    await oracle.rows(`SELECT CAST(strptime(event_date, '%Y%m%d') AS DATE)::VARCHAR AS table_date,
      false AS is_intraday, event_name, event_timestamp::VARCHAR AS event_timestamp, user_pseudo_id,
      geo.country AS country, len(items)::INTEGER AS items, len(event_params)::INTEGER AS params, ecommerce.transaction_id AS transaction_id
    FROM events_20240401 ORDER BY event_timestamp`);
  const projected = [...rows]
    .sort((a, b) => Number(a.event_timestamp) - Number(b.event_timestamp))
    .map((row) => ({
      table_date: row.table_date,
      is_intraday: row.is_intraday,
      event_name: row.event_name,
      event_timestamp: String(row.event_timestamp),
      user_pseudo_id: row.user_pseudo_id,
      country: (row.geo as { country: string } | null)?.country ?? null,
      items: (row.items as unknown[]).length,
      params: (row.event_params as unknown[]).length,
      transaction_id: (row.ecommerce as { transaction_id: string } | null)?.transaction_id ?? null,
    }));
  expect(projected.length).toBeGreaterThan(0);
  expect(projected).toEqual(expected);
}

describe('GA4 queries from outside, on the embedded engine', () => {
  it.each(endpointCases)(
    'answers %s over REST as the oracle over the day tables does',
    async (_, testCase) => {
      const response = await duckdb.get(`/api/endpoints/${testCase.endpoint}`, testCase.params);
      expect(response.status, response.text).toBe(200);
      // The seeded export gives every query rows to compare: an empty answer would prove nothing.
      expect((response.body as { result: unknown[] }).result.length).toBeGreaterThan(0);
      await expectOracleRows(
        oracle,
        dataDir,
        testCase,
        (response.body as { result: Record<string, unknown>[] }).result,
      );
    },
  );

  it.each(endpointCases)(
    "answers %s on GraphQL, every field, as the oracle does in the faces' types",
    async (_, testCase) => {
      const answer = await postGraphQL(duckdb, graphqlOperation(testCase));
      expect(answer.errors).toEqual([]);
      await expectOracleGraphQLRows(oracle, dataDir, testCase, rowsOf(testCase, answer.data));
    },
  );

  it('types every result column in OpenAPI as REST answers its BigQuery type', async () => {
    const document = (await duckdb.get('/openapi.json')).body as {
      paths: Record<
        string,
        { get: { responses: { 200: { content: { 'application/json': { schema: unknown } } } } } }
      >;
      components: {
        schemas: Record<
          string,
          { properties: { result: { items: { properties: Record<string, unknown> } } } }
        >;
      };
    };
    expect(await openApiProblems(document)).toEqual([]);
    // Each endpoint by name and by id, with its contract's example, answers as its schema says:
    // records as objects or null, INT64 and TIMESTAMP as integers, DATETIME as civil text.
    const { called, problems, rows } = await callEveryOperation(document, async (path, params) => {
      const response = await duckdb.get(`${path}?${new URLSearchParams(params)}`);
      return { status: response.status, body: response.body };
    });
    expect(problems).toEqual([]);
    expect(called).toHaveLength(2 * (ga4QueryCases.length + 1));
    expect(rows).toBeGreaterThan(0);
    for (const testCase of ga4QueryCases) {
      const schema = document.paths[`/api/endpoints/${testCase.endpoint}`]?.get.responses[200].content[
        'application/json'
      ].schema as { $ref: string };
      const name = schema.$ref.split('/').at(-1) as string;
      const properties = document.components.schemas[name]?.properties.result.items.properties ?? {};
      for (const [column, type] of Object.entries(testCase.types))
        expect(properties[column], `${testCase.endpoint}.${column}`).toEqual(
          expect.objectContaining(openApiType(type)),
        );
    }
  });

  it('refuses at load, naming the construct and the file, what it cannot answer as BigQuery does', async () => {
    const health = (await duckdb.get('/health')).body as {
      refused?: { endpoint: string; file: string; reason: string }[];
    };
    expect(health.refused).toEqual([
      // Google's scripted date range (refused as it is read, before the others): its DECLAREd
      // variables named, and what to write instead.
      expect.objectContaining({
        endpoint: 'ga4.scripted-range',
        file: 'ga4.scripted-range.sql',
        reason: expect.stringContaining(
          'BigQuery scripting variables (DECLARE or SET start_date, end_date) are not read: make each a query parameter, written @start_date',
        ),
      }),
      // Two result columns of one name: BigQuery answers both, a REST row or GraphQL type cannot.
      expect.objectContaining({
        endpoint: 'ga4.first-last-sources',
        file: 'ga4.first-last-sources.sql',
        reason: expect.stringContaining('more than one column named user_pseudo_id'),
      }),
      // An HLL++ sketch, whose estimate DuckDB cannot reproduce.
      expect.objectContaining({
        endpoint: 'ga4.hll-sessions',
        file: 'ga4.hll-sessions.sql',
        reason: expect.stringContaining('HLL_COUNT.INIT'),
      }),
    ]);
  });

  it('answers a time zone BigQuery does not know with a 400 naming the parameter', async () => {
    const response = await duckdb.get('/api/endpoints/ga4.local-hours', { time_zone: 'Mars/Olympus_Mons' });
    expect(response.status, response.text).toBe(400);
    expect(response.text).toContain('time_zone');
  });

  it('answers SELECT * EXCEPT(row) over the export with every column, records as objects', async () => {
    const response = await duckdb.get('/api/endpoints/ga4.dedup-events', {
      start_suffix: '20240401',
      end_suffix: '20240401',
    });
    expect(response.status, response.text).toBe(200);
    await expectDedupedDay((response.body as { result: Record<string, unknown>[] }).result);
  });

  it("answers the export's records on GraphQL as nested objects and lists, as the oracle holds them", async () => {
    const answer = await postGraphQL<{ ga4: { dedupEvents: Record<string, unknown>[] } }>(
      duckdb,
      `{ ga4 { dedupEvents(startSuffix: "20240401", endSuffix: "20240401") {
          tableDate isIntraday eventTimestamp eventParams { key value { stringValue intValue floatValue doubleValue } }
          userProperties { key value { stringValue intValue setTimestampMicros } }
          geo { country } ecommerce { transactionId purchaseRevenue } items { itemId itemBrand quantity coupon } } } }`,
    );
    expect(answer.errors).toEqual([]);
    const expected =
      await oracle.rows(`SELECT CAST(strptime(event_date, '%Y%m%d') AS DATE)::VARCHAR AS tableDate,
        false AS isIntraday, event_timestamp::VARCHAR AS eventTimestamp,
        [{'key': p.key, 'value': {'stringValue': p.value.string_value, 'intValue': p.value.int_value::VARCHAR,
          'floatValue': p.value.float_value, 'doubleValue': p.value.double_value}} FOR p IN event_params] AS eventParams,
        [{'key': u.key, 'value': {'stringValue': u.value.string_value, 'intValue': u.value.int_value::VARCHAR,
          'setTimestampMicros': u.value.set_timestamp_micros::VARCHAR}} FOR u IN user_properties] AS userProperties,
        {'country': geo.country} AS geo,
        CASE WHEN ecommerce IS NOT NULL THEN {'transactionId': ecommerce.transaction_id, 'purchaseRevenue': ecommerce.purchase_revenue} END AS ecommerce,
        [{'itemId': i.item_id, 'itemBrand': i.item_brand, 'quantity': i.quantity::VARCHAR, 'coupon': i.coupon} FOR i IN items] AS items
      FROM events_20240401 ORDER BY event_timestamp`);
    const rows = [...(answer.data?.ga4.dedupEvents ?? [])].sort(
      (a, b) => Number(a.eventTimestamp) - Number(b.eventTimestamp),
    );
    expect(rows.length).toBe(expected.length);
    expect(rows).toEqual(expected);
  });

  it('answered nothing with a 5xx', () => expectNoServerErrors(duckdb));
});

describe('GA4 queries from outside, on the fake BigQuery', () => {
  it.each(endpointCases)('answers %s over REST as the oracle does', async (_, testCase) => {
    const url = new URL(`/api/endpoints/${testCase.endpoint}`, bigquery.url);
    for (const [name, value] of Object.entries(testCase.params ?? {})) url.searchParams.set(name, value);
    const response = await fetch(url, { headers: { 'x-api-key': testApiKey } });
    const body = (await response.json()) as { result: Record<string, unknown>[] };
    expect(response.status, JSON.stringify(body)).toBe(200);
    await expectOracleRows(oracle, dataDir, testCase, body.result);
  });

  it.each(endpointCases)(
    "answers %s on GraphQL, every field, as the oracle does in the faces' types",
    async (_, testCase) => {
      const response = await fetch(new URL('/graphql', bigquery.url), {
        method: 'POST',
        headers: { 'x-api-key': testApiKey, 'content-type': 'application/json' },
        body: JSON.stringify({ query: graphqlOperation(testCase) }),
      });
      const body = (await response.json()) as { data?: unknown; errors?: unknown[] };
      expect(body.errors ?? []).toEqual([]);
      await expectOracleGraphQLRows(oracle, dataDir, testCase, rowsOf(testCase, body.data));
    },
  );

  it('answers a time zone BigQuery does not know with a 400 naming the parameter', async () => {
    const url = new URL('/api/endpoints/ga4.local-hours?time_zone=Mars%2FOlympus_Mons', bigquery.url);
    const response = await fetch(url, { headers: { 'x-api-key': testApiKey } });
    const text = await response.text();
    expect(response.status, text).toBe(400);
    expect(text).toContain("Parameter 'time_zone'");
  });

  it('answers SELECT * EXCEPT(row) over the export with every column, records as objects', async () => {
    const url = new URL(
      '/api/endpoints/ga4.dedup-events?start_suffix=20240401&end_suffix=20240401',
      bigquery.url,
    );
    const response = await fetch(url, { headers: { 'x-api-key': testApiKey } });
    const body = (await response.json()) as { result: Record<string, unknown>[] };
    expect(response.status, JSON.stringify(body).slice(0, 500)).toBe(200);
    await expectDedupedDay(body.result);
  });
});
