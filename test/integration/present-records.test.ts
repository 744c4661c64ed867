import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readTableSchemas } from '../../src/backends/duckdb/table-schemas.js';
import type { QueryEngine } from '../../src/engines/query-engine.js';
import { translateToDuckDb } from '../../src/sql/translate.js';
import { createLogWriter } from '../../src/storage/log-writer.js';
import { createPresentRecords, type PresentRecordsKeeper } from '../../src/storage/present-records.js';
import { plainRows } from '../helpers/plain-rows.js';
import { logSources } from '../helpers/shipped-sources.js';
import { openTempStore, storeEngine, type TempStore } from '../helpers/temp-store.js';

// A CROSS JOIN UNNEST over a record every stored row has needs no filter: the store learns which
// records those are (present-records.ts) and the translation leaves the filter out. Whatever it
// leaves out, the rows must stay BigQuery's: expected rows come from plain DuckDB over the same
// events laid out as BigQuery holds them (each record a repeated field, an absent one `[]`).
const edge = 'cloudflare.logs.prod';
const now = new Date('2026-03-10T12:00:00Z');
const at = '2026-03-10T10:00:00Z';
// With the columns every event is given (an id and a timestamp when sent without).
const paths = [
  'metadata',
  'metadata.request',
  'metadata.request.headers',
  'metadata.response',
  'id',
  'timestamp',
];

interface Event {
  readonly id: string;
  readonly path?: string;
  readonly status?: number;
  readonly ip?: string;
}

/** An edge event with the records its fields ask for: no `status`, no response record. */
function edgeEvent({ id, path = '/rest/v1/a', status, ip = '1' }: Event) {
  return {
    id,
    timestamp: at,
    event_message: id,
    project: 'p1',
    metadata: {
      request: { path, headers: { x_real_ip: ip } },
      ...(status === undefined ? {} : { response: { status_code: status } }),
    },
  };
}

function bigQueryRow({ id, path = '/rest/v1/a', status, ip = '1' }: Event): string {
  const response = status === undefined ? '[]' : `[{'status_code': ${status}}]`;
  return `('${id}', [{'request': [{'path': '${path}', 'headers': [{'x_real_ip': '${ip}'}]}], 'response': ${response}}])`;
}

let store: TempStore;
let present: PresentRecordsKeeper;
let engine: QueryEngine;
let plain: Awaited<ReturnType<DuckDBInstance['connect']>>;
let calls = 0;

async function ingest(events: Event[]) {
  await store.writer.write(edge, events.map(edgeEvent));
  await plain.run(`INSERT INTO edge_logs VALUES ${events.map(bigQueryRow).join(', ')}`);
}

/** The record paths no stored row lacks, as plain DuckDB counts them over the store. */
async function presentByCount(): Promise<string[]> {
  const counts = paths.map((path, i) => `count(*) FILTER (WHERE ${path} IS NULL) AS "${i}"`);
  const row = (
    await store.connection.runAndReadAll(`SELECT ${counts.join(', ')} FROM "${edge}"`)
  ).getRows()[0];
  return paths.filter((_, i) => Number(row?.[i]) === 0).sort();
}

async function served(sql: string) {
  calls += 1;
  return (
    await engine.run({ id: `present-${calls}`, name: `present-${calls}`, sql, maxRows: 1000 }, {}, { now })
  ).rows;
}

const expected = (sql: string) => plainRows(plain, sql);

