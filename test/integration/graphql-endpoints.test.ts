import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  fixtureEvents,
  fixtureInstants,
  fixtureNow,
  functionIds,
  isoAt,
  projects,
} from '../fixtures/spec-fixture.js';
import { readContractFiles, valueTexts } from '../helpers/contract-files.js';
import { type GraphQLResult, postGraphQL } from '../helpers/graphql-request.js';
import {
  leaksInternals,
  type QuerygateUnderTest,
  startQuerygateUnderTest,
} from '../helpers/querygate-server.js';
import {
  type ApiCountsRow,
  expectedApiCounts,
  expectedInvocationStats,
  expectedLogsAll,
  type InvocationStatsRow,
  isoToMicros,
  type LogsAllParams,
  type LogsAllRow,
  re2AsJs,
  type UsageInterval,
} from '../helpers/spec-expectations.js';

/**
 * The GraphQL face of the three endpoints against the real server with the REST tests' fixture
 * ingested over HTTP. Every answer is checked against the same independently computed
 * expectations as the REST tests (test/helpers/spec-expectations.ts), translated field by field.
 */

let service: QuerygateUnderTest;

beforeAll(async () => {
  service = await startQuerygateUnderTest({ now: fixtureNow, events: fixtureEvents });
});

afterAll(async () => {
  await service?.close();
});

/** UTC ISO 8601 with at most microseconds, as the DateTime scalar writes it. */
const utcDateTime = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?Z$/;

function succeeded<Data>(response: GraphQLResult<Data>): Data {
  expect(response.status, response.text).toBe(200);
  expect(response.errors).toEqual([]);
  return response.data as Data;
}

// --- logs.all --------------------------------------------------------------------------------

interface LogRecord {
  id: string;
  timestamp: string;
  eventMessage: string;
  metadata: unknown;
}

const logsAllQuery = /* GraphQL */ `
  query LogsAll($project: String!, $tier: ProjectTier!, $start: DateTime, $end: DateTime) {
    logs { all(project: $project, projectTier: $tier, isoTimestampStart: $start, isoTimestampEnd: $end) {
      id timestamp eventMessage metadata
    } }
  }
`;

async function logsAll(variables: { project: string; tier: string; start?: string; end?: string }) {
  const data = succeeded(await postGraphQL<{ logs: { all: LogRecord[] } }>(service, logsAllQuery, variables));
  for (const record of data.logs.all) expect(record.timestamp).toMatch(utcDateTime);
  return data.logs.all;
}

/** A GraphQL log record in the REST row's terms, timestamps read by the expectations' own parser. */
const asRestRow = (record: LogRecord): LogsAllRow => ({
  id: record.id,
  timestamp: isoToMicros(record.timestamp),
  event_message: record.eventMessage,
  metadata: record.metadata as LogsAllRow['metadata'],
});

const expectedLogs = (params: LogsAllParams) => expectedLogsAll(fixtureEvents, params, fixtureNow);

