import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { loadSqlParser } from '../../src/sql/bigquery-ast.js';
import { translateToDuckDb } from '../../src/sql/translate.js';
import { seedTableSchema } from '../../src/storage/log-tables.js';
import { createScratchEngine, type ScratchEngine } from '../helpers/scratch-engine.js';
import { logSources } from '../helpers/shipped-sources.js';

// Studio's explorer pages: `cast(timestamp as datetime) as timestamp ... order by timestamp desc
// limit n`. The translation orders by the column under the cast (DuckDB skips row groups for a
// top-N over a column only); the rows and their order must stay those of ordering by the cast.
// Expected rows: plain DuckDB SQL over the same rows, ordered by the cast itself.
let scratch: ScratchEngine;
const edge = '"cloudflare.logs.prod"';
const postgres = '"postgres.logs"';

beforeAll(async () => {
  await loadSqlParser();
  scratch = await createScratchEngine();
  // Times out of insertion order, a NULL timestamp, and a path filter that keeps some.
  await scratch.duckdb(`INSERT INTO ${edge} (id, timestamp, event_message, project, metadata) VALUES
    ('a', '2026-03-10 10:00:00', 'GET /rest/v1/a', 'p', {'request': {'path': '/rest/v1/a'}}),
    ('b', '2026-03-10 12:00:00.000001', 'GET /auth/v1/b', 'p', {'request': {'path': '/auth/v1/b'}}),
    ('c', NULL, 'GET /rest/v1/c', 'p', {'request': {'path': '/rest/v1/c'}}),
    ('d', '2026-03-10 11:00:00', 'GET /rest/v1/d', 'p', {'request': {'path': '/rest/v1/d'}}),
    ('e', '2026-03-09 23:59:59.999999', 'GET /rest/v1/e', 'p', {'request': {'path': '/rest/v1/e'}})`);
  // The same ids with the opposite order of times, to join on.
  await scratch.duckdb(`INSERT INTO ${postgres} (id, timestamp, event_message) VALUES
    ('a', '2026-03-10 09:00:00', 'a'), ('d', '2026-03-10 08:00:00', 'd'), ('e', '2026-03-10 10:00:00', 'e')`);
});

afterAll(async () => {
  await scratch?.close();
});

const ids = (rows: readonly Record<string, unknown>[]) => rows.map((row) => row.id);

describe('ORDER BY a SELECT-list cast of a timestamp', () => {
  it('answers the rows and order of sorting by the cast, descending, NULL last', async () => {
    const served = await scratch.bigquery(`select id, cast(timestamp as datetime) as timestamp from edge_logs
      cross join unnest(metadata) as m cross join unnest(m.request) as r
      where r.path like '%rest/v1%' order by timestamp desc limit 3`);
    const want = await scratch.duckdb(`select id from ${edge} where metadata.request.path like '%rest/v1%'
      order by cast(timestamp as timestamp_ns) desc nulls last limit 3`);
    expect(ids(served.rows)).toEqual(ids(want));
  });

  it('answers the rows and order of sorting by the cast, ascending, NULL first', async () => {
    const served = await scratch.bigquery(
      'select id, cast(timestamp as datetime) as t from edge_logs order by t limit 4',
    );
    const want = await scratch.duckdb(
      `select id from ${edge} order by cast(timestamp as timestamp_ns) asc nulls first limit 4`,
    );
    expect(ids(served.rows)).toEqual(ids(want));
  });

  it('sorts by the joined table the cast reads, not by a column of the same name elsewhere', async () => {
    const served = await scratch.bigquery(`select e.id as id, cast(p.timestamp as datetime) as timestamp
      from edge_logs e join postgres_logs p on p.id = e.id order by timestamp desc`);
    const want = await scratch.duckdb(
      `select e.id from ${edge} e join ${postgres} p on p.id = e.id order by p.timestamp desc`,
    );
    expect(ids(served.rows)).toEqual(ids(want));
  });

  it('orders by the column itself, which DuckDB can take row groups newest first for', () => {
    const tables = logSources.map(seedTableSchema);
    const sql = (query: string) => translateToDuckDb(query, { tables }).sql;
    expect(
      sql('select cast(timestamp as datetime) as timestamp from edge_logs order by timestamp desc limit 9'),
    ).toMatch(/ORDER BY "edge_logs"\."timestamp" DESC/);
    // Grouped, the ORDER BY may only name the groups: the alias stays.
    expect(
      sql(
        'select cast(timestamp as datetime) as timestamp, count(*) as n from edge_logs group by timestamp order by timestamp',
      ),
    ).toMatch(/ORDER BY "timestamp"/);
  });
});
