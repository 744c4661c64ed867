import { raiseSql } from '../raised-errors.js';
import {
  editDistanceFunction,
  type FunctionCall,
  hasNullElement,
  initcapFunctions,
  quoteString,
  type RuleTable,
  raise,
  rule,
  same,
  unicodeTextFunctions,
  unsupported,
} from './rule.js';

/**
 * SUBSTR(value, position[, length]): 1-based; 0 means 1; a negative position counts from the
 * end, and one before the start means 1. DuckDB's substring agrees for positive positions only,
 * so other positions are mapped onto it.
 */
export function substr(
  value: string,
  position: string,
  length: string | undefined,
  call?: FunctionCall,
): string {
  const literal = call?.numbers[1];
  const start =
    literal !== undefined && literal > 0
      ? position
      : `CASE WHEN (${position}) > 0 THEN (${position}) WHEN (${position}) = 0 THEN 1 ELSE greatest(length(${value}) + (${position}) + 1, 1) END`;
  // A negative length is BigQuery's error (string.cc); DuckDB's substring would count backwards.
  const count =
    length === undefined
      ? undefined
      : nonNegative(length, call?.numbers[2], call, "'Third argument in SUBSTR() cannot be negative'");
  return count === undefined ? `substring(${value}, ${start})` : `substring(${value}, ${start}, ${count})`;
}

/**
 * A count BigQuery refuses when negative (string.cc's `... cannot be negative`), raising its
 * `message` (NULL under SAFE.); a literal count that is not negative is taken as it is, so the
 * common `LPAD(x, 10, '0')` costs no check per row.
 */
function nonNegative(
  count: string,
  literal: number | undefined,
  call: FunctionCall | undefined,
  message: string,
) {
  if (literal !== undefined && literal >= 0) return count;
  const failure = call === undefined ? raiseSql(message) : raise(call, message);
  return `CASE WHEN (${count}) < 0 THEN ${failure} ELSE (${count}) END`;
}

/**
 * FORMAT(format, ...): printf-style. A NULL argument makes the result NULL except under %t,
 * which prints 'NULL'; DuckDB's printf has the same NULL rule, and %t becomes a cast to text.
 */