describe('logs.all', () => {
  it('answers every field of the REST rows: id, timestamp to the microsecond, eventMessage, metadata', async () => {
    const result = await logsAll({ project: projects.alpha, tier: 'FREE' });
    expect(result).toHaveLength(100);
    expect(result.map(asRestRow)).toEqual(expectedLogs({ project: projects.alpha, project_tier: 'FREE' }));
  });

  it.each(['FREE', 'PRO', 'PAYG', 'ENTERPRISE'])(
    'applies the retention window of projectTier %s',
    async (tier) => {
      const result = await logsAll({ project: projects.gamma, tier });
      const expected = expectedLogs({ project: projects.gamma, project_tier: tier });
      expect(expected.length).toBeGreaterThan(0);
      expect(result.map(asRestRow)).toEqual(expected);
    },
  );

  it('tells the tiers apart on the records placed at their cut-offs', async () => {
    const counts = await Promise.all(
      ['FREE', 'PRO', 'PAYG'].map(async (tier) => (await logsAll({ project: projects.gamma, tier })).length),
    );
    expect(counts[0]).toBeLessThan(counts[1] ?? 0);
    expect(counts[1]).toBeLessThan(counts[2] ?? 0);
  });

  it('matches project exactly', async () => {
    expect(await logsAll({ project: 'alpha', tier: 'PAYG' })).toEqual([]);
    const beta = await logsAll({ project: projects.beta, tier: 'FREE' });
    expect(beta.map(asRestRow)).toEqual(expectedLogs({ project: projects.beta, project_tier: 'FREE' }));
  });

  describe('isoTimestampStart and isoTimestampEnd', () => {
    const start = isoAt(fixtureInstants.windowStart);
    const end = isoAt(fixtureInstants.windowEnd);

    it('excludes the record exactly at the start and includes the one exactly at the end', async () => {
      const result = await logsAll({ project: projects.alpha, tier: 'PRO', start, end });
      const expected = expectedLogs({
        project: projects.alpha,
        project_tier: 'PRO',
        iso_timestamp_start: start,
        iso_timestamp_end: end,
      });
      expect(expected.map((row) => row.id)).toContain('edge-alpha-window-3-at-end');
      expect(expected.map((row) => row.id)).not.toContain('edge-alpha-window-0-at-start');
      expect(result.map(asRestRow)).toEqual(expected);
    });

    it('reads bounds with an offset as instants', async () => {
      const offsetStart = isoAt(fixtureInstants.windowStart, 120);
      const offsetEnd = isoAt(fixtureInstants.windowEnd, -330);
      const result = await logsAll({
        project: projects.alpha,
        tier: 'PRO',
        start: offsetStart,
        end: offsetEnd,
      });
      expect(result.map(asRestRow)).toEqual(
        expectedLogs({
          project: projects.alpha,
          project_tier: 'PRO',
          iso_timestamp_start: offsetStart,
          iso_timestamp_end: offsetEnd,
        }),
      );
      expect(result.length).toBeGreaterThan(0);
    });

    it('applies the start alone', async () => {
      const result = await logsAll({ project: projects.alpha, tier: 'PAYG', start: end });
      expect(result.map(asRestRow)).toEqual(
        expectedLogs({ project: projects.alpha, project_tier: 'PAYG', iso_timestamp_start: end }),
      );
    });

    it('applies the end alone, keeping the retention cut-off', async () => {
      const result = await logsAll({ project: projects.alpha, tier: 'PRO', end: start });
      const expected = expectedLogs({
        project: projects.alpha,
        project_tier: 'PRO',
        iso_timestamp_end: start,
      });
      expect(expected.length).toBeGreaterThan(0);
      expect(result.map(asRestRow)).toEqual(expected);
    });

    it('takes bounds written as literals the same as variables', async () => {
      const literal = await postGraphQL<{ logs: { all: LogRecord[] } }>(
        service,
        /* GraphQL */ `{ logs { all(project: "${projects.alpha}", projectTier: PRO, isoTimestampStart: "${start}", isoTimestampEnd: "${end}") { id } } }`,
      );
      const fromVariables = await logsAll({ project: projects.alpha, tier: 'PRO', start, end });
      expect(succeeded(literal).logs.all.map((row) => row.id)).toEqual(fromVariables.map((row) => row.id));
    });
  });
});

// --- functions.invocationStats -----------------------------------------------------------------

interface InvocationStatsBucket {
  timestamp: string;
  minExecutionTime: number | null;
  maxExecutionTime: number | null;
  avgExecutionTime: number | null;
  p95ExecutionTime: number | null;
  p99ExecutionTime: number | null;
  count: number;
  errorCount: number;
}

const invocationStatsQuery = /* GraphQL */ `
  query Stats($project: String!, $interval: InvocationInterval!, $functionId: String) {
    functions { invocationStats(project: $project, interval: $interval, functionId: $functionId) {
      timestamp minExecutionTime maxExecutionTime avgExecutionTime p95ExecutionTime p99ExecutionTime count errorCount
    } }
  }
`;

