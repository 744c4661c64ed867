import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { translateToDuckDb } from '../../src/sql/translate.js';
import { seedTableSchema } from '../../src/storage/log-tables.js';
import { logSources } from '../helpers/shipped-sources.js';

const seedTables = logSources.map(seedTableSchema);

import { createScratchEngine, type ScratchEngine } from '../helpers/scratch-engine.js';

// Each construct the saved queries use, run on DuckDB and checked against values worked out by
// hand from the rows inserted here.
let scratch: ScratchEngine;
const now = new Date('2026-03-10T12:34:56.789Z');

beforeAll(async () => {
  scratch = await createScratchEngine();
  await scratch.duckdb(`
    INSERT INTO "deno-relay-logs" VALUES
      ('r1', TIMESTAMP '2026-03-10 12:30:00', 'ok', {project_ref: 'p1', function_id: 'f1', execution_time_ms: 10, deployment_id: 'd', request: NULL, response: {status_code: 200}}),
      ('r2', TIMESTAMP '2026-03-10 12:30:30', 'bad', {project_ref: 'p1', function_id: 'f2', execution_time_ms: 30, deployment_id: 'd', request: NULL, response: {status_code: 404}}),
      ('r3', TIMESTAMP '2026-03-10 11:00:00', 'none', {project_ref: 'p1', function_id: 'f1', execution_time_ms: 20, deployment_id: 'd', request: NULL, response: NULL}),
      ('r4', TIMESTAMP '2026-03-10 11:00:00', 'no metadata', NULL);
    INSERT INTO "cloudflare.logs.prod" VALUES
      ('c1', TIMESTAMP '2026-03-10 10:00:00', 'GET /rest', 'p1', {request: {url: 'https://p1.supabase.co/rest/v1/a', path: '/rest/v1/a', method: 'GET', host: 'h'}, response: {status_code: 200, origin_time: 5}}),
      ('c2', TIMESTAMP '2026-03-10 10:00:01', 'GET /auth', 'p1', {request: {url: 'https://p1.supabase.co/auth/v1/token', path: '/auth/v1/token', method: 'POST', host: 'h'}, response: NULL});
  `);
});

afterAll(async () => {
  await scratch.close();
});

const rows = async (sql: string, params = {}) => (await scratch.bigquery(sql, params, now)).rows;

