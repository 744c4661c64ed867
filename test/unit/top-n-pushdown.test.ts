import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/paths.js';
import type { TableSchema } from '../../src/sql/table-schema.js';
import { translateToDuckDb } from '../../src/sql/translate.js';

// ORDER BY ... LIMIT pushed into UNION ALL branches and before a LEFT JOIN to one row per key
// (src/sql/top-n-pushdown.ts). Expected rows come from plain DuckDB SQL over the same rows,
// written by hand as the query means it, never from the translator.

const requests: TableSchema = {
  name: 'requests',
  columns: {
    id: 'VARCHAR',
    timestamp: 'TIMESTAMP',
    metadata: { struct: { execution_id: 'VARCHAR', response: { struct: { status_code: 'BIGINT' } } } },
  },
};
const fnLogs: TableSchema = {
  name: 'fn_logs',
  columns: {
    id: 'VARCHAR',
    timestamp: 'TIMESTAMP',
    event_message: 'VARCHAR',
    metadata: { struct: { execution_id: 'VARCHAR', level: 'VARCHAR' } },
  },
};
const other: TableSchema = {
  name: 'other',
  columns: { id: 'VARCHAR', timestamp: 'TIMESTAMP', size: 'BIGINT' },
};
// A repeated record: UNNEST of it repeats the row, so a top n taken before it is no top n after.
const batches: TableSchema = {
  name: 'batches',
  columns: {
    id: 'VARCHAR',
    timestamp: 'TIMESTAMP',
    metadata: { list: { struct: { execution_id: 'VARCHAR' } } },
  },
};
const tables = [requests, fnLogs, other, batches];

// 40 requests over 13 distinct minutes (ties at every place), some without metadata, response or
// execution id; 120 function logs over 23 execution ids, some without one; 30 other rows, some
// with a NULL timestamp. Seeded by the row number only.
const seed = `
  CREATE TABLE requests AS SELECT
    'r' || lpad(i::VARCHAR, 3, '0') AS id,
    TIMESTAMP '2026-01-01' + to_minutes(i % 13) AS timestamp,
    CASE WHEN i % 11 = 0 THEN NULL ELSE struct_pack(
      execution_id := CASE WHEN i % 5 = 0 THEN NULL ELSE 'x' || (i % 17) END,
      response := CASE WHEN i % 7 = 0 THEN NULL ELSE struct_pack(status_code := 200 + i % 4) END
    ) END AS metadata
  FROM range(1, 41) AS t(i);
  CREATE TABLE fn_logs AS SELECT
    'l' || lpad(i::VARCHAR, 3, '0') AS id,
    TIMESTAMP '2026-01-01' + to_seconds(i) AS timestamp,
    'message ' || i AS event_message,
    struct_pack(execution_id := CASE WHEN i % 9 = 0 THEN NULL ELSE 'x' || (i % 23) END, level := 'info') AS metadata
  FROM range(1, 121) AS t(i);
  CREATE TABLE other AS SELECT
    'o' || lpad(i::VARCHAR, 3, '0') AS id,
    CASE WHEN i % 6 = 0 THEN NULL ELSE TIMESTAMP '2026-01-01' + to_minutes(i % 15) END AS timestamp,
    i AS size
  FROM range(1, 31) AS t(i);
  CREATE TABLE batches AS SELECT
    'b' || i AS id,
    TIMESTAMP '2026-01-01' + to_minutes(i) AS timestamp,
    [struct_pack(execution_id := 'x' || i), struct_pack(execution_id := 'y' || i)] AS metadata
  FROM range(1, 6) AS t(i);`;

// The grouped side as Studio's unified logs page writes it: one row per execution id.
const perExecution = `(
  SELECT lm.execution_id, COUNT(l.id) AS n, ARRAY_AGG(l.event_message ORDER BY l.id) AS messages
  FROM fn_logs AS l CROSS JOIN UNNEST(l.metadata) AS lm
  WHERE lm.execution_id IS NOT NULL
  GROUP BY lm.execution_id
) AS agg`;
const perExecutionPlain = `(
  SELECT l.metadata.execution_id AS execution_id, count(l.id) AS n, list(l.event_message ORDER BY l.id) AS messages
  FROM fn_logs AS l
  WHERE l.metadata IS NOT NULL AND l.metadata.execution_id IS NOT NULL
  GROUP BY 1
) AS agg`;
/** Every request the join keeps, with its group (the rows a top n picks from). */
const joinedPlain = `
  SELECT r.id, r.timestamp, r.metadata.response.status_code AS status_code, agg.n, agg.messages
  FROM requests AS r LEFT JOIN ${perExecutionPlain} ON r.metadata.execution_id = agg.execution_id
  WHERE r.metadata IS NOT NULL AND r.metadata.response IS NOT NULL`;

