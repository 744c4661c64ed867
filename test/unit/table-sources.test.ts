import { DuckDBInstance } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import { qualifyForBigQuery } from '../../src/backends/bigquery/qualify.js';
import { tableColumnsSchema } from '../../src/endpoints/table-columns.js';
import { tableSourceSchema } from '../../src/endpoints/table-source.js';
import type { TableSchema } from '../../src/sql/table-schema.js';
import { translateToDuckDb } from '../../src/sql/translate.js';
import { createWarehouseTableStatement } from '../../src/storage/warehouse-tables.js';

// Table sources: their declaration, their DuckDB columns, and how saved SQL names them.
const events: TableSchema = {
  name: 'ga4_events',
  aliases: ['p-project.analytics_1.events_*', 'analytics_1.events_*'],
  tableSuffix: { column: 'event_date' },
  columns: {
    event_date: 'VARCHAR',
    event_name: 'VARCHAR',
    event_params: { list: { struct: { key: 'VARCHAR' } } },
  },
};

async function run(statements: string[], query: string): Promise<unknown[]> {
  const instance = await DuckDBInstance.create(':memory:');
  const connection = await instance.connect();
  try {
    for (const statement of statements) await connection.run(statement);
    return (await connection.runAndReadAll(query)).getRowObjectsJson();
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

describe('declaring a table source', () => {
  it('stores every BigQuery type as a real DuckDB column, nested and repeated ones included', async () => {
    const source = tableSourceSchema.parse({
      kind: 'table',
      name: 't',
      columns: [
        { name: 's', type: 'STRING' },
        { name: 'b', type: 'BYTES' },
        { name: 'i', type: 'INTEGER', mode: 'REQUIRED' },
        { name: 'f', type: 'FLOAT' },
        { name: 'n', type: 'NUMERIC' },
        { name: 'bn', type: 'BIGNUMERIC', precision: '38', scale: '10' },
        { name: 'ok', type: 'BOOLEAN' },
        { name: 'ts', type: 'TIMESTAMP' },
        { name: 'd', type: 'DATE' },
        { name: 'dt', type: 'DATETIME' },
        { name: 'tm', type: 'TIME' },
        { name: 'j', type: 'JSON' },
        { name: 'tags', type: 'STRING', mode: 'REPEATED' },
        {
          name: 'r',
          type: 'RECORD',
          fields: [
            { name: 'deep', type: 'RECORD', mode: 'REPEATED', fields: [{ name: 'x', type: 'INT64' }] },
          ],
        },
      ],
    });
    const types = await run(
      [createWarehouseTableStatement(source)],
      `SELECT column_name, data_type FROM information_schema.columns WHERE table_name = 't' ORDER BY ordinal_position`,
    );
    expect(types.map((row) => Object.values(row as object).join(' '))).toEqual([
      's VARCHAR',
      'b BLOB',
      'i BIGINT',
      'f DOUBLE',
      'n DECIMAL(38,9)',
      'bn DECIMAL(38,10)',
      'ok BOOLEAN',
      'ts TIMESTAMP',
      'd DATE',
      'dt TIMESTAMP WITH TIME ZONE',
      'tm TIME',
      'j JSON',
      'tags VARCHAR[]',
      'r STRUCT(deep STRUCT(x BIGINT)[])',
    ]);
  });

  it('refuses a BIGNUMERIC DuckDB cannot hold exactly, and types it does not store, naming the column', () => {
    const result = tableColumnsSchema.safeParse([
      { name: 'big', type: 'BIGNUMERIC' },
      { name: 'where', type: 'GEOGRAPHY' },
      { name: 'r', type: 'RECORD' },
    ]);
    expect(result.success).toBe(false);
    const messages = result.error?.issues.map((issue) => `${issue.path.join('.')}: ${issue.message}`) ?? [];
    expect(messages).toEqual([
      expect.stringMatching(/^0\.precision: big: BIGNUMERIC holds up to 76 digits/),
      expect.stringMatching(/^1\.type: GEOGRAPHY is not a BigQuery column type/),
      '2.fields: r is a STRUCT without fields',
    ]);
  });

  it('refuses a wildcard family without the column its _TABLE_SUFFIX comes from', () => {
    const result = tableSourceSchema.safeParse({
      kind: 'table',
      name: 'e',
      warehouseName: 'analytics_1.events_*',
      columns: [{ name: 'event_date', type: 'STRING' }],
    });
    expect(result.error?.issues[0]?.message).toMatch(
      /is a wildcard family: say which column holds _TABLE_SUFFIX/,
    );
  });
});

describe('naming a table source in saved SQL', () => {
  it('reads a wildcard family by its warehouse name with _TABLE_SUFFIX as the declared column', () => {
    const { sql, tables } = translateToDuckDb(
      "SELECT _TABLE_SUFFIX AS day, count(*) AS n FROM `p-project.analytics_1.events_*` WHERE _TABLE_SUFFIX BETWEEN '20240101' AND '20240102' GROUP BY day",
      { tables: [events] },
    );
    expect(sql).toContain('"event_date" BETWEEN');
    expect(sql).toContain('FROM "ga4_events"');
    expect(tables).toEqual(['ga4_events']);
  });

  it('reads one table of the family (events_20240101) as the rows of that suffix', async () => {
    const { sql } = translateToDuckDb('SELECT event_name FROM analytics_1.events_20240101', {
      tables: [events],
    });
    const rows = await run(
      [
        'CREATE TABLE ga4_events (event_date VARCHAR, event_name VARCHAR, event_params STRUCT(key VARCHAR)[])',
        "INSERT INTO ga4_events VALUES ('20240101', 'a', []), ('20240102', 'b', [])",
      ],
      sql,
    );
    expect(rows).toEqual([{ event_name: 'a' }]);
  });

  // BigQuery: "_TABLE_SUFFIX contains the values matched by the wildcard character", so under
  // `events_2024*` the table events_20240102 has the suffix '0102'.
  // https://cloud.google.com/bigquery/docs/querying-wildcard-tables#filtering_selected_tables_using_table_suffix
  it('reads a longer prefix (events_2024*) as the tables it matches, _TABLE_SUFFIX being what the * matched', async () => {
    const fixture = [
      'CREATE TABLE ga4_events (event_date VARCHAR, event_name VARCHAR, event_params STRUCT(key VARCHAR)[])',
      "INSERT INTO ga4_events VALUES ('20231231', 'z', []), ('20240101', 'a', []), ('20240102', 'b', []), ('20250101', 'c', [])",
    ];
    const bare = translateToDuckDb(
      "SELECT _TABLE_SUFFIX AS s, event_name FROM `analytics_1.events_2024*` WHERE _TABLE_SUFFIX > '0101' ORDER BY s",
      { tables: [events] },
    );
    expect(await run(fixture, bare.sql)).toEqual([{ s: '0102', event_name: 'b' }]);
    const qualified = translateToDuckDb(
      'SELECT e._TABLE_SUFFIX AS s, count(*) AS n FROM `analytics_1.events_2024*` AS e GROUP BY s ORDER BY s',
      { tables: [events] },
    );
    expect(await run(fixture, qualified.sql)).toEqual([
      { s: '0101', n: '1' },
      { s: '0102', n: '1' },
    ]);
    // SELECT * leaves _TABLE_SUFFIX out, as over the whole family.
    const star = translateToDuckDb('SELECT * FROM `analytics_1.events_2024*` ORDER BY event_name', {
      tables: [events],
    });
    expect(await run(fixture, star.sql)).toEqual([
      { event_date: '20240101', event_name: 'a', event_params: [] },
      { event_date: '20240102', event_name: 'b', event_params: [] },
    ]);
  });

  // BigQuery reads only the tables a constant _TABLE_SUFFIX bound selects; the store filters the
  // family by the bound before an UNNEST is joined to it, the answer the same.
  it('joins UNNEST to the days a _TABLE_SUFFIX bound selects, bare, qualified or under a longer prefix', async () => {
    const fixture = [
      'CREATE TABLE ga4_events (event_date VARCHAR, event_name VARCHAR, event_params STRUCT(key VARCHAR)[])',
      `INSERT INTO ga4_events VALUES ('20231231', 'z', [{'key': 'k'}]), ('20240101', 'a', [{'key': 'k'}, {'key': 'j'}]),
        ('20240102', 'b', [{'key': 'k'}]), ('20240103', 'c', [])`,
    ];
    const bare = translateToDuckDb(
      'SELECT event_name, p.key FROM `analytics_1.events_*` AS e, UNNEST(event_params) AS p WHERE e._TABLE_SUFFIX BETWEEN @first AND @last AND _TABLE_SUFFIX IN (@first, @last) ORDER BY event_name, p.key',
      { tables: [events] },
    );
    expect(
      await run(fixture, bare.sql.replaceAll('$first', "'20240101'").replaceAll('$last', "'20240102'")),
    ).toEqual([
      { event_name: 'a', key: 'j' },
      { event_name: 'a', key: 'k' },
      { event_name: 'b', key: 'k' },
    ]);
    const qualified = translateToDuckDb(
      "SELECT e.event_name, COUNT(p.key) AS n FROM `analytics_1.events_2024*` AS e LEFT JOIN UNNEST(e.event_params) AS p WHERE e._TABLE_SUFFIX >= '0102' GROUP BY 1 ORDER BY 1",
      { tables: [events] },
    );
    expect(await run(fixture, qualified.sql)).toEqual([
      { event_name: 'b', n: '1' },
      { event_name: 'c', n: '0' },
    ]);
  });

  // BigQuery keeps a row where the WHERE is TRUE: under OR, a day either branch could keep stays
  // (a branch without a bound keeps every day); a term on REGEXP_EXTRACT(_TABLE_SUFFIX, ...) holds
  // for the intraday table of a day too. Expected rows: the fixture's, by hand.
  it('joins UNNEST to the days an OR of bounded branches or a function of _TABLE_SUFFIX selects, and to every day otherwise', async () => {
    const fixture = [
      'CREATE TABLE ga4_events (event_date VARCHAR, event_name VARCHAR, event_params STRUCT(key VARCHAR)[])',
      `INSERT INTO ga4_events VALUES ('20231231', 'z', [{'key': 'k'}]), ('20240101', 'a', [{'key': 'k'}]),
        ('20240102', 'b', [{'key': 'k'}]), ('intraday_20240102', 'i', [{'key': 'k'}]), ('20240103', 'c', [{'key': 'j'}])`,
    ];
    const ask = async (where: string) => {
      const { sql } = translateToDuckDb(
        `SELECT event_name, p.key FROM \`analytics_1.events_*\` AS e, UNNEST(event_params) AS p WHERE ${where} ORDER BY 1`,
        { tables: [events] },
      );
      const read = sql.match(
        /FROM (\(SELECT \* FROM "ga4_events" AS "e" WHERE .*?\)|"ga4_events") AS "e"/,
      )?.[1];
      return { read, rows: await run(fixture, sql.replaceAll('$day', "'20240102'")) };
    };
    const branches = await ask(
      "(event_name = 'a' AND _TABLE_SUFFIX = '20240101') OR (p.key = 'j' AND e._TABLE_SUFFIX >= @day)",
    );
    expect(branches.rows).toEqual([
      { event_name: 'a', key: 'k' },
      { event_name: 'c', key: 'j' },
    ]);
    expect(branches.read).toMatch(/WHERE \(.* OR .*\)\)$/);
    const extracted = await ask("event_name <> 'x' AND REGEXP_EXTRACT(_TABLE_SUFFIX, '[0-9]+') = @day");
    expect(extracted.rows).toEqual([
      { event_name: 'b', key: 'k' },
      { event_name: 'i', key: 'k' },
    ]);
    expect(extracted.read).toMatch(/regexp_extract/);
    const unbounded = await ask("event_name = 'z' OR (_TABLE_SUFFIX = @day AND p.key = 'k')");
    expect(unbounded.rows).toEqual([
      { event_name: 'b', key: 'k' },
      { event_name: 'z', key: 'k' },
    ]);
    expect(unbounded.read).toBe('"ga4_events"');
  });

  // A WHERE term on the table's own columns holds for every row an UNNEST join makes of a table
  // row: asked before the join it keeps the same rows. Terms on the elements stay after it.
  it('asks the WHERE terms on the table alone before UNNEST joins it, and those on the elements after', async () => {
    const fixture = [
      'CREATE TABLE ga4_events (event_date VARCHAR, event_name VARCHAR, event_params STRUCT(key VARCHAR)[])',
      `INSERT INTO ga4_events VALUES ('20240101', 'a', [{'key': 'k'}, {'key': 'j'}]), ('20240102', 'b', [{'key': 'k'}]),
        ('20240102', 'a', [{'key': 'j'}]), ('20240103', 'c', [])`,
    ];
    const { sql } = translateToDuckDb(
      `SELECT e.event_name, p.key FROM \`analytics_1.events_*\` AS e, UNNEST(event_params) AS p
       WHERE event_name IN ('a', 'c') AND (p.key = 'j' OR e.event_date = '20240101') AND e._TABLE_SUFFIX >= '20240101'
       ORDER BY 1, 2`,
      { tables: [events] },
    );
    expect(await run(fixture, sql)).toEqual([
      { event_name: 'a', key: 'j' },
      { event_name: 'a', key: 'j' },
      { event_name: 'a', key: 'k' },
    ]);
    const [, table, where] =
      sql.match(/FROM \(SELECT \* FROM "ga4_events" AS "e" WHERE (.*?)\) AS "e"[\s\S]*WHERE (.*)/) ?? [];
    expect(table).toMatch(/^"?e?"?\.?"event_name" IN \('a', 'c'\) AND .*"event_date" >= '20240101'$/);
    expect(where).toMatch(/"key" = 'j' OR .*"event_date" = '20240101'/);
    expect(where).not.toMatch(/IN \('a', 'c'\)/);
  });

  // A name that is both a range variable and a column is the range variable (names.ts resolveName):
  // `o` below is WITH OFFSET's number, not the table's column `o`, so its term waits for the join.
  // An UNNEST without an alias is named after its array, and the table's terms move before it too.
  // Expected rows: the fixture's, by hand.
  it("asks before the UNNEST joins only the WHERE terms whose names are the table's, not an UNNEST's", async () => {
    const table: TableSchema = {
      name: 'ga4_events',
      columns: { event_name: 'VARCHAR', o: 'BIGINT', event_params: { list: { struct: { key: 'VARCHAR' } } } },
    };
    const fixture = [
      'CREATE TABLE ga4_events (event_name VARCHAR, o BIGINT, event_params STRUCT(key VARCHAR)[])',
      `INSERT INTO ga4_events VALUES ('a', 0, [{'key': 'k'}, {'key': 'j'}]), ('a', 1, [{'key': 'i'}, {'key': 'h'}]),
        ('b', 0, [{'key': 'g'}, {'key': 'f'}])`,
    ];
    const ask = async (query: string) => {
      const { sql } = translateToDuckDb(query, { tables: [table] });
      const moved = sql.match(/FROM \(SELECT \* FROM "ga4_events" AS "\w+" WHERE (.*?)\) AS/)?.[1];
      return { moved, rows: await run(fixture, sql) };
    };
    const offset = await ask(
      "SELECT p.key FROM ga4_events AS e, UNNEST(event_params) AS p WITH OFFSET AS o WHERE o = 0 AND event_name = 'a' ORDER BY 1",
    );
    expect(offset.rows).toEqual([{ key: 'i' }, { key: 'k' }]);
    expect(offset.moved).toBe(`"event_name" = 'a'`);
    const unaliased = await ask(
      "SELECT key FROM ga4_events, UNNEST(event_params) WHERE event_name = 'b' AND key <> 'f' ORDER BY 1",
    );
    expect(unaliased.rows).toEqual([{ key: 'g' }]);
    expect(unaliased.moved).toBe(`"event_name" = 'b'`);
    // An UNNEST of an expression is of an array too (never a record's fields): the same.
    const computed = await ask(
      "SELECT part FROM ga4_events AS e, UNNEST(SPLIT(event_name, '-')) AS part WHERE o = 1 AND part <> 'x'",
    );
    expect(computed.rows).toEqual([{ part: 'a' }]);
    expect(computed.moved).toBe(`"o" = 1`);
  });

  // Under a WHERE, DuckDB plans a lateral join of unnest(t.a) as a dependent join that hashes every
  // row's list; a select-list unnest is one pass. The rows must stay BigQuery's (query syntax,
  // UNNEST operator): CROSS drops a row whose array is empty or NULL, LEFT keeps it with NULLs,
  // WITH OFFSET counts from 0, and each UNNEST is a cross product with what comes before it.
  // Each oracle reads the elements by index over generate_series, not by unnest.
  it("unnests a table's arrays in its select list under a WHERE, with the rows of the joins", async () => {
    const ga4: TableSchema = {
      name: 'ga4',
      columns: {
        id: 'BIGINT',
        name: 'VARCHAR',
        event_params: {
          list: {
            struct: { key: 'VARCHAR', value: { struct: { string_value: 'VARCHAR', int_value: 'BIGINT' } } },
          },
        },
        items: { list: { struct: { item_id: 'VARCHAR', cats: { list: 'VARCHAR' } } } },
      },
    };
    const fixture = [
      `CREATE TABLE ga4 (id BIGINT, name VARCHAR, event_params STRUCT(key VARCHAR, value STRUCT(string_value VARCHAR, int_value BIGINT))[],
        items STRUCT(item_id VARCHAR, cats VARCHAR[])[])`,
      `INSERT INTO ga4 VALUES
        (1, 'a', [{'key': 'a', 'value': {'string_value': 's1', 'int_value': NULL}}, {'key': 'b', 'value': {'string_value': NULL, 'int_value': 2}},
          {'key': 'c', 'value': {'string_value': 'x', 'int_value': 3}}], [{'item_id': 'i1', 'cats': ['x', 'y']}, {'item_id': 'i2', 'cats': []}]),
        (2, 'x', [{'key': 'a', 'value': {'string_value': 's2', 'int_value': 5}}], [{'item_id': 'i3', 'cats': ['z', 'w']}]),
        (3, 'b', [], NULL),
        (4, 'b', NULL, [{'item_id': 'i4', 'cats': NULL}]),
        (5, 'c', [{'key': 'b', 'value': {'string_value': NULL, 'int_value': 7}}], [{'item_id': 'i5', 'cats': ['q']}])`,
    ];
    const both = async (bigQuery: string, oracle: string) => {
      const { sql } = translateToDuckDb(bigQuery, { tables: [ga4] });
      expect(sql).not.toMatch(/JOIN/);
      expect(sql).toMatch(/FROM \(SELECT "e"\.\*, unnest\(.*"e"\."event_params".* AS "p \(element\)"/);
      expect(await run(fixture, sql)).toEqual(await run(fixture, oracle));
    };
    const param = (field: string) => `e.event_params[g]${field}`;
    await both(
      `SELECT e.id, p.key, p.value.int_value AS n, (SELECT COUNT(*) FROM UNNEST(e.event_params) AS q WHERE q.key <= p.key) AS upto
       FROM ga4 AS e, UNNEST(e.event_params) AS p WHERE p.key IN ('a', 'b') AND name <> 'x' ORDER BY 1, 2`,
      `SELECT e.id, ${param('.key')} AS key, ${param('.value.int_value')} AS n,
         (SELECT COUNT(*) FROM generate_series(1, len(e.event_params)) AS h(k) WHERE e.event_params[k].key <= ${param('.key')}) AS upto
       FROM ga4 AS e, generate_series(1, len(e.event_params)) AS s(g) WHERE ${param('.key')} IN ('a', 'b') AND name <> 'x' ORDER BY 1, 2`,
    );
    await both(
      `SELECT e.id, p.key, o FROM ga4 AS e LEFT JOIN UNNEST(e.event_params) AS p WITH OFFSET AS o
       WHERE o IS NULL OR o > 0 OR p.value.int_value = 5 ORDER BY 1, 3`,
      `SELECT * FROM (
         SELECT e.id, ${param('.key')} AS key, g - 1 AS o FROM ga4 AS e, generate_series(1, len(e.event_params)) AS s(g)
         WHERE g > 1 OR ${param('.value.int_value')} = 5
         UNION ALL SELECT id, NULL, NULL FROM ga4 WHERE coalesce(len(event_params), 0) = 0) ORDER BY 1, 3`,
    );
    await both(
      `SELECT e.id, p.key, i.item_id, c, co FROM ga4 AS e CROSS JOIN UNNEST(e.event_params) AS p
       CROSS JOIN UNNEST(e.items) AS i, UNNEST(i.cats) AS c WITH OFFSET AS co WHERE p.key <> 'c' AND c <> 'w' ORDER BY 1, 2, 3, 4`,
      `SELECT e.id, ${param('.key')} AS key, e.items[h].item_id AS item_id, e.items[h].cats[k] AS c, k - 1 AS co
       FROM ga4 AS e, generate_series(1, len(e.event_params)) AS s(g), generate_series(1, len(e.items)) AS t(h),
         generate_series(1, len(e.items[h].cats)) AS u(k)
       WHERE ${param('.key')} <> 'c' AND e.items[h].cats[k] <> 'w' ORDER BY 1, 2, 3, 4`,
    );
  });

  it('refuses _TABLE_SUFFIX on a table that is not a wildcard family', () => {
    expect(() =>
      translateToDuckDb("SELECT 1 FROM ga4_events WHERE _TABLE_SUFFIX = '20240101'", { tables: [events] }),
    ).toThrow(/no column or field named _TABLE_SUFFIX/);
  });

  it('inlines a CREATE TEMP FUNCTION on DuckDB and sends the text as written to BigQuery', async () => {
    const saved = `CREATE TEMP FUNCTION Twice(x INT64) AS (x * 2);
CREATE TEMP FUNCTION Key(params ARRAY<STRUCT<key STRING>>, i INT64) AS ((SELECT p.key FROM UNNEST(params) AS p WITH OFFSET o WHERE o = i));
SELECT Twice(1 + 2) AS six, Key(event_params, 0) AS first_key FROM \`analytics_1.events_*\``;
    const { sql } = translateToDuckDb(saved, { tables: [events] });
    const rows = await run(
      [
        'CREATE TABLE ga4_events (event_date VARCHAR, event_name VARCHAR, event_params STRUCT(key VARCHAR)[])',
        "INSERT INTO ga4_events VALUES ('20240101', 'a', [{'key': 'k0'}, {'key': 'k1'}])",
      ],
      sql,
    );
    expect(rows).toEqual([{ six: 6, first_key: 'k0' }]);
    expect(qualifyForBigQuery(saved, { tables: {}, routines: {} }).sql).toBe(saved);
  });

  it('refuses a JavaScript temporary function on DuckDB, naming it', () => {
    expect(() =>
      translateToDuckDb(
        `CREATE TEMP FUNCTION f(x INT64) RETURNS INT64 LANGUAGE js AS 'return x;'; SELECT f(1) AS y`,
        { tables: [] },
      ),
    ).toThrow(/the js function f \(only SQL functions can run on DuckDB\)/);
  });
});
