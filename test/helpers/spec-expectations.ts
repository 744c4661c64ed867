import {
  DAY,
  type EdgeEvent,
  edgeSource,
  type FixtureEvent,
  HOUR,
  MINUTE,
  type RelayEvent,
  relaySource,
  SECOND,
} from '../fixtures/spec-fixture.js';

/**
 * The rows each endpoint must answer for the fixture, computed in plain TypeScript from the rules of
 * `shared/spec/endpoint-interface.md` and the wire format of DESIGN.md. Nothing here runs code under
 * `src/` or SQL: a reading of the spec that differs from the service shows up as a failing test.
 */

export type Micros = number;

// --- Time --------------------------------------------------------------------------------------

export type TimeUnit = 'second' | 'minute' | 'hour' | 'day';

const unitMicros: Record<TimeUnit, number> = { second: SECOND, minute: MINUTE, hour: HOUR, day: DAY };

/** TIMESTAMP_TRUNC in UTC. Days start at UTC midnight, whole multiples of a day after the epoch. */
export function truncate(micros: Micros, unit: TimeUnit): Micros {
  const size = unitMicros[unit];
  return Math.floor(micros / size) * size;
}

export function toMicros(date: Date): Micros {
  return date.getTime() * 1000;
}

/**
 * Microseconds since the epoch of an ISO 8601 text as a parameter may carry it: a date, or a date
 * and time with up to six fraction digits and `Z`, `±hh:mm` or no offset (no offset is UTC, as
 * BigQuery's CAST(string AS TIMESTAMP) reads it). Written independently of the service's parser.
 */
export function isoToMicros(text: string): Micros {
  const match =
    /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,6}))?)?(Z|([+-])(\d{2}):(\d{2}))?)?$/.exec(
      text,
    );
  if (!match) throw new Error(`the expectations do not read '${text}' as ISO 8601`);
  const [, y, mo, d, h = '0', mi = '0', s = '0', fraction = '', , sign, oh = '0', om = '0'] = match;
  const wall = Date.UTC(Number(y), Number(mo) - 1, Number(d), Number(h), Number(mi), Number(s));
  const offset = sign === undefined ? 0 : (sign === '-' ? -1 : 1) * (Number(oh) * 60 + Number(om));
  return wall * 1000 + Number(fraction.padEnd(6, '0')) - offset * MINUTE;
}

/** BigQuery's JSON text of a DATETIME (seconds precision, as every bucket start here has). */
export function datetimeText(micros: Micros): string {
  return new Date(micros / 1000).toISOString().slice(0, 19);
}

// --- Repeated records ----------------------------------------------------------------------------

/** The fields of a record type: a leaf is `null`, a nested record is its own shape. */
export interface RecordShape {
  readonly [field: string]: RecordShape | null;
}

/** The union of the fields of `values` (objects nest into shapes; everything else is a leaf). */
export function shapeOf(values: readonly unknown[]): RecordShape {
  const shape: Record<string, RecordShape | null> = {};
  const nested = new Map<string, unknown[]>();
  for (const value of values) {
    if (!isObject(value)) continue;
    for (const [key, child] of Object.entries(value)) {
      if (isObject(child)) nested.set(key, [...(nested.get(key) ?? []), child]);
      else if (!(key in shape)) shape[key] = null;
    }
  }
  for (const [key, children] of nested) shape[key] = shapeOf(children);
  return shape;
}

export type WireValue = string | number | boolean | null | WireValue[] | { [key: string]: WireValue };

/**
 * A record as BigQuery returns a repeated record: a one-element array of an object with every
 * field of the table's type, absent leaves as `null` and absent nested records as `[]`.
 */
