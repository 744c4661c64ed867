import { DuckDBInstance } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import { authRecords, edgeRecords, project, supabaseNow } from '../fixtures/supabase-fixture.js';
import { studioToken, supabaseServiceDuringFile } from '../helpers/supabase-service.js';

/**
 * Caller SQL that BigQuery (and so Logflare) runs, sent through the Logs Explorer's endpoint as
 * self-hosted Studio forwards it (GET /api/endpoints/query/logs.all?project=default&sql=...), on
 * `serve --queries supabase` with the fixture's edge, relay and auth records ingested over HTTP.
 * Expected rows are BigQuery's documented results or computed from the fixture records.
 */

const service = supabaseServiceDuringFile();

interface Answer {
  readonly status: number;
  readonly body: { result?: Record<string, unknown>[]; error?: { code: string; message: string } };
}

async function logsAll(sql: string): Promise<Answer> {
  const { status, body } = await service().request('GET', '/api/endpoints/query/logs.all', {
    apiKey: studioToken,
    params: { project, sql },
  });
  return { status, body: body as Answer['body'] };
}

describe('SQL that reads none of the endpoint tables', () => {
  it('answers a constant SELECT with its row, as BigQuery does', async () => {
    expect(await logsAll('select 1 as x')).toEqual({ status: 200, body: { result: [{ x: 1 }] } });
  });

  it("answers FARM_FINGERPRINT on a caller's connection, which has the function the store registered", async () => {
    // Guava's FarmHashFingerprint64Test: Fingerprint64('test') = 8581389452482819506.
    const { status, body } = await logsAll("select cast(farm_fingerprint('test') as string) as f");
    expect({ status, body }).toEqual({ status: 200, body: { result: [{ f: '8581389452482819506' }] } });
  });

  it('answers CURRENT_TIMESTAMP() with the time of the call', async () => {
    // The service runs at the fixture's fixed "now"; a TIMESTAMP is microseconds on Logflare's wire.
    expect(await logsAll('select current_timestamp() as now')).toEqual({
      status: 200,
      body: { result: [{ now: supabaseNow.getTime() * 1000 }] },
    });
  });

  it("answers a caller's typed array of STRUCTs, which the parser reads only rewritten", async () => {
    // The UNNEST docs' example: ARRAY<STRUCT<x INT64, y STRING>>[(1, 'foo'), (3, 'bar')].
    const elements = "unnest(ARRAY<STRUCT<x INT64, y STRING>>[(1, 'foo'), (3, 'bar')])";
    const answer = await logsAll(`select e.x, e.y from ${elements} as e order by e.x`);
    expect(answer.status).toBe(200);
    expect(answer.body.result).toEqual([
      { x: 1, y: 'foo' },
      { x: 3, y: 'bar' },
    ]);
  });

  it("answers a caller's own WITH under a set operation", async () => {
    // UNION ALL has no order of its own: compared as a set of rows.
    const { status, body } = await logsAll('with t as (select 1 as a) select a from t union all select 2');
    expect(status).toBe(200);
    expect(body.result).toHaveLength(2);
    expect(body.result).toEqual(expect.arrayContaining([{ a: 1 }, { a: 2 }]));
  });
});