function format(args: readonly string[], call: FunctionCall): string {
  const pattern = call.literals[0];
  if (pattern === undefined) throw unsupported('FORMAT needs a literal format string');
  const values = args.slice(1);
  const out: string[] = [];
  let used = 0;
  const spec = /%([-+ #0']*)(\d+|\*)?(?:\.(\d+|\*))?([a-zA-Z%])/g;
  let last = 0;
  let text = '';
  for (const match of pattern.matchAll(spec)) {
    text += pattern.slice(last, match.index);
    last = (match.index ?? 0) + match[0].length;
    const [, flags = '', width, precision, conversion] = match;
    if (conversion === '%') {
      text += '%%';
      continue;
    }
    if (width === '*' || precision === '*' || flags.includes("'"))
      throw unsupported(`FORMAT element ${match[0]} (width or precision from an argument, or grouping)`);
    const value = values[used++];
    if (value === undefined) throw unsupported('FORMAT has fewer arguments than format elements');
    if (conversion === 't') {
      // BigQuery's text of a STRUCT is not DuckDB's (which would also show the mark of a built
      // one, built-structs.ts): refused where the translator knows the value is one.
      if (call.isRecord(used))
        throw unsupported('FORMAT %t of a STRUCT (its text is not translated); format its fields');
      // %t prints the value as text, NULL as 'NULL'. (%T, a literal of the value's type, is refused.)
      text += `%${flags}${width ?? ''}s`;
      // `used` now also counts the format string: it is this value's index among the call's arguments.
      out.push(`coalesce(${call.asFormatText(used)}, 'NULL')`);
    } else if (conversion === 's') {
      text += match[0];
      out.push(`CAST(${value} AS VARCHAR)`);
    } else if ('dixXofFeEgG'.includes(conversion ?? '')) {
      text += conversion === 'i' ? match[0].replace(/i$/, 'd') : match[0];
      out.push(value);
    } else {
      throw unsupported(`FORMAT element ${match[0]}`);
    }
  }
  text += pattern.slice(last);
  if (used !== values.length) throw unsupported('FORMAT has more arguments than format elements');
  return `printf(${[quoteString(text), ...out].join(', ')})`;
}

/**
 * INITCAP(value[, delimiters]): ZetaSQL's Utf8Capitalizer, run by a registered JavaScript function
 * (storage/unicode-text.ts) on ICU's simple case mappings, which DuckDB's upper and lower follow on
 * ASCII only ('ß' upper-cases to 'ẞ', which u_toupper keeps as 'ß'). NULL when either argument is.
 * Measured on ASCII too, it was no slower than the former SQL (the text split into characters in
 * lambdas): 1M values took 2.5-5 s over the query without it, against about 6 s.
 */
function initcap([value, delimiters]: readonly string[]): string {
  return delimiters === undefined
    ? `${initcapFunctions.byDefault}(${value})`
    : `${initcapFunctions.byDelimiters}(${value}, ${delimiters})`;
}

/**
 * INSTR(value, search, position[, occurrence]), as ZetaSQL's StrPosOccurrenceUtf8: every start
 * of `search` in `value`, overlapping ones too (an empty search is found at every position, the
 * end included); from a positive position, the occurrence-th start at or after it; from a
 * negative one, counting back from the end (-1 the last character), the occurrence-th start at
 * or before it, one further for an empty search ("INSTR('a', '', -1) = 2"). 0 when there is
 * none, NULL when an argument is; an occurrence below 1 or a position of 0 is an error. STRING
 * only: BYTES count bytes.
 */
function instrFrom(args: readonly string[], call: FunctionCall): string {
  if (args.length === 2) return `strpos(${args[0]}, ${args[1]})`;
  if (isBytes(call)) throw unsupported('INSTR of BYTES with a position or occurrence');
  const [value, search, position, occurrence = '1'] = args as [string, string, string, string?];
  const starts = `list_filter(range(1, length(${value}) + 2), __instr_at -> substring(${value}, __instr_at, length(${search})) = ${search})`;
  const last = `length(${value}) + (${position}) + CASE WHEN ${search} = '' THEN 2 ELSE 1 END`;
  const found = `CASE WHEN (${position}) > 0 THEN list_filter(${starts}, __instr_start -> __instr_start >= (${position}))[${occurrence}] ELSE list_reverse(list_filter(${starts}, __instr_start -> __instr_start <= ${last}))[${occurrence}] END`;
  return `CASE WHEN ${[value, search, position, occurrence].map((arg) => `(${arg}) IS NULL`).join(' OR ')} THEN NULL WHEN (${occurrence}) < 1 THEN ${raise(call, "'Occurrence must be positive'")} WHEN (${position}) = 0 THEN ${raise(call, "'Position must be non-zero'")} ELSE coalesce(${found}, 0) END`;
}

/**
 * CONTAINS_SUBSTR(expression, search_value): BigQuery compares the two NFKC-normalized and
 * case-folded. DuckDB has neither (nfc_normalize only, and lower, which is no case folding: 'ß'
 * folds to 'ss', '\u2168' normalizes to 'IX'). On ASCII text both are plain lower-casing, so
 * the search value must be an ASCII literal and a value with another character fails the query,
 * naming the function, rather than answer what BigQuery may not. A value of another scalar type
 * is searched in its STRING text, as BigQuery does; STRUCTs, ARRAYs, whole rows and JSON (searched
 * field by field) are refused.
 */
function containsSubstr(args: readonly string[], call: FunctionCall): string {
  if (args.length > 2) throw unsupported('CONTAINS_SUBSTR with json_scope');
  const search = call.literals[1];
  if (search === undefined) throw unsupported('CONTAINS_SUBSTR needs a literal search value');
  // biome-ignore lint/suspicious/noControlCharactersInRegex: the ASCII range is what is meant.
  if (/[^\x00-\x7f]/.test(search))
    throw unsupported(
      'CONTAINS_SUBSTR with a search value that is not ASCII (NFKC normalization and case folding are not translated)',
    );
  let shape: ReturnType<FunctionCall['shapeOf']>;
  try {
    shape = call.shapeOf(0);
  } catch {
    shape = { fields: [] };
  }
  if (!('scalar' in shape) || call.isJson(0) || call.isRecord(0))
    throw unsupported(
      'CONTAINS_SUBSTR of a STRUCT, ARRAY, JSON value or whole row (searched field by field)',
    );
  const text =
    shape.scalar === undefined || shape.scalar === 'VARCHAR' ? args[0] : `CAST(${call.asText(0)} AS VARCHAR)`;
  // Not BigQuery's error but the translation's limit: SAFE. does not turn it into NULL.
  const refused = raiseSql(
    quoteString(
      'CONTAINS_SUBSTR of text with characters outside ASCII is not translated (NFKC normalization and case folding)',
    ),
  );
  return `list_transform([${text}], __substr_text -> CASE WHEN __substr_text IS NULL THEN NULL WHEN regexp_matches(__substr_text, '[^\\x00-\\x7f]') THEN ${refused} ELSE contains(lower(__substr_text), ${quoteString(search.toLowerCase())}) END)[1]`;
}

/**
 * LOWER and UPPER of a STRING: ICU's full case mapping (storage/unicode-text.ts), which DuckDB's
 * lower and upper agree with on ASCII text; text with another character (more bytes than
 * characters) goes to the JavaScript function, about 0.5 s a million values. Of BYTES (DuckDB's
 * lower and upper take no BLOB) it is refused.
 */
function caseMapped(direction: 'lower' | 'upper', value: string, call: FunctionCall): string {
  if (isBytes(call)) throw unsupported(`${direction.toUpperCase()} of BYTES`);
  const mapped = (text: string) =>
    `CASE WHEN strlen(${text}) = length(${text}) THEN ${direction}(${text}) ELSE ${unicodeTextFunctions[direction]}(${text}) END`;
  // A column is named three times (free); another value is computed once, in a lambda, which costs
  // about 0.1 s a million rows.
  return /^[\w."]+$/.test(value)
    ? mapped(value)
    : `list_transform([${value}], __case_text -> ${mapped('__case_text')})[1]`;
}

/** NORMALIZE's and NORMALIZE_AND_CASEFOLD's mode: NFC when not given. */
function normalizeMode(call: FunctionCall): 'nfc' | 'nfd' | 'nfkc' | 'nfkd' {
  const mode = call.args.length < 2 ? 'nfc' : call.parts[1];
  if (mode !== 'nfc' && mode !== 'nfd' && mode !== 'nfkc' && mode !== 'nfkd')
    throw unsupported(
      `${call.name.toUpperCase()} with a mode other than NFC, NFD, NFKC or NFKD (${mode?.toUpperCase() ?? 'an expression'})`,
    );
  return mode;
}

const casefoldFunctions = {
  nfc: 'casefoldNfc',
  nfd: 'casefoldNfd',
  nfkc: 'casefoldNfkc',
  nfkd: 'casefoldNfkd',
} as const;

/** Whether the first argument is BYTES (a BLOB column or field, a bytes literal, a CAST to BYTES, MD5...). */
function isBytes(call: FunctionCall): boolean {
  const shape = call.shapeOf(0);
  return 'scalar' in shape && shape.scalar === 'BLOB';
}

/**
 * A rule for a text function whose DuckDB form takes no BLOB, so its BYTES form (a byte-wise
 * LEFT, TRIM, LPAD or REVERSE in BigQuery) is refused by name rather than failing in DuckDB's
 * binder.
 */
function textOnly(name: string, translate: (args: readonly string[], call: FunctionCall) => string) {
  return (args: readonly string[], call: FunctionCall): string => {
    if (isBytes(call)) throw unsupported(`${name} of BYTES`);
    return translate(args, call);
  };
}

/** LPAD's and RPAD's output size: a negative one is BigQuery's error (string.cc); DuckDB's answers ''. */
/**
 * ZetaSQL's kMaxOutputSize (string.cc): what LPAD, RPAD and REPEAT may answer, 1 MB, past which
 * they fail; DuckDB would build the text (REPEAT('ab', 100000000) ran out of memory, 502).
 */
const maxOutputBytes = 1 << 20;

/** LPAD/RPAD's output size, failing as VerifyPadInputs does (string.cc): negative, then past 1 MB. */
function padLength(length: string, call: FunctionCall): string {
  const literal = call.numbers[1];
  if (literal !== undefined && literal >= 0 && literal <= maxOutputBytes) return length;
  return `CASE WHEN (${length}) < 0 THEN ${raise(call, "'Second argument (output size) for LPAD/RPAD cannot be negative'")} WHEN (${length}) > ${maxOutputBytes} THEN ${raise(call, "'Output of LPAD/RPAD exceeds max allowed output size of 1MB'")} ELSE (${length}) END`;
}

/** LPAD/RPAD's pad pattern, which may not be empty (string.cc VerifyPadInputs); a space by default. */
function padPattern(pattern: string | undefined, call: FunctionCall): string {
  if (pattern === undefined) return "' '";
  const literal = call.literals[2];
  if (literal !== undefined && literal !== '') return pattern;
  return `CASE WHEN octet_length(CAST(${pattern} AS BLOB)) = 0 THEN ${raise(call, "'Third argument (pad pattern) for LPAD/RPAD cannot be empty'")} ELSE ${pattern} END`;
}

/** The character of a Unicode code point (not NULL), BigQuery's CHR: '' for 0, an error for no character. */
function codePointText(code: string): string {
  return `(CASE WHEN ${code} = 0 THEN '' WHEN ${code} < 0 OR ${code} > 1114111 OR ${code} BETWEEN 55296 AND 57343 THEN ${raiseSql(`'Invalid code point: ' || ${code}`)} ELSE chr(CAST(${code} AS INTEGER)) END)`;
}

export const stringRules: RuleTable = {
  // EDIT_DISTANCE(a, b[, max_distance => n]): the code-point Levenshtein distance, at most n
  // (distance.cc's CappedLevenshteinDistance); a negative n is an error. BYTES are refused: they
  // count bytes, which the VARCHAR function does not see.
  edit_distance: rule(
    2,
    2,
    ([a, b], call) => {
      for (const index of [0, 1]) {
        const shape = call.shapeOf(index);
        if ('scalar' in shape && shape.scalar === 'BLOB') throw unsupported('EDIT_DISTANCE of BYTES');
      }
      const distance = `CAST(${editDistanceFunction}(${a}, ${b}) AS BIGINT)`;
      const most = call.named.max_distance?.sql;
      if (most === undefined) return distance;
      return `CASE WHEN (${most}) IS NULL THEN NULL WHEN (${most}) < 0 THEN ${raise(call, "'Max distance must be non-negative'")} ELSE least(${distance}, ${most}) END`;
    },
    { named: ['max_distance'], ownSafeForm: true },
  ),
  // BigQuery's CONCAT is NULL when any argument is; DuckDB's concat() skips NULLs, `||` does not.
  // Each argument goes as CAST AS STRING writes it: BigQuery's CONCAT(40.0) is '40', DuckDB's '40.0'.
  concat: rule(
    1,
    Number.POSITIVE_INFINITY,
    (args, call) => `(${args.map((_, i) => call.asText(i)).join(' || ')})`,
  ),
  // LENGTH and BYTE_LENGTH of BYTES count bytes; DuckDB's length and strlen take no BLOB.
  length: rule(1, 1, ([value], call) => (isBytes(call) ? `octet_length(${value})` : `length(${value})`)),
  char_length: same(1, 1, 'length'),
  character_length: same(1, 1, 'length'),
  byte_length: rule(1, 1, ([value], call) => (isBytes(call) ? `octet_length(${value})` : `strlen(${value})`)),
  lower: rule(1, 1, ([value], call) => caseMapped('lower', value as string, call)),
  upper: rule(1, 1, ([value], call) => caseMapped('upper', value as string, call)),
  substr: rule(
    2,
    3,
    ([value, position, length], call) => substr(value as string, position as string, length, call),
    { ownSafeForm: true },
  ),
  substring: rule(
    2,
    3,
    ([value, position, length], call) => substr(value as string, position as string, length, call),
    { ownSafeForm: true },
  ),
  // A negative count is BigQuery's error (string.cc); DuckDB's left() counts from the other end.
  left: rule(
    2,
    2,
    textOnly(
      'LEFT',
      ([value, count], call) =>
        `left(${value}, ${nonNegative(count as string, call.numbers[1], call, "'Second argument in LEFT() cannot be negative'")})`,
    ),
    { ownSafeForm: true },
  ),
  // A negative count is BigQuery's error (string.cc); DuckDB's right() counts from the other end.
  right: rule(
    2,
    2,
    textOnly(
      'RIGHT',
      ([value, count], call) =>
        `right(${value}, ${nonNegative(count as string, call.numbers[1], call, "'Second argument in RIGHT() cannot be negative'")})`,
    ),
    { ownSafeForm: true },
  ),
  strpos: same(2, 2),
  instr: rule(2, 4, instrFrom, { ownSafeForm: true }),
  starts_with: same(2, 2),
  ends_with: same(2, 2),
  // SPLIT's delimiter defaults to a comma; an empty delimiter splits into characters on both.
  split: rule(1, 2, ([value, delimiter]) => `string_split(${value}, ${delimiter ?? "','"})`),
  trim: rule(
    1,
    2,
    textOnly('TRIM', (args) => `trim(${args.join(', ')})`),
  ),
  ltrim: rule(
    1,
    2,
    textOnly('LTRIM', (args) => `ltrim(${args.join(', ')})`),
  ),
  rtrim: rule(
    1,
    2,
    textOnly('RTRIM', (args) => `rtrim(${args.join(', ')})`),
  ),
  // An empty search string replaces nothing on both engines.
  replace: same(3, 3),
  translate: same(3, 3),
  lpad: rule(
    2,
    3,
    textOnly(
      'LPAD',
      ([value, length, pad], call) =>
        `lpad(${value}, ${padLength(length as string, call)}, ${padPattern(pad, call)})`,
    ),
    { ownSafeForm: true },
  ),
  rpad: rule(
    2,
    3,
    textOnly(
      'RPAD',
      ([value, length, pad], call) =>
        `rpad(${value}, ${padLength(length as string, call)}, ${padPattern(pad, call)})`,
    ),
    { ownSafeForm: true },
  ),
  reverse: rule(
    1,
    1,
    textOnly('REVERSE', ([value]) => `reverse(${value})`),
  ),
  initcap: rule(1, 2, initcap),
  // A negative count is BigQuery's error (string.cc); DuckDB's repeat answers ''. So is an
  // output past 1 MB (bytes: its text's or BYTES' length times the count).
  repeat: rule(
    2,
    2,
    ([value, count], call) => {
      const checked = nonNegative(
        count as string,
        call.numbers[1],
        call,
        "'Second argument (repeat count) for REPEAT cannot be negative'",
      );
      const shape = call.shapeOf(0);
      const bytes =
        'scalar' in shape && shape.scalar === 'BLOB' ? `octet_length(${value})` : `strlen(${value})`;
      const tooLong = `(${count}) > 0 AND ${bytes} > 0 AND ((${count}) > ${maxOutputBytes} OR ${bytes} > ${maxOutputBytes} // (${count}))`;
      return `(CASE WHEN ${tooLong} THEN ${raise(call, "'Output of REPEAT exceeds max allowed output size of 1MB'")} ELSE repeat(${value}, ${checked}) END)`;
    },
    { ownSafeForm: true },
  ),
  ascii: same(1, 1),
  // The first character's code point; BigQuery's is 0 for '' where DuckDB's unicode() is -1.
  unicode: rule(1, 1, ([value]) => `CASE WHEN (${value}) = '' THEN 0 ELSE unicode(${value}) END`),
  // NFC, NORMALIZE's default mode, is DuckDB's nfc_normalize; the other modes, and case folding,
  // run in JavaScript (storage/unicode-text.ts).
  normalize: rule(1, 2, ([value], call) => {
    const mode = normalizeMode(call);
    return mode === 'nfc' ? `nfc_normalize(${value})` : `${unicodeTextFunctions[mode]}(${value})`;
  }),
  normalize_and_casefold: rule(
    1,
    2,
    ([value], call) => `${unicodeTextFunctions[casefoldFunctions[normalizeMode(call)]]}(${value})`,
  ),
  // Docs: TO_CODE_POINTS('foo') is [102, 111, 111], '' is [] (of BYTES, byte values: not written).
  to_code_points: rule(1, 1, ([value], call) => {
    if (isBytes(call)) throw unsupported('TO_CODE_POINTS of BYTES');
    const name = '"$at"';
    return `(CASE WHEN ${value} IS NULL THEN NULL ELSE list_transform(range(1, length(${value}) + 1), ${name} -> CAST(unicode(substr(${value}, ${name}, 1)) AS BIGINT)) END)`;
  }),
  // Docs: CHR(0) is '' and an invalid code point (a surrogate, beyond 0x10FFFF) an error.
  chr: rule(
    1,
    1,
    ([code]) => `(CASE WHEN ${code} IS NULL THEN NULL ELSE ${codePointText(code as string)} END)`,
  ),
  // Docs: [97, 0, 0xF9B5] is 'a例' (0 adds nothing); a NULL element makes the whole NULL.
  code_points_to_string: rule(1, 1, ([codes]) => {
    const name = '"$code"';
    return `(CASE WHEN ${codes} IS NULL OR ${hasNullElement(codes as string)} THEN NULL ELSE array_to_string(list_transform(${codes}, ${name} -> ${codePointText(name)}), '') END)`;
  }),
  format: rule(1, Number.POSITIVE_INFINITY, format),
  contains_substr: rule(2, 3, containsSubstr, { ownSafeForm: true }),
};
