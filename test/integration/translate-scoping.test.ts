import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDuckDbEngine } from '../../src/backends/duckdb/engine.js';
import type { QueryEngine } from '../../src/engines/query-engine.js';
import { isQuerygateError } from '../../src/errors.js';
import { queriesDir } from '../../src/paths.js';
import { logSources } from '../helpers/shipped-sources.js';
import { openTempStore, type TempStore } from '../helpers/temp-store.js';

// Name resolution as BigQuery does it, over a store whose schema ingestion evolved: the records
// below bring fields (request.headers, cf, spans) that the seed catalog does not know.
const now = new Date('2026-03-10T12:00:00Z');
let store: TempStore;
let engine: QueryEngine;
let counter = 0;

const edge = [
  {
    id: 'e1',
    timestamp: '2026-03-10T10:00:00Z',
    event_message: 'GET /rest/v1/todos',
    project: 'p1',
    metadata: {
      request: {
        path: '/rest/v1/todos',
        method: 'GET',
        headers: { x_real_ip: '192.0.2.1' },
        cf: { country: 'DE' },
      },
      response: { status_code: 200 },
      spans: [
        { name: 'a', tags: [{ k: 'x' }, { k: 'y' }] },
        { name: 'b', tags: [{ k: 'z' }] },
      ],
    },
  },
  {
    id: 'e2',
    timestamp: '2026-03-10T10:01:00Z',
    event_message: 'POST /auth/v1/token',
    project: 'p1',
    metadata: {
      request: { path: '/auth/v1/token', method: 'POST', cf: { country: 'US' } },
      response: { status_code: 500 },
    },
  },
  {
    id: 'e3',
    timestamp: '2026-03-10T10:02:00Z',
    event_message: 'GET /rest/v1/todos',
    project: 'p2',
    metadata: { request: { path: '/rest/v1/todos', method: 'GET' } },
  },
];

beforeAll(async () => {
  store = await openTempStore('querygate-scoping-');
  await store.writer.write('cloudflare.logs.prod', edge);
  await store.writer.write('gotrue.logs.prod', [
    {
      id: 'a1',
      timestamp: '2026-03-10T10:00:00Z',
      event_message: 'x',
      project: 'p1',
      metadata: { project: 'p1', level: 'info' },
    },
  ]);
  await store.writer.write('postgres.logs', [
    {
      id: 'g1',
      timestamp: '2026-03-10T10:00:00Z',
      event_message: 'x',
      project: 'p1',
      metadata: { host: 'db' },
    },
  ]);
  engine = await createDuckDbEngine({
    database: store.db,
    sources: logSources,
    queries: [],
    queriesDir,
    timeoutMs: 10_000,
  });
});

afterAll(async () => {
  await engine?.close();
  await store?.close();
});

async function rows(sql: string) {
  counter += 1;
  const name = `scoping-${counter}`;
  return (await engine.run({ id: name, name, sql, maxRows: 1000 }, {}, { now })).rows;
}

async function refusal(sql: string) {
  try {
    await rows(sql);
  } catch (error) {
    if (isQuerygateError(error)) return { code: error.code, message: error.message, details: error.details };
    throw error;
  }
  throw new Error('the query was not refused');
}