// BigQuery's escapes in quoted strings (lexical structure, "Escape sequences for string and bytes
// literals"): \x, \u, \U and three octal digits are characters, \v the vertical tab; any other
// backslash is "Illegal escape sequence". The parser alone dropped such backslashes: `'\d'` ran
// as `d` and `'\x41'` as `x41`.
describe('escape sequences in string literals, as BigQuery reads them', () => {
  it("reads \\x41, \\101, \\u00e9 and \\v as BigQuery does, and a raw string's backslash as itself", async () => {
    const { status, body } = await logsAll(String.raw`select 'a\x41\101\u00e9\v' as s, r'\d' as raw`);
    expect(status).toBe(200);
    expect(body.result).toEqual([{ s: 'aAAé\v', raw: '\\d' }]);
  });

  it('answers two texts that differ only in an escape apart, even at once', async () => {
    const [escaped, plain] = await Promise.all([
      logsAll(String.raw`select 'a\x41' as s`),
      logsAll(`select 'ax41' as s`),
    ]);
    expect([escaped.body.result, plain.body.result]).toEqual([[{ s: 'aA' }], [{ s: 'ax41' }]]);
  });

  it("refuses the docs' regexp_contains(event_message, 'hello world\\.') with 400 naming the escape", async () => {
    // Source: supabase/supabase apps/docs/content/guides/telemetry/advanced-log-filtering.mdx at
    // 2b637a8, "Escaping reserved characters"; BigQuery refuses the literal before any row is read.
    const { status, body } = await logsAll(
      String.raw`select count(*) as n from postgres_logs where regexp_contains(event_message, 'hello world\.')`,
    );
    expect(status).toBe(400);
    expect(body.error?.code).toBe('SANDBOX_INVALID_SQL');
    expect(body.error?.message).toContain(String.raw`Illegal escape sequence: \.`);
  });
});

