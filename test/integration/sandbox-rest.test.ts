import { rmSync } from 'node:fs';
import { SignJWT } from 'jose';
import { afterAll, describe, expect, it } from 'vitest';
import { fixtureEvents, fixtureNow } from '../fixtures/spec-fixture.js';
import { callEveryOperation, openApiProblems } from '../helpers/openapi-check.js';
import { expectNoServerErrors, serveDuringFile } from '../helpers/querygate-server.js';
import {
  alpha,
  beta,
  edgeRecords,
  getWithJsonBody,
  newestIds,
  relayRecords,
  sandboxedId,
  sandboxedPath,
  sandboxedQueriesDir,
} from '../helpers/sandboxed-queries.js';

// A sandboxed endpoint on the embedded engine, called as Logflare's clients call one: the
// caller's `sql` in the query string, a JSON POST body or a JSON GET body. Expected rows are
// computed from the fixture records.

const queries = sandboxedQueriesDir();
const tokenSecret = 'sandbox-rest-test-secret-0123456789abcdef';
afterAll(() => rmSync(queries, { recursive: true, force: true }));
const service = serveDuringFile({
  now: fixtureNow,
  events: fixtureEvents,
  environment: { QUERYGATE_QUERIES_DIR: queries, QUERYGATE_JWT_SECRET: tokenSecret },
});

interface Rows {
  readonly result: Array<Record<string, unknown>>;
}
interface Refusal {
  readonly error: { readonly code: string; readonly message: string };
}

async function call(sql: string | undefined, project: string = alpha) {
  return service().get(sandboxedPath, { project, ...(sql === undefined ? {} : { sql }) });
}