describe('BigQuery name resolution on the embedded engine', () => {
  it('takes a bare unnest(metadata) for the record of the table in scope', async () => {
    expect(
      await rows(
        'select count(*) as n from edge_logs cross join unnest(metadata) as m cross join unnest(m.response) as r where r.status_code = 200',
      ),
    ).toEqual([{ n: 1 }]);
  });

  it('resolves unqualified fields of an UNNEST value table, with or without an alias', async () => {
    expect(
      await rows(
        'select id, path from edge_logs cross join unnest(metadata) m cross join unnest(m.request) order by id',
      ),
    ).toEqual([
      { id: 'e1', path: '/rest/v1/todos' },
      { id: 'e2', path: '/auth/v1/token' },
      { id: 'e3', path: '/rest/v1/todos' },
    ]);
    expect(
      await rows(
        "select count(*) as n from edge_logs cross join unnest(metadata) as m cross join unnest(m.request) as r where path like '%rest/v1%'",
      ),
    ).toEqual([{ n: 2 }]);
  });

  it('reaches objects that ingestion added (headers, cf) through UNNEST, dropping records without them', async () => {
    expect(
      await rows(`select h.x_real_ip from edge_logs
        cross join unnest(metadata) as m cross join unnest(m.request) as r cross join unnest(r.headers) as h`),
    ).toEqual([{ x_real_ip: '192.0.2.1' }]);
    expect(
      await rows(`select cf.country, count(*) as count from edge_logs
        left join unnest(metadata) as m on true left join unnest(m.request) as r on true
        left join unnest(r.cf) as cf on true group by cf.country order by count desc, country`),
    ).toEqual([
      { country: null, count: 1 },
      { country: 'DE', count: 1 },
      { country: 'US', count: 1 },
    ]);
  });

  it('unnests arrays of records inside arrays of records, correlated at each depth', async () => {
    expect(
      await rows(`select s.name, t.k from edge_logs cross join unnest(metadata) as m
        cross join unnest(m.spans) as s cross join unnest(s.tags) as t order by s.name, t.k`),
    ).toEqual([
      { name: 'a', k: 'x' },
      { name: 'a', k: 'y' },
      { name: 'b', k: 'z' },
    ]);
    expect(
      await rows(`select id, (select count(*) from unnest(m.spans) as s cross join unnest(s.tags) as t) as tags
        from edge_logs cross join unnest(metadata) as m where id = 'e1'`),
    ).toEqual([{ id: 'e1', tags: 3 }]);
  });

  it('lets an UNNEST alias win over a column of the same name', async () => {
    expect(
      await rows('select metadata.level from auth_logs cross join unnest(metadata) as metadata'),
    ).toEqual([{ level: 'info' }]);
  });

  it('reads a table by its Logs Explorer name, qualified by that name', async () => {
    expect(await rows('select postgres_logs.id from postgres_logs')).toEqual([{ id: 'g1' }]);
  });

  it('keeps the types of CTE columns, so an object selected in a CTE unnests as an object', async () => {
    expect(
      await rows(`with e as (select id, metadata from edge_logs where project = 'p1')
        select e.id, r.method from e cross join unnest(e.metadata) as m cross join unnest(m.request) as r order by e.id`),
    ).toEqual([
      { id: 'e1', method: 'GET' },
      { id: 'e2', method: 'POST' },
    ]);
  });

  it('groups and orders by SELECT aliases and ordinals as BigQuery does', async () => {
    expect(
      await rows(`select r.path as path, r.method as method, count(*) as c from edge_logs
        cross join unnest(metadata) as m cross join unnest(m.request) as r group by path, 2 order by c desc, path`),
    ).toEqual([
      { path: '/rest/v1/todos', method: 'GET', c: 2 },
      { path: '/auth/v1/token', method: 'POST', c: 1 },
    ]);
  });

  it('names a selected UNNEST alias after the alias', async () => {
    const [row] = await rows(
      "select r from edge_logs cross join unnest(metadata) as m cross join unnest(m.response) as r where id = 'e2'",
    );
    expect(Object.keys(row ?? {})).toEqual(['r']);
  });
});

describe('refusals with the construct and its place', () => {
  it('refuses a field no record of the store has, naming it, its line and column', async () => {
    const refused = await refusal(
      // m.request is a repeated record: its element's fields (m.request.nope is BigQuery's own error).
      'select\n  m.request[safe_offset(0)].nope\nfrom edge_logs cross join unnest(metadata) as m',
    );
    expect(refused.code).toBe('UNSUPPORTED_SQL');
    expect(refused.message).toContain('no field nope in m.request');
    expect(refused.details).toMatchObject({ line: 2, column: 3 });
  });

  it('refuses a name two tables of the FROM clause have, as BigQuery does', async () => {
    const refused = await refusal('select project from auth_logs cross join unnest(metadata) as m');
    expect(refused.code).toBe('UNSUPPORTED_SQL');
    expect(refused.message).toMatch(/project is ambiguous/);
  });

  it('refuses a table that is neither a source, an alias of one, nor a CTE', async () => {
    const refused = await refusal('select count(*) from supavisor_logs');
    expect(refused).toMatchObject({ code: 'UNSUPPORTED_SQL', details: { line: 1, column: 22 } });
    expect(refused.message).toContain('supavisor_logs');
  });

  it('refuses at load a saved query whose translation DuckDB cannot bind, naming the endpoint', async () => {
    const loading = createDuckDbEngine({
      database: store.db,
      sources: logSources,
      queries: [
        {
          id: 'bad',
          name: 'reports.bad',
          sql: 'select e.id from edge_logs as e join postgres_logs as p using (no_such_column)',
          maxRows: 1,
        },
      ],
      queriesDir,
      timeoutMs: 10_000,
    });
    await expect(loading).rejects.toMatchObject({ code: 'UNSUPPORTED_SQL', message: /reports\.bad/ });
  });

  it('refuses a column that no table in scope has', async () => {
    const refused = await refusal('select nothing_here from edge_logs');
    expect(refused.code).toBe('UNSUPPORTED_SQL');
    expect(refused.message).toContain('nothing_here');
  });
});

