import { describe, expect, it } from 'vitest';
import { isQuerygateError } from '../../src/errors.js';
import { translationOf, useTranslatedQueries } from '../helpers/translated-row.js';

// BigQuery's conversion rules (https://cloud.google.com/bigquery/docs/reference/standard-sql/conversion_functions):
// a STRING casts to INT64 when it is integer text, decimal or hexadecimal ("0x123" to 291);
// anything else fails the CAST and is NULL for SAFE_CAST. The API report's network-traffic query
// (supabase/supabase SharedAPIReport.constants.ts) sums `cast(coalesce(headers.content_length, "0") as int64)`
// over every edge request, so this cast must also be cheap over a STRING column.
const { row, rows, scratch } = useTranslatedQueries();

describe('CAST of a STRING to INT64 on DuckDB', () => {
  it('converts decimal and hexadecimal integer text, blanks and a sign allowed', async () => {
    expect(
      await row(`select cast('12' as int64) as a, cast(' -7 ' as int64) as b, cast('+42' as int64) as c,
        cast('0x1F' as int64) as d, safe_cast('0x10' as int64) as e, cast('9223372036854775807' as int64) as f`),
    ).toEqual({ a: 12, b: -7, c: 42, d: 31, e: 16, f: 9223372036854775807n });
  });

  it('reads the text of a CAST to STRING as text too: hexadecimal through CAST(CAST(x AS STRING) AS INT64)', async () => {
    expect(
      await row(
        `select cast(cast('0x1F' as string) as int64) as a, safe_cast(safe_cast(' -7 ' as string) as int64) as b`,
      ),
    ).toEqual({ a: 31, b: -7 });
  });

  it('converts signed hexadecimal text as BigQuery documents it, -0x123 to -291, within INT64', async () => {
    expect(
      await row(`select cast('-0x123' as int64) as a, cast(' +0x1F ' as int64) as b,
        cast('-0x8000000000000000' as int64) as c, safe_cast('0x8000000000000000' as int64) as d,
        safe_cast('-0x8000000000000001' as int64) as e, safe_cast('-0x' as int64) as f`),
    ).toEqual({ a: -291, b: 31, c: -9223372036854775808n, d: null, e: null, f: null });
    await expect(row(`select cast('0x8000000000000000' as int64) as a`)).rejects.toThrow();
  });

  it('gives NULL in SAFE_CAST for text that is not an integer, where DuckDB alone would round or read it', async () => {
    expect(
      await row(`select safe_cast('2.5' as int64) as a, safe_cast('1e3' as int64) as b, safe_cast('1_000' as int64) as c,
        safe_cast('' as int64) as d, safe_cast('apple' as int64) as e, safe_cast('99999999999999999999' as int64) as f,
        safe_cast(cast(null as string) as int64) as g`),
    ).toEqual({ a: null, b: null, c: null, d: null, e: null, f: null, g: null });
  });

  it('fails a CAST of text that is not an integer, naming the value', async () => {
    const failure = await row(`select cast('2.5' as int64) as a`).catch((error: unknown) => error);
    expect(isQuerygateError(failure) ? failure.message : String(failure)).toContain('Bad int64 value: 2.5');
  });

  it('casts JSON_VALUE text to INT64 as the auth reports do, a missing member to NULL', async () => {
    // Studio's sign-in processing-time report: cast(json_value(event_message, "$.duration") as int64).
    // JSON_VALUE is STRING, so its text follows the STRING rules: CAST(NULL AS INT64) is NULL.
    expect(
      await row(`select cast(json_value('{"duration": 1500}', '$.duration') as int64) as a,
        cast(json_value('{}', '$.duration') as int64) as b,
        safe_cast(json_extract_scalar('{"d": "2.5"}', '$.d') as int64) as c,
        cast(cast(null as string) as int64) as d`),
    ).toEqual({ a: 1500, b: null, c: null, d: null });
    const failure = await row(`select cast(json_value('{"d": 2.5}', '$.d') as int64) as a`).catch(
      (error: unknown) => error,
    );
    expect(isQuerygateError(failure) ? failure.message : String(failure)).toContain('Bad int64 value: 2.5');
    expect(translationOf(`select cast(json_value('{"d": 1}', '$.d') as int64) as n`).sql).not.toContain(
      'DECIMAL',
    );
  });

  it('reads a STRING field of the store through COALESCE, as the network-traffic report does', async () => {
    await scratch().duckdb(`
      INSERT INTO "cloudflare.logs.prod" VALUES
        ('l1', TIMESTAMP '2026-03-10 10:00:00', 'm', 'p1', {request: {url: NULL, path: NULL, method: NULL, host: '120'}, response: NULL}),
        ('l2', TIMESTAMP '2026-03-10 10:00:01', 'm', 'p1', {request: {url: NULL, path: NULL, method: NULL, host: NULL}, response: NULL}),
        ('l3', TIMESTAMP '2026-03-10 10:00:02', 'm', 'p1', {request: {url: NULL, path: NULL, method: NULL, host: ' 30 '}, response: NULL}),
        ('l4', TIMESTAMP '2026-03-10 10:00:03', 'm', 'p1', {request: {url: NULL, path: NULL, method: NULL, host: '0x10'}, response: NULL});
    `);
    // 120 + 0 (NULL, coalesced to "0") + 30 + 16.
    expect(
      await rows(
        `select sum(cast(coalesce(request.host, "0") as int64)) as total from \`cloudflare.logs.prod\` as t
         cross join unnest(t.metadata) as m cross join unnest(m.request) as request`,
      ),
    ).toEqual([{ total: 166 }]);
  });

  it('translates a cast of a STRING column without the DECIMAL detour, and keeps it for FLOAT64', () => {
    const text = translationOf(
      `select cast(coalesce(request.path, "0") as int64) as n from \`cloudflare.logs.prod\` as t
       cross join unnest(t.metadata) as m cross join unnest(m.request) as request`,
    );
    expect(text.sql).not.toContain('DECIMAL');
    expect(text.sql).toContain('regexp_full_match');
    const float = translationOf('select cast(2.5 as int64) as n');
    expect(float.sql).toContain('AS DECIMAL(38, 10)) AS BIGINT)');
  });
});

