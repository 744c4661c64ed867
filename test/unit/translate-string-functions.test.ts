import { DuckDBInstance } from '@duckdb/node-api';
import { describe, expect, it } from 'vitest';
import { translateToDuckDb } from '../../src/sql/translate.js';
import { translationOf, useTranslatedQueries } from '../helpers/translated-row.js';

// Expected values are the documented results of BigQuery's string functions:
// https://cloud.google.com/bigquery/docs/reference/standard-sql/string_functions
const { row, rows } = useTranslatedQueries();

describe('BigQuery string functions on DuckDB', () => {
  it('CONCAT writes a FLOAT64 or TIMESTAMP argument as CAST AS STRING does, not as DuckDB prints it', async () => {
    // CONCAT casts each argument to STRING; conversion rules: a whole FLOAT64 has no fraction
    // (CAST(40.0 AS STRING) = '40') and 0 is not signed; a TIMESTAMP is written in UTC with +00 and
    // zero, three or six subsecond digits (STRING(TIMESTAMP '2008-12-25 15:30:00+00', 'UTC')).
    expect(
      await row(`select concat('x', 40.0) as a, concat('v=', -0.0, '/', 2.5) as b,
        concat('at ', timestamp '2008-12-25 15:30:00.1+00') as c, concat('n', 7) as d`),
    ).toEqual({ a: 'x40', b: 'v=0/2.5', c: 'at 2008-12-25 15:30:00.100+00', d: 'n7' });
  });

  it('EDIT_DISTANCE counts code points, and max_distance caps it', async () => {
    // ZetaSQL string_functions.md, EDIT_DISTANCE examples: ('a', 'b') = 1, ('aa', 'b') = 2, ('aa', 'ba') = 1,
    // ('abcdefg', 'a', max_distance => 2) = 2; distance.cc compares code points, so 'ä' to 'a' is 1.
    expect(
      await row(`select edit_distance('a', 'b') as a, edit_distance('aa', 'b') as b, edit_distance('aa', 'ba') as c,
        edit_distance('abcdefg', 'a', max_distance => 2) as d, edit_distance('ä', 'a') as e, edit_distance(null, 'a') as f`),
    ).toEqual({ a: 1, b: 2, c: 1, d: 2, e: 1, f: null });
    await expect(row("select edit_distance('a', 'b', max_distance => -1) as a")).rejects.toThrow(
      /Max distance must be non-negative/,
    );
  });

  it('REPEAT, LPAD, RPAD, SUBSTR, LEFT and RIGHT refuse a negative count in ZetaSQL words, and SAFE. answers NULL', async () => {
    // string_functions.md: REPEAT, LPAD/RPAD, SUBSTR, LEFT and RIGHT return an error for a negative count or
    // length; the words are ZetaSQL's (public/functions/string.cc). A count from the data is
    // checked per row, and a NULL count is NULL.
    const refusals = [
      ["repeat('a', -1)", 'Second argument (repeat count) for REPEAT cannot be negative'],
      ["lpad('a', -1)", 'Second argument (output size) for LPAD/RPAD cannot be negative'],
      ["rpad('a', -1, 'x')", 'Second argument (output size) for LPAD/RPAD cannot be negative'],
      ["substr('abc', 1, -1)", 'Third argument in SUBSTR() cannot be negative'],
      ["left('abc', -1)", 'Second argument in LEFT() cannot be negative'],
      ["right('abc', -1)", 'Second argument in RIGHT() cannot be negative'],
    ] as const;
    for (const [call, words] of refusals)
      await expect(row(`select ${call} as x`), call).rejects.toThrow(words);
    await expect(row("select repeat('a', n) as x from unnest([2, -1]) as n")).rejects.toThrow(
      /REPEAT cannot be negative/,
    );
    expect(
      await row(`select safe.repeat('a', -1) as a, safe.lpad('a', -1) as b, safe.rpad('a', -1) as c, safe.left('a', -1) as d,
        repeat('ab', 2) as e, lpad('a', 3, '0') as f,
        substr('abc', 2, n) as g from unnest([cast(null as int64)]) as n`),
    ).toEqual({ a: null, b: null, c: null, d: null, e: 'abab', f: '00a', g: null });
  });

  it('SAFE.SUBSTR, SAFE.SUBSTRING, SAFE.TRIM, SAFE.CEIL and SAFE.FLOOR are the functions, NULL where they fail', async () => {
    // functions-reference.md: the SAFE. prefix applies to scalar functions; sqlparser takes these
    // names for keywords. Text that only looks like such a call, in a string, stays as written.
    expect(
      await row(`select safe.substr(x, 2) as a, safe.SUBSTR(x, 1, -1) as b, safe . substring(x, -2) as c,
        (select safe.trim('  y ')) as d, safe.ceil(1.5) as e, safe.floor(-1.5) as f, 'safe.substr(x' as g
        from unnest(['abc']) as x`),
    ).toEqual({ a: 'bc', b: null, c: 'bc', d: 'y', e: 2, f: -2, g: 'safe.substr(x' });
  });

  it('REPEAT, LPAD and RPAD fail past 1 MB of output, and LPAD/RPAD on an empty pattern, as ZetaSQL does', async () => {
    // string.cc: kMaxOutputSize is 1 << 20 bytes; "Output of REPEAT exceeds max allowed output size of
    // 1MB", the same for LPAD/RPAD, and "Third argument (pad pattern) for LPAD/RPAD cannot be empty".
    // Before, DuckDB built the text: REPEAT('ab', 100000000) ran out of memory (502).
    const refusals = [
      [
        "repeat(x, 100000000) from unnest(['ab']) as x",
        'Output of REPEAT exceeds max allowed output size of 1MB',
      ],
      [
        "repeat(x, 524289) from unnest(['ab']) as x",
        'Output of REPEAT exceeds max allowed output size of 1MB',
      ],
      [
        "lpad(x, 1048577) from unnest(['a']) as x",
        'Output of LPAD/RPAD exceeds max allowed output size of 1MB',
      ],
      [
        "rpad(x, 3, p) from unnest(['a']) as x, unnest(['']) as p",
        'Third argument (pad pattern) for LPAD/RPAD cannot be empty',
      ],
    ] as const;
    for (const [call, words] of refusals)
      await expect(row(`select ${call}`), call).rejects.toMatchObject({
        code: 'INVALID_QUERY',
        message: expect.stringContaining(words),
      });
    expect(
      await row(`select length(repeat(x, 524288)) as a, length(repeat('', 100000000)) as b, length(lpad(x, 1048576)) as c,
        safe.repeat(x, 100000000) as d, safe.lpad(x, 3, '') as e from unnest(['ab']) as x`),
    ).toEqual({ a: 1048576, b: 0, c: 1048576, d: null, e: null });
  });

  it('EDIT_DISTANCE of two long texts is refused rather than holding the server for its quadratic loop', async () => {
    // 4,000 substitutions turn 4,000 a's into 4,000 b's; 5,000 × 5,000 characters is past the bound.
    expect(await row("select edit_distance(repeat('a', 4000), repeat('b', 4000)) as d")).toEqual({ d: 4000 });
    await expect(row("select edit_distance(repeat('a', 5000), repeat('b', 5000)) as d")).rejects.toThrow(
      /EDIT_DISTANCE of texts of 5000 and 5000 characters is not computed here/,
    );
  });

  it('UNICODE is the code point of the first character, 0 for empty text', async () => {
    // ZetaSQL string_functions.md, UNICODE example: UNICODE('âbcd') = 226, ('â') = 226, ('') = 0, (NULL) = NULL.
    expect(
      await row("select unicode('âbcd') as a, unicode('â') as b, unicode('') as c, unicode(null) as d"),
    ).toEqual({ a: 226, b: 226, c: 0, d: null });
  });

  it('LEFT, RIGHT, TRIM, LPAD, RPAD and REVERSE of BYTES are refused by name, not left to fail in DuckDB', () => {
    // BigQuery's forms of BYTES work byte-wise (ZetaSQL string_functions.md: LEFT(b'\xab\xcd\xef\xaa\xbb', 3),
    // TRIM(b'apple', b'na\xab'), LPAD(b'abc', 10, b'ghd'), REVERSE(b'1a3')); DuckDB's take no BLOB.
    for (const [name, call] of [
      ['LEFT', "left(b'abc', 2)"],
      ['RIGHT', "right(b'abc', 2)"],
      ['TRIM', "trim(b'apple', b'na')"],
      ['LTRIM', "ltrim(b'apple', b'a')"],
      ['RTRIM', "rtrim(b'apple', b'e')"],
      ['LPAD', "lpad(b'abc', 10, b'ghd')"],
      ['RPAD', "rpad(b'abc', 10, b'ghd')"],
      ['REVERSE', "reverse(b'1a3')"],
    ])
      expect(() => translationOf(`select ${call} as x`), name).toThrow(`${name} of BYTES`);
  });

  it('CONCAT joins its arguments, casting numbers, and is NULL when any argument is NULL', async () => {
    // Docs: CONCAT('T.P.', ' ', 'Bar') = 'T.P. Bar'; CONCAT('Summer', ' ', 1923) = 'Summer 1923'.
    expect(
      await row(
        "select concat('T.P.', ' ', 'Bar') as a, concat('Summer', ' ', 1923) as b, concat('a', null) as c",
      ),
    ).toEqual({ a: 'T.P. Bar', b: 'Summer 1923', c: null });
  });

  it('keeps a newline written in a string literal as one character, inside a subquery too', async () => {
    // BigQuery reads '\n' in a quoted literal as a newline: 'x\ny' has 3 characters. The translated
    // query is indented line by line, which must not reach into the text.
    expect(
      await row(
        `select length('x\\ny') as top, (select length('it\\'s\\n\\\\') from unnest([1]) as x) as nested`,
      ),
    ).toEqual({ top: 3, nested: 6 });
  });

  it('CHR, CODE_POINTS_TO_STRING and TO_CODE_POINTS convert between code points and text', async () => {
    // Docs: CHR(65), CHR(255), CHR(513), CHR(1024) are A, ÿ, ȁ, Ѐ; CHR(0xF9B5) is 例, CHR(0) '' and
    // CHR(NULL) NULL; CODE_POINTS_TO_STRING([65, 255, 513, 1024]) is 'AÿȁЀ', [97, 0, 0xF9B5] 'a例'
    // and NULL with a NULL element; TO_CODE_POINTS('foo') is [102, 111, 111].
    expect(
      await row(`select chr(65) as a, chr(255) as b, chr(513) as c, chr(1024) as d, chr(0xF9B5) as e, chr(0) as f,
        chr(null) as g, code_points_to_string([65, 255, 513, 1024]) as h, code_points_to_string([97, 0, 0xF9B5]) as i,
        code_points_to_string([65, 255, null, 1024]) as j, to_code_points('foo') as k, to_code_points('') as l`),
    ).toEqual({
      a: 'A',
      b: 'ÿ',
      c: 'ȁ',
      d: 'Ѐ',
      e: '\uF9B5',
      f: '',
      g: null,
      h: 'AÿȁЀ',
      i: 'a\uF9B5',
      j: null,
      k: [102, 111, 111],
      l: [],
    });
    // "If an invalid Unicode code point is specified, an error is returned": a surrogate is none.
    await expect(row('select chr(55296) as x')).rejects.toThrow(/Invalid code point/);
  });

  it('NORMALIZE composes to NFC by default and normalizes to NFD, NFKC and NFKD', async () => {
    // Docs: NORMALIZE(value [, normalization_mode]), NFC by default; 'e' followed by U+0301
    // (combining acute accent) is 'é' (U+00E9) in NFC. NORMALIZE('Raha\u2004Mahan', NFKC) is
    // 'Raha Mahan' (U+2004, a three-per-em space, is a space in compatibility forms). Unicode's
    // decompositions: 'é' is 'e' U+0301 in NFD and NFKD; 'ﬁ' (U+FB01) is 'fi' in NFKD only.
    expect(
      await row(
        `select normalize('e\\u0301') = '\\u00e9' as a, normalize('e\\u0301', nfc) = '\\u00e9' as b, 'e\\u0301' = '\\u00e9' as c,
          normalize('Raha\\u2004Mahan', NFKC) as nfkc, normalize('\\u00e9', nfd) = 'e\\u0301' as nfd,
          normalize('\\ufb01\\u00e9', nfkd) = 'fie\\u0301' as nfkd, normalize('\\ufb01', nfd) = '\\ufb01' as nfd_keeps,
          normalize(cast(null as string), nfkc) as n`,
      ),
    ).toEqual({
      a: true,
      b: true,
      c: false,
      nfkc: 'Raha Mahan',
      nfd: true,
      nfkd: true,
      nfd_keeps: true,
      n: null,
    });
    expect(() => translationOf("select normalize('x', 'NFKC')")).toThrow(/NORMALIZE with a mode other than/);
  });

  it('NORMALIZE_AND_CASEFOLD normalizes and folds case fully, as the documented examples compare', async () => {
    // Docs: NORMALIZE_AND_CASEFOLD('The red barn') = NORMALIZE_AND_CASEFOLD('The Red Barn');
    // '\u2168' (ROMAN NUMERAL NINE) equals 'IX' folded under NFKD and NFKC, not NFD or NFC;
    // 'A\u030A' equals '\u00C5' under all four. CaseFolding.txt's full folding: 'ß' and 'ẞ' fold to
    // 'ss' (lower-casing would keep 'ß'), 'Σ' to 'σ'.
    expect(
      await row(`select
          normalize_and_casefold('The red barn') = normalize_and_casefold('The Red Barn') as barn,
          normalize_and_casefold('\\u2168', NFD) = normalize_and_casefold('IX', NFD) as nfd,
          normalize_and_casefold('\\u2168', NFC) = normalize_and_casefold('IX', NFC) as nfc,
          normalize_and_casefold('\\u2168', NFKD) = normalize_and_casefold('IX', NFKD) as nfkd,
          normalize_and_casefold('\\u2168', NFKC) = normalize_and_casefold('IX', NFKC) as nfkc,
          normalize_and_casefold('A\\u030A', NFD) = normalize_and_casefold('\\u00C5', NFD)
            and normalize_and_casefold('A\\u030A') = normalize_and_casefold('\\u00C5')
            and normalize_and_casefold('A\\u030A', NFKD) = normalize_and_casefold('\\u00C5', NFKD)
            and normalize_and_casefold('A\\u030A', NFKC) = normalize_and_casefold('\\u00C5', NFKC) as ring,
          normalize_and_casefold('Straße ẞ ΣΑΣ') as folded, normalize_and_casefold(cast(null as string)) as n`),
    ).toEqual({
      barn: true,
      nfd: false,
      nfc: false,
      nfkd: true,
      nfkc: true,
      ring: true,
      folded: 'strasse ss σασ',
      n: null,
    });
  });

  it('LENGTH counts characters and BYTE_LENGTH bytes', async () => {
    // Docs: LENGTH('абвгд') = 5, BYTE_LENGTH('абвгд') = 10.
    expect(
      await row("select length('абвгд') as chars, byte_length('абвгд') as bytes, char_length('абвгд') as c"),
    ).toEqual({
      chars: 5,
      bytes: 10,
      c: 5,
    });
  });

  it('LENGTH and BYTE_LENGTH of BYTES count bytes, of a BYTES column too', async () => {
    // Docs (LENGTH): LENGTH(CAST('абвгд' AS BYTES)) = 10; BYTE_LENGTH(b'абвгд') = 10; MD5 is 16 bytes.
    expect(
      await row(`select length(cast('абвгд' as bytes)) as a, byte_length(cast('абвгд' as bytes)) as b,
        byte_length(from_hex('00ff')) as c, length(md5('x')) as d, byte_length(b'\\x00ab') as e`),
    ).toEqual({ a: 10, b: 10, c: 2, d: 16, e: 3 });
    // A table source's BYTES column is a BLOB, which DuckDB's length and strlen do not take.
    const { sql } = translateToDuckDb('select length(receipt) as a, byte_length(receipt) as b from orders', {
      tables: [{ name: 'orders', columns: { receipt: 'BLOB' } }],
    });
    const instance = await DuckDBInstance.create(':memory:');
    const connection = await instance.connect();
    try {
      await connection.run("create table orders as select from_hex('0001ff') as receipt");
      expect((await connection.runAndReadAll(sql)).getRowObjectsJson()).toEqual([{ a: '3', b: '3' }]);
    } finally {
      connection.closeSync();
      instance.closeSync();
    }
  });

  it('INITCAP capitalizes the first character of each word, with the default or given delimiters', async () => {
    // Docs (https://cloud.google.com/bigquery/docs/reference/standard-sql/string_functions#initcap):
    // 'Hello World-everyone!' → 'Hello World-Everyone!'; 'tHe dog BARKS loudly+friendly' → 'The Dog
    // Barks Loudly+Friendly'; 'apples&oranges;&pears' → 'Apples&Oranges;&Pears'; 'καθίσματα ταινιών'
    // → 'Καθίσματα Ταινιών'; with delimiters: ('hello WORLD!', '') → 'Hello world!'; ('καθίσματα
    // ταιντιώ@ν', 'τ@') → 'ΚαθίσματΑ τΑιντΙώ@Ν'; ('Apples1oranges2pears', '12') →
    // 'Apples1Oranges2Pears'; ('tHisEisEaESentence', 'E') → 'ThisEIsEAESentence'. NULL for a NULL
    // value or delimiters. The default delimiters include every Unicode White_Space character
    // (U+3000 here), and a digit is no delimiter.
    expect(
      await row(`select initcap('Hello World-everyone!') as a, initcap('tHe dog BARKS loudly+friendly') as b,
        initcap('apples&oranges;&pears') as c, initcap('καθίσματα ταινιών') as d,
        initcap('hello WORLD!', '') as e, initcap('καθίσματα ταιντιώ@ν', 'τ@') as f,
        initcap('Apples1oranges2pears', '12') as g, initcap('tHisEisEaESentence', 'E') as h,
        initcap(cast(null as string)) as i, initcap('a b', cast(null as string)) as j,
        initcap('x\u3000y 2nd [a]b\\\\c^d') as k, initcap('') as l`),
    ).toEqual({
      a: 'Hello World-Everyone!',
      b: 'The Dog Barks Loudly+Friendly',
      c: 'Apples&Oranges;&Pears',
      d: 'Καθίσματα Ταινιών',
      e: 'Hello world!',
      f: 'ΚαθίσματΑ τΑιντΙώ@Ν',
      g: 'Apples1Oranges2Pears',
      h: 'ThisEIsEAESentence',
      i: null,
      j: null,
      k: 'X\u3000Y 2nd [A]B\\C^D',
      l: '',
    });
  });

  it("INITCAP maps case one code point to one, as ICU's u_toupper and u_tolower do", async () => {
    // ZetaSQL's Utf8Capitalizer (functions/string.cc) capitalizes with u_toupper and lowers with
    // u_tolower: Unicode's simple mappings (UnicodeData.txt). U+00DF 'ß' has no simple upper case
    // (DuckDB's upper gives 'ẞ'); U+1FB3 'ᾳ' upper-cases to U+1FBC 'ᾼ' (its full mapping is 'ΑΙ');
    // U+0130 'İ' lower-cases to 'i' (its full mapping adds a combining dot); U+01C6 'ǆ' upper-cases
    // to U+01C4 'Ǆ', not the titlecase 'ǅ'.
    expect(
      await row(`select initcap('ßa straße') as a, initcap('ᾳβ ᾳᾳ') as b, initcap('xİ') as c,
        initcap('ǆemal') as d, initcap('ǆx1ǆy', '1') as e`),
    ).toEqual({ a: 'ßa Straße', b: 'ᾼβ ᾼᾳ', c: 'Xi', d: 'Ǆemal', e: 'Ǆx1Ǆy' });
  });

  it('LOWER and UPPER map case as Unicode does, the final sigma and ß included', async () => {
    // Docs: LOWER('FOO BAR BAZ') = 'foo bar baz', UPPER('foo') = 'FOO', "according to the Unicode
    // Character Database without taking into account language-specific mappings"; the reference
    // implementation is ICU's CaseMap in the root locale, full mappings (SpecialCasing.txt): 'ß'
    // upper-cases to 'SS', 'İ' lower-cases to 'i' U+0307, a final 'Σ' to 'ς'.
    expect(
      await row(`select lower('FOO BAR BAZ') as l, upper('foo') as u, upper('Straße') as sharp,
        lower('ΟΔΟΣ ΣΑΣ') as sigma, lower(concat('İ', 'X')) = 'i\\u0307x' as dotted, upper('ÀÉ') as accents,
        lower(cast(null as string)) as n`),
    ).toEqual({
      l: 'foo bar baz',
      u: 'FOO',
      sharp: 'STRASSE',
      sigma: 'οδος σας',
      dotted: true,
      accents: 'ÀÉ',
      n: null,
    });
    expect(() => translationOf("select lower(b'ABC')")).toThrow(/LOWER of BYTES/);
  });

  it('SUBSTR counts from 1, reads negative positions from the end and positions off the left end as 1', async () => {
    // Docs: SUBSTR('apple', 2) = 'pple'; SUBSTR('apple', 2, 2) = 'pp'; SUBSTR('apple', -2) = 'le';
    // SUBSTR('apple', 1, 123) = 'apple'; SUBSTR('apple', 123) = ''. "If position is a position off
    // the left end of the STRING (position = 0 or position < -LENGTH(value)), the function starts
    // from position = 1."
    expect(
      await row(`select substr('apple', 2) as a, substr('apple', 2, 2) as b, substr('apple', -2) as c,
        substr('apple', 1, 123) as d, substr('apple', 123) as e, substr('apple', 0, 2) as f,
        substr('apple', -7, 3) as g, substring('apple', -3, 2) as h`),
    ).toEqual({ a: 'pple', b: 'pp', c: 'le', d: 'apple', e: '', f: 'ap', g: 'app', h: 'pl' });
  });

  it('STRPOS and INSTR give the 1-based position of the first occurrence, 0 when absent', async () => {
    // Docs: STRPOS('foo@example.com', '@') = 4.
    expect(
      await row(
        "select strpos('foo@example.com', '@') as at, strpos('foo', 'z') as none, instr('banana', 'an') as i",
      ),
    ).toEqual({ at: 4, none: 0, i: 2 });
  });

  it('INSTR finds the n-th occurrence from a position, overlapping, and from the end for a negative one', async () => {
    // Docs (https://cloud.google.com/bigquery/docs/reference/standard-sql/string_functions#instr):
    // INSTR('banana', 'an', 1, 1) = 2, (1, 2) = 4, (1, 3) = 0, (3, 1) = 4, (-1, 1) = 4, (-3, 1) = 4;
    // INSTR('banana', 'ann', 1, 1) = 0; INSTR('helloooo', 'oo', 1, 1) = 5, (1, 2) = 6 (overlapping);
    // 0 past the end; an error for position 0 or occurrence 0 (NULL under SAFE.). ZetaSQL's
    // StrPosOccurrenceUtf8 for an empty search: INSTR('ab', '', 1, 3) = 3, (1, 4) = 0,
    // INSTR('a', '', -1) = 2, INSTR('a', '', -2) = 1. Positions count characters: 'банан' has
    // 'ан' at 2 and 4.
    expect(
      await row(`select instr('banana', 'an', 1, 1) as a, instr('banana', 'an', 1, 2) as b,
        instr('banana', 'an', 1, 3) as c, instr('banana', 'an', 3, 1) as d, instr('banana', 'an', -1, 1) as e,
        instr('banana', 'an', -3, 1) as f, instr('banana', 'ann', 1, 1) as g, instr('helloooo', 'oo', 1, 1) as h,
        instr('helloooo', 'oo', 1, 2) as i, instr('banana', 'a', 7) as j, instr('ab', '', 1, 3) as k,
        instr('ab', '', 1, 4) as l, instr('a', '', -1) as m, instr('a', '', -2) as n,
        instr('банан', 'ан', -1, 2) as o, instr('banana', 'an', -6) as p, instr('banana', 'an', 1, null) as q,
        safe.instr('banana', 'an', 0) as r`),
    ).toEqual({
      ...{ a: 2, b: 4, c: 0, d: 4, e: 4, f: 4, g: 0, h: 5, i: 6, j: 0 },
      ...{ k: 3, l: 0, m: 2, n: 1, o: 2, p: 0, q: null, r: null },
    });
    await expect(row("select instr('banana', 'an', 0) as a")).rejects.toThrow(/Position must be non-zero/);
    await expect(row("select instr('banana', 'an', 1, 0) as a")).rejects.toThrow(
      /Occurrence must be positive/,
    );
  });

  it('CONTAINS_SUBSTR searches ASCII text without case, and fails on other text rather than guess', async () => {
    // Docs (https://cloud.google.com/bigquery/docs/reference/standard-sql/string_functions#contains_substr):
    // CONTAINS_SUBSTR('the blue house', 'Blue house') = TRUE; ('the red house', 'blue') = FALSE;
    // NULL for a NULL expression; other scalars are searched in their STRING text. NFKC and case
    // folding (CONTAINS_SUBSTR('\u2168', 'IX') = TRUE) are not translated: such text fails the
    // query, under SAFE. too, and a non-ASCII search value or a STRUCT is refused at load.
    expect(
      await row(`select contains_substr('the blue house', 'Blue house') as a,
        contains_substr('the red house', 'blue') as b, contains_substr(cast(null as string), 'x') as c,
        contains_substr(12345, '234') as d, contains_substr(timestamp '2008-12-25 15:30:00+00', '30:00+00') as e,
        contains_substr('THE BLUE HOUSE', 'blue House') as f`),
    ).toEqual({ a: true, b: false, c: null, d: true, e: true, f: true });
    await expect(row("select contains_substr('\u2168', 'IX') as a")).rejects.toThrow(
      /CONTAINS_SUBSTR of text with characters outside ASCII is not translated/,
    );
    await expect(row("select safe.contains_substr('café', 'cafe') as a")).rejects.toThrow(/outside ASCII/);
    expect(() => translationOf("select contains_substr('x', 'é')")).toThrow(/search value that is not ASCII/);
    expect(() => translationOf("select contains_substr((23, 35, 41), '35')")).toThrow(/STRUCT, ARRAY/);
  });

  it('STARTS_WITH and ENDS_WITH test a prefix and a suffix', async () => {
    // Docs: STARTS_WITH('bar', 'b') = true, STARTS_WITH('foo', 'b') = false; ENDS_WITH('apple', 'e') = true.
    expect(
      await row(
        "select starts_with('bar', 'b') as a, starts_with('foo', 'b') as b, ends_with('apple', 'e') as c",
      ),
    ).toEqual({ a: true, b: false, c: true });
  });

  it('SPLIT splits on a comma by default and an empty string into one empty element', async () => {
    // Docs: the default delimiter is a comma; "Splitting an empty STRING returns an ARRAY with a
    // single empty STRING"; an empty delimiter splits into characters.
    expect(
      await row(
        "select split('a b c d', ' ') as a, split('b,c,d') as b, split('') as c, split('abc', '') as d",
      ),
    ).toEqual({ a: ['a', 'b', 'c', 'd'], b: ['b', 'c', 'd'], c: [''], d: ['a', 'b', 'c'] });
  });

  it('TRIM, LTRIM and RTRIM remove whitespace or the given characters', async () => {
    // Docs: TRIM('   apple   ') = 'apple'; TRIM('***apple***', '*') = 'apple';
    // TRIM('xzxapplexxy', 'xyz') = 'apple'; LTRIM('   apple   ') = 'apple   '; RTRIM('***apple***', '*') = '***apple'.
    expect(
      await row(`select trim('   apple   ') as a, trim('***apple***', '*') as b, trim('xzxapplexxy', 'xyz') as c,
        ltrim('   apple   ') as d, rtrim('***apple***', '*') as e`),
    ).toEqual({ a: 'apple', b: 'apple', c: 'apple', d: 'apple   ', e: '***apple' });
  });

  it('REPLACE replaces every occurrence and nothing for an empty search string', async () => {
    // Docs: REPLACE('apple pie', 'pie', 'cobbler') = 'apple cobbler'; "If from_pattern is empty, no replacement is made."
    expect(
      await row("select replace('apple pie', 'pie', 'cobbler') as a, replace('abc', '', 'x') as b"),
    ).toEqual({
      a: 'apple cobbler',
      b: 'abc',
    });
  });

  it('LPAD and RPAD pad with spaces or a pattern and truncate longer values', async () => {
    // Docs: LPAD('abc', 5) = '  abc'; LPAD('abc', 2) = 'ab'; LPAD('abc', 8, 'def') = 'defdeabc';
    // RPAD('abc', 8, 'def') = 'abcdefde'; RPAD('abc', 5, '-') = 'abc--'.
    expect(
      await row(`select lpad('abc', 5) as a, lpad('abc', 2) as b, lpad('abc', 8, 'def') as c,
        rpad('abc', 8, 'def') as d, rpad('abc', 5, '-') as e`),
    ).toEqual({ a: '  abc', b: 'ab', c: 'defdeabc', d: 'abcdefde', e: 'abc--' });
  });

  it('REVERSE, REPEAT, LEFT, RIGHT, ASCII and TRANSLATE', async () => {
    // Docs: REVERSE('abc') = 'cba'; REPEAT('abc', 3) = 'abcabcabc'; LEFT('apple', 3) = 'app';
    // RIGHT('apple', 3) = 'ple'; ASCII('abcd') = 97; TRANSLATE('This is a cookie', 'sco', 'zku') = 'Thiz iz a kuukie'.
    expect(
      await row(`select reverse('abc') as a, repeat('abc', 3) as b, left('apple', 3) as c, right('apple', 3) as d,
        ascii('abcd') as e, translate('This is a cookie', 'sco', 'zku') as f`),
    ).toEqual({ a: 'cba', b: 'abcabcabc', c: 'app', d: 'ple', e: 97, f: 'Thiz iz a kuukie' });
  });

  it("FORMAT prints %d, widths, zero padding, %s, %f and %E as BigQuery's printf does", async () => {
    // Docs: FORMAT('%d', 10) = '10'; FORMAT('|%10d|', 11) = '|        11|'; FORMAT('+%010d+', 12) =
    // '+0000000012+'; FORMAT('-|%s|-', 'abcd') = '-|abcd|-'; FORMAT('%f %E', 1.1, 2.2) = '1.100000 2.200000E+00';
    // a NULL argument gives NULL except under %t, which prints 'NULL'.
    expect(
      await row(`select format('%d', 10) as a, format('|%10d|', 11) as b, format('+%010d+', 12) as c,
        format('-|%s|-', 'abcd') as d, format('%f %E', 1.1, 2.2) as e, format('%d', null) as f,
        format('%t!', null) as g, format('100%%') as h`),
    ).toEqual({
      a: '10',
      b: '|        11|',
      c: '+0000000012+',
      d: '-|abcd|-',
      e: '1.100000 2.200000E+00',
      f: null,
      g: 'NULL!',
      h: '100%',
    });
  });

  it('FORMAT prints %t as the %t and %T table says: a TIMESTAMP with +00, a FLOAT64 and NUMERIC with .0', async () => {
    // Docs: FORMAT('%t', timestamp '2015-09-01 12:34:56 America/Los_Angeles') = '2015-09-01 19:34:56+00';
    // the %t and %T table: DATE 2011-02-03, FLOAT64 and NUMERIC "123.0 (always with .0)", BOOL
    // its value; a TIMESTAMP's fraction as CAST AS STRING writes it (3 or 6 digits).
    expect(
      await row(`select format('%t', timestamp '2015-09-01 12:34:56 America/Los_Angeles') as a,
        format('%t', date '2011-02-03') as b, format('%t|%t|%t', 123.0, numeric '123', numeric '110.750') as c,
        format('%t', datetime '2011-02-03 04:05:06') as d, format('%t', timestamp '2015-09-01 12:34:56.1+00') as e,
        format('%t', true) as f`),
    ).toEqual({
      a: '2015-09-01 19:34:56+00',
      b: '2011-02-03',
      c: '123.0|123.0|110.75',
      d: '2011-02-03 04:05:06',
      e: '2015-09-01 12:34:56.100+00',
      f: 'true',
    });
  });

  it.each([
    ['FORMAT with %T (a typed literal)', "select format('%T', 'a')"],
    ["FORMAT with grouping (%'d)", 'select format("%\'d", 1000)'],
    ['FORMAT with a format that is not a literal', 'select format(@f, 1)'],
  ])('refuses %s', (_what, sql) => {
    expect(() => translationOf(sql)).toThrow(/Cannot translate to DuckDB: .*FORMAT/);
  });

  it('refuses INSTR with more arguments than translated, naming the call as written, and of BYTES with a position', () => {
    expect(() => translationOf("select instr('banana', 'an', 1, 2, 3)")).toThrow(
      'Cannot translate to DuckDB: INSTR with 5 arguments (translated with 2 to 4)',
    );
    // BYTES positions count bytes, which the STRING translation does not.
    expect(() => translationOf("select instr(b'banana', b'an', 1, 2)")).toThrow(
      'Cannot translate to DuckDB: INSTR of BYTES with a position or occurrence',
    );
  });
});