// Logflare's documented way to read nested fields without UNNEST: `metadata` and every object in
// it are arrays of records on its BigQuery schema, read by subscript and counted by ARRAY_LENGTH
// (`SELECT ... metadata[OFFSET(0)].function_id ... FROM function_logs`, as scripts calling
// Supabase's logs.all write it). Expected values from the fixture's records.
describe('repeated records read by subscript', () => {
  const newestEdge = [...edgeRecords]
    .filter((r) => r.project === project)
    .sort((a, b) => b.ms - a.ms || (a.id < b.id ? -1 : 1))
    .slice(0, 5);

  it('reads metadata[OFFSET(0)].request[OFFSET(0)].path and the ORDINAL and SAFE_ forms of it', async () => {
    const { status, body } = await logsAll(`select id, metadata[offset(0)].request[offset(0)].path as path,
        metadata[ordinal(1)].response[ordinal(1)].status_code as status,
        metadata[safe_offset(0)].request[safe_offset(0)].method as method
      from edge_logs order by timestamp desc, id limit 5`);
    expect(status).toBe(200);
    expect(body.result).toEqual(
      newestEdge.map((r) => ({ id: r.id, path: r.path, status: r.status, method: 'GET' })),
    );
  });

  it('answers NULL for metadata[SAFE_OFFSET(3)] and counts metadata as one record with ARRAY_LENGTH', async () => {
    const { status, body } = await logsAll(`select id, metadata[safe_offset(3)] is null as missing,
        metadata[safe_ordinal(2)].request[safe_offset(0)].path as path, array_length(metadata) as n,
        array_length(metadata[offset(0)].request) as requests
      from edge_logs order by timestamp desc, id limit 5`);
    expect(status).toBe(200);
    expect(body.result).toEqual(
      newestEdge.map((r) => ({ id: r.id, missing: true, path: null, n: 1, requests: 1 })),
    );
  });

  /**
   * The oracle: plain DuckDB over the newest records as Logflare's BigQuery schema holds them,
   * every object an array of records, each element read by list index and written by to_json.
   */
  async function elementsAsBigQueryHoldsThem() {
    const oracle = await (await DuckDBInstance.create(':memory:')).connect();
    try {
      const laidOut = newestEdge.map((r) => ({
        id: r.id,
        metadata: [
          {
            request: [
              { method: 'GET', path: r.path, protocol: 'HTTP/1.1', headers: [{ user_agent: 'curl/8' }] },
            ],
            response: [{ status_code: r.status }],
          },
        ],
      }));
      const reader = await oracle.runAndReadAll(
        `select r.id, to_json(r.metadata[1]) as m, to_json(r.metadata[1].request[1]) as request
         from (select unnest(from_json($rows, '[{"id":"VARCHAR","metadata":[{"request":[{"method":"VARCHAR","path":"VARCHAR","protocol":"VARCHAR","headers":[{"user_agent":"VARCHAR"}]}],"response":[{"status_code":"BIGINT"}]}]}]'), max_depth := 1) as r)`,
        { rows: JSON.stringify(laidOut) },
      );
      return reader.getRowObjectsJS().map((row) => ({
        id: row.id,
        m: JSON.parse(String(row.m)),
        request: JSON.parse(String(row.request)),
      }));
    } finally {
      oracle.closeSync();
    }
  }

  it('answers an element taken whole as the STRUCT BigQuery answers, its own records still arrays', async () => {
    const { status, body } = await logsAll(`select id, metadata[offset(0)] as m,
        metadata[ordinal(1)].request[offset(0)] as request, metadata[safe_offset(1)] as none
      from edge_logs order by timestamp desc, id limit 5`);
    expect(status).toBe(200);
    // The store's schema has the fields sources.yaml declares beside the fixture's (NULL, or an
    // empty repeated record, in these rows): the fixture's are compared.
    const expected = (await elementsAsBigQueryHoldsThem()).map((row) => ({ ...row, none: null }));
    expect(body.result).toMatchObject(expected);
  });

  it("answers an UNNEST alias taken whole as that STRUCT too, as the docs' `m as metadata` selects it", async () => {
    // Source: supabase/supabase apps/docs/content/guides/telemetry/logs.mdx at 0143177, "Best
    // practices" (`select datetime(timestamp), m as metadata from edge_logs as t cross join
    // unnest(t.metadata) as m`): an element of ARRAY<STRUCT> is the STRUCT, not an array of it.
    const { status, body } = await logsAll(`select id, m, request
      from edge_logs as t cross join unnest(t.metadata) as m cross join unnest(m.request) as request
      order by timestamp desc, id limit 5`);
    expect(status).toBe(200);
    expect(body.result).toMatchObject(await elementsAsBigQueryHoldsThem());
  });

  it('reads the fields of an element a CTE or subquery answered whole, as of any STRUCT', async () => {
    const { status, body } = await logsAll(`with x as (
        select id, timestamp, m, metadata[offset(0)] as first from edge_logs cross join unnest(metadata) as m)
      select id, x.m.request[offset(0)].path as path, s.status_code
      from x cross join unnest(x.first.response) as s order by timestamp desc, id limit 5`);
    expect(status).toBe(200);
    expect(body.result).toEqual(newestEdge.map((r) => ({ id: r.id, path: r.path, status_code: r.status })));
  });

  // In BigQuery metadata is ARRAY<STRUCT<...>>: "Cannot access field request on a value with type
  // ARRAY<STRUCT<...>>" (operators docs, field access operator: the value must be a STRUCT);
  // Studio's queries UNNEST first.
  it.each([
    ['metadata.request', 'select metadata.request as r from edge_logs limit 1'],
    ['m.request.path', 'select m.request.path as p from edge_logs cross join unnest(metadata) as m limit 1'],
    ['the WHERE clause', 'select id from edge_logs where metadata.request is not null limit 1'],
  ])(
    'refuses a field of a repeated record read without UNNEST (%s) with 400 naming it',
    async (_where, sql) => {
      const { status, body } = await logsAll(sql);
      expect(status).toBe(400);
      expect(body.error?.message).toMatch(
        /Cannot access field (request|path) on a value with type ARRAY<STRUCT/,
      );
      expect(body.error?.message).toContain('UNNEST');
    },
  );

  it("answers 400 with BigQuery's message for metadata[OFFSET(3)]", async () => {
    const { status, body } = await logsAll('select metadata[offset(3)].request as r from edge_logs limit 1');
    expect(status).toBe(400);
    expect(body.error?.code).toBe('SANDBOX_INVALID_SQL');
    expect(body.error?.message).toContain('Array index 3 is out of bounds (overflow)');
  });

  it("answers 400 with BigQuery's message for an OFFSET past the end of a plain array", async () => {
    const { status, body } = await logsAll("select split(id, '/')[offset(3)] as part from edge_logs limit 1");
    expect(status).toBe(400);
    expect(body.error?.code).toBe('SANDBOX_INVALID_SQL');
    expect(body.error?.message).toContain('Array index 3 is out of bounds (overflow)');
  });
});