describe('a sandboxed endpoint on DuckDB', () => {
  it('runs the saved query as it is when the call has no sql', async () => {
    const response = await call(undefined);
    expect(response.status).toBe(200);
    expect((response.body as Rows).result.map((row) => row.id)).toEqual(newestIds(edgeRecords(alpha), 10));
  });

  it("answers the caller's SELECT over a saved CTE, with the saved query's parameters bound", async () => {
    for (const project of [alpha, beta]) {
      const response = await call('select count(*) as n from edge_logs', project);
      expect(response.status).toBe(200);
      expect((response.body as Rows).result).toEqual([{ n: edgeRecords(project).length }]);
    }
  });

  it('takes sql from a JSON POST body and from the JSON body of a GET, as Logflare does', async () => {
    const sql = 'select count(*) as n from function_edge_logs';
    const expected = [{ n: relayRecords(alpha).length }];
    const byPost = await service().request('POST', sandboxedPath, {
      body: JSON.stringify({ project: alpha, sql }),
    });
    expect(byPost.status).toBe(200);
    expect((byPost.body as Rows).result).toEqual(expected);
    const byGetBody = await getWithJsonBody(
      service().url,
      `/api/endpoints/query/${sandboxedId}?project=${alpha}`,
      service().apiKey,
      { sql },
    );
    expect(byGetBody.status).toBe(200);
    expect((byGetBody.body as Rows).result).toEqual(expected);
  });

  it('refuses a GET body whose sql is too long or that is no JSON object', async () => {
    const path = `${sandboxedPath}?project=${alpha}`;
    const huge = await getWithJsonBody(service().url, path, service().apiKey, { sql: 'x'.repeat(2_000_000) });
    expect(huge).toMatchObject({ status: 400, body: { error: { code: 'SANDBOX_INVALID_SQL' } } });
    const notAnObject = await getWithJsonBody(service().url, path, service().apiKey, ['select 1']);
    expect(notAnObject).toMatchObject({ status: 400, body: { error: { code: 'BAD_REQUEST' } } });
  });

  // 750 chained operators overflowed the WASM parser's stack, and every later parse in the
  // process failed with "memory access out of bounds" until a restart (found by fuzzing).
  it('refuses a chain of operators too long for the parser with 400, and parses the next call', async () => {
    const chain = (terms: number) =>
      `select count(*) as n from edge_logs where ${Array.from({ length: terms }, (_, i) => `id = 'x${i}'`).join(' or ')}`;
    const post = (sql: string) =>
      service().request('POST', sandboxedPath, { body: JSON.stringify({ project: alpha, sql }) });
    const long = await post(chain(800));
    expect(long.status).toBe(400);
    expect((long.body as Refusal).error).toMatchObject({ code: 'SANDBOX_INVALID_SQL' });
    expect((long.body as Refusal).error.message).toMatch(/operators/);
    // Just within the bound (2 operators a term): parsed and run.
    expect(await post(chain(240))).toMatchObject({ status: 200, body: { result: [{ n: 0 }] } });
    const next = await call('select count(*) as n from edge_logs');
    expect(next).toMatchObject({ status: 200, body: { result: [{ n: edgeRecords(alpha).length }] } });
  });

  // Found by fuzzing: a token pinning `sql` had REST answer the pinned query to a caller that sent
  // other SQL, and GraphQL's sandboxedQuery run the caller's SQL, the pin ignored.
  it('refuses, over REST and GraphQL, SQL other than the one a signed token pins (403)', async () => {
    const pinned = 'select count(*) as n from edge_logs';
    const token = await new SignJWT({
      endpoints: ['logs.sandboxed'],
      params: { project: alpha, sql: pinned },
    })
      .setProtectedHeader({ alg: 'HS256' })
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode(tokenSecret));
    const headers = { authorization: `Bearer ${token}` };
    const rest = (sql: string) =>
      service().request('GET', sandboxedPath, { apiKey: null, headers, params: { sql } });
    expect(await rest(pinned)).toMatchObject({
      status: 200,
      body: { result: [{ n: edgeRecords(alpha).length }] },
    });
    expect(await rest('select id from edge_logs')).toMatchObject({
      status: 403,
      body: { error: { code: 'FORBIDDEN' } },
    });
    const graphql = await service().request('POST', '/graphql', {
      apiKey: null,
      headers,
      body: JSON.stringify({
        query: '{ sandboxedQuery(endpoint: "logs.sandboxed", sql: "select id from edge_logs") { rows } }',
      }),
    });
    expect(JSON.stringify(graphql.body)).toContain("Parameter 'sql' is pinned");
  });

  it("replaces the saved ORDER BY and LIMIT with the caller's", async () => {
    const response = await call('select id from edge_logs order by timestamp asc, id limit 3');
    const expected = [...edgeRecords(alpha)]
      .sort((a, b) => a.micros - b.micros || (a.id < b.id ? -1 : 1))
      .slice(0, 3)
      .map((event) => ({ id: event.id }));
    expect((response.body as Rows).result).toEqual(expected);
  });

  it("lets the caller's own CTEs and subqueries read the saved CTEs", async () => {
    const sql = `with slow as (
      select function_id, execution_time_ms from function_edge_logs where execution_time_ms > 100
    )
    select function_id, count(*) as n
    from slow
    where function_id in (select function_id from function_edge_logs)
    group by function_id
    order by function_id`;
    const counts = new Map<string, number>();
    for (const event of relayRecords(alpha)) {
      if ((event.metadata.execution_time_ms ?? 0) > 100)
        counts.set(event.metadata.function_id, (counts.get(event.metadata.function_id) ?? 0) + 1);
    }
    const expected = [...counts]
      .sort(([a], [b]) => (a < b ? -1 : 1))
      .map(([function_id, n]) => ({ function_id, n }));
    expect(expected.length).toBeGreaterThan(0);
    const response = await call(sql);
    expect(response.status).toBe(200);
    expect((response.body as Rows).result).toEqual(expected);
  });

  it("caps the caller's result at the endpoint's maxRows", async () => {
    expect(edgeRecords(alpha).length).toBeGreaterThan(50);
    const response = await call('select id from edge_logs');
    expect((response.body as Rows).result).toHaveLength(50);
  });

  it('shares one cache entry between two spellings of one query, and none with another query', async () => {
    const before = service().resolverStats();
    await call('SELECT count(*) AS n FROM edge_logs WHERE id > "a"');
    await call('select   count(*) as n\n  from edge_logs -- a comment\n where id > "a"');
    const afterSame = service().resolverStats();
    expect(afterSame.misses - before.misses).toBe(1);
    expect(afterSame.hits - before.hits).toBe(1);
    await call('select count(*) as n from edge_logs where id > "b"');
    expect(service().resolverStats().misses - afterSame.misses).toBe(1);
  });

  it("places what the translator cannot translate in the caller's text, as UNSUPPORTED_SQL", async () => {
    const response = await call('select id,\n  soundex(event_message) as s\nfrom edge_logs');
    expect(response.status).toBe(400);
    const { error } = response.body as Refusal;
    expect(error.code).toBe('UNSUPPORTED_SQL');
    expect(error.message).toMatch(/SOUNDEX/);
    expect(error.message).toMatch(/line 2, column 3/);
  });

  // DuckDB prints the literal's double, Infinity, in json_serialize_sql's JSON, which JSON.parse
  // refused: a 500. BigQuery's own answer (an infinity or an invalid literal) is not asserted.
  it('answers a float literal beyond the range of a double without a 5xx', async () => {
    const response = await call('select count(*) as n from edge_logs where 1e309 > 0');
    expect(response.status, response.text).toBeLessThan(500);
  });

  it('answers a query the caller got wrong with a 400, never a 5xx', async () => {
    for (const sql of [
      'select no_such_column from edge_logs',
      'select cast(event_message as int64) as n from edge_logs',
      'select id from edge_logs where',
      // BigQuery: "Invalid time zone"; DuckDB: "Not implemented Error: Unknown TimeZone".
      "select timestamp('2024-01-01', 'Mars/Olympus') as t from edge_logs",
    ]) {
      const response = await call(sql);
      expect(response.status, sql).toBe(400);
    }
  });

  it.each([
    ['SANDBOX_NOT_ONE_STATEMENT', 'select id from edge_logs; select id from edge_logs'],
    ['SANDBOX_NOT_SELECT', 'delete from edge_logs where true'],
    [
      'SANDBOX_NOT_SELECT',
      'with recursive r as (select 1 as n union all select n + 1 from r) select n from r',
    ],
    ['SANDBOX_WILDCARD', 'select * from edge_logs'],
    ['SANDBOX_WILDCARD', 'select e.* from edge_logs e'],
    ['SANDBOX_TABLE_NOT_CTE', 'select id from `cloudflare.logs.prod`'],
    ['SANDBOX_TABLE_NOT_CTE', 'select id from postgres_logs'],
    ['SANDBOX_TABLE_NOT_CTE', 'select id from edge_logs where id in (select id from `postgres.logs`)'],
    ['SANDBOX_CTE_NAME_TAKEN', 'with edge_logs as (select 1 as id) select id from edge_logs'],
    ['SANDBOX_RESTRICTED_FUNCTION', 'select session_user() as u from edge_logs'],
    ['SANDBOX_RESTRICTED_FUNCTION', "select line from read_csv('/etc/passwd')"],
    ['SANDBOX_INVALID_SQL', 'select id from edge_logs where (('],
    ['BAD_PARAMETER', 'select id from edge_logs where id = @secret'],
  ])('refuses with %s: %s', async (code, sql) => {
    const response = await call(sql);
    expect(response.status).toBe(400);
    expect((response.body as Refusal).error.code).toBe(code);
  });

  it("counts the caller's select of count(*) as fine, not as a wildcard", async () => {
    const response = await call('select count(*) as n, countif(id is not null) as m from edge_logs');
    expect(response.status).toBe(200);
  });

  it("answers GraphQL's sandboxedQuery with the caller's columns and rows", async () => {
    const response = await service().request('POST', '/graphql', {
      body: JSON.stringify({
        query: /* GraphQL */ `
          query ($sql: String!) {
            sandboxedQuery(endpoint: "logs.sandboxed", sql: $sql, params: { project: "alpha-ref" }) {
              columns { name type }
              rows
            }
          }
        `,
        variables: { sql: 'select count(*) as n, max(id) as last_id from edge_logs' },
      }),
    });
    expect(response.status).toBe(200);
    const ids = edgeRecords(alpha)
      .map((event) => event.id)
      .sort();
    expect(response.body).toEqual({
      data: {
        sandboxedQuery: {
          columns: [
            { name: 'n', type: 'INT64' },
            { name: 'last_id', type: 'STRING' },
          ],
          rows: [{ n: ids.length, last_id: ids.at(-1) }],
        },
      },
    });
  });

  it("refuses a GraphQL sandboxedQuery with the sandbox's code", async () => {
    const response = await service().request('POST', '/graphql', {
      body: JSON.stringify({
        query: /* GraphQL */ `{ sandboxedQuery(endpoint: "logs.sandboxed", sql: "select * from edge_logs", params: { project: "alpha-ref" }) { rows } }`,
      }),
    });
    expect(response.status).toBe(200);
    expect(response.body).toMatchObject({
      data: { sandboxedQuery: null },
      errors: [{ extensions: { code: 'SANDBOX_WILDCARD' } }],
    });
  });

  it('answers nothing but 2xx and 4xx, and leaks no stack or path', () => {
    expectNoServerErrors(service());
  });
});

describe('the OpenAPI document of a sandboxed endpoint', () => {
  it('documents the sql parameter, is valid OpenAPI 3.1, and describes both answers', async () => {
    const document = (await service().get('/openapi.json')).body as {
      paths: Record<string, { get: { parameters: Array<{ name: string }> } }>;
    };
    expect(await openApiProblems(document)).toEqual([]);
    const sandboxed = document.paths['/api/endpoints/logs.sandboxed']?.get.parameters.map((p) => p.name);
    expect(sandboxed).toEqual(['project', 'sql']);
    const shipped = document.paths['/api/endpoints/logs.all']?.get.parameters.map((p) => p.name);
    expect(shipped).not.toContain('sql');
    // The example sql is sent with every sandboxed operation: its rows hold as the document says.
    const { problems, called } = await callEveryOperation(
      document,
      (path, params) => service().get(path, params),
      {
        project: alpha,
      },
    );
    expect(called.length).toBeGreaterThan(2);
    expect(problems).toEqual([]);
  });
});
