import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runQueriesCheck } from '../../src/cli/queries-commands.js';
import type { Querygate } from '../../src/server.js';
import {
  type BigQueryHarness,
  startBigQueryHarness,
  startQuerygateOnBigQuery,
} from '../helpers/bigquery-harness.js';
import { postGraphQL } from '../helpers/graphql-request.js';
import { callEveryOperation, openApiProblems } from '../helpers/openapi-check.js';
import {
  expectNoServerErrors,
  type QuerygateUnderTest,
  startQuerygateUnderTest,
  testApiKey,
} from '../helpers/querygate-server.js';
import { expectOracleRows, warehouseCases } from '../helpers/warehouse-cases.js';
import {
  createOracle,
  importWarehouseFixture,
  type Oracle,
  prepareWarehouseStore,
  type WarehouseFixture,
  warehouseDir,
  writeWarehouseFixture,
} from '../helpers/warehouse-fixture.js';
import { expectOracleGraphQLRows, rowsOf, warehouseOperation } from '../helpers/warehouse-graphql.js';

// examples/warehouse served as a user would: its export files loaded by `querygate import`'s
// path, every saved query (Google's GA4 samples among them) asked over REST, on the embedded
// engine and on the fake BigQuery, and each answer compared with plain DuckDB SQL over the same
// files laid out as BigQuery holds them (one table per day).
let fixtureDir: string;
let fixture: WarehouseFixture;
let oracle: Oracle;
let duckdb: QuerygateUnderTest;
let harness: BigQueryHarness;
let bigquery: Querygate;

beforeAll(async () => {
  fixtureDir = await mkdtemp(join(tmpdir(), 'querygate-warehouse-'));
  fixture = writeWarehouseFixture(fixtureDir);
  oracle = await createOracle(fixture);
  duckdb = await startQuerygateUnderTest({
    now: new Date('2020-12-10T00:00:00Z'),
    environment: { QUERYGATE_QUERIES_DIR: warehouseDir },
    prepare: prepareWarehouseStore(fixture),
  });
  harness = await startBigQueryHarness({ sources: [], warehouseTables: [fixture.ga4, fixture.orders] });
  await importWarehouseFixture(harness.store.database, fixture);
  bigquery = await startQuerygateOnBigQuery(harness, { queriesDir: warehouseDir });
}, 120_000);

afterAll(async () => {
  await bigquery?.close();
  await harness?.close();
  await duckdb?.close();
  oracle?.close();
  await rm(fixtureDir, { recursive: true, force: true });
});

async function restOnBigQuery(endpoint: string, params: Record<string, string> = {}) {
  const url = new URL(`/api/endpoints/${endpoint}`, bigquery.url);
  for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
  const response = await fetch(url, { headers: { 'x-api-key': testApiKey } });
  return { status: response.status, body: (await response.json()) as { result: Record<string, unknown>[] } };
}

async function graphqlOnBigQuery<Data>(query: string) {
  const response = await fetch(new URL('/graphql', bigquery.url), {
    method: 'POST',
    headers: { 'x-api-key': testApiKey, 'content-type': 'application/json' },
    body: JSON.stringify({ query }),
  });
  const body = (await response.json()) as { data?: Data | null; errors?: unknown[] };
  return { status: response.status, data: body.data, errors: body.errors ?? [] };
}

type OpenApiSchemas = { components: { schemas: Record<string, { properties: Record<string, unknown> }> } };

function resultColumn(document: OpenApiSchemas, operation: string, column: string): unknown {
  const rows = document.components.schemas[`${operation}Result`]?.properties.result as
    | { items: { properties: Record<string, unknown> } }
    | undefined;
  return rows?.items.properties[column];
}

/**
 * orders.daily-revenue's NUMERIC sums on GraphQL: strings equal to the oracle's exact DECIMAL
 * sums, written as BigQuery writes a NUMERIC (no trailing zeros), never a Float's rounding.
 */