describe('BigQuery to DuckDB translation', () => {
  it('names columns as BigQuery does: a path by its last part, an unaliased expression f0_, f1_, ...', async () => {
    // BigQuery: `SELECT x, COUNT(*)` answers the columns x and f0_; anonymous columns are numbered
    // in order among themselves, an alias or a path takes no number.
    const result = await scratch.bigquery(
      `select count(*), t.id, m.function_id, 1 + 1, max(t.id) as last_id, upper(t.id), (select 1)
       from \`deno-relay-logs\` as t cross join unnest(t.metadata) as m
       group by t.id, m.function_id order by t.id limit 1`,
      {},
      now,
    );
    expect(result.columns.map((column) => column.name)).toEqual([
      'f0_',
      'id',
      'function_id',
      'f1_',
      'last_id',
      'f2_',
      'f3_',
    ]);
    expect(result.rows).toEqual([
      { f0_: 1, id: 'r1', function_id: 'f1', f1_: 2, last_id: 'r1', f2_: 'R1', f3_: 1 },
    ]);
    // Parentheses make no node in BigQuery's parser (ZetaSQL's ASTExpression is only marked
    // `parenthesized`): Google's Log Analytics sample `SELECT distinct(http_request.remote_ip)`
    // answers a column remote_ip.
    const parenthesized = await scratch.bigquery(
      `select distinct(t.id), (m.function_id), (1 + 1)
       from \`deno-relay-logs\` as t cross join unnest(t.metadata) as m order by id limit 1`,
      {},
      now,
    );
    expect(parenthesized.columns.map((column) => column.name)).toEqual(['id', 'function_id', 'f0_']);
  });

  it('passes over a name the SELECT list gives a column itself when naming anonymous columns', async () => {
    // `SELECT 1, 2 AS f0_, 3`: f0_ is the alias's, so the anonymous columns take f1_ and f2_ and
    // all three values are answered.
    const result = await scratch.bigquery('select 1, 2 as F0_, 3', {}, now);
    expect(result.columns.map((column) => column.name)).toEqual(['f1_', 'F0_', 'f2_']);
    expect(result.rows).toEqual([{ f1_: 1, F0_: 2, f2_: 3 }]);
  });

  it('reads a field of a one-row CTE by position, dates[0] and dates[ORDINAL(2)], as BigQuery subscripts a row', async () => {
    // Logflare's usage.api-counts filters with `f0.timestamp >= dates[0]`, dates a one-row CTE.
    expect(
      await rows(`with dates as (select timestamp_sub(current_timestamp(), interval 2 hour) as start, 'x' as label)
        select t.id, dates[ordinal(2)] as label from dates, \`deno-relay-logs\` as t
        where t.timestamp >= dates[0] order by t.id`),
    ).toEqual([
      { id: 'r1', label: 'x' },
      { id: 'r2', label: 'x' },
      { id: 'r3', label: 'x' },
      { id: 'r4', label: 'x' },
    ]);
  });

  it('joins a parenthesized join, whose bare names mean its own tables, keeping unmatched left rows', async () => {
    // Studio's unified logs: `left join (edge_logs as e cross join unnest(metadata) as ...) on ...`.
    // Inside the parentheses `metadata` is e's, although t has one too; r3 (no response) and r4
    // (no metadata) drop out of t's own CROSS JOIN UNNEST; c2 (no response) matches nothing.
    expect(
      await rows(`select t.id, e.id as edge_id from \`deno-relay-logs\` as t
        cross join unnest(t.metadata) as m
        cross join unnest(m.response) as mr
        left join (\`cloudflare.logs.prod\` as e
          cross join unnest(metadata) as em
          cross join unnest(em.response) as er)
        on er.status_code = mr.status_code
        order by t.id`),
    ).toEqual([
      { id: 'r1', edge_id: 'c1' },
      { id: 'r2', edge_id: null },
    ]);
  });

  it('reads a source named with backticks and dots as its table', async () => {
    expect(await rows('select count(*) as n from `cloudflare.logs.prod`')).toEqual([{ n: 2 }]);
  });

  it('drops records without the object in CROSS JOIN UNNEST over an object', async () => {
    const result = await rows(
      'select t.id from `deno-relay-logs` as t cross join unnest(t.metadata) as m order by t.id',
    );
    expect(result.map((row) => row.id)).toEqual(['r1', 'r2', 'r3']);
  });

  it('keeps records with NULL fields in LEFT JOIN UNNEST ... ON TRUE over an object', async () => {
    const result = await rows(
      'select t.id, r.status_code from `deno-relay-logs` as t cross join unnest(t.metadata) as m left join unnest(m.response) as r on true order by t.id',
    );
    expect(result).toEqual([
      { id: 'r1', status_code: 200 },
      { id: 'r2', status_code: 404 },
      { id: 'r3', status_code: null },
    ]);
  });

  // UNNEST of a NULL array yields no rows, as of an empty one, so COALESCE(record, []) (Studio's
  // ServiceFlow.sql.ts guard) unnests the record: r3's NULL response gives the LEFT JOIN's NULL row.
  it('unnests COALESCE(record, []) and IFNULL(record, []) as the record itself', async () => {
    for (const guard of ['coalesce', 'ifnull']) {
      const result = await rows(
        `select t.id, r.status_code from \`deno-relay-logs\` as t cross join unnest(t.metadata) as m left join unnest(${guard}(m.response, [])) as r order by t.id`,
      );
      expect(result).toEqual([
        { id: 'r1', status_code: 200 },
        { id: 'r2', status_code: 404 },
        { id: 'r3', status_code: null },
      ]);
    }
  });

  // BigQuery joins an UNNEST of the row's own array without ON: LEFT JOIN keeps a row whose
  // array is empty (its element NULL), a plain JOIN drops it, as CROSS JOIN does.
  it('reads LEFT JOIN UNNEST and JOIN UNNEST without ON as BigQuery does', async () => {
    const people = "with people as (select 'Tim' as name, [5, 7] as ages union all select 'Jane', [])";
    expect(
      await rows(`${people} select name, a from people left join unnest(ages) as a order by name, a`),
    ).toEqual([
      { name: 'Jane', a: null },
      { name: 'Tim', a: 5 },
      { name: 'Tim', a: 7 },
    ]);
    expect(await rows(`${people} select name, a from people join unnest(ages) as a order by a`)).toEqual([
      { name: 'Tim', a: 5 },
      { name: 'Tim', a: 7 },
    ]);
  });

  it('keeps, with LEFT JOIN UNNEST ... ON a condition, the elements that meet it and a NULL row where none does', async () => {
    // BigQuery: a join condition on an UNNEST filters the row's elements; a LEFT join keeps a row
    // none of whose elements meets it (an empty array too) with NULL, an inner join drops it.
    const events = `with events as (
      select 1 as id, [struct('a' as key, 1 as v), struct('ga' as key, 2 as v), struct('ga' as key, 4 as v)] as params
      union all select 2, [struct('a' as key, 3 as v)]
      union all select 3, [])`;
    expect(
      await rows(
        `${events} select id, p.v from events left join unnest(params) as p on p.key = 'ga' order by id, v`,
      ),
    ).toEqual([
      { id: 1, v: 2 },
      { id: 1, v: 4 },
      { id: 2, v: null },
      { id: 3, v: null },
    ]);
    expect(
      await rows(
        `${events} select id, p.v from events join unnest(params) as p on p.key = 'ga' and id > 0 order by v`,
      ),
    ).toEqual([
      { id: 1, v: 2 },
      { id: 1, v: 4 },
    ]);
    // A condition naming the row's own columns, and one naming the offset.
    expect(
      await rows(
        `${events} select id, p.v, o from events left join unnest(params) as p with offset as o on p.v > id and o > 0 order by id, v`,
      ),
    ).toEqual([
      { id: 1, v: 2, o: 1 },
      { id: 1, v: 4, o: 2 },
      { id: 2, v: null, o: null },
      { id: 3, v: null, o: null },
    ]);
  });

  it('refuses LEFT JOIN UNNEST of a stored record with an ON condition, which a path cannot express', () => {
    expect(() =>
      translateToDuckDb(
        "select id from `deno-relay-logs` as t left join unnest(t.metadata) as m on m.function_id = 'f1'",
        { tables: seedTables },
      ),
    ).toThrow(/LEFT JOIN UNNEST of a record with an ON condition/);
  });

  it('names the fields of an ARRAY_AGG of STRUCTs unnested without an alias as columns, as BigQuery does', async () => {
    const baskets = `with t as (select 'u1' as u, 'hat' as item_name, 2 as q union all select 'u1', 'sock', 1
        union all select 'u2', 'hat', 5),
      baskets as (select u, array_agg(struct(item_name, q as quantity)) as item_list from t group by u)`;
    expect(
      await rows(
        `${baskets} select u, item_name, quantity from baskets, unnest(item_list) order by u, item_name`,
      ),
    ).toEqual([
      { u: 'u1', item_name: 'hat', quantity: 2 },
      { u: 'u1', item_name: 'sock', quantity: 1 },
      { u: 'u2', item_name: 'hat', quantity: 5 },
    ]);
    expect(
      await rows(
        `${baskets} select u, (select sum(quantity) from unnest(item_list) where item_name = 'hat') as hats from baskets order by u`,
      ),
    ).toEqual([
      { u: 'u1', hats: 2 },
      { u: 'u2', hats: 5 },
    ]);
  });

  it("reads a correlated path in a subquery's FROM (FROM e.params) as an UNNEST of the row's array", async () => {
    // BigQuery: a FROM item that is a path from a range variable in scope is UNNEST(path), in
    // first place as after a comma (GA4 queries write `SELECT value FROM e.event_params WHERE ...`).
    const events = `with events as (
      select 'a' as name, [struct('k' as key, 1 as v), struct('j' as key, 2 as v)] as params
      union all select 'b', [struct('j' as key, 3 as v)])`;
    expect(
      await rows(
        `${events} select name, (select p.v from e.params as p where p.key = 'k') as k, (select count(*) from e.params) as n from events e order by name`,
      ),
    ).toEqual([
      { name: 'a', k: 1, n: 2 },
      { name: 'b', k: null, n: 1 },
    ]);
  });

  it('groups by every SELECT item without an aggregate for GROUP BY ALL', async () => {
    // BigQuery's GROUP BY ALL: f1 ran 10 and 20 ms, f2 30 ms (r4 has no metadata: no row).
    const result = await rows(
      'select m.function_id as fn, upper(m.function_id) as up, sum(m.execution_time_ms) as total, count(*) as n from `deno-relay-logs` as t cross join unnest(t.metadata) as m group by all order by fn',
    );
    expect(result).toEqual([
      { fn: 'f1', up: 'F1', total: 30, n: 2 },
      { fn: 'f2', up: 'F2', total: 30, n: 1 },
    ]);
    expect(await rows('select count(*) as n from `deno-relay-logs` group by all')).toEqual([{ n: 4 }]);
  });

  it('lets HAVING name SELECT-list columns inside a larger condition', async () => {
    // f1 ran 10 + 20 ms, f2 30 ms.
    const result = await rows(
      "select m.function_id as fn, sum(m.execution_time_ms) as total from `deno-relay-logs` as t cross join unnest(t.metadata) as m group by fn having total >= 30 and fn != 'f2' order by fn",
    );
    expect(result).toEqual([{ fn: 'f1', total: 30 }]);
  });

  it('lets HAVING and QUALIFY over a join of two tables with a column of the same name name neither', async () => {
    // digitl.com's GA4 channel paths: t1 and t2 both have user_pseudo_id, the SELECT list names
    // t1's, and HAVING COUNT(*) uses no name at all. f1 ran twice (r1, r3), f2 once.
    const joined = `with t1 as (select m.function_id, t.id from \`deno-relay-logs\` as t cross join unnest(t.metadata) as m),
        t2 as (select m.function_id, t.id from \`deno-relay-logs\` as t cross join unnest(t.metadata) as m)
      select t1.function_id, count(*) as n from t1 join t2 on t1.function_id = t2.function_id and t1.id = t2.id
      group by t1.function_id`;
    expect(await rows(`${joined} having count(*) >= 2`)).toEqual([{ function_id: 'f1', n: 2 }]);
    expect(await rows(`${joined} qualify row_number() over (order by n) = 1`)).toEqual([
      { function_id: 'f2', n: 1 },
    ]);
  });

  it("names a set operation's STRUCT fields by the first query, matched by position", async () => {
    // The operators docs' IN example (operators.md): the second and third rows' anonymous fields
    // take the first row's names, {blue color, square shape} and {red color, round shape}.
    const items = `with Items as (
      select struct('blue' as color, 'round' as shape) as info union all
      select struct('blue', 'square') union all
      select struct('red', 'round'))`;
    expect(await rows(`${items} select * from Items`)).toEqual([
      { info: { color: 'blue', shape: 'round' } },
      { info: { color: 'blue', shape: 'square' } },
      { info: { color: 'red', shape: 'round' } },
    ]);
    // By position, not by name; through arrays and nested STRUCTs.
    expect(
      await rows(
        'with u as (select struct(1 as a, 2 as b) as s union all select struct(3 as b, 4 as a)) select s from u order by s.a',
      ),
    ).toEqual([{ s: { a: 1, b: 2 } }, { s: { a: 3, b: 4 } }]);
    expect(
      await rows(
        "select [struct(struct(1 as p) as a, 'x' as b)] as xs union all select [struct(struct(2), 'y')]",
      ),
    ).toEqual([{ xs: [{ a: { p: 1 }, b: 'x' }] }, { xs: [{ a: { p: 2 }, b: 'y' }] }]);
    // The same STRUCT on both sides is one row of a UNION DISTINCT, and none of an EXCEPT.
    expect(await rows('select struct(1 as a) as s union distinct select struct(1)')).toEqual([
      { s: { a: 1 } },
    ]);
    expect(await rows('select struct(1 as a) as s except distinct select struct(1)')).toEqual([]);
  });

  it("refuses a set operation of STRUCTs of other field counts, or of other column counts, in BigQuery's words", () => {
    // BigQuery coerces the right side's STRUCT to the left's by position, and refuses one of more or
    // fewer fields: "Column 1 in UNION ALL has incompatible types: ..." (zetasql
    // set_operation_resolver_base.cc); a side of another column count: "Queries in UNION ALL have
    // mismatched column count; query 1 has 2 columns, query 2 has 1 column" (resolver_query.cc,
    // CheckSameColumnNumber), queries numbered along a chain of one operation.
    const refusal = (sql: string) => () => translateToDuckDb(sql, { tables: seedTables });
    expect(
      refusal('select struct(1 as a, 2 as b) as s union all select struct(3 as a, 4 as b, 5 as c)'),
    ).toThrow('Column 1 in UNION ALL has incompatible types: STRUCT<a, b>, STRUCT<a, b, c>');
    expect(
      refusal(
        "select 0 as n, struct('blue' as color, 'round' as shape) as info union all select 1, struct('red')",
      ),
    ).toThrow('Column 2 in UNION ALL has incompatible types: STRUCT<color, shape>, STRUCT of 1 field');
    expect(refusal('select [struct(1 as a)] as xs union distinct select [struct(1 as a, 2 as b)]')).toThrow(
      'Column 1 in UNION DISTINCT has incompatible types: ARRAY<STRUCT<a>>, ARRAY<STRUCT<a, b>>',
    );
    // Of two tuples, whose fields have no names or types the translator knows, by their counts.
    expect(refusal('select (1, 2) as s union all select (1, 2, 3)')).toThrow(
      'Column 1 in UNION ALL has incompatible types: STRUCT of 2 fields, STRUCT of 3 fields',
    );
    expect(refusal('select 1, 2 union all select 3')).toThrow(
      'Queries in UNION ALL have mismatched column count; query 1 has 2 columns, query 2 has 1 column',
    );
    expect(refusal('select 1 union all select 2 union all select 3, 4')).toThrow(
      'Queries in UNION ALL have mismatched column count; query 1 has 1 column, query 3 has 2 columns',
    );
  });

  it("orders a set operation's rows by a field of its STRUCT column and by an expression of its columns", async () => {
    // BigQuery's ORDER BY after UNION ALL reads the result's columns, in expressions too: s.b is
    // 2 in the first row and 0 in the second, so the second comes first; -n puts 5 before 1.
    expect(
      await rows(
        "select struct(1 as a, 2 as b) as s, 'x' as t union all select struct(3, 0), 'y' order by s.b",
      ),
    ).toEqual([
      { s: { a: 3, b: 0 }, t: 'y' },
      { s: { a: 1, b: 2 }, t: 'x' },
    ]);
    expect(await rows('select 1 as n union all select 5 order by -n limit 1')).toEqual([{ n: 5 }]);
  });

  it('names the fields of STRUCT(a, t.b) after the columns, as BigQuery does', async () => {
    // r2 (12:30:30) is the latest record.
    const result = await rows(
      'select array_agg(struct(t.id, t.timestamp) order by t.timestamp desc limit 1)[offset(0)].id as last_id from `deno-relay-logs` as t',
    );
    expect(result).toEqual([{ last_id: 'r2' }]);
  });

  it('builds SELECT AS STRUCT and SELECT AS VALUE rows in ARRAY() and scalar subqueries', async () => {
    // r1 ran f1 for 10 ms, r2 f2 for 30 ms, r3 f1 for 20 ms; r4 has no metadata.
    const result = await rows(
      `select
         array(select as struct m.function_id, m.execution_time_ms as ms from \`deno-relay-logs\` as t cross join unnest(t.metadata) as m where t.id in ('r1', 'r2') order by ms) as calls,
         (select as struct max(t.id) as last, count(*) as n from \`deno-relay-logs\` as t).n as records,
         array(select as value t.id from \`deno-relay-logs\` as t where t.event_message like 'no%' order by t.id) as ids`,
    );
    expect(result).toEqual([
      {
        calls: [
          { function_id: 'f1', ms: 10 },
          { function_id: 'f2', ms: 30 },
        ],
        records: 4,
        ids: ['r3', 'r4'],
      },
    ]);
  });

  it('names the columns of a FROM subquery without an alias bare, as BigQuery lets a query', async () => {
    // The first record of each function by time: f1's is r3 (11:00), f2's r2.
    const result = await rows(
      `select * except (rn) from (
         select m.function_id as fn, t.id, row_number() over (partition by m.function_id order by t.timestamp) as rn
         from \`deno-relay-logs\` as t cross join unnest(t.metadata) as m
       ) where rn = 1 order by fn`,
    );
    expect(result).toEqual([
      { fn: 'f1', id: 'r3' },
      { fn: 'f2', id: 'r2' },
    ]);
  });

  it('drops records whose nested object is absent in a chained CROSS JOIN UNNEST', async () => {
    const result = await rows(
      'select t.id from `deno-relay-logs` as t cross join unnest(t.metadata) as m cross join unnest(m.response) as r order by t.id',
    );
    expect(result.map((row) => row.id)).toEqual(['r1', 'r2']);
  });

  it('unnests a real array into one row per element', async () => {
    expect(await rows('select x from unnest([3, 1, 2]) as x order by x')).toEqual([
      { x: 1 },
      { x: 2 },
      { x: 3 },
    ]);
  });

  it('returns 0, not NULL, for COUNTIF over no rows', async () => {
    expect(
      await rows("select countif(t.id = 'nothing') as n from `deno-relay-logs` as t where false"),
    ).toEqual([{ n: 0 }]);
  });

  it('matches REGEXP_CONTAINS anywhere in the string, not the whole string', async () => {
    expect(
      await rows(
        "select regexp_contains('https://p1.supabase.co/rest', 'p1\\\\.supabase') as hit, regexp_contains('abc', '^b') as anchored",
      ),
    ).toEqual([{ hit: true, anchored: false }]);
  });

  it('subtracts intervals with TIMESTAMP_SUB from the bound now', async () => {
    const [row] = await rows('select timestamp_sub(current_timestamp(), interval 90 minute) as t');
    expect(row?.t).toBe(Date.parse('2026-03-10T11:04:56.789Z') * 1000);
  });

  it('truncates with TIMESTAMP_TRUNC to each supported part', async () => {
    const [row] = await rows(
      'select timestamp_trunc(current_timestamp(), second) as s, timestamp_trunc(current_timestamp(), hour) as h, timestamp_trunc(current_timestamp(), day) as d',
    );
    expect(row).toEqual({
      s: Date.parse('2026-03-10T12:34:56Z') * 1000,
      h: Date.parse('2026-03-10T12:00:00Z') * 1000,
      d: Date.parse('2026-03-10T00:00:00Z') * 1000,
    });
  });

  it('honours Z and +hh:mm offsets in CAST(@param AS TIMESTAMP)', async () => {
    const [row] = await rows(
      'select cast(@a as timestamp) as a, cast(@b as timestamp) as b, cast(@c as timestamp) as c',
      {
        a: '2026-03-10T10:00:00Z',
        b: '2026-03-10T12:00:00+02:00',
        c: '2026-03-10T05:30:00-04:30',
      },
    );
    const tenUtc = Date.parse('2026-03-10T10:00:00Z') * 1000;
    expect(row).toEqual({ a: tenUtc, b: tenUtc, c: tenUtc });
  });

  it('takes the k-th of n quantiles for APPROX_QUANTILES(x, n)[OFFSET(k)]', async () => {
    // 1..100: the 95th of 100 quantiles is 95 and the minimum (offset 0) is 1.
    const [row] = await rows(
      'select approx_quantiles(x, 100)[offset(95)] as p95, approx_quantiles(x, 100)[offset(0)] as p0 from unnest(generate_array(1, 100)) as x'.replace(
        'generate_array(1, 100)',
        `[${Array.from({ length: 100 }, (_, i) => i + 1).join(', ')}]`,
      ),
    );
    expect(row).toEqual({ p95: 95, p0: 1 });
  });

  it("returns DATETIME(ts, 'UTC') as BigQuery prints a DATETIME", async () => {
    const result = await scratch.bigquery(
      "select datetime(timestamp_trunc(current_timestamp(), minute), 'UTC') as at, datetime(current_timestamp(), 'UTC') as precise",
      {},
      now,
    );
    expect(result.rows).toEqual([{ at: '2026-03-10T12:34:00', precise: '2026-03-10T12:34:56.789000' }]);
    expect(result.columns.map((column) => column.type)).toEqual(['DATETIME', 'DATETIME']);
  });

  it('reads array elements with 0-based OFFSET and 1-based ORDINAL', async () => {
    expect(
      await rows("select ['a', 'b', 'c'][offset(0)] as first, ['a', 'b', 'c'][ordinal(3)] as last"),
    ).toEqual([{ first: 'a', last: 'c' }]);
  });

  // A record under `metadata` is repeated, as in Logflare's tables: its fields are read through an
  // UNNEST alias or a subscript; BigQuery refuses `m.response.status_code` (translate-scoping.test.ts).
  it('reads struct fields through an UNNEST alias and through a subscript', async () => {
    const result = await rows(
      "select m.response[SAFE_OFFSET(0)].status_code as direct, r.status_code as via_alias from `deno-relay-logs` as t cross join unnest(t.metadata) as m cross join unnest(m.response) as r where t.id = 'r2'",
    );
    expect(result).toEqual([{ direct: 404, via_alias: 404 }]);
  });

  it('calls generate_timestamp_trunc_array with the bound now', async () => {
    const [row] = await rows("select generate_timestamp_trunc_array(2, 'minute_minute') as series");
    expect(row?.series).toEqual(
      ['12:32:00', '12:33:00', '12:34:00'].map((time) => Date.parse(`2026-03-10T${time}Z`) * 1000),
    );
  });

  it('accepts a trailing comma in the select list', async () => {
    expect(
      await rows('select t.id, t.event_message, from `cloudflare.logs.prod` as t order by t.id'),
    ).toEqual([
      { id: 'c1', event_message: 'GET /rest' },
      { id: 'c2', event_message: 'GET /auth' },
    ]);
  });

  it('accepts trailing commas in a CTE and the select over it', async () => {
    const result = await rows(
      'with counts as (select t.project, count(*) as n, from `cloudflare.logs.prod` as t group by t.project) select project, n, from counts',
    );
    expect(result).toEqual([{ project: 'p1', n: 2 }]);
  });

  it('binds @parameters as text, and NULL for an unset one', async () => {
    expect(await rows("select @a as a, coalesce(@b, 'unset') as b", { a: "it's", b: null })).toEqual([
      { a: "it's", b: 'unset' },
    ]);
  });

  it('groups by a SELECT alias before a FROM column of the same name', async () => {
    // BigQuery groups by the alias (the hour); grouping by the column would give two groups.
    const result = await rows(
      'select timestamp_trunc(t.timestamp, hour) as timestamp, count(*) as n from `cloudflare.logs.prod` as t group by timestamp',
    );
    expect(result).toEqual([{ timestamp: Date.parse('2026-03-10T10:00:00Z') * 1000, n: 2 }]);
  });

  it('returns objects as one-element arrays, as BigQuery returns repeated records', async () => {
    const [row] = await rows("select t.metadata from `cloudflare.logs.prod` as t where t.id = 'c2'");
    expect(row?.metadata).toEqual([
      {
        request: [
          { url: 'https://p1.supabase.co/auth/v1/token', path: '/auth/v1/token', method: 'POST', host: 'h' },
        ],
        response: [],
      },
    ]);
  });

  it('lists the parameters the query uses', () => {
    const { parameters } = translateToDuckDb('select @b, @a, @b from `postgres.logs`', {
      tables: seedTables,
    });
    expect(parameters).toEqual(['a', 'b']);
  });

  it.each([
    [
      'TIMESTAMP_DIFF by WEEK, which BigQuery does not define',
      'select timestamp_diff(current_timestamp(), current_timestamp(), week)',
    ],
    ['a function without a rule', "select sha512('x')"],
    ['a window function without OVER', 'select row_number() from `postgres.logs`'],
    ['RIGHT JOIN of an UNNEST', 'select 1 from `postgres.logs` as a right join unnest([1, 2]) as x on true'],
    [
      'FULL JOIN after a CROSS JOIN UNNEST over a record',
      'select 1 from `postgres.logs` as a cross join unnest(a.metadata) as m full join `postgres.logs` as b on true',
    ],
  ])('refuses %s with a message', (_what, sql) => {
    expect(() => translateToDuckDb(sql, { tables: seedTables })).toThrow(/Cannot translate to DuckDB/);
  });
});