let db: DuckDBInstance;
let connection: DuckDBConnection;

beforeAll(async () => {
  db = await DuckDBInstance.create(':memory:', { threads: '2' });
  connection = await db.connect();
  await connection.run(`SET default_null_order = 'nulls_first_on_asc_last_on_desc'`);
  await connection.run(seed);
});

afterAll(() => {
  connection?.closeSync();
  db?.closeSync();
});

async function rows(sql: string): Promise<unknown[]> {
  return (await connection.runAndReadAll(sql)).getRowObjectsJson();
}

function translated(sql: string): string {
  return translateToDuckDb(sql, { tables }).sql;
}

const limits = (sql: string) => sql.match(/\bLIMIT\b/g)?.length ?? 0;

const functionBranch = (order: string, extra = '') => `
  SELECT r.id, r.timestamp, resp.status_code, agg.n, agg.messages
  FROM requests AS r
  CROSS JOIN UNNEST(r.metadata) AS m
  CROSS JOIN UNNEST(m.response) AS resp
  LEFT JOIN ${perExecution} ON m.execution_id = agg.execution_id
  ${extra}
  ORDER BY ${order}`;

describe('ORDER BY ... LIMIT before a LEFT JOIN to one row per key', () => {
  it('answers the rows plain DuckDB answers, the left side limited and the groups read for its keys only', async () => {
    const sql = translated(functionBranch('timestamp DESC, id DESC LIMIT 5'));
    expect(limits(sql)).toBe(2);
    expect(sql).toContain('= "r"."metadata"."execution_id"');
    expect(await rows(sql)).toEqual(
      await rows(`${joinedPlain} ORDER BY r.timestamp DESC, r.id DESC LIMIT 5`),
    );
  });

  it('answers a top n the query as written could answer when ORDER BY ties across the limit', async () => {
    const answer = (await rows(translated(functionBranch('timestamp LIMIT 7')))) as { id: string }[];
    const all = (await rows(joinedPlain)) as { id: string }[];
    const topTimes = (await rows(`SELECT r.timestamp FROM (${joinedPlain}) AS r ORDER BY 1 LIMIT 7`)).map(
      (row) => (row as { timestamp: string }).timestamp,
    );
    // Each row is the row the join makes for that request, its group whole.
    for (const row of answer) expect(all).toContainEqual(row);
    expect(answer.map((row) => (row as unknown as { timestamp: string }).timestamp).sort()).toEqual(
      topTimes.sort(),
    );
    // The limit falls inside a tie (else this test proves nothing about ties).
    const last = topTimes.at(-1);
    expect(
      all.filter((row) => (row as unknown as { timestamp: string }).timestamp === last).length,
    ).toBeGreaterThan(topTimes.filter((time) => time === last).length);
  });

  it.each([
    ['ORDER BY names a column of the grouped side', functionBranch('n DESC, id LIMIT 5')],
    ['WHERE reads the grouped side', functionBranch('timestamp DESC, id DESC LIMIT 5', 'WHERE agg.n > 2')],
    ['there is an OFFSET', functionBranch('timestamp DESC, id DESC LIMIT 5 OFFSET 3')],
  ])('is not applied when %s, and answers as plain DuckDB does', async (_, bigQuery) => {
    const sql = translated(bigQuery);
    expect(limits(sql)).toBe(1);
    const order = bigQuery.slice(bigQuery.lastIndexOf('ORDER BY'));
    const where = bigQuery.includes('agg.n > 2') ? 'AND agg.n > 2' : '';
    expect(await rows(sql)).toEqual(await rows(`${joinedPlain} ${where} ${order}`));
  });

  it.each([
    [
      'the right side has more than one row per key',
      `SELECT r.id, l.id AS log_id FROM requests AS r CROSS JOIN UNNEST(r.metadata) AS m
       LEFT JOIN fn_logs AS l ON m.execution_id = l.metadata.execution_id ORDER BY r.timestamp DESC, r.id DESC LIMIT 5`,
    ],
    [
      'the right side is grouped by more than the join key',
      `SELECT r.id, g.n FROM requests AS r CROSS JOIN UNNEST(r.metadata) AS m
       LEFT JOIN (SELECT lm.execution_id, l.id, COUNT(*) AS n FROM fn_logs AS l CROSS JOIN UNNEST(l.metadata) AS lm
                  GROUP BY lm.execution_id, l.id) AS g
       ON m.execution_id = g.execution_id ORDER BY r.timestamp DESC, r.id DESC LIMIT 5`,
    ],
    [
      'the SELECT is DISTINCT',
      `SELECT DISTINCT r.timestamp, agg.n FROM requests AS r CROSS JOIN UNNEST(r.metadata) AS m
       LEFT JOIN ${perExecution} ON m.execution_id = agg.execution_id ORDER BY timestamp DESC LIMIT 5`,
    ],
    [
      'the SELECT list has a window function',
      `SELECT r.id, ROW_NUMBER() OVER (ORDER BY r.id) AS place FROM requests AS r CROSS JOIN UNNEST(r.metadata) AS m
       LEFT JOIN ${perExecution} ON m.execution_id = agg.execution_id ORDER BY r.timestamp DESC, r.id DESC LIMIT 5`,
    ],
    [
      'the left UNNEST is of a repeated record',
      `SELECT b.id, m.execution_id, agg.n FROM batches AS b CROSS JOIN UNNEST(b.metadata) AS m
       LEFT JOIN ${perExecution} ON m.execution_id = agg.execution_id ORDER BY b.timestamp DESC, b.id DESC LIMIT 3`,
    ],
  ])('is not applied when %s', (_, bigQuery) => {
    expect(limits(translated(bigQuery))).toBe(1);
  });
});

