import { serverAudits } from 'graphql-http';
import { describe, expect, it } from 'vitest';
import { fixtureNow } from '../fixtures/spec-fixture.js';
import { serveDuringFile, testApiKey } from '../helpers/querygate-server.js';

/**
 * graphql-http's `serverAudits`, the GraphQL-over-HTTP conformance suite, against the running
 * server. Every audit of a MUST must pass; SHOULD and MAY audits that warn are listed by name so
 * a new warning shows up here.
 */

const server = serveDuringFile({ now: fixtureNow });

/** The audits' fetch, with the key every GraphQL request needs. */
const keyedFetch: typeof fetch = (input, init) => {
  const headers = new Headers(init?.headers);
  headers.set('x-api-key', testApiKey);
  return fetch(input, { ...init, headers });
};

describe('GraphQL over HTTP (graphql-http serverAudits)', () => {
  const audits = serverAudits({ url: () => `${server().url}/graphql`, fetchFn: keyedFetch });

  it.each(
    audits.filter((audit) => audit.name.startsWith('MUST')).map((audit) => [audit.name, audit] as const),
  )('%s', async (_name, audit) => {
    const result = await audit.fn();
    expect(result.status === 'ok' ? 'ok' : `${result.status}: ${result.reason}`).toBe('ok');
  });

  it.each(
    audits.filter((audit) => !audit.name.startsWith('MUST')).map((audit) => [audit.name, audit] as const),
  )(
    '%s',
    async (_name, audit) => {
      const result = await audit.fn();
      expect(result.status === 'ok' ? 'ok' : `${result.status}: ${result.reason}`).toBe('ok');
    },
    5_000,
  );
});
