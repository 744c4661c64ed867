import { describe, expect, it } from 'vitest';
import { translationOf, useTranslatedQueries } from '../helpers/translated-row.js';

// Expected values are the documented results of BigQuery's regular-expression functions (RE2 on
// both engines): https://cloud.google.com/bigquery/docs/reference/standard-sql/string_functions
const { row } = useTranslatedQueries();

describe('BigQuery regular-expression functions on DuckDB', () => {
  it('REGEXP_CONTAINS matches anywhere in the value', async () => {
    // Docs: REGEXP_CONTAINS('foo@example.com', r'@[a-zA-Z0-9-]+\.[a-zA-Z0-9-.]+') = true, and false for 'www.example.net'.
    expect(
      await row(String.raw`select regexp_contains('foo@example.com', r'@[a-zA-Z0-9-]+\.[a-zA-Z0-9-.]+') as a,
        regexp_contains('www.example.net', r'@[a-zA-Z0-9-]+\.[a-zA-Z0-9-.]+') as b`),
    ).toEqual({ a: true, b: false });
  });

  it('REGEXP_EXTRACT returns the whole match, or the one capturing group, and NULL without a match', async () => {
    // Docs: REGEXP_EXTRACT('foo@example.com', r'^[a-zA-Z0-9_.+-]+') = 'foo';
    // REGEXP_EXTRACT('foo@example.com', r'^[a-zA-Z0-9_.+-]+@([a-zA-Z0-9-]+\.[a-zA-Z0-9-.]+$)') = 'example.com';
    // "If there is no match, returns NULL."
    expect(
      await row(String.raw`select regexp_extract('foo@example.com', r'^[a-zA-Z0-9_.+-]+') as user_name,
        regexp_extract('foo@example.com', r'^[a-zA-Z0-9_.+-]+@([a-zA-Z0-9-]+\.[a-zA-Z0-9-.]+$)') as hostname,
        regexp_extract('foo', r'\d+') as none, regexp_substr('abc123', r'\d+') as substr`),
    ).toEqual({ user_name: 'foo', hostname: 'example.com', none: null, substr: '123' });
  });

  it('REGEXP_EXTRACT_ALL returns every match, or every capture of the group', async () => {
    // Docs: REGEXP_EXTRACT_ALL('Try `func(x)` or `func(y)`', '`(.+?)`') = ['func(x)', 'func(y)'].
    expect(
      await row(
        "select regexp_extract_all('Try `func(x)` or `func(y)`', '`(.+?)`') as a, regexp_extract_all('a1b22', r'\\d+') as b",
      ),
    ).toEqual({ a: ['func(x)', 'func(y)'], b: ['1', '22'] });
  });

  it('REGEXP_REPLACE replaces every match and reads \\1 as the first group', async () => {
    // Docs: REGEXP_REPLACE('# Heading', r'^# ([a-zA-Z0-9\s]+$)', '<h1>\\1</h1>') = '<h1>Heading</h1>'.
    expect(
      await row(String.raw`select regexp_replace('# Heading', r'^# ([a-zA-Z0-9\s]+$)', r'<h1>\1</h1>') as a,
        regexp_replace('a.b.c', r'\.', '-') as b`),
    ).toEqual({ a: '<h1>Heading</h1>', b: 'a-b-c' });
  });

  it.each([
    [
      'REGEXP_EXTRACT with two capturing groups (an error in BigQuery)',
      "select regexp_extract('ab', '(a)(b)')",
    ],
    ['REGEXP_EXTRACT with a pattern that is not a literal', "select regexp_extract('ab', @p)"],
    ['REGEXP_EXTRACT with an occurrence', "select regexp_extract('ab', 'a', 1, 2)"],
  ])('refuses %s', (_what, sql) => {
    expect(() => translationOf(sql)).toThrow(/Cannot translate to DuckDB: REGEXP_EXTRACT/);
  });
});