async function expectExactRevenue(
  post: (query: string) => Promise<{ data?: unknown; errors: readonly unknown[] }>,
): Promise<void> {
  const expected = await oracle.rows(
    `SELECT CAST(order_date AS VARCHAR) AS day, CAST(sum(total) AS VARCHAR) AS revenue
     FROM orders WHERE status <> 'refunded' GROUP BY ALL ORDER BY day`,
  );
  const answer = await post('{ orders { dailyRevenue { orderDate revenue } } }');
  expect(answer.errors).toEqual([]);
  const rows = (answer.data as { orders: { dailyRevenue: { orderDate: string; revenue: unknown }[] } }).orders
    .dailyRevenue;
  const bigQueryText = (text: unknown) =>
    String(text).includes('.') ? String(text).replace(/0+$/, '').replace(/\.$/, '') : String(text);
  expect(rows.map((row) => [row.orderDate, row.revenue])).toEqual(
    expected.map((row) => [row.day, bigQueryText(row.revenue)]),
  );
  expect(rows.every((row) => typeof row.revenue === 'string')).toBe(true);
}

/**
 * ga4.revenue-per-user orders by total_revenue DESC: BigQuery puts NULLs last in descending order
 * (and first in ascending), so the purchase totals fall and the users without one come last.
 */
function expectRevenueDescendingNullsLast(rows: readonly Record<string, unknown>[]): void {
  const totals = rows.map((row) => (row.total_revenue === null ? null : Number(row.total_revenue)));
  const firstNull = totals.indexOf(null);
  expect(firstNull).toBeGreaterThan(0);
  expect(totals.slice(firstNull).every((total) => total === null)).toBe(true);
  const numbers = totals.slice(0, firstNull) as number[];
  expect(numbers).toEqual([...numbers].sort((x, y) => y - x));
}

interface SchemaField {
  name: string;
  type: string;
  mode?: string;
  precision?: string | number;
  scale?: string | number;
  fields?: SchemaField[];
}

/**
 * A table's columns as `GET /api/sources` should list them: the `bq show --schema` JSON the
 * example was declared from (examples/warehouse/schema), with BigQuery's legacy type names in
 * their standard SQL spelling (INTEGER is INT64, FLOAT FLOAT64, BOOLEAN BOOL) and precision and
 * scale as numbers.
 */
function listedColumns(schemaFile: string): unknown[] {
  const standard: Record<string, string> = { INTEGER: 'INT64', FLOAT: 'FLOAT64', BOOLEAN: 'BOOL' };
  const field = (column: SchemaField): unknown => ({
    name: column.name,
    type: standard[column.type] ?? column.type,
    mode: column.mode ?? 'NULLABLE',
    ...(column.fields ? { fields: column.fields.map(field) } : {}),
    ...(column.precision !== undefined ? { precision: Number(column.precision) } : {}),
    ...(column.scale !== undefined ? { scale: Number(column.scale) } : {}),
  });
  const columns = JSON.parse(readFileSync(join(warehouseDir, 'schema', schemaFile), 'utf8')) as SchemaField[];
  return columns.map(field);
}

/** The table entries of GET /api/sources for examples/warehouse: both backends take their rows. */
function expectedTableSources(): unknown[] {
  return [
    {
      kind: 'table',
      name: 'ga4_events',
      description: 'The GA4 BigQuery export, one table per day',
      warehouseName: 'my-project.analytics_123456.events_*',
      tableSuffix: { column: 'event_date' },
      ingest: true,
      columns: listedColumns('ga4-events.json'),
    },
    {
      kind: 'table',
      name: 'orders',
      description: 'Orders of the shop',
      warehouseName: 'my-project.shop.orders',
      ingest: true,
      columns: listedColumns('orders.json'),
    },
  ];
}

