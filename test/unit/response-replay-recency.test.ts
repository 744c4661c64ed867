import { describe, expect, it } from 'vitest';
import type { Endpoint } from '../../src/endpoints/registry.js';
import type { QueryResult } from '../../src/engines/query-engine.js';
import { createResponseReplay } from '../../src/graphql/response-replay.js';
import type { Resolver } from '../../src/resolve/resolver.js';

// The kept answers are bounded by bytes and dropped least recently used first: an answer sent
// again is the most recent, whether or not it was the last one sent, and one kept since is newer.
const endpoint = {
  id: 'e1',
  name: 'usage.api-counts',
  parameters: [],
  cacheSeconds: 60,
} as unknown as Endpoint;
const result: QueryResult = { rows: [], columns: [] } as unknown as QueryResult;
// Every kept call is still the fresh cached result: only recency decides what stays.
const resolver = { reuse: () => true } as unknown as Resolver;
const head = 'POST /graphql\napplication/json\n';
const body = 'x'.repeat(1000);
const keyOf = (name: string) => ({ head, body: Buffer.from(`{"query":"{ ${name} }"}`) });

/** The bytes the replay charges for one of these answers (response-replay.ts `keep`). */
const size = head.length + keyOf('a').body.length + 2 * body.length + 256 * 2;

describe('replayed answers kept within their bytes', () => {
  it('drops the least recently answered first, counting an answer repeated after another was kept', () => {
    const replay = createResponseReplay({ resolver, maxBytes: 2 * size + size / 2 });
    const keep = (name: string) =>
      replay.keep(keyOf(name), { status: 200, headers: {}, body }, [{ endpoint, params: {}, result }]);
    const answered = (name: string) => replay.find(head, keyOf(name).body) !== undefined;

    keep('a');
    expect(answered('a')).toBe(true);
    keep('b');
    // a again, after b was kept: a is the most recent now, b the least.
    expect(answered('a')).toBe(true);
    expect(answered('a')).toBe(true);
    keep('c');
    expect([answered('a'), answered('b'), answered('c')]).toEqual([true, false, true]);
    // c was answered last; a repeated makes a the most recent, so d's room is c's.
    expect(answered('a')).toBe(true);
    keep('d');
    expect([answered('a'), answered('c'), answered('d')]).toEqual([true, false, true]);
  });
});