// PARSE_NUMERIC's documented examples and ZetaSQL's compliance cases
// (zetasql/compliance/functions_testlib_numeric.cc, GetFunctionTestsParseNumeric), as NUMERIC text.
describe('PARSE_NUMERIC on DuckDB', () => {
  it('reads blanks, a sign before or after, commas among the integer digits and an exponent', async () => {
    const cases: [string, string][] = [
      ['123.45', '123.45'],
      ['12.34E27', '12340000000000000000000000000'],
      ['1.0123456789', '1.012345679'],
      ['  -  12.34 ', '-12.34'],
      ['12.34e-1-', '-1.234'],
      [' 1,2,3,.45e+10 + ', '1234500000000'],
      [' 1,2.3e-10 + ', '0.000000001'],
      [' ,1,2,34. + ', '1234'],
      [' .1234 ', '0.1234'],
      [' + \t\v .1 \r\n\f ', '0.1'],
      [' ,,,,1 ', '1'],
      [' 1,,,2 ', '12'],
      [' 1e+28 ', '10000000000000000000000000000'],
      [' 1e-30 ', '0'],
      ['- 12,34567,89.0', '-123456789'],
      [' 0,.12 -', '-0.12'],
    ];
    const select = cases
      .map(
        ([text], i) => `cast(parse_numeric(${JSON.stringify(text).replaceAll('"', "'")}) as string) as c${i}`,
      )
      .join(', ');
    expect(await row(`select ${select}, parse_numeric(null) as none`)).toEqual({
      ...Object.fromEntries(cases.map(([, parsed], i) => [`c${i}`, parsed])),
      none: null,
    });
  });

  it("answers a NUMERIC on the log sources' wire as the number its decimal text reads as", async () => {
    // 123.45e10 is 1234500000000 exactly; 0.1 * 3 is exactly 0.3 as a NUMERIC.
    expect(
      await row(
        `select parse_numeric(' 1,2,3,.45e+10 + ') as c, parse_numeric('0.1') * 3 as d, parse_numeric('-0.000000001') as e`,
      ),
    ).toEqual({ c: 1234500000000, d: 0.3, e: -1e-9 });
  });

  it('fails malformed text or a value past NUMERIC, and SAFE.PARSE_NUMERIC is NULL for it', async () => {
    const malformed = [
      ' . ',
      ' $ 12.34  ',
      ' 1 2.34  ',
      ' 1e2,3  ',
      ' 1.2.3  ',
      ' 1..2  ',
      ' 1.2,3  ',
      ' ,,,.123 ',
      '.e1',
      'e1',
      '1 e+28',
      '1 . 10',
      ' - 12.3 -',
      '  -- 1',
      '1 ++  ',
      ' 1 + 2  ',
      ' + 12 + ',
      ' 1e--10 ',
      ' 1e2.3 ',
      ' 1e+29 ',
    ];
    for (const text of malformed)
      await expect(row(`select parse_numeric('${text}') as n`)).rejects.toThrow(
        'Invalid input to PARSE_NUMERIC',
      );
    const safe = malformed.map((text, i) => `safe.parse_numeric('${text}') as s${i}`).join(', ');
    expect(Object.values(await row(`select ${safe}`))).toEqual(malformed.map(() => null));
  });
});