async function invocationStats(variables: { project: string; interval: string; functionId?: string | null }) {
  const data = succeeded(
    await postGraphQL<{ functions: { invocationStats: InvocationStatsBucket[] } }>(
      service,
      invocationStatsQuery,
      variables,
    ),
  );
  for (const bucket of data.functions.invocationStats) expect(bucket.timestamp).toMatch(utcDateTime);
  return data.functions.invocationStats.map(
    (bucket): InvocationStatsRow => ({
      timestamp: isoToMicros(bucket.timestamp),
      min_execution_time: bucket.minExecutionTime,
      max_execution_time: bucket.maxExecutionTime,
      avg_execution_time: bucket.avgExecutionTime,
      p95_execution_time: bucket.p95ExecutionTime,
      p99_execution_time: bucket.p99ExecutionTime,
      count: bucket.count,
      error_count: bucket.errorCount,
    }),
  );
}

/** avg_execution_time is a division; compare it to the last few bits, everything else exactly. */
const withCloseAverages = (expected: readonly InvocationStatsRow[]) =>
  expected.map((row) => ({
    ...row,
    avg_execution_time: row.avg_execution_time === null ? null : expect.closeTo(row.avg_execution_time, 9),
  }));

describe('functions.invocationStats', () => {
  it.each([
    ['FIVE_MINUTES', '5min'],
    ['FIFTEEN_MINUTES', '15min'],
    ['ONE_HOUR', '1hr'],
    ['ONE_DAY', '1day'],
    ['SEVEN_DAYS', '7day'],
  ])('answers interval %s with the buckets of %s', async (interval, contractValue) => {
    const result = await invocationStats({ project: projects.alpha, interval });
    const expected = expectedInvocationStats(
      fixtureEvents,
      { project: projects.alpha, interval: contractValue },
      fixtureNow,
    );
    expect(expected.some((row) => row.count > 1)).toBe(true);
    expect(result).toEqual(withCloseAverages(expected));
  });

  it.each(functionIds)('counts only the invocations of functionId %s', async (functionId) => {
    const result = await invocationStats({ project: projects.alpha, interval: 'ONE_DAY', functionId });
    const expected = expectedInvocationStats(
      fixtureEvents,
      { project: projects.alpha, interval: '1day', function_id: functionId },
      fixtureNow,
    );
    const all = expectedInvocationStats(
      fixtureEvents,
      { project: projects.alpha, interval: '1day' },
      fixtureNow,
    );
    const total = (rows: readonly InvocationStatsRow[]) => rows.reduce((sum, row) => sum + row.count, 0);
    expect(total(expected)).toBeGreaterThan(0);
    expect(total(expected)).toBeLessThan(total(all));
    expect(result).toEqual(withCloseAverages(expected));
  });

  it('counts every function when functionId is absent, null or empty', async () => {
    const expected = withCloseAverages(
      expectedInvocationStats(fixtureEvents, { project: projects.alpha, interval: '1hr' }, fixtureNow),
    );
    for (const functionId of [undefined, null, '']) {
      expect(await invocationStats({ project: projects.alpha, interval: 'ONE_HOUR', functionId })).toEqual(
        expected,
      );
    }
  });

  it('matches project exactly against project_ref', async () => {
    const result = await invocationStats({ project: projects.beta, interval: 'ONE_DAY' });
    expect(result).toEqual(
      withCloseAverages(
        expectedInvocationStats(fixtureEvents, { project: projects.beta, interval: '1day' }, fixtureNow),
      ),
    );
  });
});

// --- usage.apiCounts ---------------------------------------------------------------------------

interface ApiCountsBucket {
  timestamp: string;
  totalRestRequests: number;
  totalStorageRequests: number;
  totalAuthRequests: number;
  totalRealtimeRequests: number;
}

