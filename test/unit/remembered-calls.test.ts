import { describe, expect, it } from 'vitest';
import { valuesKey } from '../../src/graphql/remembered-calls.js';

describe('the key of a set of variable values', () => {
  const declared = ['a', 'b'];

  it('differs for every two sets graphql-js could coerce differently', () => {
    const sets: Array<Record<string, unknown>> = [
      {},
      { a: null },
      { a: '' },
      { a: '1' },
      { a: 1 },
      { a: 0 },
      { a: -0 },
      { a: 1.5 },
      { a: true },
      { a: 'true' },
      { a: false },
      // A separator inside a value cannot shift it into the next one.
      { a: 's1:x', b: 'y' },
      { a: 's1:xs1:y' },
      { a: 'x', b: 's1:y' },
      { b: 1 },
      { a: 'n1;', b: null },
    ];
    const keys = sets.map((set) => valuesKey(declared, set));
    expect(keys.every((key) => typeof key === 'string')).toBe(true);
    expect(new Set(keys).size).toBe(sets.length);
  });

  it('ignores undeclared variables and inherited properties, as graphql-js does', () => {
    expect(valuesKey(declared, { a: 'x', request: 1 })).toBe(valuesKey(declared, { a: 'x', request: 2 }));
    expect(valuesKey(['constructor'], {})).toBe(valuesKey(['constructor'], undefined));
    expect(valuesKey(['constructor'], null)).toBe(valuesKey(['constructor'], {}));
  });

  it('is undefined for a list or an object value, which is never remembered', () => {
    expect(valuesKey(declared, { a: ['x'] })).toBeUndefined();
    expect(valuesKey(declared, { b: { x: 1 } })).toBeUndefined();
  });
});
