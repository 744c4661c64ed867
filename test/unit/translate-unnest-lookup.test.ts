import { DuckDBInstance } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import type { TableSchema } from '../../src/sql/table-schema.js';
import { translateToDuckDb } from '../../src/sql/translate.js';

// A scalar subquery over a row's array, GA4's way of reading one event parameter:
// `(SELECT value.int_value FROM UNNEST(event_params) WHERE key = 'ga_session_id')`. BigQuery:
// "If the subquery returns exactly one row, that single value is the scalar subquery expression
// result. If the subquery returns zero rows, the result is NULL. If the subquery returns more
// than one row, the query fails with a runtime error."
// https://cloud.google.com/bigquery/docs/reference/standard-sql/subqueries#scalar_subquery_concepts
// Each answer is checked against literal values and against plain DuckDB's own correlated
// subquery over the same rows.
const events: TableSchema = {
  name: 'ga4_events',
  aliases: ['analytics_1.events_*'],
  tableSuffix: { column: 'event_date' },
  columns: {
    event_date: 'VARCHAR',
    event_name: 'VARCHAR',
    event_params: {
      list: {
        struct: {
          key: 'VARCHAR',
          value: { struct: { string_value: 'VARCHAR', int_value: 'BIGINT', double_value: 'DOUBLE' } },
        },
      },
    },
  },
};

const rows = [
  // Two parameters, one of them ga_session_id.
  `('20240101', 'a', [{'key': 'ga_session_id', 'value': {'string_value': NULL, 'int_value': 7, 'double_value': NULL}},
    {'key': 'page', 'value': {'string_value': '/x', 'int_value': NULL, 'double_value': NULL}}])`,
  // The key present with a NULL value.
  `('20240101', 'b', [{'key': 'ga_session_id', 'value': {'string_value': NULL, 'int_value': NULL, 'double_value': NULL}}])`,
  // Other keys only, an empty array, a NULL array.
  `('20240101', 'c', [{'key': 'page', 'value': {'string_value': '/y', 'int_value': NULL, 'double_value': NULL}}])`,
  `('20240101', 'd', [])`,
  `('20240101', 'e', NULL)`,
  // A whole FLOAT64 and a fraction.
  `('20240103', 'g', [{'key': 'value', 'value': {'string_value': NULL, 'int_value': NULL, 'double_value': 40.0}}])`,
  `('20240103', 'h', [{'key': 'value', 'value': {'string_value': NULL, 'int_value': NULL, 'double_value': 0.5}}])`,
  // The key twice: the subquery has two rows.
  `('20240102', 'f', [{'key': 'ga_session_id', 'value': {'string_value': NULL, 'int_value': 1, 'double_value': NULL}},
    {'key': 'ga_session_id', 'value': {'string_value': NULL, 'int_value': 2, 'double_value': NULL}}])`,
];

