import { type FunctionCall, type RuleTable, raise, rule } from './rule.js';

/**
 * NET.HOST: the host of a URL, by the steps of GoogleSQL's reference implementation
 * (ZetaSQL's zetasql/public/functions/net.cc, `Host`), which the documentation calls a "best effort"
 * for URLs that are not RFC 3986 (https://cloud.google.com/bigquery/docs/reference/standard-sql/net_functions#nethost):
 * ASCII whitespace stripped; a leading `//` (either slash), or a scheme (text before the first `:`,
 * which `//` follows), skipped; the network location ends at the first `/ ? # \`, and starts after
 * its last `@`; a port (from the first `:`, after the brackets of an IPv6 address) dropped; leading
 * dots dropped, trailing dots kept as one; no normalization; NULL for an empty input or host.
 * One RE2 match takes the host (the scheme or `//`, then up to the last `@` of the location,
 * skipped; the port cut) and plain trims the dots: six regular expressions an event made NET.HOST
 * the cost of ga4.page-hosts (17 s of thread time for a month of 1M events).
 */
const whitespace = 'chr(32) || chr(9) || chr(10) || chr(11) || chr(12) || chr(13)';
const slashes = '[/\\\\][/\\\\]';
// Every class stops at the end of the location (`# / ? \`); the scheme is text up to the first
// `:`, as net.cc looks at the first colon only; the greedy run before `@` reaches the last one.
const hostPattern = `^(?:${slashes}|[^#/?\\\\:]*:${slashes})?(?:[^#/?\\\\]*@)?((?:\\[[^\\[\\]#/?\\\\]*[\\[\\]]?)?[^:#/?\\\\]*)`;

function hostSql(url: string): string {
  const host = `ltrim(regexp_extract(trim(${url}, ${whitespace}), '${hostPattern}', 1), '.')`;
  return `list_transform([${host}], h -> nullif(CASE WHEN ends_with(h, '.') THEN rtrim(h, '.') || '.' ELSE h END, ''))[1]`;
}

/*
 * The IP address functions BigQuery documents (NET.IP_FROM_STRING, NET.SAFE_IP_FROM_STRING,
 * NET.IP_TO_STRING, NET.IP_NET_MASK, NET.IP_TRUNC, NET.IPV4_FROM_INT64, NET.IPV4_TO_INT64), by
 * the steps of ZetaSQL's net.cc and its IPAddress (zetasql/base/net/ipaddress_oss.cc), with their
 * error texts. An address is BYTES (a BLOB here) of 4 or 16 bytes in network order. All of it is
 * DuckDB SQL (no extension, no JavaScript): text is read with RE2 and string functions, bytes go
 * through DuckDB's BIT type (a BLOB casts to the BIT string of its bytes and back).
 */

/** `body` with `value` bound once to `name` (DuckDB has no LET): a lambda over a one-element list. */
const bound = (value: string, name: string, body: string): string =>
  `list_transform([${value}], ${name} -> ${body})[1]`;

// glibc's inet_pton, which net.cc calls: for AF_INET four decimal octets of at most 255, none
// with a leading zero; for AF_INET6 groups of one to four hex digits, at most one `::`, an IPv4
// address in the place of the last two groups; nothing else (no spaces, zone or brackets).
const octet = '(?:25[0-5]|2[0-4][0-9]|1[0-9][0-9]|[1-9]?[0-9])';
const ipv4Octets = `^(${octet})\\.(${octet})\\.(${octet})\\.(${octet})$`;
const ipv4Text = `${octet}(?:\\.${octet}){3}`;
const group = '[0-9A-Fa-f]{1,4}';
const groupsToEnd = `(?:${group}:)*(?:${group}|${ipv4Text})`;
const ipv6Shape = `${groupsToEnd}|(?:${group}(?::${group})*)?::(?:${groupsToEnd})?`;

/** The 32-bit number of four octets' texts, as 4 bytes. */
const ipv4Bytes = (octets: readonly string[]) =>
  `CAST(CAST(CAST(${octets.map((text, i) => `(CAST(${text} AS BIGINT) << ${24 - 8 * i})`).join(' | ')} AS UINTEGER) AS BIT) AS BLOB)`;

/**
 * What `::` stands for in text of `written` groups: the zero groups that make eight, with the
 * colons that join them to groups before and after (none at the start or end of the text).
 */
