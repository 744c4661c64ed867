import { describe, expect, it } from 'vitest';
import { translationOf, useTranslatedQueries } from '../helpers/translated-row.js';

// Expected values are the documented results of BigQuery's JSON functions over JSON-formatted
// strings: https://cloud.google.com/bigquery/docs/reference/standard-sql/json_functions
const { row, rows, scratch: engine } = useTranslatedQueries();

describe('BigQuery JSON functions on DuckDB', () => {
  it('JSON_VALUE returns the scalar at a path as text, NULL for an array or object', async () => {
    // Docs: JSON_VALUE('{"name": "Jakob", "age": "6"}', '$.age') = '6';
    // JSON_VALUE('{"fruits": ["apple", "banana"]}', '$.fruits') = NULL;
    // JSON_VALUE('{"a.b": {"c": "world"}}', '$."a.b".c') = 'world'.
    expect(
      await row(`select json_value('{"name": "Jakob", "age": "6"}', '$.age') as age,
        json_value('{"fruits": ["apple", "banana"]}', '$.fruits') as fruits,
        json_value('{"a.b": {"c": "world"}}', '$."a.b".c') as quoted,
        json_value('{"a": {"b": [10, 20]}}', '$.a.b[1]') as indexed,
        json_value('{"a": 5}', '$.missing') as missing, json_value('"plain"') as whole`),
    ).toEqual({ age: '6', fruits: null, quoted: 'world', indexed: '20', missing: null, whole: 'plain' });
  });

  it('JSON_VALUE unquotes and unescapes a string, writes a boolean as text and gives SQL NULL for a JSON null', async () => {
    // Docs: JSON_VALUE "removes the outermost quotes and unescapes the values", and returns SQL
    // NULL when the path matches a JSON null, an object or an array.
    expect(
      await row(`select json_value('{"a": "x\\\\"y\\\\u00e9"}', '$.a') as escaped,
        json_value('{"a": true}', '$.a') as flag, json_value('{"a": null}', '$.a') as nothing,
        json_extract_scalar('{"a": {"b": 1}}', '$.a') as object`),
    ).toEqual({ escaped: 'x"yé', flag: 'true', nothing: null, object: null });
  });

  it('JSON_VALUE reads the text once per path rather than asking its type first', () => {
    const { sql } = translationOf(`select json_value('{"a": 1}', '$.a') as a`);
    expect(sql).toContain('json_value(');
    expect(sql).not.toContain('json_type(');
  });

  it('JSON_EXTRACT_SCALAR reads the legacy bracket path', async () => {
    // Docs: JSON_EXTRACT_SCALAR('{"a.b": {"c": "world"}}', "$['a.b'].c") = 'world';
    // JSON_EXTRACT_SCALAR('{"name": "Jakob", "age": "6"}', '$.name') = 'Jakob'.
    expect(
      await row(`select json_extract_scalar('{"a.b": {"c": "world"}}', "$['a.b'].c") as a,
        json_extract_scalar('{"name": "Jakob", "age": "6"}', '$.name') as b`),
    ).toEqual({ a: 'world', b: 'Jakob' });
  });

  it('the legacy functions read a bracketed name without quotes, as documented', async () => {
    // Docs (JSON_EXTRACT_ARRAY, JSON_EXTRACT_STRING_ARRAY): '$[fruits]' and '$.fruits' give the same
    // ["apples", "oranges", "grapes"]. The standard functions take digits only in brackets.
    const doc = `'{"fruits": ["apples", "oranges", "grapes"]}'`;
    expect(
      await row(`select JSON_EXTRACT_ARRAY(${doc}, '$[fruits]') as json_array,
        JSON_EXTRACT_STRING_ARRAY(${doc}, '$[fruits]') as string_array,
        JSON_EXTRACT_SCALAR('{"a": {"b-c": 5}}', '$[a][ b-c ]') as spaced`),
    ).toEqual({
      json_array: ['"apples"', '"oranges"', '"grapes"'],
      string_array: ['apples', 'oranges', 'grapes'],
      spaced: '5',
    });
    expect(() => translationOf(`select JSON_QUERY(${doc}, '$[fruits]') as j`)).toThrow(
      /JSONPath \$\[fruits\]/,
    );
  });

  it('JSON_QUERY and JSON_EXTRACT return JSON text, and SQL NULL for a JSON null', async () => {
    // Docs: JSON_QUERY('{"class": {"students": [{"name": "Jane"}]}}', '$.class') = '{"students":[{"name":"Jane"}]}';
    // JSON_QUERY('{"a.b": {"c": "world"}}', '$."a.b"') = '{"c":"world"}';
    // JSON_EXTRACT('{"a.b": {"c": "world"}}', "$['a.b']") = '{"c":"world"}';
    // JSON_EXTRACT('{"a": null}', "$.a") is SQL NULL for a JSON-formatted STRING.
    expect(
      await row(`select json_query('{"class": {"students": [{"name": "Jane"}]}}', '$.class') as a,
        json_query('{"a.b": {"c": "world"}}', '$."a.b"') as b,
        json_extract('{"a.b": {"c": "world"}}', "$['a.b']") as c,
        json_extract('{"a": null}', '$.a') as d, json_query('{"a": "x"}', '$.a') as e`),
    ).toEqual({
      a: '{"students":[{"name":"Jane"}]}',
      b: '{"c":"world"}',
      c: '{"c":"world"}',
      d: null,
      e: '"x"',
    });
  });

  it('JSON_QUERY_ARRAY and JSON_EXTRACT_ARRAY return the elements as JSON texts', async () => {
    // Docs: JSON_QUERY_ARRAY('{"fruits": ["apples", "oranges", "grapes"]}', '$.fruits') =
    // ['"apples"', '"oranges"', '"grapes"']; JSON_EXTRACT_ARRAY('[1,2,3]') = ['1', '2', '3'].
    expect(
      await row(`select json_query_array('{"fruits": ["apples", "oranges", "grapes"]}', '$.fruits') as a,
        json_extract_array('[1,2,3]') as b`),
    ).toEqual({ a: ['"apples"', '"oranges"', '"grapes"'], b: ['1', '2', '3'] });
  });

  it('the JSON functions of a STRING that is not JSON answer NULL, as log lines of plain text need', async () => {
    // ZetaSQL's compliance tests (functions_testlib_json.cc): JSON_QUERY('{"a": ', '$') is NULL;
    // its extractors answer NULL where the text does not parse ("Parse-failed OR no-match-found
    // OR null-Value", json_internal.h). A source's lines mix JSON and plain text.
    const lines = `unnest(['{"a": ', '{"a": {"b": ["1"]}}', 'connection received: host=10.0.0.1']) as x with offset as i`;
    expect(
      await rows(`select json_value(x, '$.a.b[0]') as v, json_extract_scalar(x, '$.a.b[0]') as s,
        json_query(x, '$.a') as q, json_extract(x, '$.a') as e, json_query_array(x, '$.a.b') as qa,
        json_extract_array(x, '$.a.b') as ea, json_value_array(x, '$.a.b') as va from ${lines} order by i`),
    ).toEqual([
      { v: null, s: null, q: null, e: null, qa: [], ea: [], va: [] },
      { v: '1', s: '1', q: '{"b":["1"]}', e: '{"b":["1"]}', qa: ['"1"'], ea: ['"1"'], va: ['1'] },
      { v: null, s: null, q: null, e: null, qa: [], ea: [], va: [] },
    ]);
  });

  it.each([
    ['a wildcard JSONPath', "select json_value('{}', '$.a[*]')"],
    ['a JSONPath that is not a literal', "select json_value('{}', @path)"],
  ])('refuses %s', (_what, sql) => {
    expect(() => translationOf(sql)).toThrow(/Cannot translate to DuckDB: .*JSON/);
  });

  it('JSON_VALUE compared with text in a WHERE keeps the rows whose value reads so, escaped or not', async () => {
    // Auth events as GoTrue writes them; e2 escapes its action (`\u006c` is `l`: it reads
    // 'login'), e3 names login elsewhere but logs out, e4's action is a number, e5 has none.
    const events = [
      ['e1', '{"msg": "request completed", "auth_event": {"action": "login"}}'],
      ['e2', '{"auth_event": {"action": "\\u006cogin"}}'],
      ['e3', '{"path": "/login", "auth_event": {"action": "logout"}}'],
      ['e4', '{"auth_event": {"action": 5}}'],
      ['e5', '{"msg": "login"}'],
      ['e6', '{"auth_event": {"action": "user_signedup"}}'],
    ];
    await engine().duckdb(
      `INSERT INTO "gotrue.logs.prod" (id, event_message) VALUES ${events.map(([id, json]) => `('${id}', '${json}')`).join(', ')}`,
    );
    const ids = async (where: string) =>
      (await rows(`select id from auth_logs where ${where} order by id`)).map((r) => r.id);
    const action = `json_value(event_message, '$.auth_event.action')`;
    expect(await ids(`${action} = 'login'`)).toEqual(['e1', 'e2']);
    expect(await ids(`${action} in ('login', 'user_signedup') and id != 'e1'`)).toEqual(['e2', 'e6']);
    expect(await ids(`${action} = '5'`)).toEqual(['e4']);
    expect(await ids(`not (${action} = 'login')`)).toEqual(['e3', 'e4', 'e6']);
    expect(await ids(`${action} in ('login', 'user_signedup', 'logout', 'x') and id != 'e1'`)).toEqual([
      'e2',
      'e3',
      'e6',
    ]);
    // The search is there to skip the parse, beside the comparison, never in its place.
    expect(translationOf(`select id from auth_logs where ${action} = 'login'`).sql).toMatch(
      /contains\("event_message", 'login'\)/,
    );
    // Past two texts the searches would cost more than the parses they save.
    expect(translationOf(`select id from auth_logs where ${action} in ('a', 'b', 'c')`).sql).not.toMatch(
      /contains\(/,
    );
  });
});
