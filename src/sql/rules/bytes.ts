import { farmFingerprintFunction, type RuleTable, raise, rule } from './rule.js';

/**
 * BYTES functions. BYTES are BLOBs here and come back base64-encoded, as BigQuery's REST API
 * returns them. DuckDB's hash functions return hex text where BigQuery's return BYTES, so the
 * hex is turned back into bytes; TO_HEX is lower case in BigQuery and upper case in DuckDB.
 */
export const bytesRules: RuleTable = {
  md5: rule(1, 1, ([value]) => `unhex(md5(${value}))`),
  sha1: rule(1, 1, ([value]) => `unhex(sha1(${value}))`),
  sha256: rule(1, 1, ([value]) => `unhex(sha256(${value}))`),
  // A STRING's UTF-8 bytes or the BYTES. A value known as a STRING is encoded by DuckDB, which
  // costs less than the STRING overload's decoding and encoding in JavaScript (1.2 s against 2.0 s
  // per million 20-byte values); others go to the overload of their type.
  farm_fingerprint: rule(1, 1, ([value], call) => {
    const shape = call.shapeOf(0);
    const text = 'scalar' in shape && shape.scalar === 'VARCHAR';
    return `${farmFingerprintFunction}(${text ? `encode(${value})` : value})`;
  }),
  to_hex: rule(1, 1, ([value]) => `lower(hex(${value}))`),
  // ZetaSQL's FromHex (string.cc) names the offset of the first character that is no hex digit
  // and the whole text, where DuckDB's unhex names the character alone; an odd count of digits
  // reads as if led by a 0 in both.
  from_hex: rule(
    1,
    1,
    ([value], call) =>
      `list_transform([${value}], __hex -> CASE WHEN regexp_matches(__hex, '[^0-9a-fA-F]') THEN ${raise(call, `'Failed to decode invalid hexadecimal string due to character at offset ' || length(regexp_extract(__hex, '^[0-9a-fA-F]*')) || ': ' || __hex`)} ELSE unhex(__hex) END)[1]`,
    { ownSafeForm: true },
  ),
  to_base64: rule(1, 1, ([value]) => `to_base64(${value})`),
  // ZetaSQL's FromBase64 is absl's Base64Unescape (string.cc): blanks anywhere are skipped, the
  // padding may be left out (a JWT's segments have none) or written with '.', but where written
  // it must be whole. DuckDB's from_base64 takes only padded text, so the text is made so first.
  from_base64: rule(
    1,
    1,
    ([value], call) => {
      const data = `rtrim(__b64, '=.')`;
      const tail = `(length(${data}) % 4)`;
      const pads = `(length(__b64) - length(${data}))`;
      const whole = `(${pads} = 0 OR ${pads} = CASE ${tail} WHEN 2 THEN 2 WHEN 3 THEN 1 ELSE 0 END)`;
      return `list_transform([regexp_replace(${value}, '[\t\n\x0B\f\r ]', '', 'g')], __b64 -> CASE WHEN __b64 IS NULL THEN NULL WHEN regexp_full_match(__b64, '[A-Za-z0-9+/]*[=.]*') AND ${tail} <> 1 AND ${whole} THEN from_base64(${data} || repeat('=', (4 - ${tail}) % 4)) ELSE ${raise(call, "'Failed to decode invalid base64 string'")} END)[1]`;
    },
    { ownSafeForm: true },
  ),
  // The set bits of an INT64 in two's complement (64 bits, whatever integer type DuckDB gave the
  // value), or of BYTES; DuckDB's BIT cast fails for empty bytes, which have none.
  bit_count: rule(1, 1, ([value], call) => {
    const shape = call.shapeOf(0);
    return 'scalar' in shape && shape.scalar === 'BLOB'
      ? `CASE WHEN octet_length(${value}) = 0 THEN 0 ELSE bit_count(CAST(${value} AS BIT)) END`
      : `CAST(bit_count(CAST(${value} AS BIGINT)) AS BIGINT)`;
  }),
};
