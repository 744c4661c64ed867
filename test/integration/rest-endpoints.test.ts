import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  apiPaths,
  at,
  DAY,
  edgeSource,
  type FixtureEvent,
  fixtureEvents,
  fixtureIds,
  fixtureInstants,
  fixtureNow,
  functionIds,
  HOUR,
  isoAt,
  MINUTE,
  nowMicros,
  projects,
  type RelayEvent,
  relaySource,
  SECOND,
} from '../fixtures/spec-fixture.js';
import {
  byId,
  byName,
  type EndpointName,
  endpointIds,
  leaksInternals,
  type QuerygateUnderTest,
  type QueryParams,
  startQuerygateUnderTest,
} from '../helpers/querygate-server.js';
import {
  type ApiCountsRow,
  datetimeText,
  discreteQuantile,
  eligibleLogsAll,
  expectedApiCounts,
  expectedInvocationStats,
  expectedLogsAll,
  type InvocationStatsParams,
  type InvocationStatsRow,
  type LogsAllParams,
  type LogsAllRow,
  logsAllRowCap,
  re2AsJs,
  truncate,
} from '../helpers/spec-expectations.js';

/**
 * Every rule of shared/spec/endpoint-interface.md for the three endpoints, against the real
 * server on port 0 with the fixture ingested over HTTP. Expected rows come from
 * test/helpers/spec-expectations.ts, computed from the fixture records alone.
 */

let service: QuerygateUnderTest;

beforeAll(async () => {
  service = await startQuerygateUnderTest({ now: fixtureNow, events: fixtureEvents });
});

afterAll(async () => {
  await service?.close();
});

/** The `result` rows of a successful call; fails the test with the body otherwise. */
async function rows<Row>(path: string, params: QueryParams): Promise<Row[]> {
  const response = await service.get(path, params);
  expect(response.status, response.text).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^application\/json\b/);
  const body = response.body as { result: Row[] };
  expect(Object.keys(body)).toEqual(['result']);
  expect(Array.isArray(body.result)).toBe(true);
  return body.result;
}

const logsAll = (params: LogsAllParams) => rows<LogsAllRow>(byName('logs.all'), { ...params });
const invocationStats = (params: InvocationStatsParams) =>
  rows<InvocationStatsRow>(byName('functions.invocation-stats'), { ...params });
const apiCounts = (project: string, interval: string) =>
  rows<ApiCountsRow>(byName('usage.api-counts'), { project, interval });

const ids = (result: readonly { id: string }[]) => result.map((row) => row.id);

/** avg_execution_time is a division; compare it to the last few bits, everything else exactly. */
function withCloseAverages(expected: readonly InvocationStatsRow[]) {
  return expected.map((row) => ({
    ...row,
    avg_execution_time: row.avg_execution_time === null ? null : expect.closeTo(row.avg_execution_time, 9),
  }));
}

function relayEventsOf(project: string): RelayEvent[] {
  return fixtureEvents.filter(
    (event): event is RelayEvent => event.source === relaySource && event.metadata.project_ref === project,
  );
}

function fixtureEvent(id: string): FixtureEvent {
  const event = fixtureEvents.find((candidate) => candidate.id === id);
  if (!event) throw new Error(`the fixture has no event ${id}`);
  return event;
}