// BigQuery fails a query whose result holds an array with a NULL element ("Array cannot have a
// null element; error in writing field a"); ARRAY_AGG keeps NULLs unless IGNORE NULLS is given
// (https://cloud.google.com/bigquery/docs/reference/standard-sql/aggregate_functions#array_agg:
// "An error is raised if an array in the final query result contains a NULL element").
describe('arrays with a NULL element in the result', () => {
  it("answers 400 with BigQuery's message for ARRAY_AGG over a NULL, and the array with IGNORE NULLS", async () => {
    const refused = await logsAll('select array_agg(x) as a from unnest([1, null, 2]) as x');
    expect(refused.status).toBe(400);
    expect(refused.body.error?.code).toBe('SANDBOX_INVALID_SQL');
    expect(refused.body.error?.message).toContain('Array cannot have a null element');
    const kept = await logsAll(
      'select array_agg(x ignore nulls order by x) as a from unnest([1, null, 2]) as x',
    );
    expect(kept).toEqual({ status: 200, body: { result: [{ a: [1, 2] }] } });
  });

  it("answers GraphQL's sandboxedQuery with that error as the field's, under 200", async () => {
    const { status, body } = await service().request('POST', '/graphql', {
      apiKey: studioToken,
      body: JSON.stringify({
        query: /* GraphQL */ `{ sandboxedQuery(endpoint: "logs.all", sql: "select array_agg(x) as a from unnest([1, null]) as x", params: { project: "${project}" }) { rows } }`,
      }),
    });
    expect(status).toBe(200);
    expect(body).toMatchObject({
      data: { sandboxedQuery: null },
      errors: [
        {
          message: expect.stringContaining('Array cannot have a null element'),
          extensions: { code: 'SANDBOX_INVALID_SQL' },
        },
      ],
    });
  });

  it('answers an array with a NULL element used inside the query, as BigQuery only refuses it in the result', async () => {
    const { status, body } = await logsAll(
      'select array_length(array_agg(x)) as n from unnest([1, null, 2]) as x',
    );
    expect({ status, body }).toEqual({ status: 200, body: { result: [{ n: 3 }] } });
  });
});

// BigQuery's `/`, DIV and MOD fail on a zero divisor ("division by zero", operators and
// mathematical functions docs), whatever the type; SAFE_DIVIDE answers NULL and IEEE_DIVIDE the
// IEEE 754 value. DuckDB answers NULL for all three.
// A row is an object keyed by column name: of two columns of one name one would be lost. BigQuery
// refuses such a result where each column must have a name of its own ("Duplicate column names in
// the result are not supported. Found duplicate(s): ..."), names compared ignoring case.
describe('two result columns of one name', () => {
  it("answers 400 with BigQuery's message, never one of the columns alone", async () => {
    const refused = await logsAll('select 1 as a, 2 as A, 3 as b');
    expect(refused.status).toBe(400);
    expect(refused.body.error?.code).toBe('SANDBOX_INVALID_SQL');
    expect(refused.body.error?.message).toContain(
      'Duplicate column names in the result are not supported. Found duplicate(s): A',
    );
  });
});

