import { describe, expect, it } from 'vitest';
import type { StructType } from '../../src/endpoints/field-type.js';
import { fieldAdditions } from '../../src/storage/schema-change.js';
import {
  countFields,
  inferFieldType,
  reconcileMetadata,
  widenType,
  withMissingFields,
} from '../../src/storage/schema-evolution.js';

const edge: StructType = {
  struct: {
    request: { struct: { url: 'VARCHAR', method: 'VARCHAR' } },
    response: { struct: { status_code: 'BIGINT', origin_time: 'BIGINT' } },
    latency: 'DOUBLE',
    timings: { list: { struct: { name: 'VARCHAR', ms: 'DOUBLE' } } },
  },
};

describe('inferFieldType', () => {
  it('maps JSON scalars to BIGINT, DOUBLE, VARCHAR and BOOLEAN', () => {
    expect(inferFieldType(42)).toBe('BIGINT');
    expect(inferFieldType(-7)).toBe('BIGINT');
    expect(inferFieldType(4.5)).toBe('DOUBLE');
    expect(inferFieldType(1e300)).toBe('DOUBLE');
    expect(inferFieldType('x')).toBe('VARCHAR');
    expect(inferFieldType(false)).toBe('BOOLEAN');
  });

  it('infers nothing from null, empty objects, empty arrays and objects of nulls', () => {
    expect(inferFieldType(null)).toBeUndefined();
    expect(inferFieldType({})).toBeUndefined();
    expect(inferFieldType([])).toBeUndefined();
    expect(inferFieldType({ a: null, b: [] })).toBeUndefined();
  });

  it('infers a struct from an object, skipping fields that hold only null', () => {
    expect(inferFieldType({ a: 1, b: { c: 'x', d: null } })).toEqual({
      struct: { a: 'BIGINT', b: { struct: { c: 'VARCHAR' } } },
    });
  });

  it('infers a list of the merged element type: integers with fractions make DOUBLE', () => {
    expect(inferFieldType([1, 2, 3])).toEqual({ list: 'BIGINT' });
    expect(inferFieldType([1, 2.5, null])).toEqual({ list: 'DOUBLE' });
  });

  it('infers a list of structs holding the union of the elements fields', () => {
    expect(inferFieldType([{ a: 1 }, { b: 'x' }, { a: 2, c: true }])).toEqual({
      list: { struct: { a: 'BIGINT', b: 'VARCHAR', c: 'BOOLEAN' } },
    });
  });

  it('keeps the first type when array elements cannot share one', () => {
    expect(inferFieldType(['x', 1])).toEqual({ list: 'VARCHAR' });
    expect(widenType('BIGINT', { struct: { a: 'VARCHAR' } })).toBe('BIGINT');
  });
});

describe('reconcileMetadata', () => {
  it('returns the same type and no extra when every value fits', () => {
    const value = { request: { url: '/a', method: 'GET' }, response: { status_code: 200 }, latency: 3 };
    const result = reconcileMetadata(value, edge);
    expect(result.type).toBe(edge);
    expect(result.extra).toEqual({});
    expect(result.value).toEqual(value);
  });

  it('adds new nested fields to the type and reports each at its shallowest missing level', () => {
    const result = reconcileMetadata(
      {
        request: { url: '/a', referer: 'https://x' },
        cache: { hit: true, age: 30 },
        timings: [{ name: 'db', rows: 2 }],
      },
      edge,
    );
    expect(result.extra).toEqual({});
    expect(fieldAdditions(edge, result.type)).toEqual([
      { path: ['request', 'referer'], type: 'VARCHAR' },
      { path: ['timings', 'element', 'rows'], type: 'BIGINT' },
      { path: ['cache'], type: { struct: { hit: 'BOOLEAN', age: 'BIGINT' } } },
    ]);
    expect(result.value).toEqual({
      request: { url: '/a', referer: 'https://x' },
      cache: { hit: true, age: 30 },
      timings: [{ name: 'db', rows: 2 }],
    });
  });

  it('moves a string sent into a BIGINT field to extra by path and stores NULL', () => {
    const result = reconcileMetadata({ response: { status_code: 'abc', origin_time: 5 } }, edge);
    expect(result.extra).toEqual({ 'metadata.response.status_code': 'abc' });
    expect(result.value).toEqual({ response: { status_code: null, origin_time: 5 } });
    expect(result.type).toBe(edge);
  });

  it('moves an object sent into a VARCHAR field and a fraction sent into a BIGINT field to extra', () => {
    const result = reconcileMetadata(
      { request: { url: { full: '/a' } }, response: { origin_time: 1.5 } },
      edge,
    );
    expect(result.extra).toEqual({
      'metadata.request.url': { full: '/a' },
      'metadata.response.origin_time': 1.5,
    });
  });

  it('accepts an integer into a DOUBLE field', () => {
    const result = reconcileMetadata({ latency: 3, timings: [{ ms: 2 }] }, edge);
    expect(result.extra).toEqual({});
    expect(result.value).toEqual({ latency: 3, timings: [{ ms: 2 }] });
  });

  it('moves a conflicting list element to extra by index and keeps the others in place', () => {
    const result = reconcileMetadata({ timings: [{ name: 'a' }, 'oops', { name: 'b', ms: 'slow' }] }, edge);
    expect(result.extra).toEqual({ 'metadata.timings[1]': 'oops', 'metadata.timings[2].ms': 'slow' });
    expect(result.value).toEqual({ timings: [{ name: 'a' }, null, { name: 'b', ms: null }] });
  });

  it('moves a list sent into a struct field, and a struct sent into a list field, to extra', () => {
    const result = reconcileMetadata({ request: ['x'], timings: { name: 'a' } }, edge);
    expect(result.extra).toEqual({ 'metadata.request': ['x'], 'metadata.timings': { name: 'a' } });
  });

  it('stores a key spelled in another case under the existing field, as DuckDB names are case-insensitive', () => {
    const result = reconcileMetadata({ Request: { URL: '/a' } }, edge);
    expect(result.type).toBe(edge);
    expect(result.value).toEqual({ request: { url: '/a' } });
  });

  it('moves the second spelling of one name to extra rather than add a duplicate field', () => {
    const result = reconcileMetadata({ region: 'eu', Region: 'us' }, edge);
    expect(fieldAdditions(edge, result.type)).toEqual([{ path: ['region'], type: 'VARCHAR' }]);
    expect(result.extra).toEqual({ 'metadata.Region': 'us' });
  });

  it('moves a value under an empty key or a key holding NUL to extra', () => {
    const result = reconcileMetadata({ '': 1, 'a\u0000b': 2 }, edge);
    expect(result.extra).toEqual({ 'metadata.': 1, 'metadata.a\u0000b': 2 });
    expect(result.type).toBe(edge);
  });

  it('adds no field for a new key that holds only null', () => {
    const result = reconcileMetadata({ later: null }, edge);
    expect(result.type).toBe(edge);
    expect(result.value).toEqual({});
  });

  it('keeps names such as __proto__ and constructor as ordinary fields', () => {
    const metadata = JSON.parse('{"__proto__": {"x": 1}, "constructor": "c"}') as Record<string, unknown>;
    const result = reconcileMetadata(metadata, edge);
    expect(fieldAdditions(edge, result.type)).toEqual([
      { path: ['__proto__'], type: { struct: { x: 'BIGINT' } } },
      { path: ['constructor'], type: 'VARCHAR' },
    ]);
    expect(Object.getPrototypeOf(result.value)).toBe(Object.prototype);
    expect(JSON.stringify(result.value)).toBe('{"__proto__":{"x":1},"constructor":"c"}');
  });

  it('returns NULL metadata for a missing metadata object', () => {
    expect(reconcileMetadata(null, edge)).toEqual({ value: null, type: edge, extra: {} });
  });
});