describe('examples/warehouse on the embedded engine', () => {
  it('lists its table sources on GET /api/sources: warehouse name, suffix column, columns as declared', async () => {
    const response = await duckdb.get('/api/sources');
    expect(response.status).toBe(200);
    expect((response.body as { result: unknown[] }).result).toEqual(expectedTableSources());
  });

  for (const testCase of warehouseCases) {
    it(`answers ${testCase.endpoint} ${JSON.stringify(testCase.params ?? {})} as the oracle over the day tables does`, async () => {
      const response = await duckdb.get(`/api/endpoints/${testCase.endpoint}`, testCase.params);
      expect(response.status, response.text).toBe(200);
      await expectOracleRows(
        oracle,
        fixtureDir,
        testCase,
        (response.body as { result: Record<string, unknown>[] }).result,
      );
    });
  }

  for (const testCase of warehouseCases) {
    it(`answers ${testCase.endpoint} ${JSON.stringify(testCase.params ?? {})} on GraphQL, every field, as the oracle does in the faces' types`, async () => {
      const answer = await postGraphQL(duckdb, warehouseOperation(testCase));
      expect(answer.status).toBe(200);
      expect(answer.errors).toEqual([]);
      await expectOracleGraphQLRows(oracle, fixtureDir, testCase, rowsOf(testCase, answer.data));
    });
  }

  it('answers a STRUCT column as an object and a NULL STRUCT as null, not as repeated records', async () => {
    const response = await duckdb.get('/api/endpoints/orders.shipping');
    const rows = (response.body as { result: { shipping: unknown }[] }).result;
    expect(rows.some((row) => row.shipping === null)).toBe(true);
    const shipped = rows.find((row) => row.shipping !== null);
    expect(shipped?.shipping).toEqual(expect.objectContaining({ address: expect.any(Object) }));
    expect(Array.isArray(shipped?.shipping)).toBe(false);
  });

  it('answers every endpoint as its OpenAPI document says, STRUCT objects and REPEATED scalars included', async () => {
    const document = (await duckdb.get('/openapi.json')).body;
    expect(await openApiProblems(document)).toEqual([]);
    const { called, problems, rows } = await callEveryOperation(document, async (path, params) => {
      const response = await duckdb.get(`${path}?${new URLSearchParams(params)}`);
      return { status: response.status, body: response.body };
    });
    expect(problems).toEqual([]);
    expect(called).toContain('ordersDailyRevenue');
    expect(called.length).toBeGreaterThanOrEqual(warehouseCases.length);
    expect(rows).toBeGreaterThan(0);
  }, 90_000);

  it('types NUMERIC as exact decimal text in OpenAPI, as REST answers it', async () => {
    const document = (await duckdb.get('/openapi.json')).body as OpenApiSchemas;
    expect(resultColumn(document, 'ordersDailyRevenue', 'revenue')).toEqual(
      expect.objectContaining({ type: ['string', 'null'], format: 'decimal' }),
    );
  });

  it('answers NUMERIC on GraphQL as the Decimal scalar, the exact decimal text of the oracle', async () => {
    await expectExactRevenue((query) => postGraphQL(duckdb, query));
  });

  it('answers a STRUCT as an object and a NULL STRUCT as null on GraphQL, in the rows of the oracle', async () => {
    const expected = await oracle.rows(
      'SELECT order_id, shipping IS NULL AS unshipped, shipping.address.city AS city, tags FROM orders ORDER BY order_id LIMIT 20',
    );
    const answer = await postGraphQL<{
      orders: {
        shipping: { orderId: string; shipping: { address: { city: string } } | null; tags: string[] }[];
      };
    }>(duckdb, /* GraphQL */ `{ orders { shipping { orderId tags shipping { address { city } } } } }`);
    expect(answer.errors).toEqual([]);
    const rows = answer.data?.orders.shipping ?? [];
    expect(rows.map((row) => row.orderId)).toEqual(expected.map((row) => row.order_id));
    expect(rows.map((row) => row.shipping === null)).toEqual(expected.map((row) => row.unshipped));
    expect(rows.map((row) => row.shipping?.address.city ?? null)).toEqual(expected.map((row) => row.city));
    expect(rows.map((row) => row.tags)).toEqual(expected.map((row) => row.tags));
  });

  it('orders a DESC column with its NULLs last, as BigQuery does', async () => {
    const response = await duckdb.get('/api/endpoints/ga4.revenue-per-user');
    expectRevenueDescendingNullsLast((response.body as { result: Record<string, unknown>[] }).result);
  });

  it('answered nothing with a 5xx', () => expectNoServerErrors(duckdb));
});