describe('division by zero', () => {
  it.each([
    ['an INT64 column', 'select 1 / b as r from unnest([2, 0]) as b'],
    ['a FLOAT64 column', 'select 1.5 / b as r from unnest([2.0, 0.0]) as b'],
    ['a literal zero', 'select 1 / 0 as r'],
    ['DIV', 'select div(7, b) as d from unnest([0]) as b'],
    ['MOD', 'select mod(7, b) as m from unnest([0]) as b'],
  ])("answers 400 with BigQuery's error for %s", async (_what, sql) => {
    const { status, body } = await logsAll(sql);
    expect({ status, body }).toEqual({
      status: 400,
      body: { error: { code: 'SANDBOX_INVALID_SQL', message: 'sql does not run: division by zero' } },
    });
  });

  it("answers a caller's text of DuckDB's words for an invalidated store as its own 400, and the store stays open", async () => {
    // Before, either call closed and reopened the store: every call answered 503 meanwhile.
    for (const sql of [
      "select error('FATAL Error: Failed: database has been invalidated') as e",
      "select cast('Invalid Input Error: Failed: database has been invalidated' as int64) as e",
    ]) {
      const { status, body } = await logsAll(sql);
      expect({ status, code: body.error?.code }).toEqual({ status: 400, code: 'SANDBOX_INVALID_SQL' });
      expect(await logsAll('select 1 as x')).toEqual({ status: 200, body: { result: [{ x: 1 }] } });
    }
  });

  it("answers the caller's own ERROR() as 400 naming sql, with the caller's message alone", async () => {
    // debugging_functions.md: SELECT ERROR('Show this error message') fails with that message.
    const { status, body } = await logsAll("select error('Show this error message') as e");
    expect({ status, body }).toEqual({
      status: 400,
      body: { error: { code: 'SANDBOX_INVALID_SQL', message: 'sql does not run: Show this error message' } },
    });
  });

  it('answers SAFE_DIVIDE as NULL and IEEE_DIVIDE as Infinity, and divides by a nonzero value', async () => {
    const { status, body } = await logsAll(
      'select safe_divide(1, b) as s, ieee_divide(1, b) as i, 3 / (b + 2) as q from unnest([0]) as b',
    );
    expect({ status, body }).toEqual({ status: 200, body: { result: [{ s: null, i: 'Infinity', q: 1.5 }] } });
  });
});

// A STRUCT the query builds is one value, which BigQuery answers as one object (Logflare's
// endpoints too: a non-repeated RECORD is one map); only the log sources' stored objects are
// repeated records, answered as arrays.
describe('a STRUCT the query builds', () => {
  it('answers STRUCT(...) and STRUCT<...>(...) as one object each, and reads their fields', async () => {
    const { status, body } = await logsAll(
      `select struct(1 as a, 'x' as b) as st, struct<x int64>(5) as typed,
        struct(1 as a).a as field, struct(struct(3 as c) as inner_st).inner_st.c as deep`,
    );
    expect({ status, body }).toEqual({
      status: 200,
      body: { result: [{ st: { a: 1, b: 'x' }, typed: { x: 5 }, field: 1, deep: 3 }] },
    });
  });

  it('answers an array of them as an array of objects whose fields UNNEST reads', async () => {
    const { status, body } = await logsAll(
      `with t as (select array_agg(struct(n as a, n * 2 as b) order by n) as items from unnest([1, 2]) as n)
      select items, (select sum(i.b) from unnest(items) as i) as total from t`,
    );
    expect({ status, body }).toEqual({
      status: 200,
      body: {
        result: [
          {
            items: [
              { a: 1, b: 2 },
              { a: 2, b: 4 },
            ],
            total: 6,
          },
        ],
      },
    });
  });
});