async function run(sql: string, params: Record<string, string> = {}): Promise<unknown[]> {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    await connection.run(
      'CREATE TABLE ga4_events (event_date VARCHAR, event_name VARCHAR, event_params STRUCT(key VARCHAR, value STRUCT(string_value VARCHAR, int_value BIGINT, double_value DOUBLE))[])',
    );
    await connection.run(`INSERT INTO ga4_events VALUES ${rows.join(', ')}`);
    return (await connection.runAndReadAll(sql, params)).getRowObjectsJson();
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

const translated = (sql: string) => translateToDuckDb(sql, { tables: [events] }).sql;

describe('a scalar subquery over UNNEST of a row array', () => {
  it('is the one kept value, NULL when none is kept or the array is empty or NULL', async () => {
    const sql = translated(`SELECT event_name,
      (SELECT value.int_value FROM UNNEST(event_params) WHERE key = 'ga_session_id') AS session_id,
      (SELECT value.string_value FROM UNNEST(event_params) WHERE key = 'page') AS page
      FROM \`analytics_1.events_*\` WHERE _TABLE_SUFFIX = '20240101' ORDER BY event_name`);
    const expected = [
      { event_name: 'a', session_id: '7', page: '/x' },
      { event_name: 'b', session_id: null, page: null },
      { event_name: 'c', session_id: null, page: '/y' },
      { event_name: 'd', session_id: null, page: null },
      { event_name: 'e', session_id: null, page: null },
    ];
    expect(await run(sql)).toEqual(expected);
    expect(
      await run(`SELECT event_name,
        (SELECT p.value.int_value FROM unnest(event_params) AS t(p) WHERE p.key = 'ga_session_id') AS session_id,
        (SELECT p.value.string_value FROM unnest(event_params) AS t(p) WHERE p.key = 'page') AS page
        FROM ga4_events WHERE event_date = '20240101' ORDER BY event_name`),
    ).toEqual(expected);
  });

  it('computes its SELECT item of a kept element only: COALESCE over no element is NULL', async () => {
    const sql = translated(`SELECT event_name,
      (SELECT COALESCE(value.int_value, -1) FROM UNNEST(event_params) WHERE key = 'ga_session_id') AS s
      FROM \`analytics_1.events_*\` WHERE _TABLE_SUFFIX = '20240101' ORDER BY event_name`);
    expect((await run(sql)).map((row) => (row as { s: unknown }).s)).toEqual(['7', '-1', null, null, null]);
  });

  it('fails when more than one element is kept, as BigQuery does, and LIMIT 1 takes the first', async () => {
    const many =
      translated(`SELECT (SELECT value.int_value FROM UNNEST(event_params) WHERE key = 'ga_session_id') AS s
      FROM \`analytics_1.events_*\` WHERE event_name = 'f'`);
    await expect(run(many)).rejects.toThrow(/more than one element/);
    const first =
      translated(`SELECT (SELECT value.int_value FROM UNNEST(event_params) WHERE key = 'ga_session_id' LIMIT 1) AS s
      FROM \`analytics_1.events_*\` WHERE event_name = 'f'`);
    expect(await run(first)).toEqual([{ s: '1' }]);
  });

  it('reads an alias, a path of the row (FROM e.event_params), a parameter and an outer column', async () => {
    const sql = translated(`SELECT e.event_name,
      (SELECT p.value.string_value FROM e.event_params AS p WHERE p.key = @key) AS by_parameter,
      (SELECT COUNT(*) FROM UNNEST(e.event_params) AS p WHERE p.key = 'page') AS pages,
      (SELECT p.key FROM UNNEST(event_params) AS p WHERE p.value.string_value = CONCAT('/', e.event_name)) AS by_outer
      FROM \`analytics_1.events_*\` AS e WHERE event_name IN ('a', 'c') ORDER BY event_name`);
    expect(await run(sql, { key: 'page' })).toEqual([
      { event_name: 'a', by_parameter: '/x', pages: '1', by_outer: null },
      { event_name: 'c', by_parameter: '/y', pages: '1', by_outer: null },
    ]);
    const outer = translated(`SELECT (SELECT p.key FROM UNNEST(event_params) AS p
      WHERE p.value.string_value = CONCAT('/', CASE event_name WHEN 'a' THEN 'x' ELSE 'z' END)) AS k
      FROM \`analytics_1.events_*\` ORDER BY event_name LIMIT 1`);
    expect(await run(outer)).toEqual([{ k: 'page' }]);
  });

  it('is cast to STRING as BigQuery prints its type: an INT64 plainly, a whole FLOAT64 without .0', async () => {
    // BigQuery's CAST of FLOAT64 40.0 AS STRING is '40' (conversion rules); of INT64 7, '7'.
    const sql = translated(`SELECT event_name,
      CONCAT(user, '-', CAST((SELECT value.int_value FROM UNNEST(event_params) WHERE key = 'ga_session_id') AS STRING)) AS session,
      CAST((SELECT value.double_value FROM UNNEST(event_params) WHERE key = 'value') AS STRING) AS amount
      FROM (SELECT 'u' AS user, * FROM \`analytics_1.events_*\`) WHERE event_name IN ('a', 'g', 'h') ORDER BY event_name`);
    expect(await run(sql)).toEqual([
      { event_name: 'a', session: 'u-7', amount: null },
      { event_name: 'g', session: null, amount: '40' },
      { event_name: 'h', session: null, amount: '0.5' },
    ]);
  });
});
