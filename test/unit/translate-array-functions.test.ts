import { beforeAll, describe, expect, it } from 'vitest';
import { createDuckDbEngine } from '../../src/backends/duckdb/engine.js';
import type { SavedQuery } from '../../src/engines/query-engine.js';
import { queriesDir } from '../../src/paths.js';
import { logSources } from '../helpers/shipped-sources.js';
import { micros, translationOf, useTranslatedQueries } from '../helpers/translated-row.js';

// Expected values are the documented results of BigQuery's array functions, array subscripts,
// STRUCT, UNNEST and SELECT forms:
// https://cloud.google.com/bigquery/docs/reference/standard-sql/array_functions
// https://cloud.google.com/bigquery/docs/reference/standard-sql/operators (array subscript, field access)
// https://cloud.google.com/bigquery/docs/reference/standard-sql/query-syntax (UNNEST, SELECT * EXCEPT/REPLACE)
const { row, rows, scratch } = useTranslatedQueries();

describe('BigQuery arrays on DuckDB', () => {
  it('ARRAY_TO_STRING joins BYTES into BYTES', async () => {
    // Docs (array_functions, ARRAY_TO_STRING): [b'prefix', b'middle', b'suffix', b'\\x00'] joined
    // by b'--' is prefix--middle--suffix--\\x00 (read here as hex); NULL elements are skipped
    // unless null_text is given, as for STRING.
    expect(
      await row(`select to_hex(array_to_string([b'prefix', b'middle', b'suffix', b'\\x00'], b'--')) as h,
        to_hex(array_to_string([b'a', null, b'b'], b'-')) as skipped,
        to_hex(array_to_string([b'a', null, b'b'], b'-', b'N')) as filled`),
    ).toEqual({
      h: Buffer.from('prefix--middle--suffix--\0').toString('hex'),
      skipped: Buffer.from('a-b').toString('hex'),
      filled: Buffer.from('a-N-b').toString('hex'),
    });
  });

  it('ARRAY_LENGTH, ARRAY_TO_STRING, ARRAY_CONCAT and ARRAY_REVERSE', async () => {
    // Docs: ARRAY_LENGTH(['coffee', NULL, 'milk']) = 3; ARRAY_TO_STRING(['coffee', 'tea', 'milk', NULL], '--', 'MISSING')
    // = 'coffee--tea--milk--MISSING'; ARRAY_TO_STRING(['cake', 'pie', NULL], '--') = 'cake--pie';
    // ARRAY_CONCAT([1, 2], [3, 4], [5, 6]) = [1, 2, 3, 4, 5, 6], NULL when an argument is NULL; ARRAY_REVERSE([1, 2, 3]) = [3, 2, 1].
    expect(
      await row(`select array_length(['coffee', null, 'milk']) as a,
        array_to_string(['coffee', 'tea', 'milk', null], '--', 'MISSING') as b, array_to_string(['cake', 'pie', null], '--') as c,
        array_concat([1, 2], [3, 4], [5, 6]) as d, array_concat([1], null) is null as e,
        array_reverse([1, 2, 3]) as f`),
    ).toEqual({
      a: 3,
      b: 'coffee--tea--milk--MISSING',
      c: 'cake--pie',
      d: [1, 2, 3, 4, 5, 6],
      e: true,
      f: [3, 2, 1],
    });
  });

  it('casts NULL and [] to a typed ARRAY: a NULL array IS NULL yet is answered [], as BigQuery answers it', async () => {
    // data-types.md, "NULLs and the array type": the CTE of [] and CAST(NULL AS ARRAY<INT64>)
    // answers [] for both, numbers IS NULL false and true.
    expect(
      await rows(`with Items as (select [] as numbers, "Empty array in query" as description
        union all select cast(null as array<int64>), "NULL array in query")
        select numbers, description, numbers is null as numbers_null from Items order by description`),
    ).toEqual([
      { numbers: [], description: 'Empty array in query', numbers_null: false },
      { numbers: [], description: 'NULL array in query', numbers_null: true },
    ]);
    expect(
      await rows(
        'select array_length(cast([] as array<string>)) as empty, array_length(cast(null as array<string>)) as none',
      ),
    ).toEqual([{ empty: 0, none: null }]);
  });

  it('reads elements with OFFSET, ORDINAL, SAFE_OFFSET, SAFE_ORDINAL and a bare 0-based index', async () => {
    // Docs: ['coffee', 'tea', 'milk'][OFFSET(1)] = 'tea'; [ORDINAL(1)] = 'coffee'; [SAFE_OFFSET(3)] = NULL;
    // array[1] is array[OFFSET(1)] = 'tea'. A computed position counts the same way, and one before the
    // start is NULL under SAFE_ (never an element counted from the end).
    expect(
      await row(`select ['coffee', 'tea', 'milk'][offset(1)] as a, ['coffee', 'tea', 'milk'][ordinal(1)] as b,
        ['coffee', 'tea', 'milk'][safe_offset(3)] as c, ['coffee', 'tea', 'milk'][1] as d,
        ['coffee', 'tea', 'milk'][safe_ordinal(0)] as e,
        ['coffee', 'tea', 'milk'][safe_offset(array_length(['x']) - 2)] as f,
        ['coffee', 'tea', 'milk'][offset(array_length(['x']) + 1)] as g`),
    ).toEqual({ a: 'tea', b: 'coffee', c: null, d: 'tea', e: null, f: null, g: 'milk' });
  });

  it('ARRAY_FIRST, ARRAY_LAST and ARRAY_SLICE take elements by inclusive offsets, negative ones from the end', async () => {
    // Docs: ARRAY_FIRST(['a','b','c','d']) = 'a', ARRAY_LAST = 'd' (an error for an empty array);
    // ARRAY_SLICE(['a', 'b', 'c', 'd', 'e'], ...): (1, 3) [b, c, d]; (-1, 3) []; (1, -3) [b, c];
    // (-3, -1) [c, d, e]; (3, 3) [d]; (1, 30) [b, c, d, e]; (-30, -5) [a]; (5, 30) []; NULL with a NULL offset.
    const letters = "['a', 'b', 'c', 'd', 'e']";
    expect(
      await row(`select array_first(['a','b','c','d']) as f, array_last(['a','b','c','d']) as l,
        array_slice(${letters}, 1, 3) as a, array_slice(${letters}, -1, 3) as b, array_slice(${letters}, 1, -3) as c,
        array_slice(${letters}, -3, -1) as d, array_slice(${letters}, 3, 3) as e, array_slice(${letters}, 1, 30) as g,
        array_slice(${letters}, -30, -5) as h, array_slice(${letters}, 5, 30) as i,
        array_slice(${letters}, 1, null) is null as j`),
    ).toEqual({
      f: 'a',
      l: 'd',
      a: ['b', 'c', 'd'],
      b: [],
      c: ['b', 'c'],
      d: ['c', 'd', 'e'],
      e: ['d'],
      g: ['b', 'c', 'd', 'e'],
      h: ['a'],
      i: [],
      j: true,
    });
    await expect(row('select array_first(array<int64>[]) as x')).rejects.toThrow(/empty array/);
  });

  it('RANGE_BUCKET counts the boundaries at or below the point, refusing unsorted boundaries', async () => {
    // Docs: (20, [0, 10, 20, 30, 40]) = 3; (20, [0, 10, 20, 20, 40, 40]) = 4; (25, ...) = 3;
    // (-10, [5, 10, 20, 30, 40]) = 0; (80, [0, 10, 20, 30, 40]) = 5; (80, []) = 0; NULL point NULL;
    // ('a', ['a', 'b', 'c', 'd']) = 1; (1.2, [1, 1.2, 1.4, 1.6]) = 2; an unsorted array is an error.
    expect(
      await row(`select range_bucket(20, [0, 10, 20, 30, 40]) as a, range_bucket(20, [0, 10, 20, 20, 40, 40]) as b,
        range_bucket(25, [0, 10, 20, 30, 40]) as c, range_bucket(-10, [5, 10, 20, 30, 40]) as d,
        range_bucket(80, [0, 10, 20, 30, 40]) as e, range_bucket(80, array<int64>[]) as f,
        range_bucket(null, [0, 10]) as g, range_bucket('a', ['a', 'b', 'c', 'd']) as h,
        range_bucket(1.2, [1, 1.2, 1.4, 1.6]) as i`),
    ).toEqual({ a: 3, b: 4, c: 3, d: 0, e: 5, f: 0, g: null, h: 1, i: 2 });
    await expect(row('select range_bucket(30, [10, 30, 20, 40, 50]) as x')).rejects.toThrow(/not sorted/);
  });

  it('GENERATE_UUID gives a new lower-case version 4 UUID per call', async () => {
    // Docs: "Returns a random universally unique identifier (UUID) as a STRING ... 32 hexadecimal
    // digits in five groups separated by hyphens in the form 8-4-4-4-12", version 4.
    const { a, b } = (await row('select generate_uuid() as a, generate_uuid() as b')) as {
      a: string;
      b: string;
    };
    expect(a).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(b).not.toBe(a);
  });

  it("raises BigQuery's out-of-bounds error for OFFSET, ORDINAL and [n] outside an array, NULL for a NULL one", async () => {
    // Docs (https://cloud.google.com/bigquery/docs/reference/standard-sql/operators#array_subscript_operator):
    // OFFSET and ORDINAL produce an error out of range, SAFE_ forms NULL; BigQuery words it
    // "Array index 1 is out of bounds (overflow)" (SPLIT(...)[OFFSET(1)] of a one-element array,
    // GoogleCloudPlatform/training-data-analyst#2434), "underflow" before the start.
    await expect(row("select split('a', '/')[offset(1)] as a")).rejects.toThrow(
      'Array index 1 is out of bounds (overflow)',
    );
    await expect(row("select ['a', 'b'][ordinal(0)] as a")).rejects.toThrow(
      'Array index 0 is out of bounds (underflow)',
    );
    await expect(row("select ['a', 'b'][2] as a")).rejects.toThrow(
      'Array index 2 is out of bounds (overflow)',
    );
    await expect(row("select ['a', 'b'][offset(array_length(['x']) - 2)] as a")).rejects.toThrow(
      'Array index -1 is out of bounds (underflow)',
    );
    // In range, of a NULL array, or at a NULL position: the element or NULL, never an error.
    expect(
      await row(`select split('a/b', '/')[offset(1)] as a, ['a', 'b'][ordinal(array_length(['x']) + 1)] as b,
        (select t.parts[offset(3)] from (select split(cast(null as string)) as parts) as t) as c,
        ['a', 'b'][offset(cast(null as int64))] as d, [struct(1 as x)][offset(0)].x as e`),
    ).toEqual({ a: 'b', b: 'b', c: null, d: null, e: 1 });
  });

  it('answers BAD_PARAMETER naming the INT64 parameter whose OFFSET is outside the array', async () => {
    // The caller's value, not the engine, is at fault, as for a zero divisor (engines/parameter-value-errors.ts).
    const engine = await createDuckDbEngine({
      database: scratch().database,
      sources: logSources,
      queries: [],
      queriesDir,
      timeoutMs: 10_000,
    });
    try {
      const query: SavedQuery = {
        id: 'parts',
        name: 'test.parts',
        sql: "select split('a/b', '/')[offset(@part)] as part",
        maxRows: 10,
        parameterTypes: { part: 'INT64' },
      };
      expect((await engine.run(query, { part: '1' }, { now: new Date() })).rows).toEqual([{ part: 'b' }]);
      await expect(engine.run(query, { part: '2' }, { now: new Date() })).rejects.toMatchObject({
        code: 'BAD_PARAMETER',
        message:
          "Parameter 'part' is 2, which test.parts cannot run with: Array index 2 is out of bounds (overflow)",
      });
    } finally {
      await engine.close();
    }
  });

  it('GENERATE_ARRAY includes both ends and steps either way', async () => {
    // Docs: GENERATE_ARRAY(1, 5) = [1, 2, 3, 4, 5]; (0, 10, 3) = [0, 3, 6, 9]; (10, 0, -3) = [10, 7, 4, 1];
    // (4, 4, 10) = [4]; (10, 0, 3) = [].
    expect(
      await row(`select generate_array(1, 5) as a, generate_array(0, 10, 3) as b, generate_array(10, 0, -3) as c,
        generate_array(4, 4, 10) as d, generate_array(10, 0, 3) as e`),
    ).toEqual({ a: [1, 2, 3, 4, 5], b: [0, 3, 6, 9], c: [10, 7, 4, 1], d: [4], e: [] });
  });

  it('GENERATE_ARRAY of FLOAT64 and NUMERIC values: start plus k steps, while not past the end', async () => {
    // Docs: GENERATE_ARRAY takes INT64, NUMERIC, BIGNUMERIC and FLOAT64. Values as ZetaSQL makes a
    // FLOAT64 series (generate_array.h: start + k * step, never the previous element plus step),
    // computed here in plain JavaScript doubles.
    const series = (start: number, end: number, step: number) => {
      const values: number[] = [];
      for (let k = 0; start + k * step <= end; k++) values.push(start + k * step);
      return values;
    };
    expect(
      await row(`select generate_array(1, 2, 0.5) as a, generate_array(0.1, 0.5, 0.1) as b,
        generate_array(2.0, 2.0, 1) as c, generate_array(1.5, 0.0, -0.5) as d, generate_array(0.0, 1.0, -1) as e`),
    ).toEqual({ a: series(1, 2, 0.5), b: series(0.1, 0.5, 0.1), c: [2], d: [1.5, 1, 0.5, 0], e: [] });
    expect(
      await row('select generate_array(x, 1.5, 0.5) as a from unnest([cast(0.5 as numeric)]) as x'),
    ).toEqual({
      a: [0.5, 1, 1.5],
    });
    expect(await rows('select x from unnest(generate_array(0, 1, 0.25)) as x order by x')).toEqual(
      series(0, 1, 0.25).map((x) => ({ x })),
    );
  });

  it('every GENERATE_*_ARRAY fails on a step of 0 (and GENERATE_ARRAY on NaN or an infinite step), NULL under SAFE.', async () => {
    // Docs: "This function returns an error if step_expression is set to 0, or if any input is NaN";
    // words from ZetaSQL's generate_array.h.
    const failures = [
      ['select generate_array(1, 5, 0) as a', 'Sequence step cannot be 0.'],
      ['select generate_array(1, 5, x) as a from unnest([0]) as x', 'Sequence step cannot be 0.'],
      ['select x from unnest(generate_array(1, 5, 0)) as x', 'Sequence step cannot be 0.'],
      [
        "select generate_date_array('2020-01-01', '2020-01-05', interval x day) as a from unnest([0]) as x",
        'Sequence step cannot be 0.',
      ],
      [
        "select generate_timestamp_array('2020-01-01', '2020-01-05', interval x hour) as a from unnest([0]) as x",
        'Sequence step cannot be 0.',
      ],
      [
        "select generate_array(0, 1, cast('nan' as float64)) as a",
        'Sequence start, end, and step cannot be NaN.',
      ],
      ["select generate_array(0, 1, cast('inf' as float64)) as a", 'Sequence step cannot be +/-inf.'],
    ] as const;
    for (const [sql, words] of failures)
      await expect(row(sql), sql).rejects.toMatchObject({
        code: 'INVALID_QUERY',
        message: expect.stringContaining(words),
      });
    // A NULL array is answered [], as BigQuery answers it.
    expect(
      await row(
        "select safe.generate_array(1, 5, 0) as a, safe.generate_date_array('2020-01-01', '2020-01-05', interval 0 day) as b",
      ),
    ).toEqual({ a: [], b: [] });
  });

  it('UNNEST(GENERATE_ARRAY(...)) in FROM makes the same rows, read as rows rather than built as one array', async () => {
    // The documented arrays above, one row per element: (0, 10, 3) = 0, 3, 6, 9; (10, 0, -3) = 10, 7, 4, 1.
    expect(await rows('select x from unnest(generate_array(0, 10, 3)) as x order by x')).toEqual(
      [0, 3, 6, 9].map((x) => ({ x })),
    );
    expect(
      await rows(
        'select x, z from unnest(generate_array(10, 0, -3)) as x cross join unnest(generate_array(1, 2)) as z order by x desc, z',
      ),
    ).toEqual([10, 7, 4, 1].flatMap((x) => [1, 2].map((z) => ({ x, z }))));
    expect(await rows('select x from unnest(generate_array(10, 0, 3)) as x')).toEqual([]);
    const { sql } = translationOf('select count(*) as n from unnest(generate_array(1, 1000000)) as x');
    expect(sql).toContain('generate_series(1, 1000000, 1) AS "x"("x")');
    expect(sql).not.toContain('unnest(generate_series');
  });

  it('GENERATE_DATE_ARRAY steps by a day by default, or by the given interval', async () => {
    // Docs: GENERATE_DATE_ARRAY('2016-10-05', '2016-10-08') = [2016-10-05, 2016-10-06, 2016-10-07, 2016-10-08];
    // GENERATE_DATE_ARRAY('2016-10-05', '2016-10-09', INTERVAL 2 DAY) = [2016-10-05, 2016-10-07, 2016-10-09];
    // GENERATE_DATE_ARRAY('2016-01-01', '2016-12-31', INTERVAL 2 MONTH) = [01-01, 03-01, 05-01, 07-01, 09-01, 11-01].
    expect(
      await row(`select generate_date_array('2016-10-05', '2016-10-08') as a,
        generate_date_array('2016-10-05', '2016-10-09', interval 2 day) as b,
        generate_date_array(date '2016-01-01', date '2016-12-31', interval 2 month) as c`),
    ).toEqual({
      a: ['2016-10-05', '2016-10-06', '2016-10-07', '2016-10-08'],
      b: ['2016-10-05', '2016-10-07', '2016-10-09'],
      c: ['2016-01-01', '2016-03-01', '2016-05-01', '2016-07-01', '2016-09-01', '2016-11-01'],
    });
  });

  it('GENERATE_TIMESTAMP_ARRAY steps by the interval from the start to the end', async () => {
    // Docs: GENERATE_TIMESTAMP_ARRAY('2016-10-05 00:00:00', '2016-10-07 00:00:00', INTERVAL 1 DAY) =
    // [2016-10-05 00:00:00+00, 2016-10-06 00:00:00+00, 2016-10-07 00:00:00+00].
    expect(
      await row(`select generate_timestamp_array('2016-10-05 00:00:00', '2016-10-07 00:00:00', interval 1 day) as a,
        generate_timestamp_array(timestamp '2016-10-05 00:00:00+00', timestamp '2016-10-05 00:00:02+00', interval 1 second) as b`),
    ).toEqual({
      a: ['2016-10-05', '2016-10-06', '2016-10-07'].map((day) => micros(`${day}T00:00:00Z`)),
      b: ['00', '01', '02'].map((second) => micros(`2016-10-05T00:00:${second}Z`)),
    });
  });

  it('numbers UNNEST elements from 0 WITH OFFSET, in a FROM item and in a join', async () => {
    // Docs: SELECT * FROM UNNEST(['foo', 'bar', 'baz', ...]) AS element WITH OFFSET AS offset gives offsets 0, 1, 2, ...
    expect(
      await rows(
        "select * from unnest(['foo', 'bar', 'baz']) as element with offset as offset order by offset",
      ),
    ).toEqual([
      { element: 'foo', offset: 0 },
      { element: 'bar', offset: 1 },
      { element: 'baz', offset: 2 },
    ]);
    const joined =
      await rows(`select t.k, e, pos from unnest([struct('a' as k, [10, 20] as xs), struct('b' as k, [30] as xs)]) as t
      cross join unnest(t.xs) as e with offset as pos order by t.k, pos`);
    expect(joined).toEqual([
      { k: 'a', e: 10, pos: 0 },
      { k: 'a', e: 20, pos: 1 },
      { k: 'b', e: 30, pos: 0 },
    ]);
    expect(await rows("select x, offset from unnest(['p', 'q']) as x with offset order by offset")).toEqual([
      { x: 'p', offset: 0 },
      { x: 'q', offset: 1 },
    ]);
  });

  it('reads typed array literals ARRAY<T>[...] as arrays of that type, empty ones included', async () => {
    // Docs ("Declaring an ARRAY type", array literals): ARRAY<INT64>[1, 2, 3] is [1, 2, 3];
    // ARRAY<FLOAT64>[1, 2, 3] holds FLOAT64 values; ARRAY<STRING>[] is an empty array of STRING.
    const sql = `select array<int64>[1, 2, 3] as a, ARRAY<FLOAT64>[1, 2, 3] as b, array_length(ARRAY<STRING>[]) as c,
        array_length(ARRAY<STRING>['x', NULL]) as d, 2 in unnest(ARRAY<INT64>[1, 2]) as e`;
    // An array holding NULL is fine inside a query, but BigQuery refuses it in the result ("Array
    // cannot have a null element"), so it is measured, not answered.
    expect(await rows(sql)).toEqual([{ a: [1, 2, 3], b: [1, 2, 3], c: 0, d: 2, e: true }]);
    // The element type is the declared one, not what DuckDB would infer from the values.
    expect(translationOf(sql).sql).toContain('CAST([1, 2, 3] AS DOUBLE[])');
    expect(await rows('select x from unnest(ARRAY<INT64>[]) as x')).toEqual([]);
  });

  it('reads typed arrays of STRUCTs ARRAY<STRUCT<...>>[...], each element cast to the declared fields', async () => {
    // query-syntax.md, "SELECT expression.*": ARRAY<STRUCT<city STRING, state STRING>>[("Seattle",
    // "Washington"), ("Phoenix", "Arizona")], its first element's fields Seattle, Washington.
    const locations = `WITH locations AS
  (SELECT ARRAY<STRUCT<city STRING, state STRING>>[("Seattle", "Washington"),
    ("Phoenix", "Arizona")] AS location)`;
    expect(await rows(`${locations}\nSELECT l.LOCATION[offset(0)].*\nFROM locations l`)).toEqual([
      { city: 'Seattle', state: 'Washington' },
    ]);
    // A STRUCT(...) element takes the declared names too, its values the declared types
    // (1 as FLOAT64 is 1.0; the type is DuckDB's DOUBLE); an empty one is of the declared type.
    // The text after the header keeps its place: the escape \x41 is read where it is written.
    const sql = `select ARRAY<STRUCT<x FLOAT64>>[STRUCT(1)] as a, array_length(ARRAY< STRUCT<x INT64> > []) as n,
        ARRAY<STRUCT<y STRING>>[('a\\x41')] as t,
        (select sum(e.x + 1) from unnest(ARRAY<STRUCT<x INT64, y STRING>>[(1, 'foo'), (3, 'bar')]) as e) as s`;
    expect(await rows(sql)).toEqual([{ a: [{ x: 1 }], n: 0, t: [{ y: 'aA' }], s: 6 }]);
    expect(translationOf(sql).sql).toContain('CAST(1 AS DOUBLE)');
    expect(await rows('select e.x from unnest(ARRAY<STRUCT<x INT64>>[]) as e')).toEqual([]);
    // A refusal after the header is placed where it is written (ARRAY<GEOGRAPHY> at column 42).
    expect(() => translationOf('select ARRAY<STRUCT<x INT64>>[(1)] as a, ARRAY<GEOGRAPHY>[] as g')).toThrow(
      /line 1, column 42/,
    );
    // A value of another count than the declared fields is refused, as BigQuery refuses it.
    expect(() => translationOf('select ARRAY<STRUCT<x INT64>>[(1, 2)] as e')).toThrow(
      /different number of values/,
    );
  });

  it('leaves a comparison of quoted `ARRAY` as a comparison, and refuses ARRAY<T> of an unknown type', async () => {
    expect(await rows('select (`array` < 5) > false as c from (select 1 as `array`)')).toEqual([{ c: true }]);
    expect(() => translationOf('select ARRAY<GEOGRAPHY>[] as g')).toThrow(/ARRAY<GEOGRAPHY>\[\.\.\.\]/);
  });

  it('ARRAY(subquery) collects the rows of a subquery', async () => {
    // Docs: ARRAY(SELECT ...) returns an array with one element per row of the subquery, in its order.
    expect(await row('select array(select x from unnest([3, 1, 2]) as x order by x) as a')).toEqual({
      a: [1, 2, 3],
    });
  });
});