describe('ORDER BY ... LIMIT into the branches of a UNION ALL', () => {
  const union = `WITH u AS (
      SELECT id, timestamp, 'request' AS kind FROM requests
      UNION ALL
      SELECT o.id AS id, o.timestamp AS timestamp, 'other' AS kind FROM other AS o
    )`;
  const unionPlain = `(SELECT id, timestamp, 'request' AS kind FROM requests UNION ALL SELECT id, timestamp, 'other' FROM other)`;

  it.each([
    ['DESC (NULLs last)', 'timestamp DESC, id DESC'],
    ['ASC (NULLs first)', 'timestamp, id'],
  ])('answers the rows plain DuckDB answers, ordered %s', async (_, order) => {
    const sql = translated(`${union} SELECT id, timestamp, kind FROM u ORDER BY ${order} LIMIT 6`);
    // Each branch, the CTE's union and the query.
    expect(limits(sql)).toBe(4);
    expect(await rows(sql)).toEqual(await rows(`SELECT * FROM ${unionPlain} ORDER BY ${order} LIMIT 6`));
  });

  it.each([
    ['a column each branch writes as a literal', "kind = 'other'"],
    ['columns qualified by the CTE, in an OR', "u.kind = 'request' OR u.id IN ('o005', 'o014')"],
    ['a column a branch names otherwise', "id NOT IN ('r012', 'o014') AND timestamp IS NOT NULL"],
  ])(
    'keeps the rows of a query that filters the union on %s, the WHERE taken into each branch',
    async (_, where) => {
      const sql = translated(
        `${union} SELECT id, timestamp, kind FROM u WHERE ${where} ORDER BY timestamp DESC, id LIMIT 3`,
      );
      expect(limits(sql)).toBe(4);
      expect(await rows(sql)).toEqual(
        await rows(
          `SELECT * FROM ${unionPlain} WHERE ${where.replaceAll('u.', '')} ORDER BY timestamp DESC, id LIMIT 3`,
        ),
      );
    },
  );

  it('takes a WHERE with a query parameter into each branch too', () => {
    expect(
      limits(
        translated(
          `${union} SELECT id, timestamp FROM u WHERE kind = @kind ORDER BY timestamp DESC, id LIMIT 3`,
        ),
      ),
    ).toBe(4);
  });

  it('answers the rows plain DuckDB answers when the union is the query itself', async () => {
    const sql = translated(
      `SELECT id, size FROM other UNION ALL SELECT id, NULL AS size FROM requests ORDER BY size DESC, id LIMIT 4`,
    );
    expect(limits(sql)).toBe(3);
    expect(await rows(sql)).toEqual(
      await rows(
        `SELECT * FROM (SELECT id, size FROM other UNION ALL SELECT id, NULL FROM requests) ORDER BY size DESC, id LIMIT 4`,
      ),
    );
  });

  it('answers the rows plain DuckDB answers when the union is a subquery in FROM', async () => {
    const union = 'SELECT id, timestamp FROM requests UNION ALL SELECT id, timestamp FROM other';
    const query = `SELECT id, timestamp AS seen FROM (${union}) ORDER BY seen DESC, id LIMIT 5`;
    const sql = translated(query);
    expect(limits(sql)).toBe(4);
    expect(await rows(sql)).toEqual(await rows(query));
  });

  it.each([
    [
      'the CTE is read twice',
      `${union} SELECT id FROM u WHERE id IN (SELECT id FROM u) ORDER BY timestamp LIMIT 3`,
    ],
    [
      "the WHERE names something other than the CTE's columns",
      `${union} SELECT id, timestamp FROM u WHERE u.kind.x IS NULL ORDER BY timestamp LIMIT 3`,
    ],
    ['there is an OFFSET', `${union} SELECT id, timestamp FROM u ORDER BY timestamp, id LIMIT 3 OFFSET 2`],
    [
      'the union is DISTINCT',
      'SELECT id FROM other UNION DISTINCT SELECT id FROM requests ORDER BY id LIMIT 3',
    ],
  ])('is not applied when %s', (_, bigQuery) => {
    expect(limits(translated(bigQuery))).toBe(1);
  });
});