// The same STRUCTs built inside an expression, read from a log source: BigQuery types the value by
// what the expression answers (conditional expressions and aggregates answer their arguments'
// supertype, https://cloud.google.com/bigquery/docs/reference/standard-sql/conditional_expressions),
// so a built STRUCT stays one object wherever it goes, and a stored record (ARRAY<STRUCT> on
// Logflare's table) stays an array. Expected values by hand from the fixture's records.
describe('a STRUCT built inside an expression, on a log source', () => {
  const newest = [...edgeRecords]
    .filter((r) => r.project === project)
    .sort((a, b) => b.ms - a.ms || (a.id < b.id ? -1 : 1));
  const joined = `edge_logs cross join unnest(metadata) as m cross join unnest(m.request) as q
    cross join unnest(m.response) as r`;

  it('answers IF, CASE and COALESCE of STRUCTs, and one inside another, as objects or null', async () => {
    const { status, body } = await logsAll(`select id,
        if(r.status_code >= 400, struct(q.path as p, r.status_code as s), null) as e,
        case when r.status_code < 400 then struct(q.method as verb) end as ok,
        coalesce(struct(struct(r.status_code as code) as inner_s), struct(struct(0 as code) as inner_s)) as outer_s
      from ${joined} order by timestamp desc, id limit 5`);
    expect(status).toBe(200);
    expect(body.result).toEqual(
      newest.slice(0, 5).map((r) => ({
        id: r.id,
        e: r.status >= 400 ? { p: r.path, s: r.status } : null,
        ok: r.status < 400 ? { verb: 'GET' } : null,
        outer_s: { inner_s: { code: r.status } },
      })),
    );
  });

  it('answers ARRAY_AGG and ANY_VALUE of STRUCTs, a scalar SELECT AS STRUCT and an UNNEST element as objects', async () => {
    const { status, body } = await logsAll(`with t as (
        select timestamp, id, q.path, r.status_code from ${joined} order by timestamp desc, id limit 3)
      select array_agg(struct(path as p, struct(status_code as code) as resp) order by timestamp desc, id) as items,
        any_value(struct(struct(1 as a) as one)) as any_s,
        (select as struct 4 as d, struct('y' as e) as inner_s) as v,
        (select array_agg(i order by o) from unnest([struct(1 as a), struct(2 as a)]) as i with offset as o) as again
      from t`);
    expect(status).toBe(200);
    expect(body.result).toEqual([
      {
        items: newest.slice(0, 3).map((r) => ({ p: r.path, resp: { code: r.status } })),
        any_s: { one: { a: 1 } },
        v: { d: 4, inner_s: { e: 'y' } },
        again: [{ a: 1 }, { a: 2 }],
      },
    ]);
  });

  it('answers a STRUCT a CTE built in an expression as an object, and reads its fields', async () => {
    const { status, body } = await logsAll(`with t as (
        select timestamp, id, if(r.status_code > 0, struct(r.status_code as s, struct(q.path as p) as at), null) as e
        from ${joined})
      select id, e, e.s, e.at.p, if(true, struct(5 as f), null).f as f
      from t order by timestamp desc, id limit 3`);
    expect(status).toBe(200);
    expect(body.result).toEqual(
      newest
        .slice(0, 3)
        .map((r) => ({ id: r.id, e: { s: r.status, at: { p: r.path } }, s: r.status, p: r.path, f: 5 })),
    );
  });

  it('answers each UNNEST element taken whole as an object, and DISTINCT and GROUP BY of STRUCTs as objects', async () => {
    const elements = await logsAll(
      'select i, i.a from unnest([struct(1 as a), struct(2 as a)]) as i with offset as o order by o',
    );
    expect(elements).toEqual({
      status: 200,
      body: {
        result: [
          { i: { a: 1 }, a: 1 },
          { i: { a: 2 }, a: 2 },
        ],
      },
    });
    const grouped = await logsAll(`select struct(r.status_code as s) as k, count(*) as n
      from ${joined} group by k`);
    expect(grouped.status).toBe(200);
    const counts = new Map<number, number>();
    for (const r of newest) counts.set(r.status, (counts.get(r.status) ?? 0) + 1);
    const byStatus = (a: { k: { s: number } }, b: { k: { s: number } }) => a.k.s - b.k.s;
    expect((grouped.body.result as { k: { s: number } }[]).sort(byStatus)).toEqual(
      [...counts].map(([s, n]) => ({ k: { s }, n })).sort(byStatus),
    );
    const distinct = await logsAll(`select distinct struct(r.status_code as s) as k from ${joined}`);
    expect((distinct.body.result as { k: { s: number } }[]).sort(byStatus)).toEqual(
      [...counts.keys()].map((s) => ({ k: { s } })).sort(byStatus),
    );
  });

  it('still answers a stored record passed through IF or ANY_VALUE as the array it is', async () => {
    const { status, body } = await logsAll(`select id, if(r.status_code > 0, m.request, null) as req,
        (select any_value(metadata) from edge_logs as e where e.id = t.id) as md
      from edge_logs as t cross join unnest(t.metadata) as m cross join unnest(m.response) as r
      order by timestamp desc, id limit 3`);
    expect(status).toBe(200);
    // The store's records have the fields sources.yaml declares beside the fixture's: those are compared.
    expect(body.result).toMatchObject(
      newest.slice(0, 3).map((r) => ({
        id: r.id,
        req: [{ method: 'GET', path: r.path, headers: [{ user_agent: 'curl/8' }] }],
        md: [{ request: [{ path: r.path }], response: [{ status_code: r.status }] }],
      })),
    );
  });
});