describe('examples/warehouse on the fake BigQuery', () => {
  it('lists its table sources on GET /api/sources, which take rows over HTTP here too', async () => {
    const response = await fetch(new URL('/api/sources', bigquery.url), {
      headers: { 'x-api-key': testApiKey },
    });
    expect(response.status).toBe(200);
    expect(((await response.json()) as { result: unknown[] }).result).toEqual(expectedTableSources());
  });

  for (const testCase of warehouseCases) {
    it(`answers ${testCase.endpoint} ${JSON.stringify(testCase.params ?? {})} as the oracle does`, async () => {
      const response = await restOnBigQuery(testCase.endpoint, testCase.params);
      expect(response.status, JSON.stringify(response.body)).toBe(200);
      await expectOracleRows(oracle, fixtureDir, testCase, response.body.result);
    });
  }

  for (const testCase of warehouseCases) {
    it(`answers ${testCase.endpoint} ${JSON.stringify(testCase.params ?? {})} on GraphQL, every field, as the oracle does in the faces' types`, async () => {
      const answer = await graphqlOnBigQuery(warehouseOperation(testCase));
      expect(answer.status).toBe(200);
      expect(answer.errors).toEqual([]);
      await expectOracleGraphQLRows(oracle, fixtureDir, testCase, rowsOf(testCase, answer.data));
    });
  }

  it('sends the saved SQL with its warehouse names as written, never renamed', () => {
    const sent = harness.fake
      .calls('jobs.insert')
      .map((request) => String(request.body?.configuration?.query?.query));
    expect(sent.some((sql) => sql.includes('`my-project.analytics_123456.events_*`'))).toBe(true);
    expect(sent.some((sql) => sql.includes('`my-project.shop.orders`'))).toBe(true);
  });

  it('passes querygate queries check there: every endpoint dry-run, its shape equal to its lock', async () => {
    const lines: string[] = [];
    const ok = await runQueriesCheck({
      queriesDir: warehouseDir,
      print: (line) => lines.push(line),
      bigquery: { config: harness.config, client: harness.client() },
    });
    const endpoints = readdirSync(warehouseDir).filter((file) => file.endsWith('.sql')).length;
    expect(lines).toEqual([`✓ ${endpoints} endpoints in ${warehouseDir} pass every check on BigQuery`]);
    expect(ok).toBe(true);
  });

  it("answers a dry run with the table's nested schema: a STRUCT a NULLABLE RECORD, an array REPEATED", async () => {
    const [, response] = await harness
      .client()
      .createQueryJob({ query: 'SELECT shipping, tags FROM `my-project.shop.orders`', dryRun: true });
    const statistics = response?.statistics as { query?: { schema?: { fields?: unknown[] } } } | undefined;
    const fields = statistics?.query?.schema?.fields;
    expect(fields).toEqual([
      {
        name: 'shipping',
        type: 'RECORD',
        mode: 'NULLABLE',
        fields: [
          { name: 'method', type: 'STRING', mode: 'NULLABLE' },
          {
            name: 'address',
            type: 'RECORD',
            mode: 'NULLABLE',
            fields: [
              { name: 'city', type: 'STRING', mode: 'NULLABLE' },
              { name: 'country', type: 'STRING', mode: 'NULLABLE' },
              { name: 'postal_code', type: 'STRING', mode: 'NULLABLE' },
            ],
          },
          { name: 'shipped_at', type: 'DATETIME', mode: 'NULLABLE' },
          { name: 'window_start', type: 'TIME', mode: 'NULLABLE' },
        ],
      },
      { name: 'tags', type: 'STRING', mode: 'REPEATED' },
    ]);
  });

  it('answers every endpoint as its OpenAPI document says, NUMERIC as decimal text included', async () => {
    const response = await fetch(new URL('/openapi.json', bigquery.url), {
      headers: { 'x-api-key': testApiKey },
    });
    const document = (await response.json()) as OpenApiSchemas;
    expect(await openApiProblems(document)).toEqual([]);
    expect(resultColumn(document, 'ordersDailyRevenue', 'revenue')).toEqual(
      expect.objectContaining({ type: ['string', 'null'], format: 'decimal' }),
    );
    const { called, problems } = await callEveryOperation(document, (path, params) =>
      restOnBigQuery(path.replace('/api/endpoints/', ''), params),
    );
    expect(problems).toEqual([]);
    expect(called.length).toBeGreaterThanOrEqual(warehouseCases.length);
  }, 90_000);

  it('answers NUMERIC on GraphQL as the Decimal scalar, the exact decimal text of the oracle', async () => {
    await expectExactRevenue((query) => graphqlOnBigQuery(query));
  });

  it('orders a DESC column with its NULLs last, as BigQuery does', async () => {
    expectRevenueDescendingNullsLast((await restOnBigQuery('ga4.revenue-per-user')).body.result);
  });

  it('answers a STRUCT column as an object and a NULL STRUCT as null, as BigQuery does', async () => {
    const response = await restOnBigQuery('orders.shipping');
    const rows = response.body.result;
    expect(rows.some((row) => row.shipping === null)).toBe(true);
    expect(rows.some((row) => row.shipping !== null && !Array.isArray(row.shipping))).toBe(true);
  });
});