describe("Studio's unified logs page", () => {
  // The page's sources under names of their own, filled so that the function logs' ARRAY_AGG
  // outgrows a small memory limit (300,000 logs of 400 characters over 60,000 executions).
  const pageTables: TableSchema[] = [
    {
      name: 'p_edge',
      aliases: ['edge_logs'],
      columns: { id: 'VARCHAR', timestamp: 'TIMESTAMP', metadata: edgeMetadata() },
    },
    {
      name: 'p_postgres',
      aliases: ['postgres_logs'],
      columns: {
        id: 'VARCHAR',
        timestamp: 'TIMESTAMP',
        event_message: 'VARCHAR',
        metadata: {
          struct: { parsed: { struct: { sql_state_code: 'VARCHAR', error_severity: 'VARCHAR' } } },
        },
      },
    },
    {
      name: 'p_function_edge',
      aliases: ['function_edge_logs'],
      columns: {
        id: 'VARCHAR',
        timestamp: 'TIMESTAMP',
        metadata: {
          struct: {
            execution_id: 'VARCHAR',
            request: { struct: { pathname: 'VARCHAR', method: 'VARCHAR' } },
            response: { struct: { status_code: 'BIGINT' } },
          },
        },
      },
    },
    {
      name: 'p_function',
      aliases: ['function_logs'],
      columns: {
        id: 'VARCHAR',
        timestamp: 'TIMESTAMP',
        event_message: 'VARCHAR',
        metadata: { struct: { execution_id: 'VARCHAR', level: 'VARCHAR', event_type: 'VARCHAR' } },
      },
    },
    {
      name: 'p_auth',
      aliases: ['auth_logs'],
      columns: { id: 'VARCHAR', timestamp: 'TIMESTAMP', metadata: { struct: { request_id: 'VARCHAR' } } },
    },
  ];
  const pageSeed = `
    CREATE TABLE p_edge AS SELECT 'e' || i AS id, TIMESTAMP '2026-01-01' + to_seconds(i) AS timestamp,
      struct_pack(request := struct_pack(path := CASE i % 3 WHEN 0 THEN '/rest/v1/t' WHEN 1 THEN '/storage/v1/o' ELSE '/auth/v1/u' END, method := 'GET'),
                  response := struct_pack(status_code := 200, headers := struct_pack(cf_ray := 'ray' || i))) AS metadata
    FROM range(20000) AS t(i);
    CREATE TABLE p_postgres AS SELECT 'p' || i AS id, TIMESTAMP '2026-01-01' + to_seconds(i * 2) AS timestamp, 'statement' AS event_message,
      struct_pack(parsed := struct_pack(sql_state_code := '00000', error_severity := 'LOG')) AS metadata
    FROM range(10000) AS t(i);
    CREATE TABLE p_function_edge AS SELECT 'f' || i AS id, TIMESTAMP '2026-01-01' + to_seconds(i / 3) AS timestamp,
      struct_pack(execution_id := 'x' || i, request := struct_pack(pathname := '/fn', method := 'POST'), response := struct_pack(status_code := 200)) AS metadata
    FROM range(60000) AS t(i);
    CREATE TABLE p_function AS SELECT 'l' || i AS id, TIMESTAMP '2026-01-01' + to_seconds(i / 15) AS timestamp, repeat('m', 400) || i AS event_message,
      struct_pack(execution_id := 'x' || (i % 60000), level := 'info', event_type := 'Log') AS metadata
    FROM range(300000) AS t(i);
    CREATE TABLE p_auth (id VARCHAR, timestamp TIMESTAMP, metadata STRUCT(request_id VARCHAR));`;
  const memoryLimit = '64MB';
  let dir: string;
  let small: DuckDBInstance;
  let page: DuckDBConnection;

  beforeAll(async () => {
    // On disk, as a store is: the tables' blocks are then no part of what the limit holds.
    dir = mkdtempSync(join(tmpdir(), 'querygate-top-n-'));
    small = await DuckDBInstance.create(join(dir, 'page.duckdb'), { threads: '2' });
    page = await small.connect();
    await page.run(pageSeed);
    await page.run(`SET default_null_order = 'nulls_first_on_asc_last_on_desc'`);
    await page.run(`SET memory_limit = '${memoryLimit}'`);
  });

  afterAll(() => {
    page?.closeSync();
    small?.closeSync();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  // The page's branches as plain DuckDB reads them, by log type.
  const branches: Record<string, string> = {
    postgrest: `SELECT id, timestamp, 'postgrest' AS log_type, NULL AS execution_id FROM p_edge WHERE metadata.request.path LIKE '%/rest/%'`,
    postgres: `SELECT id, timestamp, 'postgres' AS log_type, NULL AS execution_id FROM p_postgres`,
    'edge function': `SELECT id, timestamp, 'edge function' AS log_type, metadata.execution_id FROM p_function_edge`,
    storage: `SELECT id, timestamp, 'storage' AS log_type, NULL AS execution_id FROM p_edge WHERE metadata.request.path LIKE '%/storage/%'`,
  };

  it.each([
    ['as written, unfiltered', '', ['postgrest', 'postgres', 'edge function', 'storage']],
    // The filter as the newer page writes it (UnifiedLogs.queries.bq.ts): a WHERE on the CTE.
    [
      'filtered by log type, as the filter bar asks',
      "WHERE `log_type` IN ('edge function', 'postgres')",
      ['edge function', 'postgres'],
    ],
  ])(
    `answers its newest 50 rows %s, under memory_limit ${memoryLimit} where the page as written runs out of memory`,
    async (_, where, types) => {
      const bigQuery = readFileSync(
        join(packageRoot, 'test/fixtures/studio-sql/unified-logs-page.sql'),
        'utf8',
      ).replace('FROM unified_logs', `FROM unified_logs ${where}`);
      const sql = translateToDuckDb(bigQuery, { tables: pageTables }).sql;
      // The same page with OFFSET 0, which the rules leave as written: the fixture is large enough.
      const asWritten = translateToDuckDb(`${bigQuery} OFFSET 0`, { tables: pageTables }).sql;
      await expect(page.run(asWritten)).rejects.toThrow(/Out of Memory/);

      const answer = (await page.runAndReadAll(sql)).getRowObjectsJson();
      const union = types.map((type) => branches[type]).join(' UNION ALL ');
      const expected = (
        await page.runAndReadAll(`
        SELECT u.id, u.log_type, (SELECT count(*) FROM p_function AS l WHERE l.metadata.execution_id = u.execution_id) AS n
        FROM (${union}) AS u ORDER BY u.timestamp DESC, u.id DESC LIMIT 50`)
      ).getRowObjectsJson();
      expect(
        answer.map((row) => [
          row.id,
          row.log_type,
          row.log_type === 'edge function' ? String(row.log_count) : '0',
        ]),
      ).toEqual(expected.map((row) => [row.id, row.log_type, String(row.n)]));
      expect(answer.filter((row) => row.log_type === 'edge function').length).toBeGreaterThan(0);
    },
  );
});

function edgeMetadata() {
  return {
    struct: {
      request: { struct: { path: 'VARCHAR', method: 'VARCHAR' } },
      response: { struct: { status_code: 'BIGINT', headers: { struct: { cf_ray: 'VARCHAR' } } } },
    },
  } as const;
}