describe('logs.all', () => {
  const alphaFree: LogsAllParams = { project: projects.alpha, project_tier: 'FREE' };

  it('returns at most 100 rows although more than 100 edge records of the project are in the window', async () => {
    expect(eligibleLogsAll(fixtureEvents, alphaFree, fixtureNow).length).toBeGreaterThan(logsAllRowCap);
    const result = await logsAll(alphaFree);
    expect(result).toHaveLength(100);
    expect(result).toEqual(expectedLogsAll(fixtureEvents, alphaFree, fixtureNow));
  });

  it('orders rows newest first, ascending id breaking timestamp ties', async () => {
    const result = await logsAll(alphaFree);
    for (const [index, row] of result.entries()) {
      const previous = result[index - 1];
      if (!previous) continue;
      expect(
        previous.timestamp > row.timestamp || (previous.timestamp === row.timestamp && previous.id < row.id),
        `${previous.id} before ${row.id}`,
      ).toBe(true);
    }
    expect(result[0]?.id).toBe(fixtureIds.edgeAlphaNow);
  });

  it('keeps the lowest ids of a timestamp tie that the 100-row cap cuts through', async () => {
    const eligible = eligibleLogsAll(fixtureEvents, alphaFree, fixtureNow);
    const lastKept = eligible[logsAllRowCap - 1];
    const firstDropped = eligible[logsAllRowCap];
    // The fixture is built so that the cap falls inside a group of records with one timestamp.
    expect(lastKept?.micros).toBe(firstDropped?.micros);
    const result = await logsAll(alphaFree);
    expect(result.at(-1)?.id).toBe(lastKept?.id);
    expect(ids(result)).not.toContain(firstDropped?.id);
  });

  it('returns only edge request records of the project, none of the other sources or projects', async () => {
    const alphaEdgeIds = new Set(
      fixtureEvents
        .filter((event) => event.source === edgeSource && event.project === projects.alpha)
        .map((event) => event.id),
    );
    // Other sources and beta have newer records than any alpha edge record the cap keeps.
    const newerElsewhere = fixtureEvents.filter(
      (event) =>
        !alphaEdgeIds.has(event.id) && event.micros > nowMicros - 10 * SECOND && event.micros <= nowMicros,
    );
    expect(new Set(newerElsewhere.map((event) => event.source)).size).toBeGreaterThanOrEqual(8);
    for (const tier of ['FREE', 'ENTERPRISE']) {
      const result = await logsAll({ project: projects.alpha, project_tier: tier });
      expect(result.length).toBeGreaterThan(0);
      for (const id of ids(result)) expect(alphaEdgeIds.has(id), id).toBe(true);
    }
    // Within the bound window, beta and every other source have records too.
    const windowed = await logsAll({
      ...alphaFree,
      iso_timestamp_start: isoAt(fixtureInstants.windowStart),
      iso_timestamp_end: isoAt(fixtureInstants.windowEnd),
    });
    expect(ids(windowed)).not.toContain('edge-beta-window');
    for (const id of ids(windowed)) expect(alphaEdgeIds.has(id), id).toBe(true);
  });

  it('leaves out an edge record that has no metadata', async () => {
    expect(fixtureEvent(fixtureIds.edgeAlphaWithoutMetadata).micros).toBeGreaterThan(
      fixtureEvent(fixtureIds.edgeAlphaWithoutResponse).micros,
    );
    const result = await logsAll(alphaFree);
    expect(ids(result)).not.toContain(fixtureIds.edgeAlphaWithoutMetadata);
    expect(ids(result)).toContain(fixtureIds.edgeAlphaWithoutResponse);
  });

  it('sends timestamp as integer microseconds and metadata as repeated records (one-element arrays)', async () => {
    const event = fixtureEvent(fixtureIds.edgeAlphaNow);
    if (event.source !== edgeSource || !event.metadata?.request || !event.metadata.response) {
      throw new Error('edge-alpha-now is an edge record with request and response');
    }
    const { request, response } = event.metadata;
    const result = await logsAll(alphaFree);
    expect(result[0]).toStrictEqual({
      id: fixtureIds.edgeAlphaNow,
      timestamp: nowMicros,
      event_message: event.event_message,
      metadata: [
        {
          request: [{ url: request.url, path: request.path, method: request.method, host: request.host }],
          response: [{ status_code: response.status_code, origin_time: response.origin_time }],
        },
      ],
    });
    expect(Number.isInteger(result[0]?.timestamp)).toBe(true);
  });

  it('sends an absent nested record as an empty array', async () => {
    const result = await logsAll(alphaFree);
    const row = result.find((candidate) => candidate.id === fixtureIds.edgeAlphaWithoutResponse);
    expect(row?.metadata).toEqual([
      { request: [expect.objectContaining({ path: apiPaths.storage })], response: [] },
    ]);
  });

  it('matches project exactly, not as a pattern or prefix', async () => {
    expect(await logsAll({ project: 'alpha', project_tier: 'FREE' })).toEqual([]);
    expect(await logsAll({ project: 'alpha.ref', project_tier: 'FREE' })).toEqual([]);
  });

  it('returns an empty result for a project without records', async () => {
    expect(await logsAll({ project: 'nobody-ref', project_tier: 'ENTERPRISE' })).toEqual([]);
  });

  describe('retention window by project_tier', () => {
    const cases = [
      { tier: 'FREE', days: 1, inside: fixtureIds.gammaFreeIn, atCutoff: fixtureIds.gammaFreeCutoff },
      { tier: 'PRO', days: 7, inside: fixtureIds.gammaProIn, atCutoff: fixtureIds.gammaProCutoff },
      { tier: 'PAYG', days: 90, inside: fixtureIds.gammaPaygIn, atCutoff: fixtureIds.gammaPaygCutoff },
      { tier: 'ENTERPRISE', days: 90, inside: fixtureIds.gammaPaygIn, atCutoff: fixtureIds.gammaPaygCutoff },
      { tier: 'GOLD', days: 1, inside: fixtureIds.gammaFreeIn, atCutoff: fixtureIds.gammaFreeCutoff },
      { tier: 'free', days: 1, inside: fixtureIds.gammaFreeIn, atCutoff: fixtureIds.gammaFreeCutoff },
      { tier: 'Enterprise', days: 1, inside: fixtureIds.gammaFreeIn, atCutoff: fixtureIds.gammaFreeCutoff },
    ];

    it.each(cases)(
      'returns for tier $tier only records newer than $days day(s) before now',
      async ({ tier, days, inside, atCutoff }) => {
        const params = { project: projects.gamma, project_tier: tier };
        const result = await logsAll(params);
        expect(fixtureEvent(inside).micros).toBe(nowMicros - days * DAY + 1);
        expect(fixtureEvent(atCutoff).micros).toBe(nowMicros - days * DAY);
        expect(ids(result)).toContain(inside);
        expect(ids(result)).not.toContain(atCutoff);
        expect(ids(result)).not.toContain(fixtureIds.gammaAncient);
        for (const row of result) expect(row.timestamp).toBeGreaterThan(nowMicros - days * DAY);
        expect(result).toEqual(expectedLogsAll(fixtureEvents, params, fixtureNow));
      },
    );

    it('treats an unknown tier exactly as a one-day window (same body as FREE)', async () => {
      const free = await service.get(byName('logs.all'), { project: projects.gamma, project_tier: 'FREE' });
      const unknown = await service.get(byName('logs.all'), {
        project: projects.gamma,
        project_tier: 'PLATINUM',
      });
      expect(unknown.status).toBe(200);
      expect(unknown.text).toBe(free.text);
    });
  });

  describe('time bounds', () => {
    const { windowStart, windowEnd } = fixtureInstants;
    // Start is exclusive, end inclusive: the records exactly on them decide.
    const insideWindow = [
      fixtureIds.windowAtEnd,
      fixtureIds.windowMiddleA,
      fixtureIds.windowMiddleB,
      fixtureIds.windowAfterStart,
    ];

    it('excludes a record exactly at iso_timestamp_start and includes one exactly at iso_timestamp_end', async () => {
      const params = {
        ...alphaFree,
        iso_timestamp_start: '2026-05-15T09:00:00Z',
        iso_timestamp_end: '2026-05-15T10:00:00Z',
      };
      expect(fixtureEvent(fixtureIds.windowAtStart).micros).toBe(windowStart);
      expect(fixtureEvent(fixtureIds.windowAtEnd).micros).toBe(windowEnd);
      const result = await logsAll(params);
      expect(ids(result)).toEqual(insideWindow);
      expect(result).toEqual(expectedLogsAll(fixtureEvents, params, fixtureNow));
    });

    it.each([
      { start: isoAt(windowStart, 120), end: isoAt(windowEnd, 120) },
      { start: isoAt(windowStart, -270), end: isoAt(windowEnd, 345) },
      { start: '2026-05-15T09:00:00+00:00', end: '2026-05-15T10:00:00-00:00' },
      { start: isoAt(windowStart, 840), end: '2026-05-15T10:00:00Z' },
      { start: '2026-05-15T09:00:00.000000Z', end: isoAt(windowEnd, -600) },
    ])('reads the bounds $start and $end as the same two instants', async ({ start, end }) => {
      const params = { ...alphaFree, iso_timestamp_start: start, iso_timestamp_end: end };
      const result = await logsAll(params);
      expect(ids(result)).toEqual(insideWindow);
      expect(result).toEqual(expectedLogsAll(fixtureEvents, params, fixtureNow));
    });

    it('reads an offset bound as its instant, not as UTC wall time', async () => {
      // 11:00+02:00 is 09:00Z. Read as 11:00Z it would exclude the whole window.
      const params = {
        ...alphaFree,
        iso_timestamp_start: '2026-05-15T11:00:00+02:00',
        iso_timestamp_end: '2026-05-15T05:30:00-04:30',
      };
      expect(ids(await logsAll(params))).toEqual(insideWindow);
    });

    it('compares bounds to the microsecond', async () => {
      const params = {
        ...alphaFree,
        iso_timestamp_start: '2026-05-15T09:00:00.000001Z',
        iso_timestamp_end: '2026-05-15T09:59:59.999999Z',
      };
      const result = await logsAll(params);
      expect(ids(result)).toEqual([fixtureIds.windowMiddleA, fixtureIds.windowMiddleB]);
      expect(result).toEqual(expectedLogsAll(fixtureEvents, params, fixtureNow));
    });

    it('applies only the lower bound when iso_timestamp_end is absent', async () => {
      // gamma-7day-at-cutoff sits exactly on the start: excluded; everything after it up to now: in.
      const params = {
        project: projects.gamma,
        project_tier: 'ENTERPRISE',
        iso_timestamp_start: isoAt(nowMicros - 7 * DAY, 330),
      };
      const result = await logsAll(params);
      expect(ids(result)).toContain(fixtureIds.gammaRecent);
      expect(ids(result)).toContain(fixtureIds.gammaProIn);
      expect(ids(result)).not.toContain(fixtureIds.gammaProCutoff);
      expect(result).toEqual(expectedLogsAll(fixtureEvents, params, fixtureNow));
    });

    it('applies only the upper bound when iso_timestamp_start is absent, keeping the retention cut-off', async () => {
      const params = {
        project: projects.gamma,
        project_tier: 'ENTERPRISE',
        iso_timestamp_end: isoAt(nowMicros - DAY),
      };
      const result = await logsAll(params);
      expect(ids(result)).toContain(fixtureIds.gammaFreeCutoff);
      expect(ids(result)).not.toContain(fixtureIds.gammaFreeIn);
      expect(ids(result)).not.toContain(fixtureIds.gammaPaygCutoff);
      expect(result).toEqual(expectedLogsAll(fixtureEvents, params, fixtureNow));
    });

    it('keeps the retention cut-off when iso_timestamp_start is earlier than it', async () => {
      const params = {
        project: projects.gamma,
        project_tier: 'FREE',
        iso_timestamp_start: '2026-01-01T00:00:00Z',
      };
      const result = await logsAll(params);
      expect(ids(result)).not.toContain(fixtureIds.gammaFreeCutoff);
      expect(result).toEqual(
        expectedLogsAll(fixtureEvents, { project: projects.gamma, project_tier: 'FREE' }, fixtureNow),
      );
    });

    it('reads a date-only bound as midnight UTC', async () => {
      const params = { ...alphaFree, iso_timestamp_start: '2026-05-14', iso_timestamp_end: '2026-05-15' };
      const result = await logsAll(params);
      expect(ids(result)).toContain('edge-alpha-spread-01'); // exactly 2026-05-15T00:00:00Z: the inclusive end
      expect(ids(result)).not.toContain('edge-alpha-spread-00'); // 06:00 on the 15th
      expect(result).toEqual(expectedLogsAll(fixtureEvents, params, fixtureNow));
    });

    it('accepts a bound in the years 0001-0099, e.g. 0001-01-01T00:00:00Z (the earliest BigQuery TIMESTAMP)', async () => {
      const params = { ...alphaFree, iso_timestamp_start: '0001-01-01T00:00:00Z' };
      const response = await service.get(byName('logs.all'), params);
      expect(response.status, response.text).toBe(200);
      expect((response.body as { result: unknown }).result).toEqual(
        expectedLogsAll(fixtureEvents, params, fixtureNow),
      );
    });

    it('returns no rows when the start is after the end', async () => {
      const params = {
        ...alphaFree,
        iso_timestamp_start: isoAt(windowEnd),
        iso_timestamp_end: isoAt(windowStart),
      };
      expect(await logsAll(params)).toEqual([]);
    });

    it('treats empty iso_timestamp_start and iso_timestamp_end as unset', async () => {
      const unset = await service.get(byName('logs.all'), { ...alphaFree });
      const empty = await service.get(byName('logs.all'), {
        ...alphaFree,
        iso_timestamp_start: '',
        iso_timestamp_end: '',
      });
      expect(empty.status).toBe(200);
      expect(empty.text).toBe(unset.text);
      expect((empty.body as { result: unknown }).result).toEqual(
        expectedLogsAll(fixtureEvents, alphaFree, fixtureNow),
      );
    });

    it('treats an empty bound as unset while the other bound applies', async () => {
      const params = {
        ...alphaFree,
        iso_timestamp_start: '',
        iso_timestamp_end: isoAt(fixtureInstants.beforeRecentBulk),
      };
      const result = await logsAll(params);
      expect(result).toEqual(
        expectedLogsAll(
          fixtureEvents,
          { ...alphaFree, iso_timestamp_end: params.iso_timestamp_end },
          fixtureNow,
        ),
      );
      expect(ids(result)).toContain(fixtureIds.windowAtStart);
    });
  });
});

