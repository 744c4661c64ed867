import { describe, expect, it } from 'vitest';
import { isQuerygateError } from '../../src/errors.js';
import { parseRequestTarget } from '../../src/rest/request-target.js';

const origin = 'http://querygate.invalid';

const targets = [
  '/',
  '/health',
  '/api/endpoints',
  '/api/endpoints/usage.api-counts?project=project-00&interval=daily',
  '/api/endpoints/query/D63CBDFC-67C3-462F-9623-D135CBC48244?interval=daily&project=p',
  '/api/endpoints/usage.api-counts?project=a+b&project=%28%3F%3Cname%3Ex%29&x=%zz&y',
  '/api/endpoints/logs.all?project=it\'s&q="<quoted>"&empty=&=v',
  '/api/endpoints/a%2Fb?',
  '/api/endpoints/usage.api-counts?project=x#fragment',
  '/api/endpoints/../health',
  '/api/endpoints/%2e%2E/health?x=1',
  '/api/./endpoints',
  '/api/endpoints/.hidden',
  '/api/endpoints/usage.api-counts?a=/../b',
  '//',
  '///',
  '//x',
  '//x/../health?q=1',
  '/a\\b',
  '/space%20in path',
  '/ünïcode?q=é',
  '/graphql?query=%7B%20__typename%20%7D',
];

describe('request targets', () => {
  // An origin-form target is a path (RFC 9112, 3.2.1), so the reference reads it after the origin.
  it.each(targets)('%s reads as WHATWG URL reads it after the origin', (target) => {
    const expected = new URL(`${origin}${target}`);
    const parsed = parseRequestTarget(target);
    expect(parsed.pathname).toBe(expected.pathname);
    expect([...parsed.searchParams]).toEqual([...expected.searchParams]);
  });

  it.each([
    ['//', '//'],
    ['///', '///'],
    ['//x', '//x'],
    ['//querygate.example/health', '//querygate.example/health'],
    ['//x/../health', '//health'],
  ])('reads %s as the path %s, not as a host followed by a path', (target, pathname) => {
    expect(parseRequestTarget(target).pathname).toBe(pathname);
  });

  it.each([
    ['*', '/*'],
    ['http://querygate.example/health?q=1', '/health'],
  ])('reads the path of %s, a target that is not in origin form, as %s', (target, pathname) => {
    expect(parseRequestTarget(target).pathname).toBe(pathname);
  });

  it.each(['http://[', 'http://[::1/health', 'http://a b/'])(
    'throws a 400 BAD_REQUEST for %s, which no URL reader can read',
    (target) => {
      let error: unknown;
      try {
        parseRequestTarget(target);
      } catch (thrown) {
        error = thrown;
      }
      expect(isQuerygateError(error) && [error.code, error.status]).toEqual(['BAD_REQUEST', 400]);
    },
  );
});
