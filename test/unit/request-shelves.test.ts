import { describe, expect, it } from 'vitest';
import { createRequestShelves, type ShelvedRequest } from '../../src/graphql/request-shelves.js';

const item = (requestHead: string, body: string, name = body): ShelvedRequest & { name: string } => ({
  requestHead,
  requestBody: Buffer.from(body),
  name,
});

describe('request shelves', () => {
  it('find what stands for the same head and body bytes among many bodies of the same length', () => {
    const shelves = createRequestShelves<ReturnType<typeof item>>();
    // 200 bodies of one length, put up in an order unrelated to their bytes.
    const bodies = Array.from(
      { length: 200 },
      (_, i) => `{"variables":{"n":${String((i * 37) % 200).padStart(3, '0')}}}`,
    );
    for (const body of bodies) shelves.add(item('POST /graphql', body));
    for (const body of bodies) expect(shelves.find('POST /graphql', Buffer.from(body))?.name).toBe(body);
    expect(shelves.find('POST /graphql', Buffer.from('{"variables":{"n":999}}'))).toBeUndefined();
    expect(shelves.find('GET /graphql', Buffer.from(bodies[0] as string))).toBeUndefined();
    expect(shelves.shelf('POST /graphql', Buffer.byteLength(bodies[0] as string))?.length).toBe(200);
    expect(shelves.shelf('POST /graphql', 3)).toBeUndefined();
  });

  it('replace what stood for the same request, and take down only the item given', () => {
    const shelves = createRequestShelves<ReturnType<typeof item>>();
    const first = item('h', 'abc', 'first');
    const second = item('h', 'abc', 'second');
    expect(shelves.add(first)).toBeUndefined();
    expect(shelves.add(second)).toBe(first);
    shelves.remove(first);
    expect(shelves.find('h', Buffer.from('abc'))?.name).toBe('second');
    shelves.add(item('h', 'abd'));
    shelves.remove(second);
    expect(shelves.find('h', Buffer.from('abc'))).toBeUndefined();
    expect(shelves.find('h', Buffer.from('abd'))?.name).toBe('abd');
  });

  it('keep no empty shelf once the last item of a head and length is taken down', () => {
    const shelves = createRequestShelves<ReturnType<typeof item>>();
    const only = item('h', 'xyz');
    shelves.add(only);
    shelves.remove(only);
    expect(shelves.shelf('h', 3)).toBeUndefined();
    expect(shelves.find('h', Buffer.from('xyz'))).toBeUndefined();
  });
});