describe("PARSE_TIMESTAMP as Studio's auth reports write it", () => {
  it("reads GoTrue's RFC 3339 times with '%Y-%m-%dT%H:%M:%E*S%Ez' (a Z offset, milliseconds)", async () => {
    // Each auth line's `time` is its record's time as toISOString() writes it (...T12:34:56.789Z).
    const { status, body } = await logsAll(`select id,
        parse_timestamp('%Y-%m-%dT%H:%M:%E*S%Ez', json_value(event_message, '$.time')) as parsed
      from auth_logs order by timestamp desc, id limit 5`);
    expect(status).toBe(200);
    const newest = [...authRecords]
      .filter((r) => r.project === project)
      .sort((a, b) => b.ms - a.ms || (a.id < b.id ? -1 : 1))
      .slice(0, 5);
    expect(body.result).toEqual(newest.map((r) => ({ id: r.id, parsed: r.ms * 1000 })));
  });
});

// Studio's "Auth Audit Logs" template (apps/studio/components/interfaces/Settings/Logs/Logs.constants.ts,
// TEMPLATES), as test/fixtures/bigquery-corpus/11-template-auth-audit-logs.sql has it. Self-hosted
// GoTrue writes its audit events as log lines carrying `auth_event`, which Vector sends with its
// other lines to gotrue.logs.prod: auth_audit_logs is those lines.
describe('the Auth Audit Logs template', () => {
  const template = `select
  cast(timestamp as datetime) as timestamp,
  event_message, metadata
from auth_audit_logs
limit 10`;
  const audits = authRecords.filter((r) => r.project === project && r.action !== undefined);

  it("answers GoTrue's audit lines of the project, with the template's columns", async () => {
    const { status, body } = await logsAll(template);
    expect(status).toBe(200);
    const rows = body.result ?? [];
    expect(rows).toHaveLength(10);
    const byMessage = new Map(audits.map((r) => [r.event_message, r]));
    for (const row of rows) {
      expect(Object.keys(row)).toEqual(['timestamp', 'event_message', 'metadata']);
      const record = byMessage.get(row.event_message as string);
      expect(record).toBeDefined();
      // CAST(... AS DATETIME) of a UTC TIMESTAMP: its civil time, as BigQuery's JSON writes a DATETIME.
      expect(row.timestamp).toBe(record?.timestamp.replace('Z', '000'));
      expect(row.metadata).toMatchObject([
        { auth_event: [{ action: record?.action, actor_id: record?.actorId }] },
      ]);
    }
  });

  it('counts every audit line of the project and none of the other lines', async () => {
    expect(await logsAll('select count(*) as n from auth_audit_logs')).toEqual({
      status: 200,
      body: { result: [{ n: audits.length }] },
    });
  });
});
