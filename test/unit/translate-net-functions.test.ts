import { describe, expect, it } from 'vitest';
import { useTranslatedQueries } from '../helpers/translated-row.js';

// Expected values are BigQuery's documented examples (net_functions.md, shared with ZetaSQL's
// docs/net_functions.md) and the cases of GoogleSQL's reference implementation: ZetaSQL's
// compliance tests (zetasql/compliance/functions_testlib_net.cc), its IPAddress tests
// (zetasql/base/net/ipaddress_oss_test.cc, texts that come back as they went in), and what glibc's
// inet_pton, which net.cc calls, accepts; bytes written as hex by hand from those. None comes
// from the translator. BYTES are compared through TO_HEX; the engine returns BYTES as base64, as
// BigQuery's REST API does.
const { row, rows } = useTranslatedQueries();

/** The first column of each row of `SELECT <expression> FROM UNNEST([<inputs>]) AS x WITH OFFSET ORDER BY offset`. */
async function each(expression: string, inputs: readonly string[]): Promise<unknown[]> {
  const found = await rows(
    `select ${expression} as v from unnest([${inputs.join(', ')}]) as x with offset as o order by o`,
  );
  return found.map((found) => found.v);
}

const quoted = (texts: readonly string[]) => texts.map((text) => `'${text}'`);

/** BigQuery's error for `expression`, run alone. */
async function errorOf(expression: string): Promise<string> {
  return row(`select ${expression} as v`).then(
    () => expect.fail(`expected ${expression} to fail`),
    (error: Error) => error.message,
  );
}

describe('NET.IP_FROM_STRING and NET.SAFE_IP_FROM_STRING on DuckDB', () => {
  it('NET.IP_FROM_STRING reads dotted quads into 4 bytes and IPv6 text into 16, an IPv4 tail too', async () => {
    // Docs: '48.49.50.51' -> b"0123"; '::1' -> fifteen zero bytes and \x01;
    // '3031:3233:3435:3637:3839:4041:4243:4445' -> b"0123456789@ABCDE";
    // '::ffff:192.0.2.128' -> ten zero bytes, \xff\xff\xc0\x00\x02\x80. The compliance tests add
    // '64.0.66.67' -> b"@\0BC", upper-case hex digits, and a tail after five groups and FFFF.
    const texts = [
      '48.49.50.51',
      '::1',
      '3031:3233:3435:3637:3839:4041:4243:4445',
      '::ffff:192.0.2.128',
      '64.0.66.67',
      '6465:6667:6869:6A6B:6C6d:6e6f:7071:7172',
      '6465:6667:6869:6a6b:6c6d:FFFF:128.129.130.131',
      // glibc: `::` for one group or more, at the start, the end or alone; a tail after `::`.
      '1:2:3:4:5:6:7::',
      '::',
      '1:2:3:4:5::1.2.3.4',
      '0.0.0.0',
      '255.255.255.255',
    ];
    expect(await each('to_hex(net.ip_from_string(x))', quoted(texts))).toEqual([
      '30313233',
      '00000000000000000000000000000001',
      '30313233343536373839404142434445',
      '00000000000000000000ffffc0000280',
      '40004243',
      '6465666768696a6b6c6d6e6f70717172',
      '6465666768696a6b6c6dffff80818283',
      '00010002000300040005000600070000',
      '00000000000000000000000000000000',
      '00010002000300040005000001020304',
      '00000000',
      'ffffffff',
    ]);
    // b"0123" as REST sends BYTES: base64.
    expect(await row(`select net.ip_from_string('48.49.50.51') as v, net.ip_from_string(null) as n`)).toEqual(
      {
        v: Buffer.from('0123').toString('base64'),
        n: null,
      },
    );
  });

  it('NET.IP_FROM_STRING refuses text inet_pton refuses with BigQuery’s error, NULL under SAFE_ and SAFE.', async () => {
    // Compliance tests: a space before or after, 'foo'. glibc's inet_pton also refuses an octet
    // with a leading zero or past 255, three or five octets, a `::` standing for no group, a
    // second `::`, a lone colon at either end, nine groups, a group of five digits, a tail not
    // last or without room, a zone, brackets, CIDR notation and empty text.
    const invalid = [
      '64.65.66.67 ',
      ' 64.65.66.67',
      ' 6465:6667:6869:6a6b:6c6d:6e6f:7071:7172',
      '6465:6667:6869:6a6b:6c6d:6e6f:7071:7172 ',
      'foo',
      '01.2.3.4',
      '256.1.1.1',
      '1.2.3',
      '1.2.3.4.5',
      '1.2.3.4.',
      '1::2:3:4:5:6:7:8',
      '1::2::3',
      ':::',
      ':1::',
      '1:',
      '1:2:3:4:5:6:7:8:9',
      '1:2:3:4:5:6:7',
      '12345::',
      '::1.2.3.4:5',
      '::1.2.3.04',
      '1:2:3:4:5:6:7:1.2.3.4',
      '1:2:3:4:5:6::1.2.3.4',
      'fe80::1%eth0',
      '[::1]',
      '10.1.2.3/32',
      '',
    ];
    expect(await each('net.safe_ip_from_string(x)', quoted(invalid))).toEqual(invalid.map(() => null));
    expect(await each('safe.net.ip_from_string(x)', quoted(invalid))).toEqual(invalid.map(() => null));
    // net.cc: "NET.IP_FROM_STRING() encountered an unparseable IP-address: " and the text.
    expect(await errorOf(`net.ip_from_string('foo')`)).toContain(
      'NET.IP_FROM_STRING() encountered an unparseable IP-address: foo',
    );
    expect(await errorOf(`net.ip_from_string('::1 ')`)).toContain(
      'NET.IP_FROM_STRING() encountered an unparseable IP-address: ::1 ',
    );
  });
});