describe('SELECT DISTINCT', () => {
  it('returns each distinct row once', async () => {
    expect(
      await rows(
        'select distinct r.method from edge_logs cross join unnest(metadata) as m cross join unnest(m.request) as r order by method',
      ),
    ).toEqual([{ method: 'GET' }, { method: 'POST' }]);
  });
});

describe('set operations', () => {
  it('orders a UNION ALL by a column name of its result', async () => {
    expect(
      await rows(
        "select t.id from edge_logs as t where t.id = 'e2' union all select p.id from postgres_logs as p order by id",
      ),
    ).toEqual([{ id: 'e2' }, { id: 'g1' }]);
  });
});

describe('comma joins', () => {
  it('unnests an array of a constant CTE joined with a comma', async () => {
    expect(
      await rows('with arr as (select [3, 1, 2] as d) select x from arr, unnest(arr.d) as x order by x'),
    ).toEqual([{ x: 1 }, { x: 2 }, { x: 3 }]);
  });

  it('takes a path from a table in FROM as an implicit UNNEST of it', async () => {
    expect(
      await rows(
        "select r.path, s.name from edge_logs as t, t.metadata as m, m.request as r join m.spans as s on true where t.id = 'e1' order by s.name",
      ),
    ).toEqual([
      { path: '/rest/v1/todos', name: 'a' },
      { path: '/rest/v1/todos', name: 'b' },
    ]);
  });

  it('takes `FROM t, UNNEST(t.metadata) AS m` as a correlated CROSS JOIN', async () => {
    expect(
      await rows(
        "select r.path from edge_logs as t, unnest(t.metadata) as m, unnest(m.request) as r where t.id = 'e2'",
      ),
    ).toEqual([{ path: '/auth/v1/token' }]);
  });
});

