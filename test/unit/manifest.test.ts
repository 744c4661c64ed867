import { describe, expect, it } from 'vitest';
import { parseManifest } from '../../src/endpoints/manifest.js';

/** A manifest of one valid endpoint, with `maximumBytesBilled` when given. */
function manifestWithCap(maximumBytesBilled?: string) {
  return {
    endpoints: [
      {
        name: 'test.capped',
        id: '0d4c1a52-5d2b-4c3e-9b56-000000000010',
        description: 'An endpoint with a bytes cap.',
        maxRows: 10,
        cacheSeconds: 0,
        warmSeconds: null,
        sandboxed: false,
        ...(maximumBytesBilled === undefined ? {} : { maximumBytesBilled }),
        parameters: [{ name: 'project', required: true, description: 'Project.' }],
      },
    ],
  };
}

describe("the manifest's per-endpoint maximumBytesBilled", () => {
  it.each(['1', '10000000000', '9223372036854775807'])('accepts %s bytes', (cap) => {
    expect(parseManifest(manifestWithCap(cap), 'manifest.json')[0]?.maximumBytesBilled).toBe(cap);
  });

  it('is optional', () => {
    expect(parseManifest(manifestWithCap(), 'manifest.json')[0]).not.toHaveProperty('maximumBytesBilled');
  });

  it.each([
    ['0', 'a cap no query could meet'],
    ['9223372036854775808', 'one more than INT64 holds'],
    ['99999999999999999999', 'twenty digits'],
    ['010', 'a leading zero'],
    ['-5', 'a negative number'],
    ['1e9', 'E notation'],
  ])('refuses %s (%s), naming the entry and the allowed range', (cap) => {
    expect(() => parseManifest(manifestWithCap(cap), 'queries/manifest.json')).toThrow(
      'queries/manifest.json is invalid:\n' +
        '✖ must be a whole number of bytes from 1 to 9223372036854775807 (INT64), e.g. 10000000000 for 10 GB\n' +
        '  → at endpoints[0].maximumBytesBilled',
    );
  });
});