describe('NET.IP_TO_STRING on DuckDB', () => {
  it('NET.IP_TO_STRING writes 4 bytes as a dotted quad and 16 as IPAddress writes IPv6 text', async () => {
    // Docs: b"0123" -> 48.49.50.51, ::1, 3031:3233:3435:3637:3839:4041:4243:4445,
    // ::ffff:192.0.2.128; compliance tests: b"@\0BC" -> 64.0.66.67, a zero group left as 0.
    const bytes = [
      'b"0123"',
      'b"\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x01"',
      'b"0123456789@ABCDE"',
      'b"\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\x00\\xff\\xff\\xc0\\x00\\x02\\x80"',
      'b"@\\x00BC"',
      'b"defg\\x00ijklmnopqqr"',
      // ipaddress_oss.cc ToString: a link-local fe80:0:x:y:: or multicast ff02:0:x:y:: keeps
      // no x and y, which IPAddress takes for a scope id.
      "from_hex('fe800000000100020000000000000001')",
      "from_hex('ff020000000000050000000000010002')",
    ];
    expect(await each('net.ip_to_string(x)', bytes)).toEqual([
      '48.49.50.51',
      '::1',
      '3031:3233:3435:3637:3839:4041:4243:4445',
      '::ffff:192.0.2.128',
      '64.0.66.67',
      '6465:6667:69:6a6b:6c6d:6e6f:7071:7172',
      'fe80::1',
      'ff02::1:2',
    ]);
    expect(await row('select net.ip_to_string(null) as v')).toEqual({ v: null });
  });

  it('NET.IP_TO_STRING gives back IPAddress’s own texts: the first longest zero run as ::, embedded IPv4 after five zero groups', async () => {
    // ipaddress_oss_test.cc (ToAndFromString6): each text parses and is written back as it was.
    const texts = [
      'ffff:ffff:100::808:808',
      '::1',
      '::',
      '1:2:3:4:5:6:7:8',
      '2001:0:0:4::8',
      '2001:2:3:4:5:6:7:8',
      '0:0:3::ffff',
      '::4:0:0:0:ffff',
      '::5:0:0:ffff',
      '1::4:0:0:7:8',
      '2001:658:22a:cafe::',
      '::1.2.3.4',
      '::ffff:1.2.3.4',
      '::ffff:ffff:1:1',
      '::0.1.0.0',
      '1234:abcd::',
      '1234::abcd:0:0:5678',
      '1234:0:0:abcd::5678',
      '::192.168.90.1',
      '::ffff:192.168.90.1',
      '1234:5678:2:9abc:def0:3:1234:5678',
      '::ffff',
      '2001:0:3:4:5:6:7:8',
      '::abcd',
      '1234:5678:0:9abc:def0:0:1234:5678',
    ];
    expect(await each('net.ip_to_string(net.ip_from_string(x))', quoted(texts))).toEqual(texts);
    // Upper case and leading zeros are not kept; a single zero group is not shortened.
    expect(
      await each(
        'net.ip_to_string(net.ip_from_string(x))',
        quoted(['2001:0DB8:0000:0001::0001', '1:2:3:4:5:6:7::']),
      ),
    ).toEqual(['2001:db8:0:1::1', '1:2:3:4:5:6:7:0']);
  });

  it('NET.IP_TO_STRING refuses bytes that are not 4 or 16 long, NULL under SAFE.', async () => {
    // Compliance tests: b"foo" and b"foobar" are OUT_OF_RANGE; net.cc's words name the length.
    expect(await errorOf(`net.ip_to_string(b'foobar')`)).toContain(
      'NET.IP_TO_STRING() encountered an invalid IP address. Expected 4 (for IPv4) or 16 (for IPv6) bytes but got 6',
    );
    expect(await row(`select safe.net.ip_to_string(b'foo') as v, safe.net.ip_to_string(b'') as e`)).toEqual({
      v: null,
      e: null,
    });
  });
});