describe('functions.invocation-stats', () => {
  // The series from the spec's table, written out for fixtureNow = 2026-05-15T12:34:56.789Z.
  const seriesTable = [
    {
      interval: '5min',
      buckets: 301,
      first: '2026-05-15T12:29:56Z',
      last: '2026-05-15T12:34:56Z',
      step: SECOND,
    },
    {
      interval: '15min',
      buckets: 16,
      first: '2026-05-15T12:19:00Z',
      last: '2026-05-15T12:34:00Z',
      step: MINUTE,
    },
    {
      interval: '1hr',
      buckets: 61,
      first: '2026-05-15T11:34:00Z',
      last: '2026-05-15T12:34:00Z',
      step: MINUTE,
    },
    {
      interval: '1day',
      buckets: 25,
      first: '2026-05-14T12:00:00Z',
      last: '2026-05-15T12:00:00Z',
      step: HOUR,
    },
    { interval: '7day', buckets: 8, first: '2026-05-08T00:00:00Z', last: '2026-05-15T00:00:00Z', step: DAY },
  ];

  it.each(seriesTable)(
    'returns for interval $interval one row per bucket from $first to $last, $buckets in all',
    async ({ interval, buckets, first, last, step }) => {
      const params = { project: projects.alpha, interval };
      const result = await invocationStats(params);
      const firstMicros = Date.parse(first) * 1000;
      expect(result.map((row) => row.timestamp)).toEqual(
        Array.from({ length: buckets }, (_, index) => firstMicros + index * step),
      );
      expect(result.at(-1)?.timestamp).toBe(Date.parse(last) * 1000);
      const expected = expectedInvocationStats(fixtureEvents, params, fixtureNow);
      expect(expected.filter((row) => row.count > 1).length).toBeGreaterThan(0);
      expect(result).toEqual(withCloseAverages(expected));
    },
  );

  it.each(['2weeks', '5MIN', 'hourly', '30min', ' 1day'])(
    "treats the unknown interval '%s' as 1day",
    async (interval) => {
      const oneDay = await service.get(byName('functions.invocation-stats'), {
        project: projects.alpha,
        interval: '1day',
      });
      const unknown = await service.get(byName('functions.invocation-stats'), {
        project: projects.alpha,
        interval,
      });
      expect(unknown.status).toBe(200);
      expect(unknown.text).toBe(oneDay.text);
      expect((unknown.body as { result: unknown[] }).result).toHaveLength(25);
    },
  );

  it.each([
    // [interval, records in the first bucket]: the record on the first bucket start counts, the
    // one a microsecond before it never does (5min: 12:29:56.000 and 12:29:56.700, the latter
    // before now - 5 minutes; 1day: 12:00:00 and 12:59:59 on the 14th).
    ['5min', 2],
    ['15min', 1],
    ['1hr', 1],
    ['1day', 2],
    ['7day', 1],
  ] as const)(
    'counts records from the first %s bucket on and none before it',
    async (interval, firstCount) => {
      const result = await invocationStats({ project: projects.alpha, interval });
      const first = result[0];
      expect(first?.count).toBe(firstCount);
      const before = fixtureEvent(`relay-alpha-before-first-bucket-${interval}`);
      const atFirst = fixtureEvent(`relay-alpha-first-bucket-${interval}`);
      expect(atFirst.micros).toBe(first?.timestamp);
      expect(before.micros).toBe((first?.timestamp ?? 0) - 1);
      // Every counted record lies in [first bucket, last bucket + step): the total says none else was.
      const step = (result[1]?.timestamp ?? 0) - (first?.timestamp ?? 0);
      const lastEnd = (result.at(-1)?.timestamp ?? 0) + step;
      const inSeries = relayEventsOf(projects.alpha).filter(
        (event) => event.micros >= (first?.timestamp ?? 0) && event.micros < lastEnd,
      );
      expect(result.reduce((sum, row) => sum + row.count, 0)).toBe(inSeries.length);
    },
  );

  it('fills buckets without invocations with count 0, error_count 0 and null statistics', async () => {
    const result = await invocationStats({ project: projects.alpha, interval: '5min' });
    const empty = result.filter((row) => row.count === 0);
    expect(empty.length).toBeGreaterThan(200);
    for (const row of empty) {
      expect(row).toStrictEqual({
        timestamp: row.timestamp,
        min_execution_time: null,
        max_execution_time: null,
        avg_execution_time: null,
        p95_execution_time: null,
        p99_execution_time: null,
        count: 0,
        error_count: 0,
      });
    }
  });

  it('counts as errors the records with status_code 400 or above, not 399 and not those without a response', async () => {
    const minute = at('2026-05-15T12:30:00.000000Z');
    const records = relayEventsOf(projects.alpha).filter(
      (event) => truncate(event.micros, 'minute') === minute,
    );
    const statuses = records.map((event) => event.metadata.response?.status_code);
    // The busy minute holds every side of the line.
    expect(statuses).toEqual(expect.arrayContaining([399, 400, 404, 500, 503, 200, undefined]));
    const errors = statuses.filter((status) => status !== undefined && status >= 400).length;
    const result = await invocationStats({ project: projects.alpha, interval: '1hr' });
    const row = result.find((candidate) => candidate.timestamp === minute);
    expect(row?.count).toBe(records.length);
    expect(row?.error_count).toBe(errors);
  });

  it('computes min, max, avg and the discrete p95 and p99 of execution_time_ms in a bucket', async () => {
    const minute = at('2026-05-15T12:30:00.000000Z');
    const times = relayEventsOf(projects.alpha)
      .filter((event) => truncate(event.micros, 'minute') === minute)
      .map((event) => event.metadata.execution_time_ms ?? Number.NaN);
    expect(times).toHaveLength(30);
    const sorted = [...times].sort((a, b) => a - b);
    const result = await invocationStats({ project: projects.alpha, interval: '15min' });
    const row = result.find((candidate) => candidate.timestamp === minute);
    expect(row).toMatchObject({
      min_execution_time: sorted[0],
      max_execution_time: sorted[29],
      // Of 30 values, quantile_disc takes index ceil(0.95 * 30) - 1 = 28 and ceil(0.99 * 30) - 1 = 29.
      p95_execution_time: sorted[28],
      p99_execution_time: sorted[29],
      count: 30,
    });
    expect(row?.p95_execution_time).toBe(discreteQuantile(times, 0.95));
    expect(row?.avg_execution_time).toBeCloseTo(times.reduce((sum, ms) => sum + ms, 0) / 30, 9);
  });

  it('takes p99 below the maximum in a bucket of more than 100 records', async () => {
    const hour = at('2026-05-15T03:00:00.000000Z');
    const times = relayEventsOf(projects.alpha)
      .filter((event) => truncate(event.micros, 'hour') === hour)
      .map((event) => event.metadata.execution_time_ms ?? Number.NaN);
    expect(times).toHaveLength(120);
    const sorted = [...times].sort((a, b) => a - b);
    // Of 120 values, index ceil(0.95 * 120) - 1 = 113 and ceil(0.99 * 120) - 1 = 118.
    expect(sorted[118]).toBeLessThan(sorted[119] ?? 0);
    const result = await invocationStats({ project: projects.alpha, interval: '1day' });
    expect(result.find((row) => row.timestamp === hour)).toMatchObject({
      min_execution_time: sorted[0],
      max_execution_time: sorted[119],
      p95_execution_time: sorted[113],
      p99_execution_time: sorted[118],
      count: 120,
    });
  });

  it('counts a record without execution_time_ms but leaves it out of the time statistics', async () => {
    const minute = at('2026-05-15T12:31:00.000000Z');
    const timed = fixtureEvent('relay-alpha-spread-01') as RelayEvent;
    expect(truncate(timed.micros, 'minute')).toBe(minute);
    const ms = timed.metadata.execution_time_ms;
    const errors = (timed.metadata.response?.status_code ?? 0) >= 400 ? 1 : 0;
    const result = await invocationStats({ project: projects.alpha, interval: '1hr' });
    expect(result.find((row) => row.timestamp === minute)).toStrictEqual({
      timestamp: minute,
      min_execution_time: ms,
      max_execution_time: ms,
      avg_execution_time: ms,
      p95_execution_time: ms,
      p99_execution_time: ms,
      count: 2,
      error_count: errors,
    });
  });

  it('joins records on their truncated time, so one after now counts in the bucket now falls in', async () => {
    const after = fixtureEvent('relay-alpha-after-now');
    expect(after.micros).toBeGreaterThan(nowMicros);
    const lastMinute = ['relay-alpha-spread-00', 'relay-alpha-now', 'relay-alpha-after-now'].map(
      (id) => fixtureEvent(id) as RelayEvent,
    );
    const errors = lastMinute.filter((event) => (event.metadata.response?.status_code ?? 0) >= 400).length;
    const hour = await invocationStats({ project: projects.alpha, interval: '1hr' });
    // 12:34: relay-alpha-spread-00 (12:34:10), relay-alpha-now and relay-alpha-after-now.
    expect(hour.at(-1)).toMatchObject({
      timestamp: at('2026-05-15T12:34:00.000000Z'),
      count: 3,
      error_count: errors,
    });
    // 12:34:58 is not a per-second bucket of 5min (the last is 12:34:56): only relay-alpha-now.
    const fiveMinutes = await invocationStats({ project: projects.alpha, interval: '5min' });
    expect(fiveMinutes.at(-1)).toMatchObject({ timestamp: at('2026-05-15T12:34:56.000000Z'), count: 1 });
  });

  it.each(functionIds)('counts only the records of function_id %s when it is set', async (functionId) => {
    for (const interval of ['1hr', '7day']) {
      const params = { project: projects.alpha, interval, function_id: functionId };
      const result = await invocationStats(params);
      const expected = expectedInvocationStats(fixtureEvents, params, fixtureNow);
      const all = expectedInvocationStats(fixtureEvents, { project: projects.alpha, interval }, fixtureNow);
      const total = (stats: readonly InvocationStatsRow[]) => stats.reduce((sum, row) => sum + row.count, 0);
      expect(total(expected)).toBeGreaterThan(0);
      expect(total(expected)).toBeLessThan(total(all));
      expect(result).toEqual(withCloseAverages(expected));
    }
  });

  it('counts every function when function_id is empty or absent', async () => {
    const absent = await service.get(byName('functions.invocation-stats'), {
      project: projects.alpha,
      interval: '1day',
    });
    const empty = await service.get(byName('functions.invocation-stats'), {
      project: projects.alpha,
      interval: '1day',
      function_id: '',
    });
    expect(empty.status).toBe(200);
    expect(empty.text).toBe(absent.text);
  });

  it('returns the full series with zero counts for a function_id without records', async () => {
    const result = await invocationStats({
      project: projects.alpha,
      interval: '15min',
      function_id: 'fn-missing',
    });
    expect(result).toHaveLength(16);
    for (const row of result)
      expect(row).toMatchObject({ count: 0, error_count: 0, max_execution_time: null });
  });

  it("never counts another project's records, whatever bucket they share", async () => {
    const alpha = await invocationStats({ project: projects.alpha, interval: '15min' });
    // Beta's times are all 55_555 ms and more; alpha's stay below 1_000 ms.
    for (const row of alpha) expect(row.max_execution_time ?? 0).toBeLessThan(1000);
    const beta = await invocationStats({ project: projects.beta, interval: '15min' });
    expect(beta).toEqual(
      withCloseAverages(
        expectedInvocationStats(fixtureEvents, { project: projects.beta, interval: '15min' }, fixtureNow),
      ),
    );
    expect(beta.reduce((sum, row) => sum + row.count, 0)).toBe(11);
  });

  it('matches project exactly against project_ref, not as a pattern', async () => {
    const result = await invocationStats({ project: 'alpha.ref', interval: '7day' });
    expect(result).toHaveLength(8);
    for (const row of result) expect(row.count).toBe(0);
  });

  it('counts only edge-function relay records, not function event logs', async () => {
    // deno-subhosting-events has an alpha record at 12:30:07 carrying alpha's project_ref.
    const subhosting = fixtureEvents.filter(
      (event) => event.source === 'deno-subhosting-events' && event.metadata.project_ref === projects.alpha,
    );
    expect(
      subhosting.some((event) => truncate(event.micros, 'minute') === at('2026-05-15T12:30:00.000000Z')),
    ).toBe(true);
    const result = await invocationStats({ project: projects.alpha, interval: '1hr' });
    expect(result.find((row) => row.timestamp === at('2026-05-15T12:30:00.000000Z'))?.count).toBe(30);
  });

  it('orders rows by timestamp ascending', async () => {
    for (const interval of ['5min', '7day']) {
      const result = await invocationStats({ project: projects.alpha, interval });
      for (const [index, row] of result.entries()) {
        if (index > 0)
          expect(row.timestamp).toBeGreaterThan(result[index - 1]?.timestamp ?? Number.POSITIVE_INFINITY);
      }
    }
  });
});