const zeroGroups = (atStart: boolean, atEnd: boolean, written: number) =>
  `${atStart ? '' : ':'}${Array(8 - written)
    .fill('0')
    .join(':')}${atEnd ? '' : ':'}`;
const zeroGroupsList = `[${[false, true]
  .flatMap((atEnd) =>
    [false, true].flatMap((atStart) =>
      [0, 1, 2, 3, 4, 5, 6, 7].map((written) => `'${zeroGroups(atStart, atEnd, written)}'`),
    ),
  )
  .join(', ')}]`;

/**
 * The 16 bytes of text `s` of a valid IPv6 shape, or NULL where it has too many or too few groups:
 * eight without `::`; with one, seven at most, since glibc refuses a `::` that stands for no group
 * (for eight written groups, what `::` is replaced with makes more than eight, or is past the
 * list's end and NULL). An IPv4 tail (the only dots) becomes two groups, `::` the zero groups it
 * stands for, then printf pads each group to four digits (with spaces, made zeros): RE2
 * replacements of every group would cost some 4 µs a value.
 */
function ipv6Bytes(s: string): string {
  const t = '__net_groups';
  const tail = [1, 2, 3, 4].map((n) =>
    n === 1 ? `split_part(split_part(${s}, '.', 1), ':', -1)` : `split_part(${s}, '.', ${n})`,
  );
  const tailAsGroups = `CASE WHEN contains(${s}, '.') THEN regexp_replace(${s}, '[0-9.]+$', '') || printf('%02x%02x:%02x%02x', ${tail.map((text) => `CAST(${text} AS INTEGER)`).join(', ')}) ELSE ${s} END`;
  const parts = '__net_parts';
  const atStart = `starts_with(${t}, '::')::INTEGER`;
  const atEnd = `ends_with(${t}, '::')::INTEGER`;
  // `::` splits into one empty part, two at the start or end of the text.
  const written = `(len(${parts}) - 1 - ${atStart} - ${atEnd})`;
  const eight = '__net_eight';
  const padded = bound(
    `CASE WHEN NOT contains(${t}, '::') THEN ${parts} ELSE string_split(replace(${t}, '::', ${zeroGroupsList}[${written} + 1 + 8 * ${atStart} + 16 * ${atEnd}]), ':') END`,
    eight,
    `CASE WHEN len(${eight}) = 8 THEN unhex(replace(printf('${'%4s'.repeat(8)}', ${[1, 2, 3, 4, 5, 6, 7, 8].map((n) => `${eight}[${n}]`).join(', ')}), ' ', '0')) END`,
  );
  return bound(tailAsGroups, t, bound(`string_split(${t}, ':')`, parts, padded));
}

/** NET.IP_FROM_STRING (and NET.SAFE_IP_FROM_STRING, `call.safe`): IPv4 first, then IPv6, as net.cc tries them. */
function ipFromStringSql(text: string, call: FunctionCall): string {
  const s = '__net_text';
  const q = '__net_octets';
  const names = ['a', 'b', 'c', 'd'];
  // Text with a colon is no IPv4 address: IPv6 text skips the IPv4 pattern.
  const ipv4 = bound(
    `regexp_extract(${s}, '${ipv4Octets}', [${names.map((name) => `'${name}'`).join(', ')}])`,
    q,
    `CASE WHEN ${q}.a <> '' THEN ${ipv4Bytes(names.map((name) => `${q}.${name}`))} END`,
  );
  const parsed = `CASE WHEN NOT contains(${s}, ':') THEN ${ipv4} WHEN regexp_full_match(${s}, '${ipv6Shape}') THEN ${ipv6Bytes(s)} END`;
  const invalid = raise(call, `'NET.IP_FROM_STRING() encountered an unparseable IP-address: ' || ${s}`);
  return bound(
    text,
    s,
    `CASE WHEN ${s} IS NULL THEN NULL ELSE coalesce(${parsed}, CAST(${invalid} AS BLOB)) END`,
  );
}

/** Dotted-quad text of the 32-bit number `x`. */
const dottedQuad = (x: string) =>
  `printf('%d.%d.%d.%d', ${[24, 16, 8, 0].map((shift) => `(${x} >> ${shift}) & 255`).join(', ')})`;

