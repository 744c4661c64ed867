/**
 * The attack corpus for sandboxed endpoints: SQL a hostile caller might send to the fixture
 * endpoint (test/fixtures/sandboxed-queries, CTEs `edge_logs` and `function_edge_logs`), each of
 * which must be refused (4xx) or bounded (504), reading nothing but those CTEs and writing nothing.
 * `canary` is a file that must never be read; `target` a path that must never be written.
 */
export interface Attack {
  readonly name: string;
  readonly sql: string;
  /**
   * A trick that is only text in the end (the quote it hoped to end is escaped): it may answer
   * 200, with rows of the CTEs only.
   */
  readonly harmless?: true;
  /**
   * Passes the checks and is bounded by the engine instead: DuckDB's timeout or memory limit,
   * BigQuery's bytes cap and job timeout (at the fixture's size it is small there).
   */
  readonly bounded?: true;
}

export function sandboxAttacks(canary: string, target: string): Attack[] {
  const deepSubqueries = `select id from ${'(select id from '.repeat(120)}edge_logs${')'.repeat(120)}`;
  const deepExpression = `select ${'('.repeat(2000)}1${')'.repeat(2000)} as x from edge_logs`;
  return [
    // Files.
    { name: 'read_csv in FROM', sql: `select line from read_csv('${canary}')` },
    { name: 'read_text in FROM', sql: `select content from read_text('${canary}')` },
    { name: 'read_blob as a scalar', sql: `select read_blob('${canary}') as b from edge_logs` },
    { name: 'a path as a table', sql: `select secret from '${canary}'` },
    { name: 'a quoted path as a table', sql: `select secret from \`${canary}\`` },
    {
      name: 'read_json in a subquery',
      sql: `select id from edge_logs where exists (select 1 from read_json('${canary}'))`,
    },
    {
      name: 'read_parquet in a join',
      sql: `select e.id from edge_logs e join read_parquet('${canary}') p on true`,
    },
    { name: 'glob', sql: `select file from glob('/*')` },
    { name: 'COPY to a file', sql: `copy (select id from edge_logs) to '${target}'` },
    { name: 'EXPORT DATABASE', sql: `export database '${target}'` },
    {
      name: 'EXPORT DATA (BigQuery)',
      sql: `export data options(uri='gs://x/*.csv') as select id from edge_logs`,
    },
    // Catalogs and settings.
    { name: 'information_schema', sql: 'select table_name from information_schema.tables' },
    {
      name: "BigQuery's INFORMATION_SCHEMA",
      sql: 'select table_name from `region-us`.INFORMATION_SCHEMA.TABLES',
    },
    { name: 'duckdb_tables()', sql: 'select table_name from duckdb_tables()' },
    { name: 'duckdb_settings as a scalar', sql: 'select duckdb_settings() as s from edge_logs' },
    { name: 'pragma_table_info', sql: "select name from pragma_table_info('cloudflare.logs.prod')" },
    { name: 'sqlite_master', sql: 'select name from sqlite_master' },
    { name: 'current_setting', sql: "select current_setting('memory_limit') as s from edge_logs" },
    { name: 'getenv', sql: "select getenv('HOME') as h from edge_logs" },
    { name: 'version()', sql: 'select version() as v from edge_logs' },
    { name: 'EXTERNAL_QUERY', sql: "select x from external_query('conn', 'select 1')" },
    { name: 'query() table function', sql: "select x from query('select 1 as x')" },
    {
      name: 'json_execute_serialized_sql',
      sql: "select json_execute_serialized_sql('{}') as j from edge_logs",
    },
    // Other tables.
    { name: 'a source by its name', sql: 'select id from `cloudflare.logs.prod`' },
    { name: 'a source by its Logs Explorer alias', sql: 'select id from postgres_logs' },
    { name: 'a source split in parts', sql: 'select id from `cloudflare`.`logs`.`prod`' },
    { name: 'a source in a caller CTE', sql: 'with x as (select id from `postgres.logs`) select id from x' },
    {
      name: 'a later CTE named like the table an earlier one reads',
      sql: 'with a as (select id from b), b as (select id from edge_logs) select id from a',
    },
    {
      name: 'a source in a scalar subquery',
      sql: 'select (select max(id) from `gotrue.logs.prod`) as m from edge_logs',
    },
    {
      name: 'a source in ARRAY()',
      sql: 'select array(select id from `gotrue.logs.prod`) as a from edge_logs',
    },
    {
      name: 'a source in UNION',
      sql: 'select id from edge_logs union all select id from `gotrue.logs.prod`',
    },
    // DDL and writes.
    { name: 'DROP TABLE', sql: 'drop table edge_logs' },
    { name: 'DROP a source', sql: 'drop table `cloudflare.logs.prod`' },
    { name: 'CREATE TABLE AS', sql: 'create table stolen as select id from edge_logs' },
    { name: 'INSERT', sql: "insert into `cloudflare.logs.prod` (id) values ('x')" },
    { name: 'UPDATE', sql: "update edge_logs set id = 'x' where true" },
    { name: 'SELECT INTO', sql: 'select id into stolen from edge_logs' },
    { name: 'ATTACH', sql: `attach '${target}' as stolen` },
    { name: 'INSTALL', sql: 'install httpfs' },
    { name: 'LOAD', sql: 'load httpfs' },
    { name: 'PRAGMA', sql: 'pragma database_list' },
    { name: 'SET', sql: 'set enable_external_access = true' },
    { name: 'CALL', sql: 'call pragma_version()' },
    { name: 'CHECKPOINT', sql: 'checkpoint' },
    { name: 'DECLARE (scripting)', sql: 'declare x int64' },
    { name: 'EXECUTE IMMEDIATE', sql: "execute immediate 'drop table edge_logs'" },
    // Several statements.
    { name: 'a second statement', sql: 'select id from edge_logs; drop table `cloudflare.logs.prod`' },
    { name: 'a second statement after a newline', sql: `select id from edge_logs;\nattach '${target}' as x` },
    {
      name: 'a second statement after a comment',
      sql: 'select id from edge_logs /* x */ ; drop table edge_logs',
    },
    // Comment and quoting tricks that would end the saved WITH or the caller's text early.
    { name: 'closing the WITH', sql: 'x as (select id from `postgres.logs`) select id from x' },
    {
      name: 'a stray closing parenthesis',
      sql: 'select id from edge_logs) select id from `postgres.logs` --',
    },
    { name: 'an unterminated comment', sql: 'select id from edge_logs /*' },
    { name: 'an unterminated string', sql: "select id from edge_logs where id = 'x" },
    {
      name: 'a quote escape',
      sql: "select id from edge_logs where id = '\\' union all select id from `postgres.logs` --'",
      harmless: true,
    },
    {
      name: 'a backtick escape',
      sql: 'select id from `edge_logs` union all select id from `postgres.logs\\`` ',
    },
    { name: 'a star after a comment', sql: 'select /* count( */ * from edge_logs' },
    { name: 'a qualified star', sql: 'select e.* from edge_logs as e' },
    { name: 'SELECT * EXCEPT', sql: 'select * except (id) from edge_logs' },
    { name: 'SELECT AS STRUCT *', sql: 'select as struct * from edge_logs' },
    // Unicode.
    { name: 'a Cyrillic o in a CTE name', sql: 'select id from edge_l\u043egs' },
    { name: 'a zero-width space in a CTE name', sql: 'select id from `edge_logs\u200b`' },
    { name: 'a fullwidth semicolon', sql: 'select id from edge_logs\uff1b drop table edge_logs' },
    { name: 'a right-to-left override', sql: 'select id from `\u202eedge_logs`' },
    // Recursion and size.
    {
      name: 'WITH RECURSIVE',
      sql: 'with recursive r as (select 1 as n union all select n + 1 from r) select n from r',
    },
    { name: 'deeply nested subqueries', sql: deepSubqueries },
    { name: 'a deeply nested expression', sql: deepExpression },
    {
      name: 'a text longer than the limit',
      sql: `select id from edge_logs where id in (${"'x', ".repeat(20_000)}'y')`,
    },
    {
      name: 'a cross join bomb',
      bounded: true,
      sql:
        'select count(distinct concat(a.id, b.id, c.id, d.id, e.id)) as n ' +
        'from edge_logs a, edge_logs b, edge_logs c, edge_logs d, edge_logs e',
    },
    {
      name: 'a memory bomb',
      bounded: true,
      sql:
        "select string_agg(concat(a.event_message, b.event_message, c.event_message, d.event_message), '') as s " +
        'from edge_logs a, edge_logs b, edge_logs c, edge_logs d',
    },
    { name: 'a huge array', sql: 'select array_length(generate_array(1, 2000000000)) as n from edge_logs' },
    ...[...runawayQueries, ...memoryBombs].map((bomb) => ({ ...bomb, bounded: true as const })),
  ];
}