describe('BigQuery STRUCT and SELECT forms on DuckDB', () => {
  it('constructs STRUCTs with named, typed and tuple syntax and reads their fields', async () => {
    // Docs: STRUCT(1 AS a, 'abc' AS b).b = 'abc'; STRUCT<x INT64, y STRING>(1, 't').y = 't'; (1, 'a') is a STRUCT.
    expect(
      await row(`select struct(1 as a, 'abc' as b).b as b, struct<x int64, y string>(1, 't').y as y,
        struct(1 as a, struct(2 as c) as n).n.c as nested`),
    ).toEqual({ b: 'abc', y: 't', nested: 2 });
    expect(await rows('select s.a from unnest([struct(1 as a), struct(2 as a)]) as s order by s.a')).toEqual([
      { a: 1 },
      { a: 2 },
    ]);
  });

  it('names the unnamed fields of an array of STRUCTs after the fields another element names', async () => {
    // An inline lookup table: BigQuery gives the array one element type, so ('b', 2) and
    // STRUCT('c', 3) are rows of STRUCT<k STRING, v INT64> (polyglot-sql's
    // propagate_struct_field_names documents the same reading of [STRUCT('Alice' AS name, 85 AS
    // score), STRUCT('Bob', 92)]). DuckDB alone unites STRUCTs by name: {k: NULL, _field_1: 'b', ...}.
    expect(await row(`select [struct('a' as k, 1 as v), ('b', 2), struct('c', 3)] as arr`)).toEqual({
      arr: [
        { k: 'a', v: 1 },
        { k: 'b', v: 2 },
        { k: 'c', v: 3 },
      ],
    });
    expect(
      await rows(`select x.k, x.v from unnest([struct('a' as k, 1 as v), ('b', 2)]) as x order by x.v`),
    ).toEqual([
      { k: 'a', v: 1 },
      { k: 'b', v: 2 },
    ]);
  });

  it('gives an UNNEST of STRUCTs a column per field under SELECT *, with or without an alias', async () => {
    // Docs (query syntax, "UNNEST and structs"): "For an input array of structs, UNNEST returns a
    // row for each struct, with a separate column for each field in the struct", and
    // `SELECT *, struct_value FROM UNNEST(...) AS struct_value` answers x, y, then the STRUCT:
    // {x: 3, y: 'bar', struct_value: {3, bar}} and {x: 1, y: 'foo', struct_value: {1, foo}}.
    const pairs = "[struct(1 as x, 'foo' as y), (3, 'bar')]";
    expect(await rows(`select *, struct_value from unnest(${pairs}) as struct_value order by x`)).toEqual([
      { x: 1, y: 'foo', struct_value: { x: 1, y: 'foo' } },
      { x: 3, y: 'bar', struct_value: { x: 3, y: 'bar' } },
    ]);
    expect(await rows(`select * from unnest(${pairs}) order by x`)).toEqual([
      { x: 1, y: 'foo' },
      { x: 3, y: 'bar' },
    ]);
    expect(await rows(`select s.* from unnest(${pairs}) as s where y = 'bar'`)).toEqual([{ x: 3, y: 'bar' }]);
    expect(
      await rows(
        `with channels as (select * from unnest([struct('google' as source, 'Search' as channel), ('t.co', 'Social')]))
         select channel from channels where source = 't.co'`,
      ),
    ).toEqual([{ channel: 'Social' }]);
    // Beside a table and WITH OFFSET, each FROM item gives its columns in order.
    expect(
      await rows(
        `with t as (select 7 as id) select * from t cross join unnest(${pairs}) as s with offset as o order by o`,
      ),
    ).toEqual([
      { id: 7, x: 1, y: 'foo', o: 0 },
      { id: 7, x: 3, y: 'bar', o: 1 },
    ]);
  });

  it('spreads a STRUCT the query builds into its fields with expression.*', async () => {
    // Query syntax, SELECT expression.*: "Produces one output column for each field of expression".
    expect(await rows("select x, struct(x as v, 'b' as w).* from unnest([1, 2]) as x order by x")).toEqual([
      { x: 1, v: 1, w: 'b' },
      { x: 2, v: 2, w: 'b' },
    ]);
    expect(() => translationOf('select struct(1, 2).*')).toThrow(/whose fields are not known/);
  });

  it('says to quote a CTE named table, which the parser reads as TABLE(...)', () => {
    // date_functions.md, EXTRACT: WITH table AS (SELECT DATE('2017-11-05') AS date) ... FROM table.
    expect(() => translationOf('with table as (select 1 as x) select x from table')).toThrow(
      /named table is read by the parser as TABLE\(\.\.\.\): quote the name, `table`/,
    );
  });

  it.each([
    ['elements of different widths', 'select [struct(1 as a), (2, 3)]'],
    ['one field named two ways', 'select [struct(1 as a), struct(2 as b)]'],
    ['SELECT * EXCEPT over its UNNEST', 'select * except (x) from unnest([struct(1 as x, 2 as y)])'],
  ])('refuses an array of STRUCTs with %s rather than guess its type', (_what, sql) => {
    expect(() => translationOf(sql)).toThrow(/Cannot translate to DuckDB/);
  });

  it('SELECT * EXCEPT leaves columns out and SELECT * REPLACE replaces them', async () => {
    // Docs: with orders AS (SELECT 5 AS order_id, 'sprocket' AS item_name, 200 AS quantity):
    // SELECT * EXCEPT (order_id) = {item_name: 'sprocket', quantity: 200};
    // SELECT * REPLACE ('widget' AS item_name) = {order_id: 5, item_name: 'widget', quantity: 200};
    // SELECT * REPLACE (quantity / 2 AS quantity) = {order_id: 5, item_name: 'sprocket', quantity: 100}.
    const orders = "with orders as (select 5 as order_id, 'sprocket' as item_name, 200 as quantity) ";
    expect(await row(`${orders}select * except (order_id) from orders`)).toEqual({
      item_name: 'sprocket',
      quantity: 200,
    });
    expect(await row(`${orders}select * replace ('widget' as item_name) from orders`)).toEqual({
      order_id: 5,
      item_name: 'widget',
      quantity: 200,
    });
    expect(await row(`${orders}select orders.* replace (quantity / 2 as quantity) from orders`)).toEqual({
      order_id: 5,
      item_name: 'sprocket',
      quantity: 100,
    });
  });

  it('SELECT DISTINCT keeps one row per distinct value', async () => {
    expect(await rows('select distinct x from unnest([1, 1, 2]) as x order by x')).toEqual([
      { x: 1 },
      { x: 2 },
    ]);
  });

  it.each([
    ['a JSON subscript', "select ['a']['k']"],
    [
      'UNNEST ... WITH OFFSET over a record',
      'select o from `cloudflare.logs.prod` as t cross join unnest(t.metadata) as m with offset as o',
    ],
    ['SELECT AS STRUCT as the whole query', 'select as struct 1 as a'],
    ['SELECT AS VALUE as a FROM item', 'select x from (select as value 1 as x)'],
    ['SELECT AS STRUCT as a WITH table', 'with t as (select as struct 1 as a) select 1 as one from t'],
  ])('refuses %s', (_what, sql) => {
    expect(() => translationOf(sql)).toThrow(/Cannot translate to DuckDB/);
  });
});