/**
 * The text of 16 bytes, as the number `x`, as IPAddress::ToString writes it (ipaddress_oss.cc):
 * lower-case groups without leading zeros, the first longest run of two or more zero groups as
 * `::`; when the first five groups are zero and the sixth is ffff, or is zero and the seventh is
 * not, the last four bytes as an IPv4 address (`::ffff:192.0.2.128`, `::1.2.3.4`, `::0.1.0.0`);
 * and a link-local `fe80:0:x:y::` or `ff02:0:x:y::` is written without x and y, which it takes
 * for a scope id. The groups come from the number (a global RE2 replacement costs some 4 µs).
 */
function ipv6Text(bytes: string): string {
  const x = '__net_number';
  const word = (n: number) => `CAST((${x} >> ${112 - 16 * n}) & 65535 AS INTEGER)`;
  const n = '__net_scoped';
  const unscoped = bound(
    `CAST(CAST(${bytes} AS BIT) AS UHUGEINT)`,
    n,
    `CASE WHEN (${n} >> 96) IN (4269801472, 4278321152) THEN ${n} & ~(CAST(4294967295 AS UHUGEINT) << 64) ELSE ${n} END`,
  );
  const g = '__net_groups';
  const runs = [7, 6, 5, 4, 3, 2].map(
    (n) =>
      `WHEN contains(':' || ${g} || ':', ':${'0:'.repeat(n)}') THEN regexp_replace(${g}, '(^|:)0${'(:0)'.repeat(n - 1)}(:|$)', '::')`,
  );
  const compressed = `CASE WHEN NOT contains(':' || ${g} || ':', ':0:0:') THEN ${g} WHEN ${g} = '0:0:0:0:0:0:0:0' THEN '::' ${runs.join(' ')} ELSE ${g} END`;
  const groups = `printf('${Array(8).fill('%x').join(':')}', ${[0, 1, 2, 3, 4, 5, 6, 7].map(word).join(', ')})`;
  const embedded = `(${x} >> 48) = 0 AND (${word(5)} = 65535 OR (${word(5)} = 0 AND ${word(6)} <> 0))`;
  return bound(
    unscoped,
    x,
    `CASE WHEN ${embedded} THEN CASE WHEN ${word(5)} = 65535 THEN '::ffff:' ELSE '::' END || ${dottedQuad(`CAST(${x} & 4294967295 AS BIGINT)`)} ELSE ${bound(groups, g, compressed)} END`,
  );
}

/**
 * A function of one BYTES argument: NULL for NULL, net.cc's error (`message`, SQL of the length)
 * for a length `fits` refuses, else `value` of the bound bytes, of DuckDB type `type`.
 */
function ofBytes(
  bytes: string,
  call: FunctionCall,
  check: { fits: (length: string) => string; message: (length: string) => string; type: string },
  value: (b: string) => string,
): string {
  const b = '__net_bytes';
  const length = `octet_length(${b})`;
  return bound(
    `CAST(${bytes} AS BLOB)`,
    b,
    `CASE WHEN ${b} IS NULL THEN NULL WHEN NOT (${check.fits(length)}) THEN CAST(${raise(call, check.message(length))} AS ${check.type}) ELSE ${value(b)} END`,
  );
}

const ipToStringSql = (bytes: string, call: FunctionCall) =>
  ofBytes(
    bytes,
    call,
    {
      fits: (length) => `${length} IN (4, 16)`,
      message: (length) =>
        `'NET.IP_TO_STRING() encountered an invalid IP address. Expected 4 (for IPv4) or 16 (for IPv6) bytes but got ' || ${length}`,
      type: 'VARCHAR',
    },
    (b) =>
      `CASE WHEN octet_length(${b}) = 4 THEN ${bound(`CAST(CAST(${b} AS BIT) AS BIGINT)`, '__net_number', dottedQuad('__net_number'))} ELSE ${ipv6Text(b)} END`,
  );

/** What NET.IP_NET_MASK and NET.IP_TRUNC each make of their first argument. */
interface Prefixed {
  /** The first argument as bound once. */
  readonly first: (sql: string) => string;
  /** The address's length in bytes, of the bound first argument. */
  readonly bytes: (first: string) => string;
  /** net.cc's words for a length other than 4 or 16, and for a prefix outside 0 to 8 × the length. */
  readonly wrongLength: (first: string) => string;
  readonly wrongPrefix: string;
  /** The BYTES, of the bound first argument and the mask (a BIT string as long as the address). */
  readonly result: (first: string, mask: string) => string;
}

