import { describe, expect, it } from 'vitest';
import type { ParameterContract } from '../../src/endpoints/contract.js';
import { canonicalKey } from '../../src/resolve/canonical-key.js';

const contract = (...names: string[]): ParameterContract[] =>
  names.map((name) => ({
    name,
    required: false,
    description: name,
    format: 'text',
    otherValues: 'reject',
    type: 'text',
    graphql: {},
  }));

const endpoint = {
  id: 'D5018206-DAEE-4C4B-A7A7-F4A9757B65B4',
  parameters: contract('project', 'interval', 'function_id'),
};

describe('canonicalKey', () => {
  it('is the same whatever order the parameters were given in', () => {
    expect(canonicalKey(endpoint, { interval: '1hr', project: 'p' })).toBe(
      canonicalKey(endpoint, { project: 'p', interval: '1hr' }),
    );
  });

  it('drops unset optional parameters, whether null, empty or absent', () => {
    const absent = canonicalKey(endpoint, { project: 'p', interval: '1hr' });
    expect(canonicalKey(endpoint, { project: 'p', interval: '1hr', function_id: null })).toBe(absent);
    expect(canonicalKey(endpoint, { project: 'p', interval: '1hr', function_id: '' })).toBe(absent);
  });

  it('ignores names outside the contract', () => {
    expect(canonicalKey(endpoint, { project: 'p', interval: '1hr', utm_source: 'mail' })).toBe(
      canonicalKey(endpoint, { project: 'p', interval: '1hr' }),
    );
  });

  it('tells apart different values, and a set optional parameter from an unset one', () => {
    const keys = new Set([
      canonicalKey(endpoint, { project: 'p', interval: '1hr' }),
      canonicalKey(endpoint, { project: 'p', interval: '1day' }),
      canonicalKey(endpoint, { project: 'q', interval: '1hr' }),
      canonicalKey(endpoint, { project: 'p', interval: '1hr', function_id: 'f' }),
    ]);
    expect(keys.size).toBe(4);
  });

  it('is the UUID and the form encoding of the set parameters sorted by name', () => {
    expect(canonicalKey(endpoint, { project: 'a b&c=ü', interval: '1hr', function_id: 'f-1.x_*' })).toBe(
      'd5018206-daee-4c4b-a7a7-f4a9757b65b4?function_id=f-1.x_*&interval=1hr&project=a+b%26c%3D%C3%BC',
    );
  });

  it('cannot be confused by separators inside values', () => {
    expect(canonicalKey(endpoint, { project: 'a&interval=b', interval: 'c' })).not.toBe(
      canonicalKey(endpoint, { project: 'a', interval: 'b&interval=c' }),
    );
  });

  it('starts with the endpoint UUID in lower case, so a UUID in any case reaches one entry', () => {
    const key = canonicalKey(endpoint, { project: 'p', interval: '1hr' });
    expect(key.startsWith('d5018206-daee-4c4b-a7a7-f4a9757b65b4')).toBe(true);
    expect(
      canonicalKey({ ...endpoint, id: endpoint.id.toLowerCase() }, { project: 'p', interval: '1hr' }),
    ).toBe(key);
  });

  it('differs between endpoints with the same parameters', () => {
    const other = { ...endpoint, id: 'd63cbdfc-67c3-462f-9623-d135cbc48244' };
    expect(canonicalKey(other, { project: 'p', interval: '1hr' })).not.toBe(
      canonicalKey(endpoint, { project: 'p', interval: '1hr' }),
    );
  });
});