// BigQuery SQL, and the same in DuckDB over the BigQuery layout.
const queries: [string, string, string][] = [
  [
    'counts the rows with a request and a response',
    `select count(*) as n from edge_logs cross join unnest(metadata) as m cross join unnest(m.request) as q
      cross join unnest(q.headers) as h cross join unnest(m.response) as r`,
    `select count(*) as n from edge_logs, unnest(metadata) as u(m), unnest(m.request) as v(q), unnest(q.headers) as w(h),
      unnest(m.response) as x(r)`,
  ],
  [
    'drops the rows a LEFT JOIN fills with NULLs when their record is then unnested',
    `select a.id as id from edge_logs a left join edge_logs b on b.id = concat(a.id, '-twin')
      cross join unnest(b.metadata) as m cross join unnest(m.request) as q order by id`,
    `select a.id as id from edge_logs a left join edge_logs b on b.id = concat(a.id, '-twin'),
      unnest(b.metadata) as u(m), unnest(m.request) as v(q) order by id`,
  ],
  [
    'drops the rows of a parenthesized LEFT JOIN that matched nothing when their record is then unnested',
    `select a.id as id from edge_logs a left join (edge_logs b cross join unnest(b.metadata) as bm)
      on b.id = concat(a.id, '-twin') cross join unnest(bm.request) as q order by id`,
    `select a.id as id from edge_logs a left join (select b.id as bid, bm from edge_logs b, unnest(b.metadata) as u(bm)) on bid = concat(a.id, '-twin'),
      unnest(bm.request) as v(q) order by id`,
  ],
  [
    'counts the rows with a request through a CTE of the table filtered, as logs.all gives edge_logs',
    `with e as (select t.id, t.metadata from edge_logs t where t.id != 'e2')
      select count(*) as n from e cross join unnest(e.metadata) as m cross join unnest(m.request) as q
      cross join unnest(m.response) as r`,
    `select count(*) as n from edge_logs t, unnest(t.metadata) as u(m), unnest(m.request) as v(q),
      unnest(m.response) as x(r) where t.id != 'e2'`,
  ],
  [
    "counts the ids of a LEFT JOIN's right side, none where nothing matched",
    `select count(b.id) as n, count(a.id) as m from edge_logs a left join edge_logs b on b.id = concat(a.id, '-twin')`,
    `select count(b.id) as n, count(a.id) as m from edge_logs a left join edge_logs b on b.id = concat(a.id, '-twin')`,
  ],
  [
    "counts the ids of a RIGHT JOIN's left side, none where nothing matched",
    `select count(a.id) as n, count(b.id) as m from edge_logs a right join edge_logs b on a.id = concat(b.id, '-twin')`,
    `select count(a.id) as n, count(b.id) as m from edge_logs a right join edge_logs b on a.id = concat(b.id, '-twin')`,
  ],
  [
    'counts the ids of a CTE grouped by ROLLUP, none for its total row',
    `with c as (select id, count(*) as k from edge_logs group by rollup(id)) select count(id) as n, count(*) as m from c`,
    `with c as (select id, count(*) as k from edge_logs group by rollup(id)) select count(id) as n, count(*) as m from c`,
  ],
  [
    'drops the rows a LEFT JOIN inside a CTE fills with NULLs when their record is then unnested',
    `with e as (select a.id, b.metadata from edge_logs a left join edge_logs b on b.id = concat(a.id, '-twin'))
      select e.id from e cross join unnest(e.metadata) as m cross join unnest(m.request) as q order by id`,
    `select a.id as id from edge_logs a left join edge_logs b on b.id = concat(a.id, '-twin'),
      unnest(b.metadata) as u(m), unnest(m.request) as v(q) order by id`,
  ],
  [
    'drops the rows a LEFT JOIN of a CTE fills with NULLs when their record is then unnested',
    `with e as (select id, metadata from edge_logs)
      select a.id from edge_logs a left join e on e.id = concat(a.id, '-twin')
      cross join unnest(e.metadata) as m cross join unnest(m.request) as q order by id`,
    `select a.id as id from edge_logs a left join edge_logs b on b.id = concat(a.id, '-twin'),
      unnest(b.metadata) as u(m), unnest(m.request) as v(q) order by id`,
  ],
];

beforeAll(async () => {
  present = createPresentRecords();
  store = await openTempStore('querygate-present-', { presentRecords: present });
  engine = await storeEngine(store, { presentRecords: present });
  plain = await (await DuckDBInstance.create(':memory:')).connect();
  await plain.run(`CREATE TABLE edge_logs (id VARCHAR, metadata STRUCT(
    request STRUCT(path VARCHAR, headers STRUCT(x_real_ip VARCHAR)[])[],
    response STRUCT(status_code BIGINT)[])[])`);
  await ingest([
    { id: 'e1', status: 200 },
    { id: 'e2', status: 500, path: '/auth/v1/token' },
    { id: 'e1-twin', status: 201 },
  ]);
});

afterAll(async () => {
  plain?.closeSync();
  await engine?.close();
  await store?.close();
});