describe('usage.api-counts', () => {
  const alphaUrls = re2AsJs('alpha-ref');

  it.each([
    { interval: 'minutely', window: 60 * MINUTE, unit: 'minute', textEnd: /:00$/ },
    { interval: 'hourly', window: HOUR, unit: 'hour', textEnd: /:00:00$/ },
    { interval: 'daily', window: 7 * DAY, unit: 'day', textEnd: /T00:00:00$/ },
  ] as const)(
    'counts for $interval the requests of the last window in per-$unit buckets',
    async ({ interval, window, unit, textEnd }) => {
      const result = await apiCounts(projects.alpha, interval);
      const expected = expectedApiCounts(fixtureEvents, { interval, urlMatches: alphaUrls }, fixtureNow);
      expect(expected.length).toBeGreaterThan(1);
      expect(result).toEqual(expected);
      for (const row of result) {
        expect(row.timestamp).toMatch(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}$/);
        expect(row.timestamp).toMatch(textEnd);
        const micros = Date.parse(`${row.timestamp}Z`) * 1000;
        expect(micros).toBeGreaterThanOrEqual(truncate(nowMicros - window, unit));
        expect(micros).toBeLessThanOrEqual(truncate(nowMicros, unit));
      }
    },
  );

  it.each([
    // [interval, first bucket, its counts]: the request exactly at now - window counts, the one a
    // microsecond earlier (an auth request) does not.
    ['minutely', '2026-05-15T11:34:00', { rest: 1, storage: 0, auth: 0, realtime: 0 }],
    ['hourly', '2026-05-15T11:00:00', { rest: 1, storage: 0, auth: 0, realtime: 0 }],
    ['daily', '2026-05-08T00:00:00', { rest: 0, storage: 1, auth: 0, realtime: 0 }],
  ] as const)(
    'counts for %s a request exactly at the window start and none before it',
    async (interval, bucket, counts) => {
      const result = await apiCounts(projects.alpha, interval);
      expect(result[0]).toStrictEqual({
        timestamp: bucket,
        total_rest_requests: counts.rest,
        total_storage_requests: counts.storage,
        total_auth_requests: counts.auth,
        total_realtime_requests: counts.realtime,
      });
    },
  );

  it.each([
    ['alpha-ref', 'the whole ref, inside the url'],
    ['alpha', 'a part of the host'],
    ['alpha.ref', 'a dot matching any character'],
    ['^https://alpha-ref\\.supabase\\.co/', 'an anchor at the start'],
    ['alpha-ref\\.supabase\\.co/rest', 'a prefix of only some urls'],
    ['a-ref', 'a fragment of alpha, beta and gamma urls'],
    ['alpha-ref|beta-ref', 'an alternation'],
    ['(?i)ALPHA-REF', "RE2's case-insensitive flag"],
    ['/v1/(token|websocket)$', 'an anchor at the end'],
  ])("matches project '%s' (%s) anywhere in the request url", async (pattern) => {
    const urlMatches = re2AsJs(pattern);
    for (const interval of ['minutely', 'daily'] as const) {
      const expected = expectedApiCounts(fixtureEvents, { interval, urlMatches }, fixtureNow);
      expect(expected.length).toBeGreaterThan(0);
      expect(await apiCounts(pattern, interval)).toEqual(expected);
    }
  });

  it('returns 400 naming project and suggesting (?P<name>...) for a named group written (?<name>...)', async () => {
    const response = await service.get(byName('usage.api-counts'), {
      project: '(?<ref>alpha)-ref',
      interval: 'daily',
    });
    expect(response.status, response.text).toBe(400);
    const { error } = response.body as { error: { code: string; message: string } };
    expect(error.code).toBe('BAD_PARAMETER');
    expect(error.message).toMatch(/\bproject\b/);
    expect(error.message).toContain('(?P<name>...)');
  });

  it('matches with a named group written (?P<name>...), as with the group unnamed', async () => {
    const expected = expectedApiCounts(
      fixtureEvents,
      { interval: 'daily', urlMatches: /(alpha)-ref/ },
      fixtureNow,
    );
    expect(expected.length).toBeGreaterThan(0);
    expect(await apiCounts('(?P<ref>alpha)-ref', 'daily')).toEqual(expected);
  });

  it('returns no rows when no url matches', async () => {
    expect(await apiCounts('zeta-ref', 'daily')).toEqual([]);
  });

  it('counts a request in every column whose fragment its path contains', async () => {
    const pattern = `alpha-ref\\.supabase\\.co${apiPaths.restAndStorage}$`;
    const requests = fixtureEvents.filter(
      (event) =>
        event.source === edgeSource &&
        event.project === projects.alpha &&
        event.metadata?.request?.path === apiPaths.restAndStorage &&
        event.micros >= nowMicros - 7 * DAY,
    );
    expect(requests.length).toBeGreaterThan(1);
    const result = await apiCounts(pattern, 'daily');
    for (const row of result) {
      expect(row.total_rest_requests).toBe(row.total_storage_requests);
      expect(row).toMatchObject({ total_auth_requests: 0, total_realtime_requests: 0 });
    }
    expect(result.reduce((sum, row) => sum + row.total_rest_requests, 0)).toBe(requests.length);

    const three = await apiCounts(`alpha-ref\\.supabase\\.co${apiPaths.authRealtimeRest}$`, 'daily');
    expect(three.length).toBeGreaterThan(0);
    for (const row of three) {
      expect(row.total_auth_requests).toBeGreaterThan(0);
      expect(row.total_rest_requests).toBe(row.total_auth_requests);
      expect(row.total_realtime_requests).toBe(row.total_auth_requests);
      expect(row.total_storage_requests).toBe(0);
    }
  });

  it('counts a path that merely contains a fragment, e.g. /admin/restore as /rest', async () => {
    const result = await apiCounts('alpha-ref\\.supabase\\.co/admin/restore', 'daily');
    expect(result.length).toBeGreaterThan(0);
    for (const row of result) {
      expect(row.total_rest_requests).toBeGreaterThan(0);
      expect(row).toMatchObject({
        total_storage_requests: 0,
        total_auth_requests: 0,
        total_realtime_requests: 0,
      });
    }
  });

  it('returns 0, not null, for sums without requests, and keeps the bucket of a matching request in no column', async () => {
    const pattern = 'alpha-ref\\.supabase\\.co/(graphql|functions)/';
    const result = await apiCounts(pattern, 'minutely');
    expect(result.length).toBeGreaterThan(0);
    expect(result).toEqual(
      expectedApiCounts(fixtureEvents, { interval: 'minutely', urlMatches: re2AsJs(pattern) }, fixtureNow),
    );
    for (const row of result) {
      expect(row).toStrictEqual({
        timestamp: row.timestamp,
        total_rest_requests: 0,
        total_storage_requests: 0,
        total_auth_requests: 0,
        total_realtime_requests: 0,
      });
    }
  });

  it('returns only the buckets that have matching requests, ascending', async () => {
    const result = await apiCounts(projects.alpha, 'minutely');
    expect(result.length).toBeLessThan(61);
    const minutesWithRequests = new Set(
      fixtureEvents
        .filter(
          (event) =>
            event.source === edgeSource &&
            event.metadata?.request !== undefined &&
            alphaUrls.test(event.metadata.request.url) &&
            event.micros >= nowMicros - HOUR,
        )
        .map((event) => datetimeText(truncate(event.micros, 'minute'))),
    );
    expect(result.map((row) => row.timestamp)).toEqual([...minutesWithRequests].sort());
  });

  it('counts only edge request records, not other sources with a matching url', async () => {
    // The postgREST records carry `request.url` .../rest/v1/x; no edge record has that path.
    expect(await apiCounts('supabase\\.co/rest/v1/x$', 'daily')).toEqual([]);
  });

  it('orders rows by timestamp ascending', async () => {
    const result = await apiCounts('supabase', 'daily');
    expect(result.length).toBeGreaterThan(2);
    const stamps = result.map((row) => row.timestamp);
    expect(stamps).toEqual([...stamps].sort());
    expect(new Set(stamps).size).toBe(stamps.length);
  });
});