const apiCountsQuery = /* GraphQL */ `
  query Usage($project: String!, $interval: UsageInterval!) {
    usage { apiCounts(project: $project, interval: $interval) {
      timestamp totalRestRequests totalStorageRequests totalAuthRequests totalRealtimeRequests
    } }
  }
`;

/** Bucket starts as instants: REST's DATETIME text is UTC wall time, GraphQL's DateTime says Z. */
const countsByInstant = (rows: readonly ApiCountsRow[]) =>
  rows.map((row) => ({ ...row, timestamp: isoToMicros(row.timestamp) }));

async function apiCounts(project: string, interval: string) {
  const data = succeeded(
    await postGraphQL<{ usage: { apiCounts: ApiCountsBucket[] } }>(service, apiCountsQuery, {
      project,
      interval,
    }),
  );
  for (const bucket of data.usage.apiCounts) expect(bucket.timestamp).toMatch(utcDateTime);
  return data.usage.apiCounts.map((bucket) => ({
    timestamp: isoToMicros(bucket.timestamp),
    total_rest_requests: bucket.totalRestRequests,
    total_storage_requests: bucket.totalStorageRequests,
    total_auth_requests: bucket.totalAuthRequests,
    total_realtime_requests: bucket.totalRealtimeRequests,
  }));
}

describe('usage.apiCounts', () => {
  it.each([
    ['MINUTELY', 'minutely'],
    ['HOURLY', 'hourly'],
    ['DAILY', 'daily'],
  ] as const)(
    'answers interval %s with the buckets of %s',
    async (interval, contractValue: UsageInterval) => {
      const expected = expectedApiCounts(
        fixtureEvents,
        { interval: contractValue, urlMatches: re2AsJs(projects.alpha) },
        fixtureNow,
      );
      expect(expected.length).toBeGreaterThan(0);
      expect(await apiCounts(projects.alpha, interval)).toEqual(countsByInstant(expected));
    },
  );

  it.each(['alpha-ref|beta-ref', '^https://gamma-ref\\.', '(?i)BETA'])(
    "treats project '%s' as an RE2 pattern over the request url",
    async (pattern) => {
      const expected = expectedApiCounts(
        fixtureEvents,
        { interval: 'daily', urlMatches: re2AsJs(pattern) },
        fixtureNow,
      );
      expect(expected.length).toBeGreaterThan(0);
      expect(await apiCounts(pattern, 'DAILY')).toEqual(countsByInstant(expected));
    },
  );
});

// --- endpoints and all fields in one operation ---------------------------------------------------

describe('response order', () => {
  // The GraphQL spec orders a response's fields as the selection does. `b` repeats `a`'s call and
  // so waits on it, `c` runs its own: on a cache miss they settle a, c, b, which yoga's default
  // executor wrote in that order. Each run asks for values not asked before (a miss every time).
  it.each([
    ['executed on a miss', 'order-miss'],
    ['executed again on hits, then replayed', 'order-hit'],
  ])('lists fields in the order of the selection, %s', async (_when, tag) => {
    const operation = /* GraphQL */ `{
      functions {
        a: invocationStats(project: "${tag}-1", interval: ONE_HOUR) { count }
        b: invocationStats(project: "${tag}-1", interval: ONE_HOUR) { count }
        c: invocationStats(project: "${tag}-2", interval: ONE_HOUR) { count }
      }
      usage { apiCounts(project: "${tag}", interval: HOURLY) { timestamp } }
    }`;
    const times = tag === 'order-miss' ? 1 : 3;
    for (let i = 0; i < times; i++) {
      const response = await postGraphQL(service, operation);
      expect(response.status, response.text).toBe(200);
      const data = JSON.parse(response.text).data;
      expect(Object.keys(data)).toEqual(['functions', 'usage']);
      expect(Object.keys(data.functions)).toEqual(['a', 'b', 'c']);
    }
  });

  it('lists fields in the order of the selection when a compiled operation misses', async () => {
    // One document (a fragment keeps it off the spliced path), asked with new values each time:
    // the first run compiles it, the later ones run compiled, every call a miss.
    const operation = /* GraphQL */ `query Order($p: String!, $q: String!) {
      functions {
        a: invocationStats(project: $p, interval: ONE_HOUR) { ...Counted }
        b: invocationStats(project: $p, interval: ONE_HOUR) { ...Counted }
        c: invocationStats(project: $q, interval: ONE_HOUR) { ...Counted }
      }
    }
    fragment Counted on InvocationStatsBucket { count }`;
    for (let i = 0; i < 3; i++) {
      const response = await postGraphQL(service, operation, {
        p: `order-jit-${i}`,
        q: `order-jit-${i}-other`,
      });
      expect(response.status, response.text).toBe(200);
      expect(Object.keys(JSON.parse(response.text).data.functions)).toEqual(['a', 'b', 'c']);
    }
  });
});