describe('BigQuery BYTES functions on DuckDB', () => {
  it('MD5, SHA1 and SHA256 return BYTES, which come back base64-encoded', async () => {
    // Docs: MD5('Hello World') = b'\xb1\n\x8d\xb1d\xe0uA\x05\xb7\xa9\x9b\xe7.?\xe5', shown as 'sQqNsWTgdUEFt6mb5y4/5Q==';
    // SHA1('Hello World') = 'Ck1VqNd45QIvq3AZd8XYQLvEhtA='; SHA256('Hello World') = 'pZGm1Av0IEBKARczz7exkNYsZb8LzaMrV7J32a2fFG4='.
    expect(
      await row(
        "select md5('Hello World') as md5, sha1('Hello World') as sha1, sha256('Hello World') as sha256",
      ),
    ).toEqual({
      md5: 'sQqNsWTgdUEFt6mb5y4/5Q==',
      sha1: 'Ck1VqNd45QIvq3AZd8XYQLvEhtA=',
      sha256: 'pZGm1Av0IEBKARczz7exkNYsZb8LzaMrV7J32a2fFG4=',
    });
  });

  it('FARM_FINGERPRINT gives FarmHash Fingerprint64 of a STRING or BYTES as a signed INT64', async () => {
    // Docs (https://cloud.google.com/bigquery/docs/reference/standard-sql/hash_functions#farm_fingerprint):
    // FARM_FINGERPRINT(CONCAT(CAST(x AS STRING), y, CAST(z AS STRING))) over (1, 'foo', true),
    // (2, 'apple', false), (3, '', true) = -1541654101129638711, 2794438866806483259, -4880158226897771312.
    expect(
      await rows(`with example as (
          select 1 as x, "foo" as y, true as z union all
          select 2 as x, "apple" as y, false as z union all
          select 3 as x, "" as y, true as z)
        select x, farm_fingerprint(concat(cast(x as string), y, cast(z as string))) as f from example order by x`),
    ).toEqual([
      { x: 1, f: -1541654101129638711n },
      { x: 2, f: 2794438866806483259n },
      { x: 3, f: -4880158226897771312n },
    ]);
    // Guava's FarmHashFingerprint64Test (a port checked against FarmHash's C++): 'test' (4 bytes) =
    // 8581389452482819506, 'test' x 8 (32 bytes) = -4196240717365766262, x 64 (256 bytes) =
    // 3500507768004279527. BYTES hash as the same bytes, a STRING as its UTF-8 bytes (a literal is
    // encoded by DuckDB, a computed one in JavaScript); the empty input is FarmHash's k2.
    expect(
      await row(`select farm_fingerprint('test') as a, farm_fingerprint(repeat('test', 8)) as b,
        farm_fingerprint(repeat('test', 64)) as c, farm_fingerprint(b'test') as d,
        farm_fingerprint(cast(repeat('test', 64) as bytes)) as e, farm_fingerprint('') as empty,
        farm_fingerprint(cast(null as string)) as n,
        farm_fingerprint(concat('déjà vu, ', 'ünïcödé ✓')) = farm_fingerprint(cast('déjà vu, ünïcödé ✓' as bytes)) as utf8,
        mod(abs(farm_fingerprint('test')), 10) as bucket`),
    ).toEqual({
      a: 8581389452482819506n,
      b: -4196240717365766262n,
      c: 3500507768004279527n,
      d: 8581389452482819506n,
      e: 3500507768004279527n,
      empty: BigInt.asIntN(64, 0x9ae16a3b2f90404fn),
      n: null,
      utf8: true,
      bucket: 6,
    });
  });

  it('reads the escapes of a bytes literal as the bytes they name, and refuses \\u there', async () => {
    // Docs: TO_HEX(b'\x00\x01\x02\x03\xAA\xEE\xEF\xFF') = '00010203aaeeefff'; TO_BASE64(b'\377\340')
    // = '/+A='; lexical structure: \u and \U are "valid only in string literals or identifiers"; b'é' is its UTF-8 bytes.
    expect(
      await row(`select to_hex(b'\\x00\\x01\\x02\\x03\\xAA\\xEE\\xEF\\xFF') as a, to_base64(b'\\377\\340') as b,
        to_hex(b'\\n\\\\é') as c, to_hex(b"q") as d`),
    ).toEqual({ a: '00010203aaeeefff', b: '/+A=', c: '0a5cc3a9', d: '71' });
    expect(() => translationOf("select b'\\u00e9' as e")).toThrow(/bytes literal/);
  });

  it('TO_HEX, FROM_HEX, TO_BASE64, FROM_BASE64, bytes literals and CAST to BYTES', async () => {
    // Docs: TO_HEX(b'foobar') = '666f6f626172'; FROM_HEX('666f6f626172') = b'foobar' ('Zm9vYmFy' in base64);
    // TO_BASE64(b'\377\340') = '/+A='; FROM_BASE64('/+A=') = b'\377\340'; TO_HEX(MD5('Hello World')) is the hex digest;
    // CAST('abc' AS BYTES) is the UTF-8 bytes of the text ('YWJj').
    expect(
      await row(`select to_hex(b'foobar') as a, from_hex('666f6f626172') as b, to_base64(from_hex('ffe0')) as c,
        from_base64('/+A=') as d, to_hex(md5('Hello World')) as e, cast('abc' as bytes) as f`),
    ).toEqual({
      a: '666f6f626172',
      b: 'Zm9vYmFy',
      c: '/+A=',
      d: '/+A=',
      e: 'b10a8db164e0754105b7a99be72e3fe5',
      f: 'YWJj',
    });
  });
});
