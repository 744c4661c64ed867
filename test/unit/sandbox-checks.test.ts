import { parse } from '@guanmingchiu/sqlparser-ts';
import { describe, expect, it } from 'vitest';
import { isQuerygateError } from '../../src/errors.js';
import { checkCallerQuery } from '../../src/sql/sandbox-checks.js';

// The checks on a caller's SQL alone, on the parser's AST: which texts pass and which code
// refuses the others. The endpoint's tables here are `logs` and `fns`.

const saved = new Set(['logs', 'fns']);

function verdict(sql: string): string {
  try {
    checkCallerQuery(parse(sql, 'bigquery'), saved);
    return 'ok';
  } catch (error) {
    if (isQuerygateError(error)) return error.code;
    throw error;
  }
}

describe('the sandbox checks', () => {
  it.each([
    'select id from logs',
    'select count(*) as n from logs',
    'select l.id, f.name from logs as l join fns as f on l.id = f.id',
    'select id from logs where id in (select id from fns)',
    'select (select max(id) from fns) as m from logs',
    'with a as (select id from logs), b as (select id from a) select id from b',
    'select id from (select id from logs) as sub',
    'select m.path from logs cross join unnest(metadata) as m',
    'select id from logs union all select id from fns',
    'select id from `logs` order by id desc limit 10',
    'select array(select id from fns) as ids from logs',
    'select generate_array(1, 10) as a, repeat("x", 3) as r from logs',
    // Read as rows, not built as a value: a million is fine in FROM.
    'select count(*) as n from logs cross join unnest(generate_array(1, 1000000)) as a cross join unnest(generate_array(1, 1000000)) as b',
    'select generate_array(1, 131072) as a from logs',
    // Text built from literals, 4 KiB a row in all; replacements that grow a value at most 64 times.
    "select lpad(id, 10, '0') as a, rpad(id, 4076, ' ') as b, format('%10d|%-s', 1, id) as c from logs",
    "select repeat('ab', 2048) as r from logs",
    "select replace(replace(url, '%20', ' '), '+', ' ') as u from logs",
    "select regexp_replace(regexp_replace(path, r'[0-9]+', ':id'), r'[a-f0-9]{32}', ':hash') as p from logs",
    "select safe.replace(replace(id, 'x', ''), '', 'yyyyyyyy') as i from logs",
  ])('lets %s through', (sql) => {
    expect(verdict(sql)).toBe('ok');
  });

  it.each([
    ['select id from logs; select id from fns', 'SANDBOX_NOT_ONE_STATEMENT'],
    ['insert into logs (id) values (1)', 'SANDBOX_NOT_SELECT'],
    ['with recursive r as (select 1 as n) select n from r', 'SANDBOX_NOT_SELECT'],
    ['select id into other from logs', 'SANDBOX_NOT_SELECT'],
    ['select * from logs', 'SANDBOX_WILDCARD'],
    ['select id from (select * from logs)', 'SANDBOX_WILDCARD'],
    ['select l.* from logs l', 'SANDBOX_WILDCARD'],
    ['select id from other', 'SANDBOX_TABLE_NOT_CTE'],
    ['select id from project.dataset.logs', 'SANDBOX_TABLE_NOT_CTE'],
    ['with a as (select id from b), b as (select id from logs) select id from a', 'SANDBOX_TABLE_NOT_CTE'],
    ['select (select 1 from other) as x from logs', 'SANDBOX_TABLE_NOT_CTE'],
    [
      'select x from (with inner_cte as (select 1 as x) select x from inner_cte), inner_cte',
      'SANDBOX_TABLE_NOT_CTE',
    ],
    ['with logs as (select 1 as id) select id from logs', 'SANDBOX_CTE_NAME_TAKEN'],
    ["select x from read_csv('f')", 'SANDBOX_RESTRICTED_FUNCTION'],
    ['select duckdb_settings() as s from logs', 'SANDBOX_RESTRICTED_FUNCTION'],
    ['select SESSION_USER() as u from logs', 'SANDBOX_RESTRICTED_FUNCTION'],
    ['select generate_array(1, n) as a from logs', 'SANDBOX_TOO_EXPENSIVE'],
    ['select repeat("x", 2000000) as r from logs', 'SANDBOX_TOO_EXPENSIVE'],
    // Built for each row of 2,048 at once, beyond the memory ceiling's reach (3.7 GB, 2 GB, 400 MB).
    ['select repeat(cast(id as string), 300000) as r from logs', 'SANDBOX_TOO_EXPENSIVE'],
    ["select format('%1000000000d', 1) as f from logs", 'SANDBOX_TOO_EXPENSIVE'],
    ["select format('%*d', 100000000, 1) as f from logs", 'SANDBOX_TOO_EXPENSIVE'],
    ['select format(id, 1) as f from logs', 'SANDBOX_TOO_EXPENSIVE'],
    ["select replace(repeat('a', 20000), 'a', repeat('b', 20000)) as r from logs", 'SANDBOX_TOO_EXPENSIVE'],
    ["select replace(id, 'a', id) as r from logs", 'SANDBOX_TOO_EXPENSIVE'],
    ["select replace(repeat('a', 100), 'a', 'bb') as r from logs", 'SANDBOX_TOO_EXPENSIVE'],
    // 5 × 5 × 5 = 125 times a value's length.
    [
      "select regexp_replace(regexp_replace(regexp_replace(id, '', 'abcd'), '', 'abcd'), '', 'abcd') as r from logs",
      'SANDBOX_TOO_EXPENSIVE',
    ],
    // 4,097 bytes a row over three calls.
    [
      "select repeat('x', 2048) as a, lpad(id, 2048, 'y') as b, rpad(id, 1) as c from logs",
      'SANDBOX_TOO_EXPENSIVE',
    ],
    ["select lpad(id, 1100, 'é') as a from logs", 'SANDBOX_TOO_EXPENSIVE'],
    ['select generate_timestamp_array(a, b, interval 1 second) as t from logs', 'SANDBOX_TOO_EXPENSIVE'],
    ['select generate_array(1, 131073) as a from logs', 'SANDBOX_TOO_EXPENSIVE'],
    // 131,072 elements built as values over the whole query, however many calls share them.
    [
      'select generate_array(1, 100000) as a, generate_array(1, 100000) as b from logs',
      'SANDBOX_TOO_EXPENSIVE',
    ],
    ['select array_length(array_agg(generate_array(1, 1000000))) as n from logs', 'SANDBOX_TOO_EXPENSIVE'],
    [
      'select x from logs cross join unnest(generate_array(1, 1000000)) as x with offset',
      'SANDBOX_TOO_EXPENSIVE',
    ],
    ['select x from logs cross join unnest(generate_array(1, 1048577)) as x', 'SANDBOX_TOO_EXPENSIVE'],
  ])('refuses %s with %s', (sql, code) => {
    expect(verdict(sql)).toBe(code);
  });
});

describe('the refusal of a GENERATE_ARRAY too large', () => {
  const message = (sql: string) => {
    try {
      checkCallerQuery(parse(sql, 'bigquery'), saved);
      return 'ok';
    } catch (error) {
      return (error as Error).message;
    }
  };

  it("uses GoogleSQL's words (ZetaSQL's 'Cannot generate arrays with more than 16000 elements.') with querygate's bound", () => {
    expect(message('select x from logs cross join unnest(generate_array(1, 1048577)) as x')).toMatch(
      /^Cannot generate arrays with more than 1048576 elements\. \(line 1, column \d+\)$/,
    );
    expect(
      message('select generate_array(1, 100000) as a, generate_array(1, 100000) as b from logs'),
    ).toMatch(
      /^Cannot generate arrays with more than 131072 elements\. \(querygate's bound on the elements a query's GENERATE_ARRAY calls build as array values, 200000 here;/,
    );
  });
});
