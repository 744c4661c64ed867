import { Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import {
  createApiKeyCheck,
  createConnectionKeyCheck,
  createKeyScopeCheck,
  scopeAllows,
} from '../../src/http/api-keys.js';

const short = 'short-key-0123456789';
const long = 'a-much-longer-key-0123456789abcdefghijklmnop';
const accented = 'clé-à-accents-0123456789';
const isAuthorised = createApiKeyCheck([short, long, accented]);

describe('API key check', () => {
  it.each([short, long, accented])('accepts the configured key %s', (key) => {
    expect(isAuthorised(key)).toBe(true);
  });

  it.each([
    ['no key', undefined],
    ['an empty key', ''],
    ['a prefix', short.slice(0, -1)],
    ['a longer key starting with a configured one', `${short}x`],
    ['the longest key with one more character', `${long}x`],
    ['a key padded with NUL', `${short}\u0000`],
    ['a key differing in the last character', `${long.slice(0, -1)}q`],
    ['a key differing only in case', short.toUpperCase()],
    ['an accented key without its accents', 'cle-a-accents-0123456789'],
  ])('refuses %s', (_what, presented) => {
    expect(isAuthorised(presented)).toBe(false);
  });

  it('refuses everything when no key is configured', () => {
    expect(createApiKeyCheck([])('anything-at-all-0123456789')).toBe(false);
  });
});

describe('key scopes', () => {
  const full = 'studio-private-token-0123456789';
  const ingestOnly = 'vector-public-token-0123456789';
  const scopeOf = createKeyScopeCheck({ all: [full], ingest: [ingestOnly] });

  it('gives a key of the full list the scope all, and one of the ingest list the scope ingest', () => {
    expect(scopeOf(full)).toBe('all');
    expect(scopeOf(ingestOnly)).toBe('ingest');
  });

  it.each([
    ['no key', undefined],
    ['an empty key', ''],
    ['a prefix of the ingest key', ingestOnly.slice(0, -1)],
    ['the ingest key with one more character', `${ingestOnly}x`],
  ])('gives %s no scope', (_what, presented) => {
    expect(scopeOf(presented)).toBeUndefined();
  });

  it('lets a full key call query and ingest routes, and an ingest key only ingest routes', () => {
    expect(scopeAllows('all', 'query')).toBe(true);
    expect(scopeAllows('all', 'ingest')).toBe(true);
    expect(scopeAllows('ingest', 'ingest')).toBe(true);
    expect(scopeAllows('ingest', 'query')).toBe(false);
  });
});

describe('key check per connection', () => {
  const ingestOnly = 'ingest-only-key-0123456789';
  /** The scope check, counting the keys it is asked to judge in full. */
  function counted() {
    const scopeOf = createKeyScopeCheck({ all: [short, long], ingest: [ingestOnly] });
    const asked: (string | undefined)[] = [];
    const check = createConnectionKeyCheck((key) => {
      asked.push(key);
      return scopeOf(key);
    });
    return { check, asked };
  }

  it("judges a connection's accepted key once, and every other key in full, refused ones every time", () => {
    const { check, asked } = counted();
    const one = new Socket();
    const other = new Socket();
    const answers = [
      check(one, short),
      check(one, short),
      check(other, short),
      check(one, `${short}x`),
      check(one, short.slice(0, -1)),
      check(one, `${short}x`),
      check(one, undefined),
      check(one, ''),
      check(one, ingestOnly),
      check(one, ingestOnly),
      check(one, long),
    ];
    expect(answers).toEqual([
      'all',
      'all',
      'all',
      undefined,
      undefined,
      undefined,
      undefined,
      undefined,
      'ingest',
      'ingest',
      'all',
    ]);
    // The second `short` on `one` and the second ingest key were remembered; all else judged.
    expect(asked).toEqual([
      short,
      short,
      `${short}x`,
      short.slice(0, -1),
      `${short}x`,
      undefined,
      '',
      ingestOnly,
      long,
    ]);
  });

  it('forgets an accepted key once its connection presents a refused one', () => {
    const { check, asked } = counted();
    const socket = new Socket();
    expect([check(socket, short), check(socket, 'wrong-key-0123456789'), check(socket, short)]).toEqual([
      'all',
      undefined,
      'all',
    ]);
    expect(asked).toEqual([short, 'wrong-key-0123456789', short]);
  });
});