/** NULL for a NULL argument; the length's error, then the prefix's; else the result of the mask. */
function prefixedSql(args: readonly string[], call: FunctionCall, spec: Prefixed): string {
  const [first, prefix] = args as [string, string];
  const f = '__net_first';
  const p = '__net_prefix';
  const bits = `${spec.bytes(f)} * 8`;
  const wrongLength = raise(call, spec.wrongLength(f));
  const wrongPrefix = raise(call, `'${spec.wrongPrefix}; got ' || ${p}`);
  return bound(
    spec.first(first),
    f,
    bound(
      `CAST(${prefix} AS BIGINT)`,
      p,
      `CASE WHEN ${f} IS NULL OR ${p} IS NULL THEN NULL WHEN ${spec.bytes(f)} NOT IN (4, 16) THEN CAST(${wrongLength} AS BLOB) WHEN ${p} < 0 OR ${p} > ${bits} THEN CAST(${wrongPrefix} AS BLOB) ELSE ${spec.result(f, `CAST(repeat('1', ${p}) || repeat('0', ${bits} - ${p}) AS BIT)`)} END`,
    ),
  );
}

const netMask: Prefixed = {
  first: (size) => `CAST(${size} AS BIGINT)`,
  bytes: (size) => size,
  wrongLength: (size) =>
    `'The first argument of NET.IP_NET_MASK() must be either 4 (for IPv4) or 16 (for IPv6); got ' || ${size}`,
  wrongPrefix: 'The second argument of NET.IP_NET_MASK() must be between 0 and the first argument * 8',
  result: (_size, mask) => `CAST(${mask} AS BLOB)`,
};

const trunc: Prefixed = {
  first: (bytes) => `CAST(${bytes} AS BLOB)`,
  bytes: (bytes) => `octet_length(${bytes})`,
  wrongLength: (bytes) =>
    `'The first argument of NET.IP_TRUNC() must have length 4 (for IPv4) or 16 (for IPv6); got ' || octet_length(${bytes})`,
  wrongPrefix: 'The second argument of NET.IP_TRUNC() must be between 0 and 8 * LENGTH(first argument)',
  result: (bytes, mask) => `CAST(CAST(${bytes} AS BIT) & ${mask} AS BLOB)`,
};

function ipv4FromInt64Sql(integer: string, call: FunctionCall): string {
  const v = '__net_integer';
  const outside = raise(
    call,
    `'NET.IPV4_FROM_INT64() encountered an invalid integer IP. Expected range: [-0x80000000, 0xFFFFFFFF]; got ' || ${v}`,
  );
  // A negative value is a 32-bit integer's two's complement: its low 32 bits are the address.
  return bound(
    `CAST(${integer} AS BIGINT)`,
    v,
    `CASE WHEN ${v} IS NULL THEN NULL WHEN ${v} < -2147483648 OR ${v} > 4294967295 THEN CAST(${outside} AS BLOB) ELSE CAST(CAST(CAST(${v} & 4294967295 AS UINTEGER) AS BIT) AS BLOB) END`,
  );
}

const ipv4ToInt64Sql = (bytes: string, call: FunctionCall) =>
  ofBytes(
    bytes,
    call,
    {
      fits: (length) => `${length} = 4`,
      message: (length) =>
        `'NET.IPV4_TO_INT64() encountered a non-IPv4 address. Expected 4 bytes but got ' || ${length}`,
      type: 'BIGINT',
    },
    (b) => `CAST(CAST(${b} AS BIT) AS BIGINT)`,
  );

const own = { ownSafeForm: true };

export const netRules: RuleTable = {
  'net.host': rule(1, 1, ([url]) => hostSql(url as string)),
  'net.ip_from_string': rule(1, 1, ([text], call) => ipFromStringSql(text as string, call), own),
  // NULL for text that is no address, as SAFE.NET.IP_FROM_STRING.
  'net.safe_ip_from_string': rule(
    1,
    1,
    ([text], call) => ipFromStringSql(text as string, { ...call, safe: true }),
    own,
  ),
  'net.ip_to_string': rule(1, 1, ([bytes], call) => ipToStringSql(bytes as string, call), own),
  'net.ip_net_mask': rule(2, 2, (args, call) => prefixedSql(args, call, netMask), own),
  'net.ip_trunc': rule(2, 2, (args, call) => prefixedSql(args, call, trunc), own),
  'net.ipv4_from_int64': rule(1, 1, ([integer], call) => ipv4FromInt64Sql(integer as string, call), own),
  'net.ipv4_to_int64': rule(1, 1, ([bytes], call) => ipv4ToInt64Sql(bytes as string, call), own),
};