// Logflare's BigQuery tables hold `metadata` and every object in it as a repeated record (an
// ARRAY of STRUCTs); the store keeps each as one STRUCT, NULL where the record had none. BigQuery
// reads such an array by its documented subscript rules: OFFSET counts from 0 and ORDINAL from 1,
// either raising "Array index n is out of bounds (overflow)" past the end (as BigQuery answers
// `SPLIT(...)[OFFSET(1)]` of a one-element array: "400 Array index 1 is out of bounds (overflow)",
// GoogleCloudPlatform/training-data-analyst#2434), SAFE_ forms returning NULL; ARRAY_LENGTH counts
// the elements, 0 for an empty one. The rows are written here in plain DuckDB: r1 and r2 have a
// response, r3 none, r4 no metadata at all (empty repeated fields on BigQuery).
describe('repeated records of a log source, as BigQuery subscripts and counts them', () => {
  beforeAll(async () => {
    await scratch().duckdb(`
      INSERT INTO "deno-relay-logs" VALUES
        ('r1', TIMESTAMP '2026-03-10 12:30:00', 'ok', {project_ref: 'p1', function_id: 'f1', execution_time_ms: 10, deployment_id: 'd', request: {method: 'GET', url: 'u1', pathname: '/a'}, response: {status_code: 200}}),
        ('r2', TIMESTAMP '2026-03-10 12:30:30', 'bad', {project_ref: 'p1', function_id: 'f2', execution_time_ms: 30, deployment_id: 'd', request: NULL, response: {status_code: 404}}),
        ('r3', TIMESTAMP '2026-03-10 11:00:00', 'none', {project_ref: 'p1', function_id: 'f1', execution_time_ms: 20, deployment_id: 'd', request: NULL, response: NULL}),
        ('r4', TIMESTAMP '2026-03-10 11:00:00', 'no metadata', NULL);
    `);
  });
  const relay = (select: string, where = 'true') =>
    rows(`select id, ${select} from \`deno-relay-logs\` as t where ${where} order by id`);

  it('reads the one element of a record at OFFSET(0), ORDINAL(1), SAFE_OFFSET(0) and [0]', async () => {
    expect(
      await relay(
        `t.metadata[offset(0)].function_id as a, t.metadata[ordinal(1)].response[ordinal(1)].status_code as b,
        metadata[safe_offset(0)].response[safe_offset(0)].status_code as c, metadata[0].request[0].pathname as d`,
        "id = 'r1'",
      ),
    ).toEqual([{ id: 'r1', a: 'f1', b: 200, c: 200, d: '/a' }]);
  });

  it('answers NULL past the end, before the start and of an empty record under SAFE_OFFSET and SAFE_ORDINAL', async () => {
    expect(
      await relay(`metadata[safe_offset(3)].function_id as a, metadata[safe_ordinal(2)] is null as b,
        metadata[safe_offset(-1)] is null as c, metadata[safe_offset(0)].response[safe_offset(0)].status_code as d,
        metadata[safe_offset(array_length(['x']) - 1)].function_id as e`),
    ).toEqual([
      { id: 'r1', a: null, b: true, c: true, d: 200, e: 'f1' },
      { id: 'r2', a: null, b: true, c: true, d: 404, e: 'f2' },
      { id: 'r3', a: null, b: true, c: true, d: null, e: 'f1' },
      { id: 'r4', a: null, b: true, c: true, d: null, e: null },
    ]);
  });

  it("raises BigQuery's out-of-bounds error for OFFSET and ORDINAL outside the record, and only for rows read", async () => {
    await expect(relay('metadata[offset(3)].function_id as a')).rejects.toThrow(
      'Array index 3 is out of bounds (overflow)',
    );
    await expect(relay('metadata[ordinal(0)].function_id as a')).rejects.toThrow(
      'Array index 0 is out of bounds (underflow)',
    );
    await expect(relay('metadata[offset(array_length([1, 2]) - 3)].function_id as a')).rejects.toThrow(
      'Array index -1 is out of bounds (underflow)',
    );
    // r3's response record is empty: its first element does not exist.
    await expect(
      relay('metadata[offset(0)].response[offset(0)].status_code as a', "id = 'r3'"),
    ).rejects.toThrow('Array index 0 is out of bounds (overflow)');
    // No row, no element read, no error.
    expect(await relay('metadata[offset(3)].function_id as a', 'false')).toEqual([]);
  });

  it("gives SELECT * the record's fields as columns after the table's, for each record UNNESTed", async () => {
    // Query syntax, "UNNEST and structs": a column per field of the STRUCTs UNNEST reads, as
    // Logflare's BigQuery answers `select * ... cross join unnest(metadata) as m`; a row without
    // the record (r4) is none of CROSS JOIN's rows.
    const answered = await rows(
      "select * from `deno-relay-logs` as t cross join unnest(t.metadata) as m where function_id = 'f1' order by id",
    );
    expect(answered.map((row) => row.id)).toEqual(['r1', 'r3']);
    expect(Object.keys(answered[0] as object).slice(-6)).toEqual([
      'project_ref',
      'function_id',
      'execution_time_ms',
      'deployment_id',
      'request',
      'response',
    ]);
    expect(answered.map((row) => [row.execution_time_ms, row.event_message])).toEqual([
      [10, 'ok'],
      [20, 'none'],
    ]);
  });

  it('counts a record as 1 and an absent one as 0 with ARRAY_LENGTH', async () => {
    expect(await relay('array_length(metadata) as a')).toEqual([
      { id: 'r1', a: 1 },
      { id: 'r2', a: 1 },
      { id: 'r3', a: 1 },
      { id: 'r4', a: 0 },
    ]);
    expect(
      await relay(
        'array_length(t.metadata[offset(0)].response) as b, array_length(metadata[ordinal(1)].request) as c',
        "id != 'r4'",
      ),
    ).toEqual([
      { id: 'r1', b: 1, c: 1 },
      { id: 'r2', b: 1, c: 0 },
      { id: 'r3', b: 0, c: 0 },
    ]);
  });
});
