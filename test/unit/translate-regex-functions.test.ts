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

  it('REGEXP_EXTRACT of a group that took no part in the match is NULL, of a group that matched empty text empty', async () => {
    // ZetaSQL string_functions.md, REGEXP_EXTRACT, examples: REGEXP_EXTRACT('ab', '(z)?b') is NULL
    // (and '(.)+b' on 'xyztb' is 't'); a group that matched empty text gives ''.
    expect(
      await row(`select regexp_extract('ab', '(z)?b') as d, regexp_extract('xyztb', '(.)+b') as c,
        regexp_extract('ac', 'a(b*)c') as empty, regexp_extract('b', '(a)|b') as other_branch`),
    ).toEqual({ d: null, c: 't', empty: '', other_branch: null });
    // An optional group that can also match empty text: '' could be either, so it is refused.
    expect(() => translationOf("select regexp_extract('b', '(a*)?b') as x")).toThrow(
      /REGEXP_EXTRACT of a group that may take no part in the match and may match empty text/,
    );
  });

  it('REGEXP_EXTRACT and REGEXP_SUBSTR from a position take the n-th match after it, NULL past the end', async () => {
    // ZetaSQL string_functions.md, REGEXP_EXTRACT example table for 'Hello Helloo and Hellooo', 'H?ello+':
    // (1, 3) = 'Hellooo', (1, 4) = NULL, (2, 1) = 'ello', (3, 1) = 'Helloo', (20, 1) = NULL; and
    // 'cats&dogs&rabbits', '\w+&': (1, 2) = 'dogs&', (2, 3) = NULL. A position below 1 is an error.
    const text = "'Hello Helloo and Hellooo'";
    expect(
      await row(`select regexp_extract(${text}, 'H?ello+', 1, 3) as a, regexp_extract(${text}, 'H?ello+', 1, 4) as b,
        regexp_extract(${text}, 'H?ello+', 2, 1) as c, regexp_substr(${text}, 'H?ello+', 3) as d,
        regexp_extract(${text}, 'H?ello+', 20, 1) as e, regexp_extract('cats&dogs&rabbits', r'\\w+&', 1, 2) as f,
        regexp_extract('cats&dogs&rabbits', r'\\w+&', 2, 3) as g`),
    ).toEqual({ a: 'Hellooo', b: null, c: 'ello', d: 'Helloo', e: null, f: 'dogs&', g: null });
    await expect(row("select regexp_extract('ab', 'b', 0) as a")).rejects.toThrow(
      /Position must be positive/,
    );
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

  it('REGEXP_EXTRACT_ALL of a pattern that matches empty text steps past each empty match and stops at the end', async () => {
    // The docs give no example; the reference implementation's steps (ZetaSQL functions/regexp.cc,
    // ExtractAllIterator::Next): search from the position, take the match (or its group), go on
    // from its end, one character further after an empty match, and stop once the position reaches
    // the end. So 'abc' with 'x*' gives '' at 0, 1 and 2 (not a fourth at 3); 'aaa' with 'a*' only
    // 'aaa'; 'abc' with 'b*' '' at 0, 'b', '' at 2 (an empty match right after a match is taken);
    // \b matches at 0, 2, 3 and 5 of 'ab cd', the one at the end too; '😀' is one character.
    expect(
      await row(String.raw`select regexp_extract_all('abc', 'x*') as a, regexp_extract_all('aaa', 'a*') as b,
        regexp_extract_all('abc', 'b*') as c, regexp_extract_all('a,b,,c', '[^,]*') as d,
        regexp_extract_all('', 'x*') as e, regexp_extract_all('ab cd', r'\b') as f,
        regexp_extract_all('abc', 'x*$') as g, regexp_extract_all('x😀y', '(z)*') as h`),
    ).toEqual({
      a: ['', '', ''],
      b: ['aaa'],
      c: ['', 'b', ''],
      d: ['a', '', 'b', '', '', 'c'],
      e: [''],
      f: ['', '', '', ''],
      g: [''],
      h: ['', '', ''],
    });
  });

  it('REGEXP_REPLACE of a pattern that matches empty text skips the empty match right after a match', async () => {
    // ZetaSQL's RegExp::Replace (functions/regexp.cc), RE2::GlobalReplace's steps: an empty match is
    // replaced unless it starts where the last match ended, then one character is copied; the end
    // of the text is searched too.
    expect(
      await row(`select regexp_replace('abc', 'x*', '-') as a, regexp_replace('abc', 'b*', '-') as b,
        regexp_replace('aaa', 'a*', '-') as c, regexp_replace('', 'x*', '-') as d`),
    ).toEqual({ a: '-a-b-c-', b: '-a-c-', c: '-', d: '-' });
  });

  it('REGEXP_INSTR gives the start or end of the n-th match from a position, in characters', async () => {
    // Docs (https://cloud.google.com/bigquery/docs/reference/standard-sql/string_functions#regexp_instr):
    // REGEXP_INSTR('ab@cd-ef', '@[^-]*') = 3, ('ab@d-ef') = 3, ('abc@cd-ef') = 4, ('abc-ef') = 0;
    // REGEXP_INSTR('a@cd-ef b@cd-ef', '@[^-]*', 1 | 2 | 3 | 4) = 2, 2, 10, 10; on 'a@cd-ef b@cd-ef
    // c@cd-ef', occurrences 1, 2, 3 = 2, 10, 18; REGEXP_INSTR('a@cd-ef', '@[^-]*', 1, 1, 0 | 1) = 2, 5.
    // 0 for an empty pattern or a position past the end; an error for a position or occurrence
    // below 1 (NULL under SAFE.). ZetaSQL's RegExp::Instr steps one character past an empty match
    // and stops after a match that reaches the end: 'a*' in 'baaac' matches '' at 1, 'aaa' at 2,
    // '' at 5, and no fourth time.
    expect(
      await row(`select regexp_instr('ab@cd-ef', '@[^-]*') as a, regexp_instr('ab@d-ef', '@[^-]*') as b,
        regexp_instr('abc@cd-ef', '@[^-]*') as c, regexp_instr('abc-ef', '@[^-]*') as d,
        regexp_instr('a@cd-ef b@cd-ef', '@[^-]*', 1) as e, regexp_instr('a@cd-ef b@cd-ef', '@[^-]*', 2) as f,
        regexp_instr('a@cd-ef b@cd-ef', '@[^-]*', 3) as g, regexp_instr('a@cd-ef b@cd-ef', '@[^-]*', 4) as h,
        regexp_instr('a@cd-ef b@cd-ef c@cd-ef', '@[^-]*', 1, 1) as i,
        regexp_instr('a@cd-ef b@cd-ef c@cd-ef', '@[^-]*', 1, 2) as j,
        regexp_instr('a@cd-ef b@cd-ef c@cd-ef', '@[^-]*', 1, 3) as k,
        regexp_instr('a@cd-ef', '@[^-]*', 1, 1, 0) as l, regexp_instr('a@cd-ef', '@[^-]*', 1, 1, 1) as m,
        regexp_instr('ab', '', 1) as n, regexp_instr('ab', 'b', 3) as o, regexp_instr('щab', 'b', 1, 1, 1) as p,
        regexp_instr('baaac', 'a*', 1, 1) as q, regexp_instr('baaac', 'a*', 1, 2) as r,
        regexp_instr('baaac', 'a*', 1, 3) as s, regexp_instr('baaac', 'a*', 1, 4) as t,
        regexp_instr('ab', 'b', null) as u, safe.regexp_instr('ab', 'b', 0) as v`),
    ).toEqual({
      ...{ a: 3, b: 3, c: 4, d: 0, e: 2, f: 2, g: 10, h: 10, i: 2, j: 10, k: 18, l: 2, m: 5 },
      ...{ n: 0, o: 0, p: 4, q: 1, r: 2, s: 5, t: 0, u: null, v: null },
    });
    await expect(row("select regexp_instr('ab', 'b', 0) as a")).rejects.toThrow(/Position must be positive/);
    await expect(row("select regexp_instr('ab', 'b', 1, -1) as a")).rejects.toThrow(
      /Occurrence must be positive/,
    );
  });

  it.each([
    ['with a capturing group (its position is not translated)', "select regexp_instr('ab', '(b)')"],
    ['with a pattern that is not a literal', "select regexp_instr('ab', @p)"],
    [
      'of a later occurrence of a pattern that reads before the match',
      "select regexp_instr('aa', r'\\ba', 1, 2)",
    ],
    ['with an occurrence_position other than 0 or 1', "select regexp_instr('ab', 'b', 1, 1, 2)"],
  ])('refuses REGEXP_INSTR %s', (_what, sql) => {
    expect(() => translationOf(sql)).toThrow(/Cannot translate to DuckDB: REGEXP_INSTR/);
  });

  it.each([
    [
      'REGEXP_EXTRACT with two capturing groups (an error in BigQuery)',
      "select regexp_extract('ab', '(a)(b)')",
    ],
    ['REGEXP_EXTRACT with a pattern that is not a literal', "select regexp_extract('ab', @p)"],
    [
      'REGEXP_EXTRACT with an occurrence of a pattern that can match empty text',
      "select regexp_extract('ab', 'x*', 1, 2)",
    ],
    [
      'REGEXP_EXTRACT from a position past 1 of a pattern that reads before the match',
      "select regexp_extract('ab', '^b', 2)",
    ],
  ])('refuses %s', (_what, sql) => {
    expect(() => translationOf(sql)).toThrow(/Cannot translate to DuckDB: REGEXP_EXTRACT/);
  });
});