export function repeatedRecord(value: unknown, shape: RecordShape): WireValue {
  if (!isObject(value)) return [];
  const row: { [key: string]: WireValue } = {};
  for (const [field, fieldShape] of Object.entries(shape)) {
    const child = value[field];
    row[field] = fieldShape === null ? ((child ?? null) as WireValue) : repeatedRecord(child, fieldShape);
  }
  return [row];
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

// --- logs.all ------------------------------------------------------------------------------------

export interface LogsAllParams {
  readonly project: string;
  readonly project_tier: string;
  readonly iso_timestamp_start?: string;
  readonly iso_timestamp_end?: string;
}

export interface LogsAllRow {
  readonly id: string;
  readonly timestamp: Micros;
  readonly event_message: string;
  readonly metadata: WireValue;
}

/** Retention by tier (spec, logs.all): FREE 1 day, PRO 7 days, PAYG/ENTERPRISE 90 days, other 1 day. */
export function retentionDays(tier: string): number {
  switch (tier) {
    case 'PRO':
      return 7;
    case 'PAYG':
    case 'ENTERPRISE':
      return 90;
    default:
      return 1;
  }
}

/** Row cap written inside the logs.all query (spec, logs.all rule 4). */
export const logsAllRowCap = 100;

/**
 * Every edge record of the project that logs.all may return, before the 100-row cap: after the
 * retention cut-off, after the start, at or before the end, with metadata present (the query's
 * CROSS JOIN UNNEST(metadata) drops a record without any). Ordered newest first with ascending id
 * breaking ties, the order the saved query settles (the spec leaves it open).
 */
export function eligibleLogsAll(
  events: readonly FixtureEvent[],
  params: LogsAllParams,
  now: Date,
): EdgeEvent[] {
  const cutoff = toMicros(now) - retentionDays(params.project_tier) * DAY;
  const start = params.iso_timestamp_start ? isoToMicros(params.iso_timestamp_start) : undefined;
  const end = params.iso_timestamp_end ? isoToMicros(params.iso_timestamp_end) : undefined;
  return edgeEvents(events)
    .filter(
      (event) =>
        event.project === params.project &&
        event.metadata !== undefined &&
        event.micros > cutoff &&
        (start === undefined || event.micros > start) &&
        (end === undefined || event.micros <= end),
    )
    .sort((a, b) => b.micros - a.micros || compareIds(a.id, b.id));
}

export function expectedLogsAll(
  events: readonly FixtureEvent[],
  params: LogsAllParams,
  now: Date,
): LogsAllRow[] {
  const shape = shapeOf(edgeEvents(events).map((event) => event.metadata));
  return eligibleLogsAll(events, params, now)
    .slice(0, logsAllRowCap)
    .map((event) => ({
      id: event.id,
      timestamp: event.micros,
      event_message: event.event_message,
      metadata: repeatedRecord(event.metadata, shape),
    }));
}

/** Byte order of ASCII ids, as DuckDB and BigQuery compare strings. */
function compareIds(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function edgeEvents(events: readonly FixtureEvent[]): EdgeEvent[] {
  return events.filter((event): event is EdgeEvent => event.source === edgeSource);
}

// --- functions.invocation-stats ------------------------------------------------------------------

export interface InvocationStatsParams {
  readonly project: string;
  readonly interval: string;
  readonly function_id?: string;
}

export interface InvocationStatsRow {
  readonly timestamp: Micros;
  readonly min_execution_time: number | null;
  readonly max_execution_time: number | null;
  readonly avg_execution_time: number | null;
  readonly p95_execution_time: number | null;
  readonly p99_execution_time: number | null;
  readonly count: number;
  readonly error_count: number;
}

interface SeriesSpec {
  /** How far back the series reaches from now. */
  readonly range: number;
  /** Bucket size: records are truncated to it, the series steps by it. */
  readonly step: TimeUnit;
}

/** Bucket resolution by interval (spec table: 5, minute_second; 15, minute_minute; ...). */
export const invocationIntervals: Readonly<Record<string, SeriesSpec>> = {
  '5min': { range: 5 * MINUTE, step: 'second' },
  '15min': { range: 15 * MINUTE, step: 'minute' },
  '1hr': { range: HOUR, step: 'minute' },
  '1day': { range: DAY, step: 'hour' },
  '7day': { range: 7 * DAY, step: 'day' },
};

/** Any interval outside the five behaves as 1day. */
export function seriesSpec(interval: string): SeriesSpec {
  return invocationIntervals[interval] ?? (invocationIntervals['1day'] as SeriesSpec);
}

/**
 * The series of generate_timestamp_trunc_array(n, 'range_step'): ascending bucket starts one step
 * apart from trunc(now - n range, step) to trunc(now, step), both included.
 */
export function bucketSeries(interval: string, now: Date): Micros[] {
  const { range, step } = seriesSpec(interval);
  const first = truncate(toMicros(now) - range, step);
  const last = truncate(toMicros(now), step);
  const series: Micros[] = [];
  for (let bucket = first; bucket <= last; bucket += unitMicros[step]) series.push(bucket);
  return series;
}

/**
 * The discrete quantile DuckDB's quantile_disc(x, q) picks, which is what the service computes
 * for APPROX_QUANTILES(x, 100)[OFFSET(k)] with q = k/100 (the spec's "element at position k of a
 * 100-quantile approximation"; BigQuery's approximation may differ within its error bound).
 *
 * The rule, taken from DuckDB's discrete interpolator and confirmed by experiment on 1..n for
 * every n up to 400 with q = 0.95 and 0.99: with the non-null values sorted ascending, the
 * 0-based index is max(1, n - floor(n - q*n)) - 1, i.e. the nearest rank ceil(q*n) - 1 (for
 * example n = 10 gives index 9 for q = 0.95; n = 20 gives index 18; n = 30 gives 28). The
 * formula is kept in DuckDB's shape so that double rounding of q*n happens the same way.
 * No values gives null.
 */
export function discreteQuantile(values: readonly number[], q: number): number | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort((a, b) => a - b);
  const n = sorted.length;
  const index = Math.max(1, n - Math.floor(n - q * n)) - 1;
  return sorted[index] ?? null;
}

/** The relay records an invocation-stats call reads: the project, the function filter, from the first bucket on. */
export function countedInvocations(
  events: readonly FixtureEvent[],
  params: InvocationStatsParams,
  now: Date,
): RelayEvent[] {
  const first = bucketSeries(params.interval, now)[0] ?? Number.POSITIVE_INFINITY;
  return events.filter(
    (event): event is RelayEvent =>
      event.source === relaySource &&
      event.metadata.project_ref === params.project &&
      (!params.function_id || event.metadata.function_id === params.function_id) &&
      event.micros >= first,
  );
}

/**
 * One row per bucket of the series: relay records join on their truncated time (a record whose
 * truncated time is not a bucket joins nothing). Empty buckets have count 0, error_count 0 and
 * null statistics. error_count counts response status_code >= 400; a record without a response
 * counts in `count` only; a record without execution_time_ms counts but adds no time.
 */
export function expectedInvocationStats(
  events: readonly FixtureEvent[],
  params: InvocationStatsParams,
  now: Date,
): InvocationStatsRow[] {
  const { step } = seriesSpec(params.interval);
  const byBucket = new Map<Micros, RelayEvent[]>();
  for (const event of countedInvocations(events, params, now)) {
    const bucket = truncate(event.micros, step);
    byBucket.set(bucket, [...(byBucket.get(bucket) ?? []), event]);
  }
  return bucketSeries(params.interval, now).map((bucket) => {
    const records = byBucket.get(bucket) ?? [];
    const times = records
      .map((record) => record.metadata.execution_time_ms)
      .filter((ms): ms is number => ms !== undefined);
    return {
      timestamp: bucket,
      min_execution_time: times.length ? Math.min(...times) : null,
      max_execution_time: times.length ? Math.max(...times) : null,
      avg_execution_time: times.length ? times.reduce((sum, ms) => sum + ms, 0) / times.length : null,
      p95_execution_time: discreteQuantile(times, 0.95),
      p99_execution_time: discreteQuantile(times, 0.99),
      count: records.length,
      error_count: records.filter((record) => (record.metadata.response?.status_code ?? 0) >= 400).length,
    };
  });
}

// --- usage.api-counts ----------------------------------------------------------------------------

export interface ApiCountsRow {
  readonly timestamp: string;
  readonly total_rest_requests: number;
  readonly total_storage_requests: number;
  readonly total_auth_requests: number;
  readonly total_realtime_requests: number;
}

/** Window and bucket by interval (spec, usage.api-counts). */
export const usageIntervals = {
  minutely: { window: 60 * MINUTE, bucket: 'minute' },
  hourly: { window: HOUR, bucket: 'hour' },
  daily: { window: 7 * DAY, bucket: 'day' },
} as const satisfies Record<string, { window: number; bucket: TimeUnit }>;

export type UsageInterval = keyof typeof usageIntervals;

/**
 * The rows of usage.api-counts: edge records at or after now - window whose request url contains
 * a match of the pattern, grouped by their bucket; a request counts in every column whose fragment
 * its path contains. Only buckets with a matching request appear, ascending.
 *
 * `urlMatches` is the JS equivalent of the RE2 pattern sent as `project` (see `re2AsJs`).
 */
export function expectedApiCounts(
  events: readonly FixtureEvent[],
  params: { readonly interval: UsageInterval; readonly urlMatches: RegExp },
  now: Date,
): ApiCountsRow[] {
  const { window, bucket } = usageIntervals[params.interval];
  const windowStart = toMicros(now) - window;
  const rows = new Map<Micros, { rest: number; storage: number; auth: number; realtime: number }>();
  for (const event of edgeEvents(events)) {
    const request = event.metadata?.request;
    if (!request || event.micros < windowStart || !params.urlMatches.test(request.url)) continue;
    const key = truncate(event.micros, bucket);
    const row = rows.get(key) ?? { rest: 0, storage: 0, auth: 0, realtime: 0 };
    if (request.path.includes('/rest')) row.rest += 1;
    if (request.path.includes('/storage')) row.storage += 1;
    if (request.path.includes('/auth')) row.auth += 1;
    if (request.path.includes('/realtime')) row.realtime += 1;
    rows.set(key, row);
  }
  return [...rows.entries()]
    .sort(([a], [b]) => a - b)
    .map(([key, row]) => ({
      timestamp: datetimeText(key),
      total_rest_requests: row.rest,
      total_storage_requests: row.storage,
      total_auth_requests: row.auth,
      total_realtime_requests: row.realtime,
    }));
}

/**
 * A JS RegExp with the meaning of an RE2 pattern, for the patterns the tests send: ASCII patterns
 * in the syntax both share, optionally led by RE2's `(?i)` flag group (which JS in Node 20 lacks).
 * A search without the `g` flag is stateless, and `test` is a partial match like REGEXP_CONTAINS.
 */
export function re2AsJs(pattern: string): RegExp {
  return pattern.startsWith('(?i)') ? new RegExp(pattern.slice(4), 'i') : new RegExp(pattern);
}
