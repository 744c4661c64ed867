import { describe, expect, it } from 'vitest';
import { translationOf, useTranslatedQueries } from '../helpers/translated-row.js';

// BigQuery's JSON type: member access, subscripts and the JSON conversion functions. Expected
// values are the documented results of GoogleSQL's JSON functions
// (https://cloud.google.com/bigquery/docs/reference/standard-sql/json_functions: BOOL, FLOAT64,
// INT64, STRING, LAX_BOOL, LAX_FLOAT64, LAX_INT64, LAX_STRING, JSON_TYPE, JSON_QUERY), and its
// error messages those of GoogleSQL's reference implementation.
const { row, rows } = useTranslatedQueries();

describe('BigQuery JSON values on DuckDB', () => {
  it.each([
    // json_functions.md: PARSE_JSON('{"id": 922337203685477580701}') fails under the default
    // wide_number_mode 'exact'; the words are json_value.cc CheckNumberRoundtrip's.
    [`select PARSE_JSON('{"id": 922337203685477580701}') as j`, '922337203685477580701'],
    [`select PARSE_JSON(x) as j from unnest(['[1]', '[0.30000000000000001]']) as x`, '0.30000000000000001'],
    // One past UINT64's largest: read as a double, which rounds it.
    [`select PARSE_JSON(x) as j from unnest(['{"n": 18446744073709551616}']) as x`, '18446744073709551616'],
  ])('PARSE_JSON refuses a number its JSON cannot hold exactly: %s', async (sql, number) => {
    await expect(rows(sql)).rejects.toThrow(
      `Input number: ${number} cannot round-trip through string representation`,
    );
  });

  it('PARSE_JSON keeps INT64, UINT64 and DOUBLE numbers, and is NULL under SAFE where it would refuse one', async () => {
    // json_functions.md: "64-bit signed/unsigned integers, such as INT64" and "DOUBLE" are stored
    // without loss; PARSE_JSON('{"coordinates": [10, 20], "id": 1}') is {"coordinates":[10,20],"id":1}.
    expect(
      await row(`select TO_JSON_STRING(PARSE_JSON('{"coordinates": [10, 20], "id": 1}')) as doc,
        TO_JSON_STRING(PARSE_JSON(x)) as wide, SAFE.PARSE_JSON(replace(x, '"', '')) as safe,
        SAFE.PARSE_JSON('922337203685477580701') as safe_literal
        from unnest(['[-9223372036854775808,18446744073709551615,1.5,"922337203685477580701"]']) as x`),
    ).toEqual({
      doc: '{"coordinates":[10,20],"id":1}',
      wide: '[-9223372036854775808,18446744073709551615,1.5,"922337203685477580701"]',
      safe: null,
      safe_literal: null,
    });
  });

  it("PARSE_JSON reads wide_number_mode: 'exact' as by default, 'round' where nothing is rounded", async () => {
    // Docs (PARSE_JSON): with wide_number_mode=>'exact' explicitly, 922337203685477580701 fails as
    // by default; numbers an INT64, UINT64 or DOUBLE holds are kept under either mode. The words
    // for another mode are ZetaSQL's ParseJsonFunction's; a number 'round' would round is refused,
    // its rounded text not being documented by a rule.
    expect(
      await row(`select PARSE_JSON('{"coordinates": [10, 20], "id": 1}', wide_number_mode=>'exact') as exact,
        PARSE_JSON(x, wide_number_mode=>'round') as round from unnest(['[18446744073709551615, 1.5]']) as x`),
    ).toEqual({ exact: '{"coordinates":[10,20],"id":1}', round: '[18446744073709551615,1.5]' });
    await expect(
      row(`select PARSE_JSON('{"id": 922337203685477580701}', wide_number_mode=>'exact') as j`),
    ).rejects.toThrow('Input number: 922337203685477580701 cannot round-trip through string representation');
    await expect(row(`select PARSE_JSON('1', wide_number_mode=>'Round') as j`)).rejects.toThrow(
      'Invalid `wide_number_mode` specified for PARSE_JSON: Round',
    );
    await expect(
      row(
        `select PARSE_JSON(x, wide_number_mode=>'round') as j from unnest(['{"id": 922337203685477580701}']) as x`,
      ),
    ).rejects.toThrow(
      "PARSE_JSON with wide_number_mode => 'round' of a number no DOUBLE holds exactly is not translated",
    );
    expect(() =>
      translationOf(`select PARSE_JSON('{"id": 922337203685477580701}', wide_number_mode=>'round') as j`),
    ).toThrow(/wide_number_mode => 'round' of a number no DOUBLE holds exactly/);
  });

  it('converts a JSON value with STRING, INT64, FLOAT64 and BOOL as documented', async () => {
    expect(
      await row(`select STRING(JSON '"purple"') as color,
        STRING(JSON_QUERY(JSON '{"name": "sky", "color": "blue"}', "$.color")) as sky,
        INT64(JSON '2005') as flight, INT64(JSON '10.0') as score,
        INT64(JSON_QUERY(JSON '{"gate": "A4", "flight_number": 2005}', "$.flight_number")) as gate,
        FLOAT64(JSON '9.8') as velocity, FLOAT64(JSON '18446744073709551615') as wide,
        BOOL(JSON 'true') as vacancy,
        BOOL(JSON_QUERY(JSON '{"hotel class": "5-star", "vacancy": true}', "$.vacancy")) as hotel,
        STRING(JSON_QUERY(JSON '{}', '$.missing')) is null as sql_null`),
    ).toEqual({
      color: 'purple',
      sky: 'blue',
      flight: 2005,
      score: 10,
      gate: 2005,
      velocity: 9.8,
      wide: 2 ** 64, // 18446744073709551615 rounded to the nearest double, as documented
      vacancy: true,
      hotel: true,
      sql_null: true,
    });
  });

  it("FLOAT64's wide_number_mode rounds a wide integer, or under 'exact' refuses it, as documented", async () => {
    // Docs (DOUBLE, BigQuery's FLOAT64): 18446744073709551615 with 'round' (the default) is
    // 1.8446744073709552e+19; with 'exact' it is an error, as is a mode in another case
    // ('EXACT'). The words are ZetaSQL's ConvertJsonToDouble's.
    expect(
      await row(`select FLOAT64(JSON '18446744073709551615', wide_number_mode=>'round') as rounded,
        FLOAT64(JSON '9007199254740992', wide_number_mode=>'exact') as exact, FLOAT64(JSON '9.8', wide_number_mode=>'exact') as velocity`),
    ).toEqual({ rounded: 2 ** 64, exact: 2 ** 53, velocity: 9.8 });
    await expect(
      row(`select FLOAT64(JSON '18446744073709551615', wide_number_mode=>'exact') as r`),
    ).rejects.toThrow(
      'JSON number: 18446744073709551615 cannot be converted to FLOAT64 without loss of precision',
    );
    await expect(row(`select FLOAT64(JSON '123.4', wide_number_mode=>'EXACT') as r`)).rejects.toThrow(
      'Invalid `wide_number_mode` specified: EXACT',
    );
  });

  it.each([
    ["STRING(JSON '123')", 'The provided JSON input is not a string'],
    ["STRING(JSON 'null')", 'The provided JSON input is not a string'],
    ['INT64(JSON \'"strawberry"\')', 'The provided JSON input is not an integer'],
    ["INT64(JSON 'null')", 'The provided JSON input is not an integer'],
    ["INT64(JSON '10.1')", 'The provided JSON number: 10.1 cannot be converted to an int64'],
    ['FLOAT64(JSON \'"strawberry"\')', 'The provided JSON input is not a number'],
    ["BOOL(JSON '123')", 'The provided JSON input is not a boolean'],
  ])("raises BigQuery's error for %s, and SAFE. gives NULL", async (call, message) => {
    await expect(row(`select ${call} as v`)).rejects.toThrow(message);
    expect(await row(`select SAFE.${call} as v`)).toEqual({ v: null });
  });

  it('converts leniently with LAX_INT64, LAX_FLOAT64, LAX_BOOL and LAX_STRING as their tables say', async () => {
    expect(
      await row(`select LAX_INT64(JSON '10') as a, LAX_INT64(JSON '10.0') as b, LAX_INT64(JSON '1.1') as c,
        LAX_INT64(JSON '3.5') as d, LAX_INT64(JSON '1.1e2') as e, LAX_INT64(JSON '1e100') as f,
        LAX_INT64(JSON 'true') as g, LAX_INT64(JSON 'false') as h, LAX_INT64(JSON '"10"') as i,
        LAX_INT64(JSON '"1.1"') as j, LAX_INT64(JSON '"1.1e2"') as k, LAX_INT64(JSON '"+1.5"') as l,
        LAX_INT64(JSON '"1e100"') as m, LAX_INT64(JSON '"foo"') as n`),
    ).toEqual({
      a: 10,
      b: 10,
      c: 1,
      d: 4,
      e: 110,
      f: null,
      g: 1,
      h: 0,
      i: 10,
      j: 1,
      k: 110,
      l: 2,
      m: null,
      n: null,
    });
    expect(
      await row(`select LAX_FLOAT64(JSON '9.8') as a, LAX_FLOAT64(JSON '9') as b,
        LAX_FLOAT64(JSON '9007199254740993') as c, LAX_FLOAT64(JSON '1e100') as d,
        LAX_FLOAT64(JSON 'true') as e, LAX_FLOAT64(JSON '"10"') as f, LAX_FLOAT64(JSON '"foo"') as g`),
    ).toEqual({ a: 9.8, b: 9, c: 9007199254740992, d: 1e100, e: null, f: 10, g: null });
    expect(
      await row(`select LAX_BOOL(JSON 'true') as a, LAX_BOOL(JSON '"true"') as b, LAX_BOOL(JSON '"true "') as c,
        LAX_BOOL(JSON '"foo"') as d, LAX_BOOL(JSON '10') as e, LAX_BOOL(JSON '0') as f,
        LAX_BOOL(JSON '0.0') as g, LAX_BOOL(JSON '-1.1') as h, LAX_BOOL(JSON 'null') as i`),
    ).toEqual({ a: true, b: true, c: null, d: null, e: true, f: false, g: false, h: true, i: null });
    expect(
      await row(`select LAX_STRING(JSON '"purple"') as a, LAX_STRING(JSON '"10"') as b, LAX_STRING(JSON 'true') as c,
        LAX_STRING(JSON 'false') as d, LAX_STRING(JSON '10.0') as e, LAX_STRING(JSON '10') as f,
        LAX_STRING(JSON '1e100') as g, LAX_STRING(JSON 'null') as h, LAX_STRING(JSON '[1]') as i`),
    ).toEqual({
      a: 'purple',
      b: '10',
      c: 'true',
      d: 'false',
      e: '10',
      f: '10',
      g: '1e+100',
      h: null,
      i: null,
    });
  });

  it("reads members with j.name and j['name'], elements with j[n], and names the kind with JSON_TYPE", async () => {
    // A missing member is SQL NULL; a member holding null is the JSON null, which JSON_TYPE names.
    expect(
      await row(`select JSON '{"a": [1, {"b": "x"}], "n": null}'.a[1].b as member,
        JSON '{"a": [1, {"b": "x"}]}'['a'][0] as element, JSON '{"a": 1}'.missing as missing,
        JSON_TYPE(JSON '{"n": null}'.n) as null_kind, JSON_TYPE(JSON '[1]') as array_kind,
        JSON_TYPE(JSON '"s"') as string_kind, JSON_TYPE(JSON '1.5') as number_kind,
        JSON_QUERY(JSON '{"n": null}', '$.n') as kept_null, JSON '{ "a" : 1.50 }' as normal`),
    ).toEqual({
      member: '"x"',
      element: '1',
      missing: null,
      null_kind: 'null',
      array_kind: 'array',
      string_kind: 'string',
      number_kind: 'number',
      kept_null: 'null',
      normal: '{"a":1.5}',
    });
  });

  it('answers a JSON value with its members ordered by key and the first of duplicate keys', async () => {
    // Docs ("Differences between the JSON and JSON-formatted STRING types"): JSON_QUERY(JSON
    // '{"key": 1, "key": 2}', "$") is {"key":1}, the same on a STRING keeps both and their order.
    // BigQuery's JSON holds an object as a map ordered by key (JSON_OBJECT('foo', 10, 'bar', TRUE)
    // is {"bar":true,"foo":10}), at every depth and in TO_JSON_STRING of it; an INT64 beyond 2^53
    // stays exact.
    expect(
      await row(`select JSON_QUERY(JSON '{"key": 1, "key": 2}', "$") as json,
        JSON_QUERY('{"key": 1, "key": 2}', "$") as string,
        JSON '{"b": [{"z": 1, "y": null}], "a": {"d": 9007199254740993, "c": "x"}}' as nested,
        TO_JSON_STRING(JSON '{"b": 1, "a": 2, "b": 3}') as text,
        JSON_QUERY_ARRAY(JSON '[{"y": 1, "x": 2}]') as elements,
        JSON_VALUE(JSON '{"a": 1, "a": 2}', '$.a') as first,
        JSON '{"😀": 1, "！": 2, "é": 3, "z": 4}' as utf8`),
    ).toEqual({
      json: '{"key":1}',
      string: '{"key":1,"key":2}',
      nested: '{"a":{"c":"x","d":9007199254740993},"b":[{"y":null,"z":1}]}',
      text: '{"a":2,"b":1}',
      elements: ['{"x":2,"y":1}'],
      first: '1',
      // By UTF-8 bytes: z (7A), é (C3 A9), ！ U+FF01 (EF BC 81), 😀 (F0 9F 98 80).
      utf8: '{"z":4,"é":3,"！":2,"😀":1}',
    });
  });

  it('JSON_OBJECT makes an object of key, value pairs, the first of a key kept', async () => {
    // Docs (JSON_OBJECT, signature 1): JSON_OBJECT() is {}; ('foo', 10, 'bar', TRUE) is
    // {"bar":true,"foo":10}; ('foo', 10, 'bar', ['a', 'b']) is {"bar":["a","b"],"foo":10};
    // ('a', NULL, 'b', JSON 'null') is {"a":null,"b":null}; ('a', 10, 'a', 'foo') is {"a":10};
    // JSON_OBJECT(key, value) over ('hello', 'world') is {"hello":"world"}; a NULL key is an error.
    expect(
      await row(`select JSON_OBJECT() as a, JSON_OBJECT('foo', 10, 'bar', TRUE) as b,
        JSON_OBJECT('foo', 10, 'bar', ['a', 'b']) as c, JSON_OBJECT('a', NULL, 'b', JSON 'null') as d,
        JSON_OBJECT('a', 10, 'a', 'foo') as e, JSON_VALUE(JSON_OBJECT('n', 9007199254740993), '$.n') as wide`),
    ).toEqual({
      a: '{}',
      b: '{"bar":true,"foo":10}',
      c: '{"bar":["a","b"],"foo":10}',
      d: '{"a":null,"b":null}',
      e: '{"a":10}',
      wide: '9007199254740993',
    });
    expect(
      await row(`with Items as (select 'hello' as key, 'world' as value)
        select JSON_OBJECT(key, value) as json_data from Items`),
    ).toEqual({ json_data: '{"hello":"world"}' });
    await expect(
      row('select JSON_OBJECT(k, 1) as v from unnest([cast(null as string)]) as k'),
    ).rejects.toThrow("A key can't be NULL");
    await expect(row('select JSON_OBJECT(NULL, 1) as v')).rejects.toThrow("A key can't be NULL");
    expect(await row('select SAFE.JSON_OBJECT(NULL, 1) as v')).toEqual({ v: null });
  });

  it('JSON_OBJECT of an array of keys and an array of values pairs them', async () => {
    // Docs (JSON_OBJECT, signature 2): (['a', 'b'], [10, NULL]) is {"a":10,"b":null};
    // ([JSON '10', JSON '"foo"']) {"a":10,"b":"foo"}; STRUCT(10 AS id, 'Red' AS color) values
    // {"a":{"color":"Red","id":10},"b":{"color":"Blue","id":20}}; [TO_JSON(10), TO_JSON(['foo',
    // 'bar'])] {"a":10,"b":["foo","bar"]}; arrays of different lengths are an error.
    expect(
      await row(`select JSON_OBJECT(['a', 'b'], [10, NULL]) as a,
        JSON_OBJECT(['a', 'b'], [JSON '10', JSON '"foo"']) as b,
        JSON_OBJECT(['a', 'b'], [STRUCT(10 AS id, 'Red' AS color), STRUCT(20 AS id, 'Blue' AS color)]) as c,
        JSON_OBJECT(['a', 'b'], [TO_JSON(10), TO_JSON(['foo', 'bar'])]) as d`),
    ).toEqual({
      a: '{"a":10,"b":null}',
      b: '{"a":10,"b":"foo"}',
      c: '{"a":{"color":"Red","id":10},"b":{"color":"Blue","id":20}}',
      d: '{"a":10,"b":["foo","bar"]}',
    });
    await expect(row("select JSON_OBJECT(['a', 'b'], [10]) as v")).rejects.toThrow(
      'The number of keys and values must match',
    );
  });

  it('JSON_OBJECT of two ARRAY_AGGs makes an object of each group, as documented', async () => {
    // Docs (JSON_OBJECT, signature 2): the Fruits example's rows are
    // {"color":"red","fruit":"apple"} and {"fruit":"banana","ripe":"true"}.
    expect(
      await rows(`with Fruits as (select 0 as id, 'color' as json_key, 'red' as json_value
          union all select 0, 'fruit', 'apple' union all select 1, 'fruit', 'banana' union all select 1, 'ripe', 'true')
        select JSON_OBJECT(ARRAY_AGG(json_key), ARRAY_AGG(json_value)) as json_data from Fruits group by id order by id`),
    ).toEqual([
      { json_data: '{"color":"red","fruit":"apple"}' },
      { json_data: '{"fruit":"banana","ripe":"true"}' },
    ]);
  });

  it('JSON_ARRAY and TO_JSON encode values as the TO_JSON column of the JSON encodings table says', async () => {
    // Docs (JSON_ARRAY): JSON_ARRAY(10) is [10]; ([]) [[]]; (10, 'foo', NULL) [10,"foo",null];
    // (STRUCT(10 AS a, 'foo' AS b)) [{"a":10,"b":"foo"}]; (10, ['foo', 'bar'], [20, 30])
    // [10,["foo","bar"],[20,30]]; (10, [JSON '20', JSON '"foo"']) [10,[20,"foo"]]; () [].
    expect(
      await row(`select JSON_ARRAY(10) as a, JSON_ARRAY([]) as b, JSON_ARRAY(10, 'foo', NULL) as c,
        JSON_ARRAY(STRUCT(10 AS a, 'foo' AS b)) as d, JSON_ARRAY(10, ['foo', 'bar'], [20, 30]) as e,
        JSON_ARRAY(10, [JSON '20', JSON '"foo"']) as f, JSON_ARRAY() as g`),
    ).toEqual({
      a: '[10]',
      b: '[[]]',
      c: '[10,"foo",null]',
      d: '[{"a":10,"b":"foo"}]',
      e: '[10,["foo","bar"],[20,30]]',
      f: '[10,[20,"foo"]]',
      g: '[]',
    });
    // Docs (TO_JSON and the encodings table): TO_JSON(9007199254740993) is 9007199254740993 (a
    // number, where TO_JSON_STRING quotes it); a row (1, [10, 20]) is {"coordinates":[10,20],"id":1};
    // STRUCT(12 AS purchases, TRUE AS inStock) is {"inStock":true,"purchases":12}; FLOAT64 1.0 is 1,
    // NaN "NaN"; "\"abc\"" is "\"abc\"".
    expect(
      await row(String.raw`select TO_JSON(9007199254740993) as wide, TO_JSON_STRING(9007199254740993) as quoted,
        TO_JSON(STRUCT(1 AS id, [10, 20] AS coordinates)) as row,
        TO_JSON(STRUCT(12 AS purchases, TRUE AS inStock)) as item, TO_JSON(1.0) as one,
        TO_JSON(CAST('NaN' AS FLOAT64)) as nan, TO_JSON("\"abc\"") as quotes`),
    ).toEqual({
      wide: '9007199254740993',
      quoted: '"9007199254740993"',
      row: '{"coordinates":[10,20],"id":1}',
      item: '{"inStock":true,"purchases":12}',
      one: '1',
      nan: '"NaN"',
      quotes: String.raw`"\"abc\""`,
    });
  });

  it('TO_JSON writes a NUMERIC as an integer or the DOUBLE holding it, and wide numbers as strings when asked', async () => {
    // Docs (the encodings table, NUMERIC, TO_JSON only): -1 is -1, 0 is 0, 9007199254740993 is
    // 9007199254740993, 123.56 is 123.56; with stringify_wide_numbers=>TRUE 9007199254740993 is
    // "9007199254740993" and 123.56 stays 123.56. Docs (TO_JSON): TO_JSON(9007199254740993,
    // stringify_wide_numbers=>TRUE) is "9007199254740993", and with FALSE 9007199254740993. The
    // rest as ZetaSQL's to_json.cc (ToJsonFromNumeric) decides: UINT64's largest stays an integer,
    // 1e20 is the DOUBLE 1e+20, and a value no DOUBLE holds (20 digits) is a string under
    // stringify_wide_numbers, in JSON_ARRAY's encoding too.
    expect(
      await row(`select TO_JSON(NUMERIC '-1') as minus_one, TO_JSON(NUMERIC '0') as zero,
        TO_JSON(NUMERIC '9007199254740993') as wide, TO_JSON(NUMERIC '123.56') as fraction,
        TO_JSON(NUMERIC '9007199254740993', stringify_wide_numbers=>TRUE) as wide_on,
        TO_JSON(NUMERIC '123.56', stringify_wide_numbers=>TRUE) as fraction_on,
        TO_JSON(9007199254740993, stringify_wide_numbers=>TRUE) as int64_on,
        TO_JSON(9007199254740993, stringify_wide_numbers=>FALSE) as int64_off,
        TO_JSON(NUMERIC '18446744073709551615') as uint64_max, TO_JSON(NUMERIC '1e20') as double_held,
        TO_JSON(STRUCT(NUMERIC '12345678901234567.891' AS x), stringify_wide_numbers=>TRUE) as too_wide_on,
        JSON_ARRAY(NUMERIC '2.50', CAST(x AS NUMERIC)) as in_array
        from unnest(['-0.001']) as x`),
    ).toEqual({
      minus_one: '-1',
      zero: '0',
      wide: '9007199254740993',
      fraction: '123.56',
      wide_on: '"9007199254740993"',
      fraction_on: '123.56',
      int64_on: '"9007199254740993"',
      int64_off: '9007199254740993',
      uint64_max: '18446744073709551615',
      double_held: '1e+20',
      too_wide_on: '{"x":"12345678901234567.891"}',
      in_array: '[2.5,-0.001]',
    });
    // "If a numerical value can't be stored in JSON without loss of precision, an error is thrown"
    // (TO_JSON); the words are ToJsonFromNumeric's. A 16- or 17-digit value a DOUBLE holds is not
    // translated: the docs write such a DOUBLE two ways.
    await expect(row(`select TO_JSON(NUMERIC '12345678901234567.891') as j`)).rejects.toThrow(
      'Failed to convert type NUMERIC to JSON',
    );
    await expect(row(`select TO_JSON(NUMERIC '1234567890123456.5') as j`)).rejects.toThrow(
      'TO_JSON of the NUMERIC 1234567890123456.5 is not translated',
    );
  });

  it('JSON_REMOVE removes what each path matches in turn, as documented', async () => {
    // Docs (JSON_REMOVE): ["a", ["b", "c"], "d"] less $[1] is ["a","d"], less $[1] twice ["a"],
    // then $[0] []; {"a": {"b": {"c": "d"}}} less $.a.b.c is {"a":{"b":{}}}, less $.a.b {"a":{}};
    // {"a": 1} less $.b is {"a":1}; {"a": [1, 2, 3]} less $.a[0], $.a.b, $.b, $.a[0] is {"a":[3]};
    // null less $.a.b is null; data.a of {"a": {"b": 10, "c": 20}} less $.b is {"c":20}; '$' is an
    // error.
    expect(
      await row(`select JSON_REMOVE(JSON '["a", ["b", "c"], "d"]', '$[1]') as a,
        JSON_REMOVE(JSON '["a", ["b", "c"], "d"]', '$[1]', '$[1]') as b,
        JSON_REMOVE(JSON '["a", ["b", "c"], "d"]', '$[1]', '$[1]', '$[0]') as c,
        JSON_REMOVE(JSON '{"a": {"b": {"c": "d"}}}', '$.a.b.c') as d,
        JSON_REMOVE(JSON '{"a": {"b": {"c": "d"}}}', '$.a.b') as e, JSON_REMOVE(JSON '{"a": 1}', '$.b') as f,
        JSON_REMOVE(JSON '{"a": [1, 2, 3]}', '$.a[0]', '$.a.b', '$.b', '$.a[0]') as g,
        JSON_REMOVE(JSON 'null', '$.a.b') as h`),
    ).toEqual({
      a: '["a","d"]',
      b: '["a"]',
      c: '[]',
      d: '{"a":{"b":{}}}',
      e: '{"a":{}}',
      f: '{"a":1}',
      g: '{"a":[3]}',
      h: 'null',
    });
    expect(
      await row(`with T as (select JSON '{"a": {"b": 10, "c": 20}}' as data)
        select JSON_REMOVE(data.a, '$.b') as json_data from T`),
    ).toEqual({ json_data: '{"c":20}' });
    expect(() => translationOf("select JSON_REMOVE(JSON '{}', '$')")).toThrow(/JSONPath '\$'/);
  });

  it('JSON_SET sets each value at its path in turn, creating what is missing, as documented', async () => {
    // Docs (JSON_SET, create_if_missing omitted): the examples' results, in order: '$' replaces the
    // whole value; $.a.b under {} and under null is created; $.a.c under the number 1 and $.a[2]
    // are skipped; $[1] and $[1][0] replace; $[0][3] on null and $[1][4] pad with nulls; $[1][0][0]
    // under "b" is skipped; $[1][2][1] and $.b[2].d create; three pairs at once.
    expect(
      await row(`select JSON_SET(JSON '{"a": 1}', '$', JSON '{"b": 2, "c": 3}') as a,
        JSON_SET(JSON '{"a": {}}', '$.a.b', 100) as b, JSON_SET(JSON 'null', '$.a.b', 100) as c,
        JSON_SET(JSON '{"a": 1}', '$.b', 2, '$.a.c', 100, '$.d', 3) as d,
        JSON_SET(JSON '{"a": 1}', '$.a[2]', 100, '$.b', 2) as e,
        JSON_SET(JSON '["a", ["b", "c"], "d"]', '$[1]', "foo") as f,
        JSON_SET(JSON '["a", ["b", "c"], "d"]', '$[1][0]', "foo") as g, JSON_SET(JSON 'null', '$[0][3]', "foo") as h,
        JSON_SET(JSON '["a", ["b", "c"], "d"]', '$[1][4]', "foo") as i,
        JSON_SET(JSON '["a", ["b", "c"], "d"]', '$[1][0][0]', "foo") as j,
        JSON_SET(JSON '["a", ["b", "c"], "d"]', '$[1][2][1]', "foo") as k,
        JSON_SET(JSON '{}', '$.b[2].d', 100) as l,
        JSON_SET(JSON '{"a": 1, "b": {"c":3}, "d": [4]}', '$.a', 'v1', '$.b.e', 'v2', '$.d[2]', 'v3') as m`),
    ).toEqual({
      a: '{"b":2,"c":3}',
      b: '{"a":{"b":100}}',
      c: '{"a":{"b":100}}',
      d: '{"a":1,"b":2,"d":3}',
      e: '{"a":1,"b":2}',
      f: '["a","foo","d"]',
      g: '["a",["foo","c"],"d"]',
      h: '[[null,null,null,"foo"]]',
      i: '["a",["b","c",null,null,"foo"],"d"]',
      j: '["a",["b","c"],"d"]',
      k: '["a",["b","c",[null,"foo"]],"d"]',
      l: '{"b":[null,null,{"d":100}]}',
      m: '{"a":"v1","b":{"c":3,"e":"v2"},"d":[4,null,"v3"]}',
    });
    // Docs (JSON_SET, create_if_missing => false): $.b of {"a": 1} is left, $.a is set to 999; "If
    // create_if_missing is SQL NULL, the set operation is ignored"; a JSON null on the way is not
    // made into what the path needs (ZetaSQL's JsonSet).
    expect(
      await row(`select JSON_SET(JSON '{"a": 1}', "$.b", 999, create_if_missing => false) as missing,
        JSON_SET(JSON '{"a": 1}', "$.a", 999, create_if_missing => false) as existing,
        JSON_SET(JSON '{"a": 1}', "$.a", 999, create_if_missing => NULL) as null_option,
        JSON_SET(JSON '{"a": null}', "$.a.b", 999, create_if_missing => false) as under_null`),
    ).toEqual({
      missing: '{"a":1}',
      existing: '{"a":999}',
      null_option: '{"a":1}',
      under_null: '{"a":null}',
    });
  });

  it('JSON_ARRAY_APPEND appends each pair in turn to the array at its path, as documented', async () => {
    // Docs (JSON_ARRAY_APPEND), the examples' results in order; then, by its details, a JSON null at
    // the root becomes an array, a NULL path skips its pair, and a NULL append_each_element gives
    // the value as it is. An array whose type is not known here is not added one way or the other.
    expect(
      await row(`select JSON_ARRAY_APPEND(JSON '["a", "b", "c"]', '$', 1) as a,
        JSON_ARRAY_APPEND(JSON '["a", "b", "c"]', '$', [1, 2]) as b,
        JSON_ARRAY_APPEND(JSON '["a", "b", "c"]', '$', [1, 2], append_each_element=>FALSE) as c,
        JSON_ARRAY_APPEND(JSON '["a", ["b"], "c"]', '$[1]', [1, 2], '$[1][1]', [3, 4], append_each_element=>FALSE) as d,
        JSON_ARRAY_APPEND(JSON '["a", ["b"], "c"]', '$[1]', [1, 2], '$[1][1]', [3, 4]) as e,
        JSON_ARRAY_APPEND(JSON '{"a": [1]}', '$.a', 2) as f, JSON_ARRAY_APPEND(JSON '{"a": null}', '$.a', 10) as g,
        JSON_ARRAY_APPEND(JSON '{"a": 1}', '$.a', 2) as h, JSON_ARRAY_APPEND(JSON '{"a": 1}', '$.b', 2) as i,
        JSON_ARRAY_APPEND(JSON 'null', '$', 'x') as j, JSON_ARRAY_APPEND(JSON '[1]', NULL, 2, '$', 3) as k,
        JSON_ARRAY_APPEND(JSON '[1]', '$', 2, append_each_element=>NULL) as m`),
    ).toEqual({
      a: '["a","b","c",1]',
      b: '["a","b","c",1,2]',
      c: '["a","b","c",[1,2]]',
      d: '["a",["b",[1,2,[3,4]]],"c"]',
      e: '["a",["b",1,2],"c"]',
      f: '{"a":[1,2]}',
      g: '{"a":[10]}',
      h: '{"a":1}',
      i: '{"a":1}',
      j: '["x"]',
      k: '[1,3]',
      m: '[1]',
    });
    await expect(row(`select JSON_ARRAY_APPEND(JSON '[1]', '$', IF(FALSE, [5], NULL)) as j`)).rejects.toThrow(
      'JSON_ARRAY_APPEND of an array whose type is not known when the query loads is not translated',
    );
  });

  it('JSON_ARRAY_INSERT inserts at the index its path ends with, padding with nulls, as documented', async () => {
    // Docs (JSON_ARRAY_INSERT), the examples' results in order.
    expect(
      await row(`select JSON_ARRAY_INSERT(JSON '["a", ["b", "c"], "d"]', '$[1]', 1) as a,
        JSON_ARRAY_INSERT(JSON '["a", ["b", "c"], "d"]', '$[1][0]', 1) as b,
        JSON_ARRAY_INSERT(JSON '["a", "b", "c"]', '$[1]', [1, 2]) as c,
        JSON_ARRAY_INSERT(JSON '["a", "b", "c"]', '$[1]', [1, 2], insert_each_element=>FALSE) as d,
        JSON_ARRAY_INSERT(JSON '["a", "b", "c", "d"]', '$[7]', "e") as e,
        JSON_ARRAY_INSERT(JSON '{"a": {}}', '$.a[0]', 2) as f, JSON_ARRAY_INSERT(JSON '[1, 2]', '$', 3) as g,
        JSON_ARRAY_INSERT(JSON '{"a": null}', '$.a[2]', 10) as h, JSON_ARRAY_INSERT(JSON '1', '$[0]', 'r1') as i`),
    ).toEqual({
      a: '["a",1,["b","c"],"d"]',
      b: '["a",[1,"b","c"],"d"]',
      c: '["a",1,2,"b","c"]',
      d: '["a",[1,2],"b","c"]',
      e: '["a","b","c","d",null,null,null,"e"]',
      f: '{"a":{}}',
      g: '[1,2]',
      h: '{"a":[null,null,10]}',
      i: '1',
    });
  });

  it('JSON_STRIP_NULLS removes null members and elements at every depth and keeps emptied ones', async () => {
    // Docs (JSON_STRIP_NULLS, include_arrays and remove_empty omitted): {"a": null, "b": "c"} is
    // {"b":"c"}; [1, null, 2, null] is [1,2]; [1, null, 2, null, [null]] is [1,2,[]]; null is null.
    expect(
      await row(`select JSON_STRIP_NULLS(JSON '{"a": null, "b": "c"}') as a,
        JSON_STRIP_NULLS(JSON '[1, null, 2, null]') as b, JSON_STRIP_NULLS(JSON '[1, null, 2, null, [null]]') as c,
        JSON_STRIP_NULLS(JSON 'null') as d, JSON_STRIP_NULLS(JSON '{"x": {"y": null, "z": [null, {"w": null}]}}') as e`),
    ).toEqual({ a: '{"b":"c"}', b: '[1,2]', c: '[1,2,[]]', d: 'null', e: '{"x":{"z":[{}]}}' });
  });

  it('JSON_KEYS lists the keys of every object reached as dotted paths, sorted, by mode and depth', async () => {
    // Expected: GoogleSQL's reference implementation's documented examples (ZetaSQL
    // zetasql/public/functions/json.h, JsonKeys, Examples 1-5) and its compliance cases
    // (zetasql/compliance/functions_testlib_json.cc, GetFunctionTestsJsonKeys). The mode is
    // 'strict' by default and read in any case.
    expect(
      await row(`select JSON_KEYS(JSON '{"a":{"b":1}}') as ex1,
        JSON_KEYS(JSON '{"a":[{"b":1}, {"c":2}]}', mode => 'lax') as ex2,
        JSON_KEYS(JSON '{"a":[{"b":1}, {"c":2}]}') as ex2a,
        JSON_KEYS(JSON '{"a":[[{"b":1}]]}', mode => 'lax recursive') as ex3,
        JSON_KEYS(JSON '{"a":[[{"b":1}]]}', mode => 'lax') as ex3a,
        JSON_KEYS(JSON '{"a":{"b":1}}', 1) as ex4,
        JSON_KEYS(JSON '{"a":[{"b":1}]}', 2, mode => 'LAX') as ex5,
        JSON_KEYS(JSON '{"a.b": {"c\\\\"":1, "d.e":2}}') as escaped,
        JSON_KEYS(JSON '{"a": {"c":{"d":1, "e":1}, "b":1, "a":{"a":1}}}') as sorted,
        JSON_KEYS(JSON '{"a": {"c":{"d":1, "e":1}, "b":1, "a":{"a":1}}}', 2) as depth2,
        JSON_KEYS(JSON '[{"a":1}, {"b":1}, {"c":2}, "d"]', 1, mode => 'lax') as top_array,
        JSON_KEYS(JSON '{"a": [[{"b":1}, {"b":2}], [[[{"c":2}]]], {"b":{"c":3}}]}', 2, mode => 'lax recursive') as nested,
        JSON_KEYS(JSON '[1, {"a": 1}, {"c": [{"d":2}, [{"e":3}]]}, [{"b": 2}]]', mode => 'lax') as lax_nested,
        JSON_KEYS(JSON '[1, [{"a": 1}], [{"c": 1}], [[{"b": 2}]]]') as strict_arrays,
        JSON_KEYS(JSON 'null') as of_null, JSON_KEYS(JSON '{"a":1}', NULL) as null_depth`),
    ).toEqual({
      ex1: ['a', 'a.b'],
      ex2: ['a', 'a.b', 'a.c'],
      ex2a: ['a'],
      ex3: ['a', 'a.b'],
      ex3a: ['a'],
      ex4: ['a'],
      ex5: ['a', 'a.b'],
      escaped: ['"a.b"', '"a.b"."c\\""', '"a.b"."d.e"'],
      sorted: ['a', 'a.a', 'a.a.a', 'a.b', 'a.c', 'a.c.d', 'a.c.e'],
      depth2: ['a', 'a.a', 'a.b', 'a.c'],
      top_array: ['a', 'b', 'c'],
      nested: ['a', 'a.b', 'a.c'],
      lax_nested: ['a', 'c', 'c.d'],
      strict_arrays: [],
      of_null: [],
      null_depth: ['a'],
    });
    // A NULL mode gives NULL (answered as [], as BigQuery answers a NULL array); 0 or less as
    // max_depth, and an unknown mode, are errors even of a NULL value: JsonKeysFunction's words.
    expect(await row(`select JSON_KEYS(JSON '{"a":1}', mode => NULL) as k`)).toEqual({ k: [] });
    await expect(row(`select JSON_KEYS(JSON '{"a":1}', 0) as k`)).rejects.toThrow(
      'max_depth must be positive.',
    );
    await expect(row(`select JSON_KEYS(NULL, -1) as k`)).rejects.toThrow('max_depth must be positive.');
    await expect(row(`select JSON_KEYS(JSON '{"a":1}', x) as k from unnest([-1]) as x`)).rejects.toThrow(
      'max_depth must be positive.',
    );
    await expect(row(`select JSON_KEYS(NULL, 1, mode => 'loose') as k`)).rejects.toThrow(
      'Invalid JSON mode specified',
    );
    expect(() => translationOf(`select JSON_KEYS('{"a":1}') as k`)).toThrow(
      /JSON_KEYS of a value that is not JSON/,
    );
  });

  it('UNNESTs an array of JSON values to JSON values, whose members and kinds are read', async () => {
    // Docs (JSON_TYPE): the kinds of an UNNEST of [JSON '"apple"', JSON '10', JSON '3.14',
    // JSON 'null', JSON '{"city": "New York", "State": "NY"}', JSON '["apple", "banana"]',
    // JSON 'false'] are string, number, number, null, object, array, boolean. Docs
    // (JSON_QUERY_ARRAY): of a JSON value it is ARRAY<JSON>, so its elements are JSON values.
    expect(
      await rows(`select JSON_TYPE(json_val) as type from unnest([JSON '"apple"', JSON '10', JSON '3.14',
        JSON 'null', JSON '{"city": "New York", "State": "NY"}', JSON '["apple", "banana"]', JSON 'false']) as json_val`),
    ).toEqual(['string', 'number', 'number', 'null', 'object', 'array', 'boolean'].map((type) => ({ type })));
    expect(
      await rows(`select STRING(item.sku) as sku, INT64(item.qty) as qty, LAX_INT64(item['qty']) as lax
        from unnest(JSON_QUERY_ARRAY(JSON '{"items": [{"sku": "a", "qty": 2}, {"sku": "b", "qty": 3}]}', '$.items')) as item`),
    ).toEqual([
      { sku: 'a', qty: 2, lax: 2 },
      { sku: 'b', qty: 3, lax: 3 },
    ]);
  });

  it('JSON_STRIP_NULLS reads a path, include_arrays and remove_empty as documented', async () => {
    // Docs (JSON_STRIP_NULLS), the examples with the named arguments, in order.
    expect(
      await row(`select JSON_STRIP_NULLS(JSON '[1, null, 2, null]', include_arrays=>FALSE) as a,
        JSON_STRIP_NULLS(JSON '[1, null, 2, null, [null]]', remove_empty=>TRUE) as b,
        JSON_STRIP_NULLS(JSON '{"a": null}', remove_empty=>TRUE) as c,
        JSON_STRIP_NULLS(JSON '{"a": [null]}', remove_empty=>TRUE) as d,
        JSON_STRIP_NULLS(JSON '{"a": {"b": {"c": null}}, "d": [null], "e": [], "f": 1}', include_arrays=>FALSE, remove_empty=>TRUE) as e,
        JSON_STRIP_NULLS(JSON '{"a": {"b": {"c": null}}, "d": [null], "e": [], "f": 1}', remove_empty=>TRUE) as f`),
    ).toEqual({
      a: '[1,null,2,null]',
      b: '[1,2]',
      c: 'null',
      d: 'null',
      e: '{"d":[null],"e":[],"f":1}',
      f: '{"f":1}',
    });
    // ZetaSQL's compliance cases (functions_testlib_json.cc) with a path; then the docs' details: a
    // NULL path or option gives the value as it is.
    const initial = `JSON '{"a": {"b":null, "c":null, "d":[[null], null]}, "e":null}'`;
    expect(
      await row(`select JSON_STRIP_NULLS(${initial}, '$.a', include_arrays=>TRUE, remove_empty=>TRUE) as a,
        JSON_STRIP_NULLS(${initial}, '$.a.d', include_arrays=>TRUE, remove_empty=>FALSE) as d,
        JSON_STRIP_NULLS(${initial}, '$.a.d', include_arrays=>FALSE, remove_empty=>TRUE) as d_kept,
        JSON_STRIP_NULLS(${initial}, '$.a[0]') as mismatch,
        JSON_STRIP_NULLS(JSON '["a", null, 1.1, [], [null], [1, null], {}, {"a":null}, {"b":1, "c":null}]', '$', include_arrays=>FALSE, remove_empty=>TRUE) as in_array,
        JSON_STRIP_NULLS(JSON '{"a": null}', NULL) as null_path, JSON_STRIP_NULLS(JSON '{"a": null}', remove_empty=>NULL) as null_option`),
    ).toEqual({
      a: '{"a":null,"e":null}',
      d: '{"a":{"b":null,"c":null,"d":[[]]},"e":null}',
      d_kept: '{"a":{"b":null,"c":null,"d":[[null],null]},"e":null}',
      mismatch: '{"a":{"b":null,"c":null,"d":[[null],null]},"e":null}',
      in_array: '["a",null,1.1,[],[null],[1,null],{},{},{"b":1}]',
      null_path: '{"a":null}',
      null_option: '{"a":null}',
    });
  });

  it('keeps a JSON subquery column JSON, so its members can be read outside', async () => {
    expect(
      await rows(`with t as (select PARSE_JSON('{"k": "v1"}') as j union all select PARSE_JSON('{"k": 7}'))
        select LAX_STRING(t.j.k) as k from t order by k`),
    ).toEqual([{ k: '7' }, { k: 'v1' }]);
  });

  it.each([
    [
      'STRING of a JSON value with a time zone',
      `select STRING(JSON '"a"', 'UTC') as s`,
      /STRING of a JSON value takes one argument/,
    ],
    [
      'STRING of a DATE, which BigQuery has no STRING for',
      'select STRING(current_date()) as s',
      /STRING of a DATE/,
    ],
    ['STRING of a DATETIME', 'select STRING(current_datetime()) as s', /STRING of a DATETIME/],
    ['INT64 of JSON-formatted text', `select INT64('{"a": 1}') as s`, /INT64 of a value that is not JSON/],
    [
      'a named argument a function does not take',
      `select INT64(JSON '1', wide_number_mode => 'exact') as s`,
      /the named argument wide_number_mode to INT64/,
    ],
    // BigQuery's JSON is not comparable: "No matching signature for operator = for argument
    // types: JSON, STRING" (as Log Analytics users meet with json_payload.message = '...').
    ['= on a JSON member', `select JSON '{"m": "a"}'.m = 'a' as s`, /operator = on a JSON value/],
    ['IN on a JSON value', `select PARSE_JSON('1') IN (1, 2) as s`, /operator IN on a JSON value/],
    ['BETWEEN on a JSON value', `select JSON '2' BETWEEN 1 AND 3 as s`, /operator BETWEEN on a JSON value/],
    // resolver_expr.cc: "Invalid JSON literal: " and json_value.cc CheckNumberRoundtrip's words.
    [
      'a JSON literal with a number no DOUBLE holds exactly',
      `select JSON '{"id": 922337203685477580701}' as j`,
      'Invalid JSON literal: Input number: 922337203685477580701 cannot round-trip through string representation',
    ],
    // "Grouping by expressions of type JSON is not allowed"; "ORDER BY does not support expressions of type JSON".
    [
      'GROUP BY a JSON column',
      `with t as (select PARSE_JSON('{"a": 1}') as j) select j, count(*) as n from t group by j`,
      /GROUP BY a JSON value/,
    ],
    [
      'SELECT DISTINCT of a JSON column',
      `with t as (select PARSE_JSON('{"a": 1}') as j) select distinct j from t`,
      /SELECT DISTINCT of a JSON value/,
    ],
    [
      'COUNT(DISTINCT) of a JSON column',
      `with t as (select PARSE_JSON('{"a": 1}') as j) select count(distinct j) as n from t`,
      /COUNT\(DISTINCT \.\.\.\) of a JSON value/,
    ],
    ['MAX of a JSON value', `select max(JSON '1') as n`, /MAX\(\.\.\.\) of a JSON value/],
    [
      'ORDER BY a JSON alias',
      `with t as (select PARSE_JSON('{"a": 1}') as j) select j.a as x from t order by x`,
      /ORDER BY a JSON value/,
    ],
  ])('refuses %s', (_what, sql, message) => {
    expect(() => translationOf(sql)).toThrow(message);
  });
});