describe('by name and by UUID', () => {
  const calls: ReadonlyArray<readonly [EndpointName, Record<string, string>]> = [
    ['logs.all', { project: projects.alpha, project_tier: 'FREE' }],
    [
      'logs.all',
      {
        project: projects.alpha,
        project_tier: 'PRO',
        iso_timestamp_start: '2026-05-15T11:00:00+02:00',
        iso_timestamp_end: '',
      },
    ],
    ['logs.all', { project: projects.gamma, project_tier: 'unknown-tier' }],
    ['functions.invocation-stats', { project: projects.alpha, interval: '5min' }],
    ['functions.invocation-stats', { project: projects.alpha, interval: '7day', function_id: 'fn-resize' }],
    ['functions.invocation-stats', { project: projects.beta, interval: 'no-such-interval', function_id: '' }],
    ['usage.api-counts', { project: projects.alpha, interval: 'minutely' }],
    ['usage.api-counts', { project: 'a-ref', interval: 'daily' }],
    ['usage.api-counts', { project: '(?i)BETA', interval: 'hourly' }],
  ];

  it.each(calls)('answers %s with the same body by name and by UUID for %j', async (endpoint, params) => {
    const named = await service.get(byName(endpoint), params);
    const identified = await service.get(byId(endpoint), params);
    expect(named.status, named.text).toBe(200);
    expect(identified.status).toBe(200);
    expect(identified.text).toBe(named.text);
    expect((named.body as { result: unknown[] }).result.length).toBeGreaterThan(0);
  });

  it('accepts the UUID in upper case as the same endpoint', async () => {
    const params = { project: projects.alpha, interval: '1hr' };
    const lower = await service.get(byId('functions.invocation-stats'), params);
    const upper = await service.get(
      `/api/endpoints/query/${endpointIds['functions.invocation-stats'].toUpperCase()}`,
      params,
    );
    expect(upper.status).toBe(200);
    expect(upper.text).toBe(lower.text);
  });
});

describe('parameters outside the contract', () => {
  it('ignores them', async () => {
    const params = { project: projects.alpha, project_tier: 'FREE' };
    const plain = await service.get(byName('logs.all'), params);
    const extra = await service.get(byName('logs.all'), {
      ...params,
      limit: '5',
      project_ref: projects.beta,
      foo: '',
    });
    expect(extra.status).toBe(200);
    expect(extra.text).toBe(plain.text);
  });
});

describe('every response of this file', () => {
  it('was never a 5xx and never carried a stack trace', () => {
    expect(service.responses.length).toBeGreaterThan(50);
    const offenders = service.responses
      .filter((response) => response.status >= 500 || leaksInternals(response.text))
      .map(
        (response) =>
          `${response.status} ${response.method} ${response.path}: ${response.text.slice(0, 200)}`,
      );
    expect(offenders).toEqual([]);
  });
});