describe('endpoints', () => {
  it('lists every saved query as its contract file declares it', async () => {
    const contracts = readContractFiles();
    const data = succeeded(
      await postGraphQL(
        service,
        /* GraphQL */ `{ endpoints {
          id name description maxRows cacheSeconds warmSeconds
          parameters { name required description format values otherValues }
        } }`,
      ),
    );
    expect(data.endpoints).toEqual(
      contracts.map((endpoint) => ({
        id: endpoint.id,
        name: endpoint.name,
        description: endpoint.description,
        maxRows: endpoint.maxRows,
        cacheSeconds: endpoint.cacheSeconds,
        warmSeconds: endpoint.warmSeconds,
        parameters: endpoint.parameters.map((parameter) => ({
          name: parameter.name,
          required: parameter.required,
          description: parameter.description,
          format: (parameter.format ?? 'text').toUpperCase(),
          values: valueTexts(parameter.values) ?? null,
          otherValues: parameter.values ? (parameter.otherValues ?? 'reject').toUpperCase() : null,
        })),
      })),
    );
  });
});

describe('one operation', () => {
  it('answers all three endpoints together, each as it does alone', async () => {
    const data = succeeded(
      await postGraphQL<{
        logs: { all: Array<{ id: string }> };
        functions: { invocationStats: Array<{ count: number }> };
        usage: { apiCounts: Array<{ totalAuthRequests: number }> };
      }>(
        service,
        /* GraphQL */ `{
          logs { all(project: "${projects.alpha}", projectTier: FREE) { id } }
          functions { invocationStats(project: "${projects.alpha}", interval: ONE_HOUR) { count } }
          usage { apiCounts(project: "${projects.alpha}", interval: MINUTELY) { totalAuthRequests } }
        }`,
      ),
    );
    expect(data.logs.all.map((row) => row.id)).toEqual(
      expectedLogs({ project: projects.alpha, project_tier: 'FREE' }).map((row) => row.id),
    );
    expect(data.functions.invocationStats.map((row) => row.count)).toEqual(
      expectedInvocationStats(fixtureEvents, { project: projects.alpha, interval: '1hr' }, fixtureNow).map(
        (row) => row.count,
      ),
    );
    expect(data.usage.apiCounts.map((row) => row.totalAuthRequests)).toEqual(
      expectedApiCounts(
        fixtureEvents,
        { interval: 'minutely', urlMatches: re2AsJs(projects.alpha) },
        fixtureNow,
      ).map((row) => row.total_auth_requests),
    );
  });
});

describe('every response of this file', () => {
  it('was never a 5xx and never carried a stack trace', () => {
    expect(service.responses.length).toBeGreaterThan(20);
    const offenders = service.responses
      .filter((response) => response.status >= 500 || leaksInternals(response.text))
      .map(
        (response) =>
          `${response.status} ${response.method} ${response.path}: ${response.text.slice(0, 200)}`,
      );
    expect(offenders).toEqual([]);
  });
});