describe('NET.IP_NET_MASK and NET.IP_TRUNC on DuckDB', () => {
  it('NET.IP_NET_MASK sets the first prefix_length bits of 4 or 16 bytes, and refuses other lengths and prefixes', async () => {
    // Docs: (4, 0), (4, 20), (4, 32), (16, 0), (16, 1), (16, 128); compliance tests: (4, 28),
    // (4, 17), (4, 15), (4, 10), (16, 100).
    const pairs = [
      [4, 0],
      [4, 20],
      [4, 32],
      [16, 0],
      [16, 1],
      [16, 128],
      [4, 28],
      [4, 17],
      [4, 15],
      [4, 10],
      [16, 100],
    ];
    expect(
      await each(
        'to_hex(net.ip_net_mask(x.a, x.b))',
        pairs.map(([a, b]) => `struct(${a} as a, ${b} as b)`),
      ),
    ).toEqual([
      '00000000',
      'fffff000',
      'ffffffff',
      '00000000000000000000000000000000',
      '80000000000000000000000000000000',
      'ffffffffffffffffffffffffffffffff',
      'fffffff0',
      'ffff8000',
      'fffe0000',
      'ffc00000',
      'fffffffffffffffffffffffff0000000',
    ]);
    expect(await row('select net.ip_net_mask(null, 0) as a, net.ip_net_mask(4, null) as b')).toEqual({
      a: null,
      b: null,
    });
    // net.cc's words; the compliance tests' OUT_OF_RANGE cases.
    for (const length of [-4, 0, 3])
      expect(await errorOf(`net.ip_net_mask(${length}, 0)`)).toContain(
        `The first argument of NET.IP_NET_MASK() must be either 4 (for IPv4) or 16 (for IPv6); got ${length}`,
      );
    for (const [length, prefix] of [
      [4, -1],
      [4, 33],
      [16, -1],
      [16, 129],
    ])
      expect(await errorOf(`net.ip_net_mask(${length}, ${prefix})`)).toContain(
        `The second argument of NET.IP_NET_MASK() must be between 0 and the first argument * 8; got ${prefix}`,
      );
    expect(await row('select safe.net.ip_net_mask(3, 0) as a, safe.net.ip_net_mask(16, 129) as b')).toEqual({
      a: null,
      b: null,
    });
  });

  it('NET.IP_TRUNC keeps the first prefix_length bits of an address, and refuses other lengths and prefixes', async () => {
    // Docs: b"\xAA\xBB\xCC\xDD" at 0, 11, 12, 24, 32 and b"0123456789@ABCDE" at 80; compliance
    // tests: \x12\x34\x56\x78 at 28 and 11, and 16 bytes at 100 and 0.
    const cases = [
      [`b'\\xAA\\xBB\\xCC\\xDD'`, 0],
      [`b'\\xAA\\xBB\\xCC\\xDD'`, 11],
      [`b'\\xAA\\xBB\\xCC\\xDD'`, 12],
      [`b'\\xAA\\xBB\\xCC\\xDD'`, 24],
      [`b'\\xAA\\xBB\\xCC\\xDD'`, 32],
      [`b'0123456789@ABCDE'`, 80],
      [`b'\\x12\\x34\\x56\\x78'`, 28],
      [`b'\\x12\\x34\\x56\\x78'`, 11],
      [`b'defghijklmno\\x76\\x54\\x32\\x10'`, 100],
      [`b'defghijklmnopqqr'`, 0],
      [`b'defghijklmnopqqr'`, 128],
    ];
    expect(
      await each(
        'to_hex(net.ip_trunc(x.a, x.b))',
        cases.map(([a, b]) => `struct(${a} as a, ${b} as b)`),
      ),
    ).toEqual([
      '00000000',
      'aaa00000',
      'aab00000',
      'aabbcc00',
      'aabbccdd',
      '30313233343536373839000000000000',
      '12345670',
      '12200000',
      '6465666768696a6b6c6d6e6f70000000',
      '00000000000000000000000000000000',
      '6465666768696a6b6c6d6e6f70717172',
    ]);
    expect(
      await row(`select net.ip_trunc(null, 0) as a, net.ip_trunc(b'\\x12\\x34\\x56\\x78', null) as b`),
    ).toEqual({
      a: null,
      b: null,
    });
    for (const bytes of [`b''`, `b'\\x12\\x34\\x56'`])
      expect(await errorOf(`net.ip_trunc(${bytes}, 0)`)).toMatch(
        /The first argument of NET\.IP_TRUNC\(\) must have length 4 \(for IPv4\) or 16 \(for IPv6\); got [03]/,
      );
    for (const [bytes, prefix] of [
      [`b'\\x12\\x34\\x56\\x78'`, -1],
      [`b'\\x12\\x34\\x56\\x78'`, 33],
      [`b'defghijklmnopqqr'`, 129],
    ])
      expect(await errorOf(`net.ip_trunc(${bytes}, ${prefix})`)).toContain(
        `The second argument of NET.IP_TRUNC() must be between 0 and 8 * LENGTH(first argument); got ${prefix}`,
      );
    expect(
      await row(`select safe.net.ip_trunc(b'abc', 0) as a, safe.net.ip_trunc(b'abcd', 33) as b`),
    ).toEqual({ a: null, b: null });
  });
});