describe('records every stored row has', () => {
  it('are known after each batch as plain DuckDB counts them, and leave once a row lacks one', async () => {
    expect([...present.of(edge)].filter((path) => paths.includes(path)).sort()).toEqual(
      await presentByCount(),
    );
    expect(present.of(edge).has('metadata.response')).toBe(true);
    const mark = present.mark();
    await ingest([{ id: 'e3' }]);
    expect(present.mark()).not.toBe(mark);
    expect([...present.of(edge)].filter((path) => paths.includes(path)).sort()).toEqual(
      await presentByCount(),
    );
    expect(present.of(edge).has('metadata.response')).toBe(false);
  });

  it('are read again at open from the statistics DuckDB keeps', async () => {
    const reopened = createPresentRecords();
    const writer = createLogWriter(store.db, { sources: logSources, presentRecords: reopened });
    await writer.ready();
    // The writer is not closed: a second one on the store would checkpoint under the first.
    expect([...reopened.of(edge)].filter((path) => paths.includes(path)).sort()).toEqual(
      await presentByCount(),
    );
  });

  it('leave the filter out of the translation, and keep it for one some row lacks', async () => {
    const tables = await readTableSchemas(store.connection, logSources, present.of);
    const sql = (record: string) =>
      translateToDuckDb(
        `select id from edge_logs cross join unnest(metadata) as m cross join unnest(m.${record}) as r`,
        {
          tables,
        },
      ).sql;
    expect(sql('request')).not.toMatch(/IS (NOT )?NULL/);
    expect(sql('response')).toMatch(/"response" IS NOT NULL/);
  });

  it('leave the filter out through a CTE that passes the column on, as logs.all does, and not through an outer join', async () => {
    const tables = await readTableSchemas(store.connection, logSources, present.of);
    const sql = (cte: string) =>
      translateToDuckDb(
        `with c as (${cte}) select c.id from c cross join unnest(c.metadata) as m cross join unnest(m.request) as r`,
        { tables },
      ).sql;
    // logs.all's `edge_logs`: the table's rows a filter keeps, its columns as they are.
    expect(sql(`select t.id, t.metadata from edge_logs t where t.project = 'p1'`)).not.toMatch(
      /IS (NOT )?NULL/,
    );
    expect(sql(`select * from edge_logs where id > 'a'`)).not.toMatch(/IS (NOT )?NULL/);
    expect(sql(`select a.id, b.metadata from edge_logs a left join edge_logs b on a.id = b.id`)).toMatch(
      /IS NOT NULL/,
    );
  });

  it('count the rows for COUNT of a column no row holds NULL in, and the values for any other', async () => {
    const tables = await readTableSchemas(store.connection, logSources, present.of);
    const sql = (query: string) => translateToDuckDb(query, { tables }).sql;
    expect(sql('select count(id) as n from edge_logs')).toMatch(/count\(\*\)/);
    expect(sql('with e as (select t.id from edge_logs t) select count(e.id) as n from e')).toMatch(
      /count\(\*\)/,
    );
    expect(sql('select count(distinct id) as n from edge_logs')).not.toMatch(/count\(\*\)/);
    expect(sql('select count(event_message) as n from edge_logs')).not.toMatch(/count\(\*\)/);
    expect(sql(`select count(b.id) as n from edge_logs a left join edge_logs b on a.id = b.id`)).not.toMatch(
      /count\(\*\)/,
    );
  });

  it('never take a field a schema change adds to a table with rows as present', async () => {
    await store.writer.write(edge, [
      {
        ...edgeEvent({ id: 'e4', status: 200 }),
        metadata: { ...edgeEvent({ id: 'e4', status: 200 }).metadata, cf: { colo: 'AMS' } },
      },
    ]);
    await plain.run(`INSERT INTO edge_logs VALUES ${bigQueryRow({ id: 'e4', status: 200 })}`);
    expect(present.of(edge).has('metadata.cf')).toBe(false);
  });

  for (const [behaviour, bigQuery, duckDb] of queries) {
    it(`${behaviour}, as BigQuery does`, async () => {
      const want = await expected(duckDb);
      expect(want.length).toBeGreaterThan(0);
      expect(await served(bigQuery)).toEqual(want);
    });
  }
});