// A STRUCT the query builds is one object in BigQuery's result (a NULLABLE RECORD in its schema),
// wherever in the query it is built; the log sources' stored objects are repeated records.
describe('a STRUCT built inside an expression', () => {
  const built = `select id, if(r.status_code >= 500, struct(q.path as p, r.status_code as s), null) as e
    from edge_logs cross join unnest(metadata) as m cross join unnest(m.request) as q
    cross join unnest(m.response) as r where id in ('e1', 'e2') order by id`;

  it('describes it as a NULLABLE RECORD of its own fields, as BigQuery writes its schema', async () => {
    const columns = await engine.describe({
      id: 'built-describe',
      name: 'built-describe',
      sql: built,
      maxRows: 10,
    });
    expect(columns.find((column) => column.name === 'e')).toMatchObject({
      type: 'RECORD',
      mode: 'NULLABLE',
      fields: [
        { name: 'p', type: 'STRING' },
        { name: 's', type: 'INT64' },
      ],
    });
    expect(await rows(built)).toEqual([
      { id: 'e1', e: null },
      { id: 'e2', e: { p: '/auth/v1/token', s: 500 } },
    ]);
  });

  it('spreads its fields into columns with .*, its fields only, and writes TO_JSON_STRING of one inside another', async () => {
    expect(
      await rows(`with t as (select struct(1 as a, struct('x' as c) as b) as s)
        select s.*, to_json_string(s) as j from t`),
    ).toEqual([{ a: 1, b: { c: 'x' }, j: '{"a":1,"b":{"c":"x"}}' }]);
  });

  it('compares two of them field by field, and writes TO_JSON_STRING of one an IF answers', async () => {
    expect(
      await rows(`select id, struct(q.path as p) = struct('/auth/v1/token' as p) as same,
          to_json_string(if(r.status_code >= 500, struct(q.path as p, r.status_code as s), null)) as j
        from edge_logs cross join unnest(metadata) as m cross join unnest(m.request) as q
        cross join unnest(m.response) as r where id in ('e1', 'e2') order by id`),
    ).toEqual([
      { id: 'e1', same: false, j: 'null' },
      { id: 'e2', same: true, j: '{"p":"/auth/v1/token","s":500}' },
    ]);
  });

  it('names a field without a name _field_N, by its position, as BigQuery names it in a result', async () => {
    // BigQuery: `SELECT STRUCT(1, 2, 3 AS three) AS my_struct` answers
    // {"my_struct":{"_field_1":"1","_field_2":"2","three":"3"}} (tobymao/sqlglot#6729, tested
    // against BigQuery); a tuple `(a, b)` is a STRUCT of anonymous fields.
    expect(
      await rows(`select struct(1, 'x') as s, (2, 'y') as t, struct(3, 4 as four) as m,
        (1, 'x') = (1, 'x') as same, (1, 'x') in ((2, 'y'), (1, 'x')) as found`),
    ).toEqual([
      {
        s: { _field_1: 1, _field_2: 'x' },
        t: { _field_1: 2, _field_2: 'y' },
        m: { _field_1: 3, four: 4 },
        same: true,
        found: true,
      },
    ]);
  });

  it("refuses FORMAT %t and CAST of a STRUCT, whose text would be neither BigQuery's nor free of the mark", async () => {
    expect(await refusal("select format('%t', if(true, struct(1 as a), null)) as t")).toMatchObject({
      message: expect.stringContaining('FORMAT %t of a STRUCT'),
    });
    // BigQuery: "Invalid cast from STRUCT<a INT64> to STRING" (conversion rules: no STRUCT casts to a scalar).
    expect(
      await refusal('select cast(m as string) as t from edge_logs cross join unnest(metadata) as m'),
    ).toMatchObject({
      message: expect.stringContaining('CAST of a STRUCT to STRING'),
    });
  });

  it('refuses a field named $object, the name its mark takes', async () => {
    expect(await refusal('select struct(1 as `$object`) as s')).toMatchObject({
      message: expect.stringContaining('a STRUCT field named $object'),
    });
    expect(await refusal('select 1 as `$object`')).toMatchObject({
      message: expect.stringContaining('a column named $object'),
    });
  });
});

// An element of an array (or of a repeated record) is a STRUCT in BigQuery, answered as one
// object wherever the query takes it whole, and its fields read through whatever expression
// passes it on. The expected values are the `edge` records above.
describe('an element taken whole', () => {
  it('answers an element of a stored array of records as an object, its own arrays still arrays', async () => {
    const spans = [
      { name: 'a', tags: [{ k: 'x' }, { k: 'y' }] },
      { name: 'b', tags: [{ k: 'z' }] },
    ];
    expect(
      await rows(`select s from edge_logs cross join unnest(metadata) as m cross join unnest(m.spans) as s
        where id = 'e1' order by s.name`),
    ).toEqual(spans.map((s) => ({ s })));
    expect(
      await rows(
        `select m.spans[offset(1)] as s from edge_logs cross join unnest(metadata) as m where id = 'e1'`,
      ),
    ).toEqual([{ s: spans[1] }]);
  });

  it('answers a range variable taken whole as its row, one object whose stored records are arrays', async () => {
    // BigQuery's query syntax, range variables: `SELECT t FROM ... AS t` is a column of STRUCTs.
    expect(await rows("select t from (select 1 as a, 'x' as b) as t")).toEqual([{ t: { a: 1, b: 'x' } }]);
    expect(
      await rows(`with x as (select id, m.response from edge_logs cross join unnest(metadata) as m where id = 'e2')
        select x from x`),
      // The seed catalog's fields beside the record's own (origin_time) are NULL: those given are compared.
    ).toMatchObject([{ x: { id: 'e2', response: [{ status_code: 500 }] } }]);
  });

  it('reads the fields and records of one passed through IF, ANY_VALUE or a built STRUCT', async () => {
    expect(
      await rows(`select if(true, m, null).request[offset(0)].path as path,
          struct(m as whole).whole.response[offset(0)].status_code as status
        from edge_logs cross join unnest(metadata) as m where id = 'e2'`),
    ).toEqual([{ path: '/auth/v1/token', status: 500 }]);
    expect(
      await rows(`select any_value(m).request[safe_offset(0)].path as path
        from edge_logs cross join unnest(metadata) as m where id = 'e2'`),
    ).toEqual([{ path: '/auth/v1/token' }]);
  });
});