// Rewrites made for speed: each gives the same rows as the form it replaces.
describe('speed rewrites keep the rows', () => {
  it('answers REGEXP_CONTAINS with a plain literal as the regex does, metacharacters included', async () => {
    const query = (pattern: string) =>
      `select t.id, regexp_contains(t.event_message, ${pattern}) as hit from \`cloudflare.logs.prod\` as t order by t.id`;
    // concat() makes the pattern a non-literal, which always goes to the regex engine.
    for (const literal of ["'/rest'", "'GET /'", "'GET.'", "'c2'"]) {
      expect(await rows(query(literal))).toEqual(await rows(query(`concat(${literal}, '')`)));
    }
    expect((await rows(query("'GET.'"))).map((row) => row.hit)).toEqual([true, true]);
  });

  it('replaces a comma-joined constant CTE by its expressions with the same rows as a real join', async () => {
    const body = `select t.id from %FROM% where t.timestamp > bounds.since order by t.id`;
    // now - 2:34:56.289 is 10:00:00.500: between the two edge records.
    const withBounds =
      'with bounds as (select timestamp_sub(current_timestamp(), interval 9296289 millisecond) as since) ';
    const inlined = withBounds + body.replace('%FROM%', 'bounds, `cloudflare.logs.prod` as t');
    const joined = withBounds + body.replace('%FROM%', '`cloudflare.logs.prod` as t cross join bounds');
    expect(translateToDuckDb(inlined, { tables: seedTables }).sql).not.toContain('"bounds"');
    // A caller's `select *` of another CTE (logs.all's sandbox) leaves it inlined.
    const starred = `${withBounds}, e as (${body.replace('%FROM%', 'bounds, `cloudflare.logs.prod` as t')}) select * from e`;
    expect(translateToDuckDb(starred, { tables: seedTables }).sql).not.toContain('"bounds"');
    expect(await rows(inlined)).toEqual(await rows(joined));
    expect((await rows(inlined)).map((row) => row.id)).toEqual(['c2']);
  });

  it('keeps a constant CTE joined when the query reads its columns by a bare path, deeper or through *', async () => {
    // BigQuery reads `s.xs` as the column s of t and its field xs, whether t is a real join or not.
    const struct = 'with t as (select struct([1, 2] as xs) as s) ';
    expect(await rows(`${struct}select x from t, unnest(s.xs) as x order by x`)).toEqual([
      { x: 1 },
      { x: 2 },
    ]);
    expect(await rows(`${struct}select x from t, unnest(t.s.xs) as x order by x`)).toEqual([
      { x: 1 },
      { x: 2 },
    ]);
    const json = `with t as (select json '{"items": [{"a": 1}, {"a": 2}]}' as payload) `;
    expect(
      await rows(
        `${json}select int64(i.a) as a from t, unnest(json_query_array(payload.items)) as i order by a`,
      ),
    ).toEqual([{ a: 1 }, { a: 2 }]);
    // SELECT * of a join lists the constant's columns too.
    expect(await rows('with p as (select 1 as a) select * from p, unnest([5]) as x')).toEqual([
      { a: 1, x: 5 },
    ]);
  });

  it('writes generate_timestamp_trunc_array with a literal range_step out in full, with the rows of the macro', async () => {
    const units = ['second', 'minute', 'hour', 'day'];
    for (const range of units) {
      for (const step of units) {
        const call = (rangeStep: string) =>
          `select generate_timestamp_trunc_array(3, ${rangeStep}) as series`;
        const literal = call(`'${range}_${step}'`);
        expect(translateToDuckDb(literal, { tables: seedTables }).sql).not.toContain(
          'generate_timestamp_trunc_array',
        );
        // concat() makes the argument a non-literal, which always goes to the macro.
        expect(await rows(literal)).toEqual(await rows(call(`concat('${range}_${step}', '')`)));
      }
    }
  });

  it('spreads alias.column.* and column.* of a STRUCT column into its fields', async () => {
    // query-syntax.md, "SELECT expression.*": SELECT l.location.* FROM locations l answers
    // city and state, one row a location.
    const locations = `with locations as (select struct("Seattle" as city, "Washington" as state) as location
      union all select struct("Phoenix" as city, "Arizona" as state) as location) `;
    const expected = [
      { city: 'Phoenix', state: 'Arizona' },
      { city: 'Seattle', state: 'Washington' },
    ];
    const byCity = (found: readonly Record<string, unknown>[]) =>
      [...found].sort((a, b) => String(a.city).localeCompare(String(b.city)));
    expect(byCity(await rows(`${locations}select l.location.* from locations l`))).toEqual(expected);
    expect(byCity(await rows(`${locations}select location.* from locations`))).toEqual(expected);
  });

  it('runs WITH RECURSIVE, its recursive term reading the rows so far until it adds none', async () => {
    // query-syntax.md, "Examples of allowed recursive CTEs": 1, 3, 5; with a constant CTE
    // cross joined, 1, 3, 5 each beside p = 2; by UNION DISTINCT, MOD(n + 1, 5) stops at 0..4.
    expect(
      await rows(`with recursive T1 as ((select 1 as n) union all (select n + 2 from T1 where n < 4))
        select * from T1 order by n`),
    ).toEqual([{ n: 1 }, { n: 3 }, { n: 5 }]);
    expect(
      await rows(`with recursive T0 as (select 2 as p),
        T1 as ((select 1 as n) union all (select T1.n + T0.p from T1 cross join T0 where T1.n < 4))
        select * from T1 cross join T0 order by n`),
    ).toEqual([
      { n: 1, p: 2 },
      { n: 3, p: 2 },
      { n: 5, p: 2 },
    ]);
    expect(
      await rows(`with recursive T1 as ((select 0 as n) union distinct (select mod(n + 1, 5) from T1))
        select * from T1 order by n`),
    ).toEqual([{ n: 0 }, { n: 1 }, { n: 2 }, { n: 3 }, { n: 4 }]);
  });

  it('fails a recursive CTE that has not terminated after 500 iterations, as BigQuery does', async () => {
    // query-syntax.md, "Recursive CTEs": "If recursion doesn't terminate, the query fails after
    // reaching 500 iterations"; the base term is the first, and the recursive-ctes guide's split
    // CTEs run `WHERE iteration < 500` from 1: 500 rows, the iteration that adds none uncounted.
    expect(
      await rows(`with recursive t as (select 1 as n union all select r.n + 1 from t as r where r.n < 500)
        select count(*) as c, max(n) as m from t`),
    ).toEqual([{ c: 500, m: 500 }]);
    const limit = /Recursive CTE t did not terminate within 500 iterations/;
    await expect(
      rows(
        'with recursive t as (select 1 as n union all select n + 1 from t where n < 501) select count(*) as c from t',
      ),
    ).rejects.toThrow(limit);
    await expect(
      rows('with recursive t as (select 1 as n union all select n + 1 from t) select count(*) as c from t'),
    ).rejects.toThrow(limit);
  });

  it("matches the columns of UNION ALL BY NAME by name, in the first query's order, and refuses other names", async () => {
    // query-syntax.md, "UNION": SELECT 1 AS one_digit, 10 AS two_digit UNION ALL BY NAME
    // SELECT 20 AS two_digit, 2 AS one_digit answers (1, 10) and (2, 20).
    const result = await rows(`select 1 as one_digit, 10 as two_digit
      union all by name select 20 as two_digit, 2 as one_digit order by one_digit`);
    expect(result.map((row) => Object.entries(row))).toEqual([
      [
        ['one_digit', 1],
        ['two_digit', 10],
      ],
      [
        ['one_digit', 2],
        ['two_digit', 20],
      ],
    ]);
    // BigQuery raises an error when a name is missing from one side.
    await expect(rows('select 1 as a union all by name select 2 as b')).rejects.toThrow(/BY NAME/);
  });

  it('names an unaliased field access of a computed value after its last field', async () => {
    // operators.md, "Field access operator": SELECT STRUCT(STRUCT('Yonge Street' AS street,
    // 'Canada' AS country) AS address).address.country answers the column country; a subscript
    // or other computed value stays anonymous (f0_, ...).
    const result =
      await scratch.bigquery(`select struct(struct('Yonge Street' as street, 'Canada' as country) as address).address.country,
      array_agg(struct(x as a) order by x desc limit 1)[offset(0)].a, [1][offset(0)] from unnest([1, 2]) as x`);
    expect(result.rows.map((row) => Object.entries(row))).toEqual([
      [
        ['country', 'Canada'],
        ['a', 2],
        ['f0_', 1],
      ],
    ]);
    // The name is the column's for ORDER BY too, as a path's last part is.
    expect(
      await rows(`select k, array_agg(struct(x * k as a) order by x desc limit 1)[offset(0)].a
        from unnest([1, 2]) as x, unnest([1, 2]) as k group by k order by a desc`),
    ).toEqual([
      { k: 2, a: 4 },
      { k: 1, a: 2 },
    ]);
  });

  it('drops CTEs that nothing references, directly or through another CTE', async () => {
    const sql = `with a as (select 1 as x), b as (select x from a), unused as (select * from b), also_unused as (select 2 as y)
      select x from b`;
    const { sql: duckdb } = translateToDuckDb(sql, { tables: seedTables });
    expect(duckdb).not.toContain('unused');
    expect(await rows(sql)).toEqual([{ x: 1 }]);
  });
});
