import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { QueryEngine } from '../../src/engines/query-engine.js';
import { plainRows } from '../helpers/plain-rows.js';
import { openTempStore, storeEngine, type TempStore } from '../helpers/temp-store.js';

// Which rows a JOIN UNNEST over an edge log's records keeps when a record is absent. The store
// holds each record as a STRUCT that is NULL when absent; the expected rows come from plain DuckDB
// over the same rows laid out as BigQuery holds them (each record a repeated field, an absent one
// an empty array), where UNNEST is a real lateral join.
const now = new Date('2026-03-10T12:00:00Z');
const at = '2026-03-10T10:00:00Z';
const edge = [
  {
    id: 'e1',
    metadata: {
      request: { path: '/rest/v1/a', headers: { x_real_ip: '1' } },
      response: { status_code: 200 },
    },
  },
  // request.headers absent
  { id: 'e2', metadata: { request: { path: '/auth/v1/t' }, response: { status_code: 500 } } },
  // response absent
  { id: 'e3', metadata: { request: { path: '/rest/v1/b', headers: { x_real_ip: '3' } } } },
  // response present without a status code
  {
    id: 'e4',
    metadata: { request: { path: '/rest/v1/c', headers: { x_real_ip: '4' } }, response: { origin_time: 7 } },
  },
  // metadata absent
  { id: 'e5' },
];
const bigQueryRows = `
  ('e1', [{'request': [{'path': '/rest/v1/a', 'headers': [{'x_real_ip': '1'}]}], 'response': [{'status_code': 200, 'origin_time': NULL}]}]),
  ('e2', [{'request': [{'path': '/auth/v1/t', 'headers': []}], 'response': [{'status_code': 500, 'origin_time': NULL}]}]),
  ('e3', [{'request': [{'path': '/rest/v1/b', 'headers': [{'x_real_ip': '3'}]}], 'response': []}]),
  ('e4', [{'request': [{'path': '/rest/v1/c', 'headers': [{'x_real_ip': '4'}]}], 'response': [{'status_code': NULL, 'origin_time': 7}]}]),
  ('e5', [])`;

let store: TempStore;
let engine: QueryEngine;
let plain: Awaited<ReturnType<DuckDBInstance['connect']>>;
let counter = 0;

beforeAll(async () => {
  store = await openTempStore('querygate-presence-');
  await store.writer.write(
    'cloudflare.logs.prod',
    edge.map((row) => ({ ...row, timestamp: at, event_message: row.id, project: 'p1' })),
  );
  engine = await storeEngine(store);
  plain = await (await DuckDBInstance.create(':memory:')).connect();
  await plain.run(`CREATE TABLE edge_logs (id VARCHAR, metadata STRUCT(
    request STRUCT(path VARCHAR, headers STRUCT(x_real_ip VARCHAR)[])[],
    response STRUCT(status_code BIGINT, origin_time BIGINT)[])[])`);
  await plain.run(`INSERT INTO edge_logs VALUES ${bigQueryRows}`);
});

afterAll(async () => {
  plain?.closeSync();
  await engine?.close();
  await store?.close();
});

/** The rows our translation answers for BigQuery SQL over the store, as JSON-like values. */
async function translated(sql: string) {
  counter += 1;
  const name = `presence-${counter}`;
  return (await engine.run({ id: name, name, sql, maxRows: 1000 }, {}, { now })).rows;
}

/** The rows plain DuckDB answers over the BigQuery layout. */
const expected = (sql: string) => plainRows(plain, sql);

// BigQuery SQL, and the same query in DuckDB over the BigQuery layout (UNNEST as lateral joins).
const cases: [string, string, string][] = [
  [
    'drops the rows whose response is absent from CROSS JOIN UNNEST(m.response)',
    'select id from edge_logs cross join unnest(metadata) as m cross join unnest(m.response) as r order by id',
    'select id from edge_logs, unnest(metadata) as u(m), unnest(m.response) as v(r) order by id',
  ],
  [
    'keeps the rows whose response is absent with LEFT JOIN UNNEST(m.response), their fields NULL',
    'select id, r.status_code from edge_logs cross join unnest(metadata) as m left join unnest(m.response) as r order by id',
    'select id, r.status_code from edge_logs, unnest(metadata) as u(m) left join unnest(m.response) as v(r) on true order by id',
  ],
  [
    'drops an absent response when the WHERE asks for its NULL status code (IS NULL keeps no absent record)',
    'select id from edge_logs cross join unnest(metadata) as m cross join unnest(m.response) as r where r.status_code is null order by id',
    'select id from edge_logs, unnest(metadata) as u(m), unnest(m.response) as v(r) where r.status_code is null order by id',
  ],
  [
    'drops an absent response under a WHERE that turns its NULL fields into a match (COALESCE, OR)',
    `select id from edge_logs cross join unnest(metadata) as m cross join unnest(m.response) as r
      where coalesce(r.status_code, 0) < 300 or m.request[safe_offset(0)].path like '%rest%' order by id`,
    `select id from edge_logs, unnest(metadata) as u(m), unnest(m.response) as v(r)
      where coalesce(r.status_code, 0) < 300 or m.request[1].path like '%rest%' order by id`,
  ],
  [
    'answers the same rows when a comparison on the record already drops the absent ones',
    'select id, r.status_code from edge_logs cross join unnest(metadata) as m cross join unnest(m.response) as r where r.status_code >= 200 order by id',
    'select id, r.status_code from edge_logs, unnest(metadata) as u(m), unnest(m.response) as v(r) where r.status_code >= 200 order by id',
  ],
  [
    'answers the same rows when the WHERE asks for a field of the record to be there (IS NOT NULL)',
    'select id from edge_logs cross join unnest(metadata) as m left join unnest(m.request) as q cross join unnest(m.response) as r where r.status_code is not null and q.path is not null order by id',
    'select id from edge_logs, unnest(metadata) as u(m) left join unnest(m.request) as v(q) on true, unnest(m.response) as w(r) where r.status_code is not null and q.path is not null order by id',
  ],
  [
    'drops a row missing any record of a chain or of two chains (request.headers, response)',
    `select id from edge_logs cross join unnest(metadata) as m cross join unnest(m.request) as q
      cross join unnest(q.headers) as h cross join unnest(m.response) as r order by id`,
    `select id from edge_logs, unnest(metadata) as u(m), unnest(m.request) as v(q), unnest(q.headers) as w(h),
      unnest(m.response) as x(r) order by id`,
  ],
  [
    'counts only the rows with every record joined, beside a condition on another record',
    `select count(*) as n from edge_logs cross join unnest(metadata) as m cross join unnest(m.request) as q
      cross join unnest(q.headers) as h cross join unnest(m.response) as r where q.path like '%v1%'`,
    `select count(*) as n from edge_logs, unnest(metadata) as u(m), unnest(m.request) as v(q), unnest(q.headers) as w(h),
      unnest(m.response) as x(r) where q.path like '%v1%'`,
  ],
];

describe('JOIN UNNEST over records whose rows lack some', () => {
  for (const [behaviour, bigQuery, duckDb] of cases) {
    it(behaviour, async () => {
      const want = await expected(duckDb);
      expect(want.length).toBeGreaterThan(0);
      expect(await translated(bigQuery)).toEqual(want);
    });
  }
});