describe('reconcileMetadata within the schema limits', () => {
  // edge holds 10 named fields: request (+2), response (+2), latency, timings (+2): room for 3.
  const limits = { maxFields: 13, maxDepth: 3 };

  it('types new fields until the field cap, and keeps the rest whole in extra by path', () => {
    const metadata = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`k${i}`, i]));
    const result = reconcileMetadata(metadata, edge, limits);
    expect(fieldAdditions(edge, result.type).map((a) => a.path.join('.'))).toEqual(['k0', 'k1', 'k2']);
    expect(result.extra).toEqual(
      Object.fromEntries(Array.from({ length: 7 }, (_, i) => [`metadata.k${i + 3}`, i + 3])),
    );
    expect(result.value).toEqual({ k0: 0, k1: 1, k2: 2 });
  });

  it('adds no field once a type is at the cap, however many keys arrive', () => {
    const full = reconcileMetadata({ a: 1, b: 2, c: 3 }, edge, limits).type;
    const metadata = Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`x${i}`, `v${i}`]));
    const result = reconcileMetadata(metadata, full, limits);
    expect(result.type).toBe(full);
    expect(Object.keys(result.extra)).toHaveLength(10_000);
    expect(result.extra['metadata.x9999']).toBe('v9999');
  });

  it('types as many fields of a new object as fit and keeps its other fields in extra', () => {
    const result = reconcileMetadata({ geo: { city: 'Oslo', zip: '0150', lat: 59.9 } }, edge, limits);
    // geo itself and two of its fields make the 13.
    expect(result.type.struct.geo).toEqual({ struct: { city: 'VARCHAR', zip: 'VARCHAR' } });
    expect(result.extra).toEqual({ 'metadata.geo.lat': 59.9 });
  });

  it('keeps a new list whose element type does not fit whole in extra', () => {
    const result = reconcileMetadata({ spans: [{ a: 1, b: 2, c: 3, d: 4 }] }, edge, limits);
    expect(result.type).toBe(edge);
    expect(result.extra).toEqual({ 'metadata.spans': [{ a: 1, b: 2, c: 3, d: 4 }] });
  });

  it('types fields down to the depth limit and keeps deeper ones in extra', () => {
    const result = reconcileMetadata({ l1: { l2: { l3: 'kept', deeper: { l4: 'extra' } } } }, edge, {
      maxFields: 100,
      maxDepth: 3,
    });
    expect(result.type.struct.l1).toEqual({ struct: { l2: { struct: { l3: 'VARCHAR' } } } });
    expect(result.extra).toEqual({ 'metadata.l1.l2.deeper': { l4: 'extra' } });
  });

  it('counts every named field at every level, inside lists too', () => {
    expect(countFields(edge)).toBe(10);
  });
});

describe('withMissingFields', () => {
  it('adds the seed fields a stored type lacks and keeps the stored type of the others', () => {
    const stored: StructType = {
      struct: { request: { struct: { url: 'VARCHAR', extra: 'BIGINT' } }, latency: 'BIGINT' },
    };
    const merged = withMissingFields(stored, edge);
    expect(merged.struct.latency).toBe('BIGINT');
    expect(fieldAdditions(stored, merged)).toEqual([
      { path: ['request', 'method'], type: 'VARCHAR' },
      { path: ['response'], type: edge.struct.response },
      { path: ['timings'], type: edge.struct.timings },
    ]);
    expect(withMissingFields(edge, edge)).toBe(edge);
  });
});