// BigQuery reads a STRING of decimal digits as that INT64 and fails the CAST of any other text
// ("Bad int64 value: 2.5", conversion rules); a field the store holds only such text in is cast
// without the check (present-records.ts), and with it again once a batch stores other text.
describe('STRING fields every stored value of is integer text', () => {
  const ip = 'metadata.request.headers.x_real_ip';
  const sum = `select sum(cast(coalesce(h.x_real_ip, '0') as int64)) as n from edge_logs
    cross join unnest(metadata) as m cross join unnest(m.request) as q cross join unnest(q.headers) as h`;
  const sumEndpoint = { id: 'present-integer-sum', name: 'present-integer-sum', sql: sum, maxRows: 10 };

  it('are known after each batch as plain DuckDB finds them, and the CAST sums as BigQuery does', async () => {
    await ingest([{ id: 'e5', ip: '0042' }]);
    const [row] = (
      await store.connection.runAndReadAll(
        `SELECT count(*) FILTER (WHERE NOT regexp_full_match(${ip}, '[0-9]{1,18}')) FROM "${edge}"`,
      )
    ).getRows();
    expect(Number(row?.[0])).toBe(0);
    expect(present.integerTexts(edge).has(ip)).toBe(true);
    const tables = await readTableSchemas(store.connection, logSources, present.of, present.integerTexts);
    expect(translateToDuckDb(sum, { tables }).sql).not.toContain('regexp_full_match');
    // A fallback that is not integer text ('-1') keeps the check.
    expect(translateToDuckDb(sum.replace("'0'", "'-1'"), { tables }).sql).toContain('regexp_full_match');
    const want = await expected(
      `select sum(cast(coalesce(h.x_real_ip, '0') as bigint)) as n from edge_logs, unnest(metadata) as u(m),
        unnest(m.request) as v(q), unnest(q.headers) as w(h)`,
    );
    expect(want).toEqual([{ n: 5 + 42 }]);
    expect((await engine.run(sumEndpoint, {}, { now })).rows).toEqual(want);
  });

  it('are read again at open', async () => {
    const reopened = createPresentRecords();
    const writer = createLogWriter(store.db, { sources: logSources, presentRecords: reopened });
    await writer.ready();
    expect(reopened.integerTexts(edge).has(ip)).toBe(true);
    expect(reopened.integerTexts(edge).has('metadata.request.path')).toBe(false);
  });

  it('lose a field once a batch stores other text in it, and the same endpoint fails its CAST as BigQuery does', async () => {
    const mark = present.mark();
    await ingest([{ id: 'e6', ip: '2.5' }]);
    expect(present.mark()).not.toBe(mark);
    expect(present.integerTexts(edge).has(ip)).toBe(false);
    await expect(engine.run(sumEndpoint, {}, { now })).rejects.toThrow('Bad int64 value: 2.5');
    // Read again at open: '2.5' passes what DuckDB's statistics tell, and the values do not.
    const reopened = createPresentRecords();
    await createLogWriter(store.db, { sources: logSources, presentRecords: reopened }).ready();
    expect(reopened.integerTexts(edge).has(ip)).toBe(false);
  });

  // A field a schema change adds to a table with rows, NULL in every row stored before.
  const count = 'metadata.request.headers.x_count';
  const countEvent = (id: string, value: string) => {
    const event = edgeEvent({ id, status: 200 });
    const { request } = event.metadata;
    return {
      ...event,
      metadata: {
        ...event.metadata,
        request: { ...request, headers: { ...request.headers, x_count: value } },
      },
    };
  };
  /** The fields plain DuckDB finds only integer text (or NULL) in, of `fields`. */
  const integerByPlainSql = async (fields: readonly string[]) => {
    const offending = fields.map(
      (field) => `count(*) FILTER (WHERE NOT regexp_full_match(${field}, '[0-9]{1,18}'))`,
    );
    const [row] = (
      await store.connection.runAndReadAll(`SELECT ${offending.join(', ')} FROM "${edge}"`)
    ).getRows();
    return fields.filter((_, i) => Number(row?.[i]) === 0);
  };
  /** The store's copy of the table's integer-text fields, and whether it counts the table's rows. */
  const storedCopy = async () => {
    const [row] = (
      await store.connection.runAndReadAll(
        `SELECT fields, row_count = (SELECT count(*) FROM "${edge}") FROM _querygate_integer_texts WHERE source = '${edge}'`,
      )
    ).getRows();
    return { fields: JSON.parse(String(row?.[0])) as string[], counts: row?.[1] === true };
  };
  const reopenedIntegerTexts = async () => {
    const reopened = createPresentRecords();
    await createLogWriter(store.db, { sources: logSources, presentRecords: reopened }).ready();
    return reopened.integerTexts(edge);
  };

  it('take a STRING field a schema change adds to a table with rows while its values are integer text, and keep the copy with each commit', async () => {
    await store.writer.write(edge, [countEvent('e7', '12')]);
    // x_real_ip, whose '2.5' an earlier batch stored, stays out though this batch's value is '1'.
    expect(await integerByPlainSql([count, ip])).toEqual([count]);
    expect([count, ip].filter((field) => present.integerTexts(edge).has(field))).toEqual([count]);
    expect(await storedCopy()).toEqual({ fields: [...present.integerTexts(edge)].sort(), counts: true });
    expect((await reopenedIntegerTexts()).has(count)).toBe(true);
    await store.writer.write(edge, [countEvent('e8', '1e3')]);
    expect(await integerByPlainSql([count])).toEqual([]);
    expect(present.integerTexts(edge).has(count)).toBe(false);
    expect((await storedCopy()).fields).not.toContain(count);
  });

  it('are read from the values at open once rows were written without keeping the copy, as an older version writes', async () => {
    await store.writer.write(edge, [countEvent('e9', '7')]);
    // Emptying the ingest journal: a writer opening replays the records it holds that are not stored.
    await store.writer.checkpoint();
    await store.connection.run(`DELETE FROM "${edge}" WHERE id = 'e8'`);
    expect(await integerByPlainSql([count])).toEqual([count]);
    expect((await reopenedIntegerTexts()).has(count)).toBe(true);
    // A record another writer stores: the copy no longer counts the table's rows.
    await store.connection.run(
      `INSERT INTO "${edge}" BY NAME SELECT 'e10' AS id, "timestamp", event_message, project, struct_update(metadata, request := struct_update(metadata.request, headers := struct_update(metadata.request.headers, x_count := '2.5'))) AS metadata FROM "${edge}" WHERE id = 'e9'`,
    );
    expect(await integerByPlainSql([count])).toEqual([]);
    expect((await reopenedIntegerTexts()).has(count)).toBe(false);
    expect(await storedCopy()).toEqual({ fields: expect.not.arrayContaining([count]), counts: true });
  });

  it('are read from the values of a store without the copy, which is then written', async () => {
    await store.connection.run(`DELETE FROM "${edge}" WHERE id = 'e10'`);
    await store.connection.run('DROP TABLE _querygate_integer_texts');
    expect((await reopenedIntegerTexts()).has(count)).toBe(true);
    expect(await storedCopy()).toEqual({ fields: expect.arrayContaining([count]), counts: true });
  });

  it('take no field that a batch sent while the store opens stores other text in, and SAFE_CAST sums as BigQuery does', async () => {
    // No copy: the opening reads the values, its longest way.
    await store.writer.checkpoint();
    await store.connection.run('DROP TABLE _querygate_integer_texts');
    const reopened = createPresentRecords();
    const writer = createLogWriter(store.db, { sources: logSources, presentRecords: reopened });
    const sent = writer.write(edge, [countEvent('e11', '3.5')]);
    await writer.ready();
    await sent;
    const reopenedEngine = await storeEngine(store, { presentRecords: reopened });
    try {
      expect(await integerByPlainSql([count])).toEqual([]);
      expect(reopened.integerTexts(edge).has(count)).toBe(false);
      // BigQuery's SAFE_CAST of '3.5' to INT64 is NULL (conversion rules); DuckDB's TRY_CAST is 4.
      const [want] = (
        await store.connection.runAndReadAll(
          `SELECT sum(CAST(${count} AS BIGINT)) FILTER (WHERE regexp_full_match(${count}, '[0-9]{1,18}')) FROM "${edge}"`,
        )
      ).getRows();
      expect(want?.[0]).toBe(12n + 7n);
      const sql = `select sum(safe_cast(h.x_count as int64)) as n from edge_logs
        cross join unnest(metadata) as m cross join unnest(m.request) as q cross join unnest(q.headers) as h`;
      const endpoint = { id: 'present-opening', name: 'present-opening', sql, maxRows: 10 };
      expect((await reopenedEngine.run(endpoint, {}, { now })).rows).toEqual([{ n: Number(want?.[0]) }]);
    } finally {
      await reopenedEngine.close();
      await writer.close();
    }
    // Nor later: no reading of the values begun before the batch lands after it.
    expect(reopened.integerTexts(edge).has(count)).toBe(false);
  });

  it("keep the copy's count of the rows as retention deletes records", async () => {
    const before = BigInt(Date.parse('2026-03-10T11:00:00Z')) * 1000n;
    expect(await store.writer.deleteBefore(edge, before, 2)).toBe(2);
    expect((await storedCopy()).counts).toBe(true);
  });
});
