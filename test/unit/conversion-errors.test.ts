import { describe, expect, it } from 'vitest';
import { useTranslatedQueries } from '../helpers/translated-row.js';

// Expected words are ZetaSQL's, from its source (zetasql/public/functions/convert.h and
// convert.cc, numeric_value.cc, arithmetics.h with util.cc's UnaryOverflowMessage, string.cc's
// FromHex and FromBase64, reference_impl's PARSE_JSON), the numbers as a C++ stream writes a
// double (six significant digits); inputs and results of FROM_HEX and FROM_BASE64 from the compliance tests (functions_testlib_2.cc)
// and BigQuery's string functions page (an odd count of hex digits reads as if led by a 0).
const { row, rows } = useTranslatedQueries();

/** The query fails as the query's fault (400 INVALID_QUERY) with these words. */
async function expectRefused(sql: string, words: string): Promise<void> {
  await expect(row(sql), sql).rejects.toMatchObject({
    code: 'INVALID_QUERY',
    message: expect.stringMatching(new RegExp(`: ${words.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`)),
  });
}

describe('values a conversion cannot take fail as the query’s fault, in ZetaSQL’s words', () => {
  it('a FLOAT64 past INT64 or not finite, cast to INT64; halfway values still round away from zero', async () => {
    await expectRefused('select cast(x as int64) from unnest([1e300]) as x', 'int64 out of range: 1e+300');
    await expectRefused(
      'select cast(x as int64) from unnest([2.5, -1.5e35]) as x',
      'int64 out of range: -1.5e+35',
    );
    await expectRefused(
      "select cast(x as int64) from unnest([cast('-inf' as float64)]) as x",
      'Illegal conversion of non-finite floating point number to an integer: -inf',
    );
    expect(await row('select cast(x as int64) as a, cast(-x as int64) as b from unnest([2.5]) as x')).toEqual(
      {
        a: 3,
        b: -3,
      },
    );
    expect(await row('select safe_cast(x as int64) as a from unnest([1e300]) as x')).toEqual({ a: null });
  });

  it('a FLOAT64 past NUMERIC or not finite, cast to NUMERIC', async () => {
    await expectRefused(
      'select cast(x as numeric) from unnest([1e300]) as x',
      'numeric out of range: 1e+300',
    );
    await expectRefused(
      "select cast(x as numeric) from unnest([cast('nan' as float64)]) as x",
      'Illegal conversion of non-finite floating point number to numeric: nan',
    );
  });

  it('text of a column whose type the translation does not know, cast to INT64, in INT64’s words', async () => {
    await expectRefused(
      "select cast(x as int64) from (select 'abc' as x union all select '1')",
      'Bad int64 value: abc',
    );
  });

  it('text of a day or hour that does not exist, cast to DATE or TIMESTAMP', async () => {
    // cast_functions.md: a STRING cast to DATE or TIMESTAMP must be a valid date or time; ZetaSQL's
    // words quote the text (date_time_util.cc, "Invalid date: '...'", "Invalid timestamp: '...'").
    await expectRefused(
      "select cast(x as date) from unnest(['2021-02-30']) as x",
      "Invalid date: '2021-02-30'",
    );
    await expectRefused(
      "select cast(x as timestamp) from unnest(['2021-02-01 25:00:00']) as x",
      "Invalid timestamp: '2021-02-01 25:00:00'",
    );
  });

  it('a result BigQuery cannot write: an array holding a NULL', async () => {
    // REGEXP_EXTRACT_ALL of a group that took no part gives a NULL element, and BigQuery fails the
    // query where it writes it: "Array cannot have a null element; error in writing field f0_".
    await expectRefused(
      "select regexp_extract_all(x, r'a(b)?') from unnest(['aab']) as x",
      'Array cannot have a null element; error in writing field f0_',
    );
  });

  it('ABS and negation of INT64’s least value overflow', async () => {
    await expectRefused(
      'select abs(x) from unnest([-9223372036854775808]) as x',
      'int64 overflow: --9223372036854775808',
    );
    await expectRefused(
      'select -x from unnest([-9223372036854775808]) as x',
      'int64 overflow: --9223372036854775808',
    );
    expect(await row('select safe_negate(x) as a from unnest([-9223372036854775808]) as x')).toEqual({
      a: null,
    });
  });

  it('FROM_HEX names the offset of the first character that is no hex digit; NULL under SAFE.', async () => {
    const cases = [
      ['G', 0],
      ['123g321', 3],
      ['abcde00011-', 10],
      ['abcABCжщфЖЩФ', 6],
    ] as const;
    for (const [text, offset] of cases)
      await expectRefused(
        `select from_hex(x) from unnest(['${text}']) as x`,
        `Failed to decode invalid hexadecimal string due to character at offset ${offset}: ${text}`,
      );
    // BYTES come back base64-encoded, as BigQuery's REST API returns them.
    expect(
      await row(
        "select safe.from_hex(x) as a, from_hex('0AF') as b, to_hex(from_hex('0123456789abcdef55aa')) as c, from_hex('') as d from unnest(['123g321']) as x",
      ),
    ).toEqual({ a: null, b: Buffer.from([0x00, 0xaf]).toString('base64'), c: '0123456789abcdef55aa', d: '' });
  });

  it('PARSE_JSON of text that is no JSON fails under ZetaSQL’s leading words; NULL under SAFE.', async () => {
    // zetasql/reference_impl/functions/json.cc: "Invalid input to PARSE_JSON: " and its parser's
    // reason, which DuckDB's parser gives in its own words.
    await expect(row("select parse_json(x) as j from unnest(['{bad']) as x")).rejects.toMatchObject({
      code: 'INVALID_QUERY',
      message: expect.stringMatching(/: Invalid input to PARSE_JSON: \S/),
    });
    expect(await row("select safe.parse_json(x) as j from unnest(['{bad']) as x")).toEqual({ j: null });
  });

  it('FROM_BASE64 reads base64 as absl does: padding whole or left out, blanks skipped; other text fails', async () => {
    // ZetaSQL's FromBase64 is absl::Base64Unescape: "If padding is included, it must be correct",
    // and "always accepting 0 equals signs is an Abseil extension", as is '.' for '='. Compliance
    // pairs: 'abcABC' is YWJjQUJD, ' ' is IA==, '====' fails; 'a' is YQ== (TO_BASE64's padding).
    const bytes = (text: string) => Buffer.from(text, 'latin1').toString('base64');
    expect(
      await rows(`select from_base64(x) as b from unnest(['YWJjQUJD', 'IA==', 'YQ==', 'YQ', 'YQ..', 'Y Q = =', 'YWJjQUJD\n', ''])
        as x with offset as i order by i`),
    ).toEqual(['abcABC', ' ', 'a', 'a', 'a', 'a', 'abcABC', ''].map((text) => ({ b: bytes(text) })));
    for (const text of ['====', 'Y', 'YQ=', 'YWJj=', '@@@'])
      await expectRefused(
        `select from_base64(x) from unnest(['${text}']) as x`,
        'Failed to decode invalid base64 string',
      );
    expect(await row("select safe.from_base64(x) as a from unnest(['====']) as x")).toEqual({ a: null });
  });
});
