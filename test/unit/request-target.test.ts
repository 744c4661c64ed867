import { describe, expect, it } from 'vitest';
import { parseRequestTarget } from '../../src/rest/request-target.js';

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
  '//querygate.example/health',
  '/a\\b',
  '/space%20in path',
  '/ünïcode?q=é',
  '/graphql?query=%7B%20__typename%20%7D',
  '*',
];

describe('request targets', () => {
  it.each(targets)('%s reads as WHATWG URL reads it', (target) => {
    const expected = new URL(target, 'http://querygate.invalid');
    const parsed = parseRequestTarget(target);
    expect(parsed.pathname).toBe(expected.pathname);
    expect([...parsed.searchParams]).toEqual([...expected.searchParams]);
  });
});
