import { describe, expect, it } from 'vitest';
import { translateToDuckDb } from '../../src/sql/translate.js';
import { translationOf, useTranslatedQueries } from '../helpers/translated-row.js';

// Expected texts are BigQuery's documented results: TO_JSON_STRING's examples and the "JSON
// encodings" table (https://cloud.google.com/bigquery/docs/reference/standard-sql/json_functions),
// JSON_VALUE_ARRAY's examples, NET.HOST's example table
// (https://cloud.google.com/bigquery/docs/reference/standard-sql/net_functions) and BIT_COUNT's
// (https://cloud.google.com/bigquery/docs/reference/standard-sql/bit_functions). Where the
// documentation gives a rule and no example, the expected text follows GoogleSQL's reference
// implementation (ZetaSQL's json_format.cc: C's %.15g, else %.17g, for a FLOAT64; json_util.cc's
// escapes), computed here by hand or with JavaScript, never by the translator.
const { row, rows } = useTranslatedQueries();

describe('TO_JSON_STRING on DuckDB', () => {
  it('writes the documented STRUCT examples, compact and with pretty_print', async () => {
    // Docs: TO_JSON_STRING(STRUCT(1 AS id, [10,20] AS coordinates)) = '{"id":1,"coordinates":[10,20]}',
    // and with pretty_print true the two-space layout shown there.
    expect(
      await row(`select to_json_string(struct(1 as id, [10,20] as coordinates)) as compact,
        to_json_string(struct(1 as id, [10,20] as coordinates), true) as pretty,
        to_json_string(struct(1 as id, [10,20] as coordinates), false) as unpretty,
        to_json_string(struct(1 as id), null) as no_print,
        to_json_string(struct([struct(1 as x, [2, 3] as y)] as a, struct<b string>('c') as s), true) as nested`),
    ).toEqual({
      compact: '{"id":1,"coordinates":[10,20]}',
      pretty: '{\n  "id": 1,\n  "coordinates": [\n    10,\n    20\n  ]\n}',
      unpretty: '{"id":1,"coordinates":[10,20]}',
      no_print: null,
      // ZetaSQL's JsonPrettyPrinter: two more spaces a level, each element and field on its line.
      nested: [
        '{',
        '  "a": [',
        '    {',
        '      "x": 1,',
        '      "y": [',
        '        2,',
        '        3',
        '      ]',
        '    }',
        '  ],',
        '  "s": {',
        '    "b": "c"',
        '  }',
        '}',
      ].join('\n'),
    });
  });

  it('writes each type as the JSON encodings table does', async () => {
    expect(
      await row(`select to_json_string(9007199254740992) as lossless, to_json_string(9007199254740993) as wide,
        to_json_string(-9007199254740993) as wide_negative, to_json_string(true) as yes, to_json_string(null) as nothing,
        to_json_string(1.0) as whole, to_json_string(cast('+inf' as float64)) as inf,
        to_json_string(cast('-inf' as float64)) as negative_inf, to_json_string(cast('NaN' as float64)) as nan,
        to_json_string(cast(-1 as numeric)) as numeric_negative, to_json_string(cast(0 as numeric)) as numeric_zero,
        to_json_string(cast('9007199254740993' as numeric)) as numeric_wide, to_json_string(cast(123.56 as numeric)) as numeric_fraction,
        to_json_string("abc") as text, to_json_string("\\"abc\\"") as quoted, to_json_string(b"Google") as bytes,
        to_json_string(date '2017-03-06') as day, to_json_string(timestamp '2017-03-06 12:34:56.789012') as instant,
        to_json_string(datetime '2017-03-06 12:34:56.789012') as civil, to_json_string(time '12:34:56.789012') as clock,
        to_json_string(["red", "blue", "green"]) as colours, to_json_string([1, 2, 3]) as numbers,
        to_json_string(struct(12 as purchases, true as inStock)) as record`),
    ).toEqual({
      lossless: '9007199254740992',
      wide: '"9007199254740993"',
      wide_negative: '"-9007199254740993"',
      yes: 'true',
      nothing: 'null',
      whole: '1',
      inf: '"Infinity"',
      negative_inf: '"-Infinity"',
      nan: '"NaN"',
      numeric_negative: '-1',
      numeric_zero: '0',
      numeric_wide: '"9007199254740993"',
      numeric_fraction: '"123.56"',
      text: '"abc"',
      quoted: '"\\"abc\\""',
      bytes: '"R29vZ2xl"',
      day: '"2017-03-06"',
      instant: '"2017-03-06T12:34:56.789012Z"',
      civil: '"2017-03-06T12:34:56.789012"',
      clock: '"12:34:56.789012"',
      colours: '["red","blue","green"]',
      numbers: '[1,2,3]',
      // The table prints {"inStock": true,"purchases":12}; TO_JSON_STRING keeps the fields' order.
      record: '{"purchases":12,"inStock":true}',
    });
  });

  it('writes a FLOAT64 with 15 significant digits, or 17 where 15 do not read back, unsigned at zero', async () => {
    // C's %.15g and %.17g (ZetaSQL's RoundTripDoubleToString): exponents of two digits or more.
    const third = (1 / 3).toPrecision(17);
    expect(
      await row(`select to_json_string(1/3) as third, to_json_string(0.1) as tenth, to_json_string(1e20) as big,
        to_json_string(1.5e-7) as small, to_json_string(-0.0) as negative_zero, to_json_string(2.5) as half,
        to_json_string(cast(9007199254740993 as float64)) as rounded`),
    ).toEqual({
      third,
      tenth: '0.1',
      big: '1e+20',
      small: '1.5e-07',
      negative_zero: '0',
      half: '2.5',
      rounded: '9007199254740992',
    });
  });

  it('escapes quotes, backslashes, control characters and U+2028/U+2029 and nothing else', async () => {
    // "Specifically, ", \, and the control characters from U+0000 to U+001F are escaped"; the
    // reference implementation writes \b \t \n \f \r, \u00xx in lower case, and \u2028, \u2029.
    const { text } = await row(
      `select to_json_string('q"b\\\\n\\nt\\tc\\x01\\x0b\\x1f<>&é\\u2028\\u2029/') as text`,
    );
    expect(text).toBe('"q\\"b\\\\n\\nt\\tc\\u0001\\u000b\\u001f<>&é\\u2028\\u2029/"');
  });

  it('writes TIMESTAMP, DATETIME and TIME with 0, 3 or 6 fractional digits', async () => {
    expect(
      await row(`select to_json_string(timestamp '2024-01-02 03:04:05') as whole,
        to_json_string(timestamp '2024-01-02 03:04:05.1') as tenth, to_json_string(timestamp '2024-01-02 03:04:05.1234') as micros,
        to_json_string(timestamp '2024-01-02 03:04:05+02:00') as offset, to_json_string(datetime '2024-01-02 03:04:05.5') as civil,
        to_json_string(time '03:04:05') as clock`),
    ).toEqual({
      whole: '"2024-01-02T03:04:05Z"',
      tenth: '"2024-01-02T03:04:05.100Z"',
      micros: '"2024-01-02T03:04:05.123400Z"',
      offset: '"2024-01-02T01:04:05Z"',
      civil: '"2024-01-02T03:04:05.500"',
      clock: '"03:04:05"',
    });
  });

  it('names anonymous fields "" and writes NULL fields, elements and empty arrays', async () => {
    // "Anonymous fields are represented with """; a NULL is null at any depth.
    expect(
      await row(`select to_json_string(struct(1, 'x')) as anonymous, to_json_string((2, 'y')) as tuple,
        to_json_string(struct(cast(null as string) as s, [struct(cast(null as int64) as n)] as l)) as nulls,
        to_json_string(struct([] as e), true) as empty`),
    ).toEqual({
      anonymous: '{"":1,"":"x"}',
      tuple: '{"":2,"":"y"}',
      nulls: '{"s":null,"l":[{"n":null}]}',
      empty: '{\n  "e": []\n}',
    });
  });

  it('writes a computed value by its type and a JSON value as its text', async () => {
    const found = await rows(`with t as (select 'a' as s, 2 as n, 2.5 as f union all select null, null, null)
      select to_json_string(s) as s, to_json_string(n * 2) as n, safe.to_json_string(f) as f,
        to_json_string(json '{"item": "pen", "price": 10}') as j from t order by s nulls last`);
    expect(found).toEqual([
      { s: '"a"', n: '4', f: '2.5', j: '{"item":"pen","price":10}' },
      { s: 'null', n: 'null', f: 'null', j: '{"item":"pen","price":10}' },
    ]);
  });

  it.each([
    [
      'a pretty_print that is not a literal',
      'select to_json_string(1, @pretty)',
      /pretty_print that is not the literal/,
    ],
    [
      'pretty_print of a JSON value',
      `select to_json_string(json '{"a": 1}', true)`,
      /pretty_print of a JSON value/,
    ],
  ])('refuses %s at load, naming it', (_what, sql, message) => {
    expect(() => translationOf(sql)).toThrow(message);
  });

  it("refuses a log source's record, whose fields BigQuery's table lists in an order the store does not hold", () => {
    const tables = [
      {
        name: 'edge_logs',
        columns: { metadata: { struct: { path: 'VARCHAR' }, repeated: true } },
      },
    ];
    expect(() =>
      translateToDuckDb('select to_json_string(metadata) as m from edge_logs', { tables }),
    ).toThrow(/TO_JSON_STRING of a log source's record/);
  });

  it('refuses a whole row at load, whose columns and types it cannot tell, naming the STRUCT form', () => {
    expect(() => translationOf('select to_json_string(t) as j from (select 1 as x) as t')).toThrow(
      /TO_JSON_STRING of a whole row .*TO_JSON_STRING\(STRUCT\(a, b\)\)/,
    );
    expect(() => translationOf('with t as (select 1 as x) select to_json_string(t) as j from t')).toThrow(
      /TO_JSON_STRING of a whole row/,
    );
  });

  it('fails at run time, naming the type, for a STRUCT or ARRAY whose fields the translator cannot tell', async () => {
    await expect(row('select to_json_string((select as struct 1 as x)) as j')).rejects.toThrow(
      /TO_JSON_STRING of a value of DuckDB type STRUCT/,
    );
  });
});

describe('JSON_VALUE_ARRAY, JSON_EXTRACT_STRING_ARRAY and JSON_QUERY_ARRAY on DuckDB', () => {
  it('JSON_VALUE_ARRAY returns the scalars as text, NULL for no array or one holding an object', async () => {
    // Docs: ['"foo", "bar", "baz"'] -> [foo, bar, baz]; '["world", null, 1]' -> [world, NULL, 1];
    // '}}' -> NULL; '$.b' missing -> NULL; '{"a": "foo"}' at $ -> NULL; [10, {"b": 20}] -> NULL;
    // an empty array -> []; '$."a.b".c' -> [world].
    expect(
      await row(`select json_value_array('["foo", "bar", "baz"]', '$') as plain,
        array_to_string(json_value_array('["world", null, 1]'), ',', 'NULL') as with_null,
        json_value_array('}}', '$') is null as invalid, json_value_array('{"a": ["foo"]}', '$.b') is null as missing,
        json_value_array('{"a": "foo"}', '$') is null as not_array,
        json_value_array('{"a": [10, {"b": 20}]}', '$.a') is null as mixed,
        json_value_array('{"a": [{"b": "foo", "c": 1}]}', '$.a') is null as objects,
        json_value_array('[1, [2]]') is null as nested,
        array_length(json_value_array('{"a": "foo", "b": []}', '$.b')) as empty,
        json_value_array('{"a.b": {"c": ["world"]}}', '$."a.b".c') as quoted,
        json_value_array(json '{"fruits": ["apples", "oranges", "grapes"]}', '$.fruits') as of_json`),
    ).toEqual({
      plain: ['foo', 'bar', 'baz'],
      with_null: 'world,NULL,1',
      invalid: true,
      missing: true,
      not_array: true,
      mixed: true,
      objects: true,
      nested: true,
      empty: 0,
      quoted: ['world'],
      of_json: ['apples', 'oranges', 'grapes'],
    });
  });

  it('JSON_EXTRACT_STRING_ARRAY reads the legacy bracket path', async () => {
    // Docs: JSON_EXTRACT_STRING_ARRAY('{"a.b": {"c": ["world"]}}', "$['a.b'].c") = [world].
    expect(
      await row(`select json_extract_string_array('{"a.b": {"c": ["world"]}}', "$['a.b'].c") as a,
        json_extract_string_array('[1, 2, 3]') as b`),
    ).toEqual({ a: ['world'], b: ['1', '2', '3'] });
  });

  it('JSON_QUERY_ARRAY is NULL where the path holds no array', async () => {
    // Docs: "If the JSONPath doesn't refer to an array, then NULL is returned":
    // JSON_QUERY_ARRAY('{"a": "foo"}', '$.a') is NULL.
    expect(
      await row(`select json_query_array('{"a": "foo"}', '$.a') is null as scalar,
        json_extract_array('{"a": {"b": 1}}', '$.a') is null as object,
        json_query_array(json '{"a": 1}', '$.a') is null as of_json`),
    ).toEqual({ scalar: true, object: true, of_json: true });
  });
});

describe('NET.HOST and BIT_COUNT on DuckDB', () => {
  it('NET.HOST takes the host of the documented inputs', async () => {
    // Docs' table: "" -> NULL; "http://abc.xyz" -> "abc.xyz"; "//user:password@a.b:80/path?query"
    // -> "a.b"; "https://[::1]:80" -> "[::1]"; "http://例子.卷筒纸.中国" -> itself; "    www.Example.Co.UK    "
    // -> "www.Example.Co.UK"; "mailto:?to=&subject=&body=" -> "mailto".
    expect(
      await row(`select net.host('') as empty, net.host('http://abc.xyz') as standard,
        net.host('//user:password@a.b:80/path?query') as relative, net.host('https://[::1]:80') as ipv6,
        net.host('http://例子.卷筒纸.中国') as idn, net.host('    www.Example.Co.UK    ') as spaced,
        net.host('mailto:?to=&subject=&body=') as mailto, net.host(null) as nothing`),
    ).toEqual({
      empty: null,
      standard: 'abc.xyz',
      relative: 'a.b',
      ipv6: '[::1]',
      idn: '例子.卷筒纸.中国',
      spaced: 'www.Example.Co.UK',
      mailto: 'mailto',
      nothing: null,
    });
  });

  it('NET.HOST reads backslashes, fragments, userinfo, brackets, leading and trailing dots as the reference implementation does', async () => {
    // ZetaSQL net.cc Host: ASCII whitespace is stripped; "\\" ends the host like "/" and stands for it
    // after a scheme's colon; a scheme needs "//" after its first colon (a later one starts none);
    // the last "@" of the location starts the host (an "@" before "://" goes with the scheme, one
    // past the location's end is no userinfo); a host starting with "[" ends at the next bracket
    // before its port is cut (one starting with a dot is no bracketed host; an unclosed bracket
    // runs to the end); leading dots go, trailing dots stay as one.
    expect(
      await row(`select net.host('https://shop.example.com\\\\cart') as backslash,
        net.host('shop.example.com#top') as fragment, net.host('mailto:foo@bar.com') as user_info,
        net.host('..a.b...:8080/x') as dots, net.host('https://') as no_host,
        net.host('http:\\\\\\\\abc.xyz\\\\x') as backslashed_scheme, net.host('\\thttp://abc.xyz\\n') as ascii_space,
        net.host('u@h://x') as at_in_scheme, net.host('a:b://c') as second_colon,
        net.host('a@b:c@d/e') as last_at, net.host('https://a/b@c') as at_in_path,
        net.host('.[::1]:80') as dot_before_bracket, net.host('[::1') as unclosed,
        net.host('//a@[x]:1') as bracketed_after_at, net.host('http://u:p@h..:80') as dots_before_port`),
    ).toEqual({
      backslash: 'shop.example.com',
      fragment: 'shop.example.com',
      user_info: 'bar.com',
      dots: 'a.b.',
      no_host: null,
      backslashed_scheme: 'abc.xyz',
      ascii_space: 'abc.xyz',
      at_in_scheme: 'x',
      second_colon: 'a',
      last_at: 'd',
      at_in_path: 'a',
      dot_before_bracket: '[',
      unclosed: '[::1',
      bracketed_after_at: '[x]',
      dots_before_port: 'h.',
    });
  });

  it('refuses NET.PUBLIC_SUFFIX and NET.REG_DOMAIN, naming the Public Suffix List they depend on', () => {
    for (const name of ['public_suffix', 'reg_domain'])
      expect(() => translationOf(`select net.${name}('http://abc.xyz')`)).toThrow(/Public Suffix List/);
  });

  it('BIT_COUNT counts the set bits of an INT64 in two’s complement and of BYTES', async () => {
    // Docs: 0 -> 0, 5 -> 2, 8 -> 1, 0xFFFF -> 16, -2 -> 63, -1 -> 64, NULL -> NULL; b'' -> 0,
    // b'\x00\x08' -> 1, b'\xFF\xFF' -> 16, eight b'\xFF' -> 64, ten -> 80; and FROM_HEX's bytes.
    expect(
      await row(`select bit_count(0) as a, bit_count(5) as b, bit_count(8) as c, bit_count(65535) as d,
        bit_count(-2) as e, bit_count(-1) as f, bit_count(cast(null as int64)) as g,
        bit_count(b'') as h, bit_count(b'\\x00\\x08') as i, bit_count(b'\\xFF\\xFF') as j,
        bit_count(b'\\xFF\\xFF\\xFF\\xFF\\xFF\\xFF\\xFF\\xFF\\xFF\\xFF') as k, bit_count(from_hex('ffffffffffffffff')) as l`),
    ).toEqual({ a: 0, b: 2, c: 1, d: 16, e: 63, f: 64, g: null, h: 0, i: 1, j: 16, k: 80, l: 64 });
  });
});