describe('NET.IPV4_FROM_INT64 and NET.IPV4_TO_INT64 on DuckDB', () => {
  it('NET.IPV4_FROM_INT64 takes 0 to 0xFFFFFFFF, and negative 32-bit integers as their two’s complement', async () => {
    // Docs: 0x0, 0xABCDEF, 0xFFFFFFFF, -0x1, -0x2; compliance tests: 1, 0x13579BDF, 0x7FFFFFFF,
    // 0x80000000, -0x80000000.
    const integers = [
      '0',
      '0xABCDEF',
      '0xFFFFFFFF',
      '-1',
      '-2',
      '1',
      '0x13579BDF',
      '0x7FFFFFFF',
      '0x80000000',
      '-0x80000000',
    ];
    expect(await each('to_hex(net.ipv4_from_int64(x))', integers)).toEqual([
      '00000000',
      '00abcdef',
      'ffffffff',
      'ffffffff',
      'fffffffe',
      '00000001',
      '13579bdf',
      '7fffffff',
      '80000000',
      '80000000',
    ]);
    expect(await row('select net.ipv4_from_int64(null) as v')).toEqual({ v: null });
    // net.cc's words, with the integer in decimal.
    expect(await errorOf('net.ipv4_from_int64(0x100000000)')).toContain(
      'NET.IPV4_FROM_INT64() encountered an invalid integer IP. Expected range: [-0x80000000, 0xFFFFFFFF]; got 4294967296',
    );
    expect(await errorOf('net.ipv4_from_int64(-0x80000001)')).toContain('got -2147483649');
    expect(await row('select safe.net.ipv4_from_int64(0x100000000) as v')).toEqual({ v: null });
  });

  it('NET.IPV4_TO_INT64 reads 4 bytes as an integer from 0 to 0xFFFFFFFF, and refuses other lengths', async () => {
    // Docs: \x00\x00\x00\x00 -> 0x0, \x00\xab\xcd\xef -> 0xABCDEF, \xff\xff\xff\xff -> 0xFFFFFFFF;
    // compliance tests: \x13\x57\x9B\xDF and \x80\x00\x00\x00.
    const bytes = [
      `b'\\x00\\x00\\x00\\x00'`,
      `b'\\x00\\xab\\xcd\\xef'`,
      `b'\\xff\\xff\\xff\\xff'`,
      `b'\\x13\\x57\\x9B\\xDF'`,
      `b'\\x80\\x00\\x00\\x00'`,
    ];
    expect(await each('net.ipv4_to_int64(x)', bytes)).toEqual([
      0, 0xabcdef, 0xffffffff, 0x13579bdf, 0x80000000,
    ]);
    expect(await row('select net.ipv4_to_int64(null) as v')).toEqual({ v: null });
    for (const [written, length] of [
      [`b''`, 0],
      [`b'\\x00\\x00\\x00'`, 3],
      [`b'\\x00\\x00\\x00\\x00\\x00'`, 5],
      ["net.ip_from_string('::')", 16],
    ])
      expect(await errorOf(`net.ipv4_to_int64(${written})`)).toContain(
        `NET.IPV4_TO_INT64() encountered a non-IPv4 address. Expected 4 bytes but got ${length}`,
      );
    expect(await row(`select safe.net.ipv4_to_int64(b'') as v`)).toEqual({ v: null });
  });
});
