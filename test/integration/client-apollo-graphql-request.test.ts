import { createHash } from 'node:crypto';
import {
  ApolloClient,
  ApolloError,
  type ApolloLink,
  gql,
  HttpLink,
  InMemoryCache,
} from '@apollo/client/core/index.js';
import { BatchHttpLink } from '@apollo/client/link/batch-http/index.js';
import { createPersistedQueryLink } from '@apollo/client/link/persisted-queries/index.js';
import { batchRequests, ClientError, GraphQLClient } from 'graphql-request';
import { describe, expect, it } from 'vitest';
import { fixtureEvents, fixtureNow, projects } from '../fixtures/spec-fixture.js';
import { expectNoServerErrors, serveDuringFile, testApiKey } from '../helpers/querygate-server.js';
import { type ApiCountsRow, expectedApiCounts, isoToMicros, re2AsJs } from '../helpers/spec-expectations.js';

/**
 * Real GraphQL clients against the running server, each as an application would set it up:
 * Apollo Client 3 (`@apollo/client`) with `HttpLink`, `BatchHttpLink` and the persisted-queries
 * link (APQ), and `graphql-request` (`GraphQLClient.request`, `batchRequests`). What they send is
 * their own code's, not ours: `@apollo/client/link/http`, `link/batch-http`,
 * `link/persisted-queries` and `graphql-request`'s `GraphQLClient`.
 */

const sentBodies: string[] = [];
const server = serveDuringFile({ now: fixtureNow, events: fixtureEvents });

/** fetch that remembers what each client sent (to tell an APQ hash-only request from a full one). */
const recordingFetch: typeof fetch = async (input, init) => {
  sentBodies.push(typeof init?.body === 'string' ? init.body : `${init?.method ?? 'GET'} ${String(input)}`);
  return fetch(input, init);
};

const apiCounts = gql`
  query ApiCounts($project: String!, $interval: UsageInterval!) {
    usage {
      apiCounts(project: $project, interval: $interval) {
        timestamp
        totalRestRequests
        totalStorageRequests
        totalAuthRequests
        totalRealtimeRequests
      }
    }
  }
`;

interface Bucket {
  timestamp: string;
  totalRestRequests: number;
  totalStorageRequests: number;
  totalAuthRequests: number;
  totalRealtimeRequests: number;
}

const asRows = (buckets: readonly Bucket[]) =>
  buckets.map((bucket) => ({
    timestamp: isoToMicros(bucket.timestamp),
    total_rest_requests: bucket.totalRestRequests,
    total_storage_requests: bucket.totalStorageRequests,
    total_auth_requests: bucket.totalAuthRequests,
    total_realtime_requests: bucket.totalRealtimeRequests,
  }));

const expectedFor = (project: string) =>
  expectedApiCounts(fixtureEvents, { interval: 'daily', urlMatches: re2AsJs(project) }, fixtureNow).map(
    (row: ApiCountsRow) => ({ ...row, timestamp: isoToMicros(row.timestamp) }),
  );

function apollo(link: ApolloLink) {
  return new ApolloClient({
    link,
    cache: new InMemoryCache(),
    defaultOptions: { query: { fetchPolicy: 'no-cache' } },
  });
}

const uri = () => `${server().url}/graphql`;
const headers = { 'x-api-key': testApiKey };
const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