/** A caller query that runs until its timeout, whatever the store holds (one record will do). */
export interface Bomb {
  readonly name: string;
  readonly sql: string;
}

/**
 * Runaways: time, not memory. Two of them from Studio's key held `logs.all`'s share of the engine
 * until the timeout, and its cheap SQL then waited 24-25 s (issue 27).
 */
export const runawayQueries: readonly Bomb[] = [
  {
    name: 'a cross join of two generated arrays',
    sql:
      'select count(*) as n from edge_logs cross join unnest(generate_array(1, 1000000)) as a ' +
      'cross join unnest(generate_array(1, 1000000)) as b',
  },
  {
    name: 'a 5-way cross join',
    sql:
      'select count(distinct concat(a.id, b.id, c.id, d.id, e.id)) as n ' +
      'from edge_logs a, edge_logs b, edge_logs c, edge_logs d, edge_logs e',
  },
];

/** Memory: values built past DuckDB's buffer manager (strings, lists, aggregate states). */
export const memoryBombs: readonly Bomb[] = [
  {
    name: 'string_agg of repeat over a cross join',
    sql: "select length(string_agg(repeat(a.event_message, 1000), '')) as n from edge_logs a, edge_logs b, edge_logs c",
  },
  {
    name: 'a deep array_agg over a cross join',
    sql: 'select array_length(array_agg(concat(a.id, b.id, c.id))) as n from edge_logs a, edge_logs b, edge_logs c',
  },
  {
    name: 'array_agg of a generated array per row',
    sql: 'select array_length(array_agg(generate_array(1, 1000000))) as n from edge_logs a, edge_logs b',
  },
  // Built for each of the 2,048 rows DuckDB computes at once, where no ceiling can stop it: once
  // took a server with a 512 MiB ceiling to 3.7 GB, 2 GB and 923 MB.
  {
    name: 'text repeated for each generated row',
    sql: 'select sum(length(repeat(cast(a as string), 300000))) as n from unnest(generate_array(100000, 200000)) as a',
  },
  { name: 'a FORMAT width of a billion', sql: "select length(format('%1000000000d', 1)) as n" },
  {
    name: 'built text split into elements for each generated row',
    sql: "select sum(array_length(split(concat(repeat('a,', 30000), cast(x as string)), ','))) as n from unnest(generate_array(1, 100000)) as x",
  },
  {
    name: 'a REPLACE that multiplies text',
    sql: "select length(replace(repeat('a', 20000), 'a', repeat('b', 20000))) as n",
  },
];

/** What Studio's Logs Explorer sends most: the newest records, which must answer beside any bomb. */
export const cheapSql = 'select id, timestamp from edge_logs order by timestamp desc limit 5';