describe('Apollo Client 3', () => {
  it('HttpLink: reads usage.apiCounts with the buckets the spec gives', async () => {
    const client = apollo(new HttpLink({ uri: uri(), headers, fetch: recordingFetch }));
    const result = await client.query<{ usage: { apiCounts: Bucket[] } }>({
      query: apiCounts,
      variables: { project: projects.alpha, interval: 'DAILY' },
    });
    expect(result.data.usage.apiCounts.length).toBeGreaterThan(0);
    expect(asRows(result.data.usage.apiCounts)).toEqual(expectedFor(projects.alpha));
  });

  it('HttpLink: gets graphQLErrors, not a network error, for a field error beside a field that resolved', async () => {
    const client = apollo(new HttpLink({ uri: uri(), headers, fetch: recordingFetch }));
    const query = gql`
      query Mixed {
        good: usage { apiCounts(project: "alpha-ref", interval: DAILY) { timestamp } }
        bad: usage { apiCounts(project: "a(b", interval: DAILY) { timestamp } }
      }
    `;
    const error = await client.query({ query }).then(
      () => undefined,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(ApolloError);
    const apolloError = error as ApolloError;
    expect(apolloError.networkError).toBeNull();
    expect(apolloError.graphQLErrors).toEqual([
      expect.objectContaining({
        path: ['bad', 'apiCounts'],
        extensions: expect.objectContaining({ code: 'BAD_PARAMETER' }),
      }),
    ]);
    // With errorPolicy 'all' the errors arrive as data. `apiCounts` and `usage` are non-null in the
    // schema, so the error nulls the whole `data` (GraphQL's null propagation), sibling included.
    const partial = await client.query({ query, errorPolicy: 'all' });
    expect(partial.errors?.[0]?.extensions?.code).toBe('BAD_PARAMETER');
  });

  it('BatchHttpLink: sends two operations in one request and gets each answer', async () => {
    const before = sentBodies.length;
    const client = apollo(
      new BatchHttpLink({ uri: uri(), headers, fetch: recordingFetch, batchInterval: 20 }),
    );
    const [alpha, beta] = await Promise.all(
      [projects.alpha, projects.beta].map((project) =>
        client.query<{ usage: { apiCounts: Bucket[] } }>({
          query: apiCounts,
          variables: { project, interval: 'DAILY' },
        }),
      ),
    );
    expect(sentBodies.length - before).toBe(1);
    expect(JSON.parse(sentBodies[before] as string)).toHaveLength(2);
    expect(asRows(alpha?.data.usage.apiCounts ?? [])).toEqual(expectedFor(projects.alpha));
    expect(asRows(beta?.data.usage.apiCounts ?? [])).toEqual(expectedFor(projects.beta));
  });

  it('persisted-queries link: sends the hash alone, then the full query once it is unknown, then the hash alone again', async () => {
    const link = () =>
      createPersistedQueryLink({ sha256 }).concat(
        new HttpLink({ uri: uri(), headers, fetch: recordingFetch }),
      );
    const first = sentBodies.length;
    const result = await apollo(link()).query<{ usage: { apiCounts: Bucket[] } }>({
      query: apiCounts,
      variables: { project: projects.gamma, interval: 'DAILY' },
    });
    expect(asRows(result.data.usage.apiCounts)).toEqual(expectedFor(projects.gamma));
    const firstRound = sentBodies.slice(first).map((body) => JSON.parse(body) as { query?: string });
    expect(firstRound.map((body) => body.query === undefined)).toEqual([true, false]);

    const second = sentBodies.length;
    const again = await apollo(link()).query<{ usage: { apiCounts: Bucket[] } }>({
      query: apiCounts,
      variables: { project: projects.gamma, interval: 'DAILY' },
    });
    expect(again.data).toEqual(result.data);
    const secondRound = sentBodies.slice(second).map((body) => JSON.parse(body) as { query?: string });
    expect(secondRound.map((body) => body.query === undefined)).toEqual([true]);
  });

  it('persisted-queries link over GET: the hash-only GET answers right, the first time and when answered again', async () => {
    const link = () =>
      createPersistedQueryLink({ sha256, useGETForHashedQueries: true }).concat(
        new HttpLink({ uri: uri(), headers, fetch: recordingFetch }),
      );
    const variables = { project: projects.beta, interval: 'DAILY' };
    for (let round = 0; round < 3; round++) {
      const start = sentBodies.length;
      const result = await apollo(link()).query<{ usage: { apiCounts: Bucket[] } }>({
        query: apiCounts,
        variables,
      });
      expect(asRows(result.data.usage.apiCounts)).toEqual(expectedFor(projects.beta));
      // After the first round the server knows the hash: one GET, no query text.
      if (round > 0)
        expect(sentBodies.slice(start)).toEqual([expect.stringMatching(/^GET .*persistedQuery/)]);
    }
  });
});

describe('graphql-request', () => {
  const documentText = apiCounts.loc?.source.body ?? '';

  it('request: reads usage.apiCounts', async () => {
    const client = new GraphQLClient(uri(), { headers });
    const data = await client.request<{ usage: { apiCounts: Bucket[] } }>(documentText, {
      project: projects.beta,
      interval: 'DAILY',
    });
    expect(asRows(data.usage.apiCounts)).toEqual(expectedFor(projects.beta));
  });

  it('request: gets the field error with its code as a ClientError carrying the response', async () => {
    const client = new GraphQLClient(uri(), { headers });
    const error = await client
      .request('{ usage { apiCounts(project: "a(b", interval: DAILY) { timestamp } } }')
      .then(
        () => undefined,
        (caught: unknown) => caught,
      );
    expect(error).toBeInstanceOf(ClientError);
    expect((error as ClientError).response.status).toBe(200);
    expect((error as ClientError).response.errors?.[0]?.extensions?.code).toBe('BAD_PARAMETER');
  });

  it('batchRequests: answers each operation of a batch', async () => {
    const results = await batchRequests<
      [{ data: { usage: { apiCounts: Bucket[] } } }, { data: { usage: { apiCounts: Bucket[] } } }]
    >(
      uri(),
      [
        { document: documentText, variables: { project: projects.alpha, interval: 'DAILY' } },
        { document: documentText, variables: { project: projects.gamma, interval: 'DAILY' } },
      ],
      headers,
    );
    expect(asRows(results[0].data.usage.apiCounts)).toEqual(expectedFor(projects.alpha));
    expect(asRows(results[1].data.usage.apiCounts)).toEqual(expectedFor(projects.gamma));
  });

  it('refuses a batch longer than QUERYGATE_GRAPHQL_MAX_BATCH (10) with a request error', async () => {
    const response = await fetch(uri(), {
      method: 'POST',
      headers: { ...headers, 'content-type': 'application/json' },
      body: JSON.stringify(Array.from({ length: 11 }, () => ({ query: '{ __typename }' }))),
    });
    expect(response.status).toBeGreaterThanOrEqual(400);
    expect(response.status).toBeLessThan(500);
  });
});

describe('every response', () => {
  it('leaked nothing internal', async () => {
    expectNoServerErrors(server());
  });
});
