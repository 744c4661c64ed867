import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { mulberry32 } from '../../src/demo/random.js';
import { readSources } from '../../src/endpoints/sources.js';
import type { QueryEngine, QueryResult, SavedQuery } from '../../src/engines/query-engine.js';
import { packageRoot } from '../../src/paths.js';
import { sandboxSql } from '../../src/sql/sandbox.js';
import { createLogWriter, type LogWriter } from '../../src/storage/log-writer.js';
import { createPresentRecords } from '../../src/storage/present-records.js';
import { createRollups, type Rollups } from '../../src/storage/rollups.js';
import { openTempStore, storeEngine } from './temp-store.js';

/**
 * The rollup's differential check (test/integration/rollup-differential.test.ts): a store of
 * seeded edge records, two engines over it (one given the edge source's rollup, one reading the
 * records only), and seeded caller SQL: BigQuery SQL as Studio's Logs Explorer users write it
 * over logs.all's CTEs and over the edge table, mixing shapes the rollup rewrite takes with shapes
 * it must refuse. Nothing here knows what the rewrite accepts: the check compares what a query
 * gets with and without the rollup.
 */

export type Random = () => number;

const pick = <T>(random: Random, values: readonly T[]): T =>
  values[Math.floor(random() * values.length)] as T;
const chance = (random: Random, p: number) => random() < p;

const hourMicros = 3_600_000_000n;
export const seededRandom = mulberry32;

/** The first hour of the records: three days from here. */
export const firstHourMicros = BigInt(Date.parse('2026-03-08T00:00:00Z')) * 1000n;
export const spanHours = 72;

/** An ISO text of microseconds since the epoch, with all six fraction digits. */
export function isoOf(micros: bigint): string {
  const ms = micros / 1000n;
  const base = new Date(Number(ms)).toISOString().slice(0, 19);
  return `${base}.${String(micros % 1_000_000n).padStart(6, '0')}Z`;
}

/** An instant of the records' span: on an hour, just before one, or anywhere in one. */
export function instantIn(random: Random, hours = spanHours): bigint {
  const hour = firstHourMicros + BigInt(Math.floor(random() * hours)) * hourMicros;
  const where = random();
  if (where < 0.1) return hour;
  if (where < 0.2) return hour + hourMicros - 1n;
  return hour + BigInt(Math.floor(random() * 3_600_000_000));
}

/** Edge records as Vector sends them, fields and records absent now and then. */
export function seededEdgeRecords(
  random: Random,
  count: number,
  at: () => bigint,
): Record<string, unknown>[] {
  return Array.from({ length: count }, (_, i) => {
    const request: Record<string, unknown> = {};
    const path = pick(random, [
      '/rest/v1/todos',
      '/auth/v1/token',
      '/storage/v1/object/a.png',
      '/',
      undefined,
    ]);
    if (path !== undefined) request.path = path;
    const method = pick(random, ['GET', 'GET', 'POST', 'PATCH', undefined]);
    if (method !== undefined) request.method = method;
    const search = pick(random, ['', '?select=*', undefined]);
    if (search !== undefined) request.search = search;
    if (chance(random, 0.5)) request.host = pick(random, ['a.example', 'b.example']);
    const metadata: Record<string, unknown> = {};
    if (!chance(random, 0.06)) metadata.request = request;
    if (!chance(random, 0.12)) {
      const response: Record<string, unknown> = {};
      const status = pick(random, [200, 200, 201, 204, 400, 404, 500, 503, undefined]);
      if (status !== undefined) response.status_code = status;
      if (chance(random, 0.3)) response.origin_time = Math.floor(random() * 900);
      if (!chance(random, 0.25)) {
        const cache = pick(random, ['HIT', 'MISS', 'EXPIRED', 'DYNAMIC', undefined]);
        response.headers = cache === undefined ? { cf_ray: 'r' } : { cf_cache_status: cache };
      }
      metadata.response = response;
    }
    // Now and then a value of another type than the declared one, an array for a record, an
    // empty record or a field no one declared, as a shipper may send them.
    const odd = random();
    if (odd < 0.01) metadata.request = [request];
    else if (odd < 0.02) metadata.request = [];
    else if (odd < 0.03) metadata.response = { status_code: pick(random, ['404', '200', 'x', 200.5, true]) };
    else if (odd < 0.04) request.path = pick(random, [7, true, { a: 1 }, ['/a']]);
    else if (odd < 0.05) metadata.response = { headers: {} };
    else if (odd < 0.06) metadata.request = null;
    else if (odd < 0.07) request.geo = 'x';
    else if (odd < 0.08) metadata.response = { status_code: pick(random, [-1, 0, 1e3]) };
    const record: Record<string, unknown> = {
      id: `r${i}-${Math.floor(random() * 1e9)}`,
      timestamp: isoOf(at()),
      event_message: pick(random, ['GET /', 'POST /rest', 'x']),
    };
    if (!chance(random, 0.04)) record.project = pick(random, ['default', 'default', 'p1', 'p2', '', null]);
    if (!chance(random, 0.03)) record.metadata = metadata;
    return record;
  });
}

/** A caller's query: over logs.all's CTEs (sandboxed, with its parameters) or over the table. */
export interface CallerQuery {
  readonly sql: string;
  /** logs.all's parameters, for a sandboxed query; undefined: the SQL is run as it is. */
  readonly params: Record<string, string> | undefined;
}

interface Column {
  readonly sql: string;
  readonly kind: 'text' | 'int' | 'time' | 'bool';
}

/** Names Studio's SQL gives the UNNESTs, some the fields' own (`unnest(m.request) as request`). */
const unnestNames = [
  { m: 'm', r: 'r', res: 'res', h: 'h' },
  { m: 'metadata', r: 'request', res: 'response', h: 'headers' },
  { m: 'm', r: 'request', res: 'response', h: 'h' },
  { m: 'edge_logs_metadata', r: 'edge_logs_request', res: 'edge_logs_response', h: 'resp_headers' },
];

/** The joins of a FROM and the columns they bring, as Studio writes them. */
function fromClause(random: Random, sandboxed: boolean) {
  const table = sandboxed ? 'edge_logs' : pick(random, ['edge_logs', '`cloudflare.logs.prod`', 'EDGE_LOGS']);
  const alias = pick(random, ['', 't', 'f', 'T', 'e', 'edge', 'r2']);
  const q = alias === '' ? '' : `${alias}.`;
  const names = pick(random, unnestNames);
  // A field of one UNNEST alone, as Studio's reports write `path` for `request.path`.
  const field = (of: string, name: string) => (chance(random, 0.15) ? name : `${of}.${name}`);
  const comma = chance(random, 0.2);
  const join = (what: string, as: string) =>
    comma ? `, unnest(${what}) as ${as}` : ` cross join unnest(${what}) as ${as}`;
  const columns: Column[] = [];
  const plain: Column[] = [
    { sql: `${q}id`, kind: 'text' },
    { sql: `${q}event_message`, kind: 'text' },
  ];
  if (!sandboxed || chance(random, 0.05)) columns.push({ sql: `${q}project`, kind: 'text' });
  let text = `${table}${alias ? ` ${pick(random, ['', 'as '])}${alias}` : ''}`;
  const depth = pick(random, [0, 1, 1, 2, 2, 3, 3, 4]);
  if (depth > 0) text += join(`${q}metadata`, names.m);
  const request = depth === 1 || depth === 2 || depth === 4 || (depth === 3 && chance(random, 0.5));
  if (depth >= 1 && request) {
    text += join(`${names.m}.request`, names.r);
    columns.push(
      { sql: field(names.r, 'path'), kind: 'text' },
      { sql: field(names.r, 'method'), kind: 'text' },
      { sql: field(names.r, 'search'), kind: 'text' },
    );
    plain.push({ sql: `${names.r}.host`, kind: 'text' });
  }
  if (depth >= 2) {
    const left = !comma && depth !== 2 && chance(random, 0.15);
    text += left
      ? ` left join unnest(${names.m}.response) as ${names.res}`
      : join(`${names.m}.response`, names.res);
    columns.push({ sql: field(names.res, 'status_code'), kind: 'int' });
    plain.push({ sql: `${names.res}.origin_time`, kind: 'int' });
    if (depth >= 3 && chance(random, 0.7)) {
      text += join(`${names.res}.headers`, names.h);
      columns.push({ sql: field(names.h, 'cf_cache_status'), kind: 'text' });
    }
  }
  return { text, q, columns, plain };
}

const textValues = [
  'GET',
  'POST',
  'HIT',
  'MISS',
  '/rest/v1/todos',
  '/auth/v1/token',
  'default',
  'p1',
  'p2',
  '',
];

/** A row-level condition on a column (a dimension or not). */
function condition(random: Random, column: Column): string {
  const c = column.sql;
  if (column.kind === 'int') {
    return pick(random, [
      `${c} = ${pick(random, [200, 404, 500])}`,
      `${c} >= 400`,
      `${c} in (200, 201, 503)`,
      `${c} is null`,
      `${c} is not null`,
      `not ${c} = 200`,
      `${c} between 200 and 299`,
      `cast(${c} as string) = '404'`,
      `${c} = '404'`,
      `coalesce(${c}, 0) < 300`,
    ]);
  }
  return pick(random, [
    `${c} = '${pick(random, textValues)}'`,
    `${c} != '${pick(random, textValues)}'`,
    `${c} in ('${pick(random, textValues)}', '${pick(random, textValues)}')`,
    `${c} like '%${pick(random, ['v1', 'GE', 'IS', '/'])}%'`,
    `${c} is null`,
    `${c} is not null`,
    `not (${c} = '${pick(random, textValues)}')`,
    `starts_with(${c}, '/')`,
    `lower(${c}) = 'get'`,
    `coalesce(${c}, 'none') = 'none'`,
    `${c} = @project`,
    `safe_cast(${c} as int64) is null`,
    `cast(${c} as int64) > 0`,
    `${c} > 'M'`,
    `length(${c}) = ${pick(random, [0, 3, 14])}`,
  ]);
}

/** A timestamp literal: in the records' span (on, inside or at the end of an hour) or beyond it. */
function instantLiteral(random: Random): string {
  const far = random();
  if (far < 0.05)
    return pick(random, ['2020-01-01 00:00:00', '2031-05-05 10:00:00', '9999-12-31 23:59:59.999999']);
  if (far < 0.08) {
    return pick(random, [
      '294247-01-01 00:00:00',
      '294247-01-10 04:00:54.775806',
      '294247-01-10 04:00:54',
      '294247-01-10 04:00:00',
      '294247-01-10 03:59:59.999999',
      '290000-01-01 00:00:00',
    ]);
  }
  return isoOf(instantIn(random, spanHours + 4) - 2n * hourMicros)
    .replace('T', ' ')
    .replace('Z', '');
}

/** A WHERE term on time: one interval (bounds, BETWEEN, equal, reversed) or not one. */
function timeCondition(random: Random, q: string): string {
  const t = pick(random, [`${q}timestamp`, `${q}\`timestamp\``, `${q}TIMESTAMP`]);
  const a = instantLiteral(random);
  const b = chance(random, 0.3) ? a : instantLiteral(random);
  const lit = (x: string) =>
    pick(random, [
      `timestamp '${x}'`,
      `cast('${x}' as timestamp)`,
      `timestamp('${x}')`,
      `'${x}'`,
      `'${x.replace(' ', 'T')}Z'`,
      `timestamp '${x}+02:00'`,
      `datetime '${x}'`,
      `timestamp_add(timestamp '${x}', interval 90 minute)`,
    ]);
  return pick(random, [
    `${t} > ${lit(a)}`,
    `${t} >= ${lit(a)}`,
    `${t} < ${lit(a)}`,
    `${t} <= ${lit(a)}`,
    `${lit(a)} < ${t}`,
    `${t} > ${lit(a)} and ${t} <= ${lit(b)}`,
    `${t} >= ${lit(a)} and ${t} < ${lit(b)}`,
    `${t} between ${lit(a)} and ${lit(b)}`,
    `${t} = ${lit(a)}`,
    `${t} != ${lit(a)}`,
    `(${t} < ${lit(a)} or ${t} > ${lit(b)})`,
    `extract(hour from ${t}) < 12`,
    `${t} > timestamp_sub(current_timestamp(), interval ${pick(random, [1, 5, 30, 50])} hour)`,
    `${t} >= timestamp_trunc(${lit(a)}, hour)`,
    `${t} > ${lit(a)} and ${t} > ${lit(b)}`,
    `timestamp_trunc(${t}, hour) = timestamp_trunc(${lit(a)}, hour)`,
    `${t} > cast(@iso_timestamp_start as timestamp)`,
    `${t} <= timestamp(@iso_timestamp_end)`,
    `${t} >= timestamp_trunc(current_timestamp(), day)`,
    `${t} is not null`,
    `${t} in (${lit(a)}, ${lit(b)})`,
    `not ${t} > ${lit(a)}`,
    `${t} between ${lit(a)} and ${lit(b)} and ${t} != ${lit(b)}`,
    `case when @project = 'p1' then ${t} > ${lit(a)} else ${t} <= ${lit(b)} end`,
  ]);
}

/** An aggregate over the columns at hand, with the kinds the rewrite keeps, changes and refuses. */
function aggregate(random: Random, columns: readonly Column[], plain: readonly Column[], q: string): string {
  const dim = () => pick(random, columns.length > 0 ? columns : plain);
  const any = () => pick(random, [...columns, ...plain]);
  const kept = plain.length === 0 || columns.length === 0 ? 18 : 26;
  return pick(
    random,
    [
      'count(*)',
      'COUNT(*)',
      'count(1)',
      'countif(true)',
      `safe_divide(countif(${condition(random, dim())}), count(*))`,
      `round(100 * countif(${condition(random, dim())}) / count(*), 2)`,
      `case when count(*) > 20 then 'many' else 'few' end`,
      ((column) => `count(distinct coalesce(${column.sql}, ${column.kind === 'int' ? '0' : "'-'"}))`)(dim()),
      `count(${q}id)`,
      `count(${dim().sql})`,
      `count(distinct ${dim().sql})`,
      `countif(${condition(random, dim())})`,
      `COUNTIF(${condition(random, dim())})`,
      `min(${dim().sql})`,
      `max(${dim().sql})`,
      `logical_and(${condition(random, dim())})`,
      `logical_or(${condition(random, dim())})`,
      `approx_count_distinct(${dim().sql})`,
      `count(distinct ${any().sql})`,
      `min(${q}timestamp)`,
      `max(${any().sql})`,
      `sum(case when ${condition(random, dim())} then 1 else 0 end)`,
      `countif(${q}timestamp > timestamp '2026-03-09 10:30:00')`,
      `count(*) + 1`,
      `avg(${
        pick(
          random,
          [...columns, ...plain].filter((c) => c.kind === 'int'),
        )?.sql ?? '1'
      })`,
      `sum(${
        pick(
          random,
          [...columns, ...plain].filter((c) => c.kind === 'int'),
        )?.sql ?? '1'
      })`,
    ].slice(0, kept),
  );
}

/** A grouping expression: a column, a truncated time, a CASE or COALESCE over a column. */
function groupKey(random: Random, columns: readonly Column[], plain: readonly Column[], q: string): string {
  const dim = () => pick(random, columns.length > 0 ? columns : plain);
  const t = `${q}timestamp`;
  return pick(random, [
    dim().sql,
    dim().sql,
    dim().sql,
    `timestamp_trunc(${t}, ${pick(random, ['hour', 'HOUR', 'day', 'minute', 'week', 'month'])})`,
    `timestamp_trunc(${t}, hour)`,
    `timestamp_trunc(${t}, ${pick(random, ['hour', 'day'])}, '${pick(random, ['UTC', 'Asia/Kolkata', 'America/New_York'])}')`,
    `unix_seconds(timestamp_trunc(${t}, hour))`,
    `format_timestamp('%Y-%m-%d %H', ${t})`,
    `timestamp_trunc(${t}, ${pick(random, ['isoweek', 'week(monday)', 'quarter', 'year'])})`,
    `cast(timestamp_trunc(${t}, hour) as datetime)`,
    `date(${t})`,
    ((column) => `coalesce(${column.sql}, ${column.kind === 'int' ? '0' : "'none'"})`)(dim()),
    `case when ${condition(random, dim())} then 'a' else 'b' end`,
    `cast(${dim().sql} as string)`,
    ...(plain.length > 0 ? [t, pick(random, plain).sql] : []),
  ]);
}

const aliasNames = [
  'path',
  'method',
  'status',
  'n',
  'c',
  'count',
  'project',
  'timestamp',
  'id',
  'search',
  'x',
  'Hits',
  'status_code',
];

/** A caller's query, with its logs.all parameters when sandboxed. */
export function callerQuery(random: Random): CallerQuery {
  const sandboxed = chance(random, 0.55);
  const from = fromClause(random, sandboxed);
  const { q, columns } = from;
  // Most queries read dimensions only (the rollup's to answer or refuse on other grounds), some anything.
  const plain = chance(random, 0.6) && columns.length > 0 ? [] : from.plain;
  const items: { sql: string; alias: string | undefined; aggregate: boolean }[] = [];
  const used = new Set<string>();
  const nameFor = (preferred: string | undefined) => {
    let name = chance(random, 0.3) ? pick(random, aliasNames) : (preferred ?? pick(random, aliasNames));
    while (used.has(name.toLowerCase())) name = `${name}_${used.size}`;
    used.add(name.toLowerCase());
    return name;
  };
  const keys = pick(random, [0, 1, 1, 2, 2, 3]);
  for (let i = 0; i < keys; i++) {
    const sql = groupKey(random, columns, plain, q);
    const simple = /^[a-z]+\.[a-z_]+$/i.test(sql) || /^[a-z_]+$/i.test(sql);
    const bare = simple && chance(random, 0.25) && !used.has(sql.split('.').at(-1)?.toLowerCase() ?? '');
    if (bare) used.add(sql.split('.').at(-1)?.toLowerCase() ?? '');
    items.push({
      sql,
      alias: bare ? undefined : nameFor(simple ? sql.split('.').at(-1) : undefined),
      aggregate: false,
    });
  }
  const aggregates = keys === 0 ? 1 + Math.floor(random() * 3) : Math.floor(random() * 3.5);
  for (let i = 0; i < aggregates; i++) {
    items.push({
      sql: aggregate(random, columns, plain, q),
      alias: chance(random, 0.05) ? undefined : nameFor('n'),
      aggregate: true,
    });
  }
  if (items.length === 0) items.push({ sql: 'count(*)', alias: nameFor('n'), aggregate: true });
  const select = items.map((item) =>
    item.alias ? `${item.sql} as ${maybeQuoted(random, item.alias)}` : item.sql,
  );
  const distinct = keys > 0 && aggregates === 0 && chance(random, 0.3) ? 'distinct ' : '';
  let sql = `select ${distinct}${select.join(', ')}\nfrom ${from.text}`;

  const where: string[] = [];
  const conditions = pick(random, [0, 0, 1, 1, 2, 3]);
  for (let i = 0; i < conditions; i++) {
    const column = pick(
      random,
      chance(random, 0.85) && columns.length > 0 ? columns : [...columns, ...plain],
    );
    let term = condition(random, column);
    if (chance(random, 0.15))
      term = `(${term} or ${condition(random, pick(random, [...columns, ...plain]))})`;
    where.push(term);
  }
  if (chance(random, sandboxed ? 0.25 : 0.5)) where.push(timeCondition(random, q));
  if (plain.length > 0 && chance(random, 0.08))
    where.push(
      `${columns[0]?.sql ?? `${q}id`} in (select r2.path from edge_logs e2 cross join unnest(e2.metadata) as m2 cross join unnest(m2.request) as r2 where r2.method = 'POST')`,
    );
  if (where.length > 0) sql += `\nwhere ${where.join(pick(random, [' and ', ' AND ']))}`;

  const grouped = items.filter((item) => !item.aggregate);
  if (grouped.length > 0 && !distinct) {
    const byPosition = chance(random, 0.3);
    const byAll = chance(random, 0.05);
    const keys = grouped
      .map((item) => {
        const position = items.indexOf(item) + 1;
        if (byPosition) return String(position);
        return item.alias && chance(random, 0.7) ? item.alias : item.sql;
      })
      .join(', ');
    sql += `\ngroup by ${byAll ? 'all' : chance(random, 0.06) ? `rollup(${keys})` : keys}`;
  }
  if (chance(random, 0.2) && (grouped.length > 0 || distinct === '')) {
    const named = items.find((item) => item.aggregate && item.alias);
    sql += `\nhaving ${pick(random, [
      'count(*) > 2',
      named ? `${named.alias} > 1` : 'count(*) > 0',
      `countif(${condition(random, pick(random, columns.length > 0 ? columns : plain))}) >= 1`,
      `min(${q}id) is not null`,
    ])}`;
  }
  const limited = chance(random, 0.3);
  if (limited || chance(random, 0.5)) {
    // With a LIMIT, the order is total (every output column), so the rows kept are not a tie's pick.
    const first = Math.floor(random() * items.length);
    const orders = [first, ...items.map((_, i) => i).filter((i) => i !== first)].map((i) => {
      const item = items[i] as (typeof items)[number];
      const direction = pick(random, ['', ' desc', ' asc']);
      const by = chance(random, 0.4) || !item.alias ? String(i + 1) : maybeQuoted(random, item.alias);
      return `${by}${direction}`;
    });
    sql += `\norder by ${orders.join(', ')}`;
    if (limited) sql += `\nlimit ${pick(random, [1, 3, 10, 0])}${chance(random, 0.2) ? ' offset 2' : ''}`;
  }
  if (chance(random, 0.03)) sql = `select * from (${sql}) as s`;
  if (chance(random, 0.1)) sql = sql.toUpperCase().replace(/'[^']*'/g, (literal) => literal.toLowerCase());
  return { sql, params: sandboxed ? logsAllParams(random) : undefined };
}

function maybeQuoted(random: Random, name: string): string {
  return chance(random, 0.1) ? `\`${name}\`` : name;
}

/**
 * logs.all's parameters: a project, and bounds inside one hour, across many, equal, reversed or
 * beyond the data; ISO 8601 as the endpoint's contract takes them (four-digit years).
 */
function logsAllParams(random: Random): Record<string, string> {
  const project = pick(random, ['default', 'default', 'p1', 'p2', 'nobody']);
  const bound = () => {
    const choice = random();
    if (choice < 0.2) return '';
    if (choice < 0.25) {
      return pick(random, [
        '2019-01-01T00:00:00Z',
        '2032-01-01T00:00:00Z',
        '9999-12-31T23:59:59.999999Z',
        '9999-12-31T23:59:59-05:00',
        '0001-01-01T00:00:00Z',
        '2026-03-09T10:00:00+05:30',
      ]);
    }
    return isoOf(instantIn(random, spanHours + 4) - 2n * hourMicros);
  };
  const start = bound();
  const shape = random();
  let end: string;
  if (shape < 0.25 && start !== '' && start.startsWith('2026')) {
    // Inside the start's hour, or a few hours on.
    const micros = BigInt(Date.parse(start)) * 1000n;
    end = isoOf(
      micros + BigInt(Math.floor(random() * (chance(random, 0.5) ? 3_600_000_000 : 20_000_000_000))),
    );
  } else if (shape < 0.32) {
    end = start;
  } else {
    end = bound();
  }
  return { project, iso_timestamp_start: start, iso_timestamp_end: end };
}

const edge = 'cloudflare.logs.prod';
const logsAll = readFileSync(join(packageRoot, 'supabase', 'logs.all.sql'), 'utf8');
const logsAllParameters = new Set(['project', 'iso_timestamp_start', 'iso_timestamp_end']);
/** The instant `current_timestamp()` stands for: an hour after the records' last. */
const now = new Date(Number(firstHourMicros / 1000n) + (spanHours + 1) * 3_600_000);

/** What a query got from one engine: its columns and rows (as JSON texts), or the code it failed with. */
export type Outcome = { columns: QueryResult['columns']; rows: string[] } | { failed: string };

export interface Compared {
  readonly records: Outcome;
  readonly rollup: Outcome;
  /** Whether the rewrite read the rollup for it (rather than leaving it to the records). */
  readonly readRollup: boolean;
}

export interface DifferentialStore {
  /** The query run by both engines; rows sorted unless `ordered`. Undefined: refused before either engine. */
  compare(query: CallerQuery, ordered: boolean): Promise<Compared | undefined>;
  close(): Promise<void>;
}

/**
 * A store holding three days of seeded edge records ingested in batches in time order, then late
 * records for hours long past, a retention pass that stops half way through an hour (deleting in
 * batches, as retention does), and more late records.
 */
export async function openDifferentialStore(
  seed: number,
  { reopened = false }: { reopened?: boolean } = {},
): Promise<DifferentialStore> {
  const sources = readSources(join(packageRoot, 'supabase'));
  // Folded together every 300 rows: the compaction runs several times.
  let rollups = createRollups(sources, { compactAbove: 300 });
  let presentRecords = createPresentRecords();
  const store = await openTempStore('querygate-rollup-differential-', { sources, rollups, presentRecords });
  const engines: QueryEngine[] = [];
  let writer: LogWriter | undefined;
  try {
    const random = seededRandom(seed);
    const inOrder = Array.from({ length: 2400 }, () => instantIn(random)).sort((a, b) => (a < b ? -1 : 1));
    let next = 0;
    const records = seededEdgeRecords(random, inOrder.length, () => inOrder[next++] as bigint);
    for (let start = 0; start < records.length; start += 150) {
      await store.writer.write(edge, records.slice(start, start + 150));
    }
    await store.writer.write(
      edge,
      seededEdgeRecords(random, 200, () => instantIn(random, spanHours - 6)),
    );
    const before = firstHourMicros + 4n * hourMicros + hourMicros / 2n;
    while ((await store.writer.deleteBefore(edge, before, 40)) > 0) {
      // each batch its own transaction
    }
    await store.writer.write(
      edge,
      seededEdgeRecords(random, 100, () => instantIn(random)),
    );
    if (reopened) {
      // As after a restart: the rollup kept by a writer that knows nothing of the retention before.
      await store.writer.close();
      rollups = createRollups(sources, { compactAbove: 300 });
      presentRecords = createPresentRecords();
      writer = createLogWriter(store.db, { sources, rollups, presentRecords });
      await writer.ready();
      await writer.write(
        edge,
        seededEdgeRecords(random, 100, () => instantIn(random)),
      );
    }
    let reads = 0;
    // The rollup's relation is asked for only once the rewrite has taken the query.
    const counted: Rollups = {
      of: (table) => {
        const shape = rollups.of(table);
        if (!shape) return undefined;
        return {
          ...shape,
          relation: (...args) => {
            reads += 1;
            return shape.relation(...args);
          },
        };
      },
      mark: () => rollups.mark(),
    };
    const withRollup = await storeEngine(store, { sources, rollups: counted, presentRecords });
    engines.push(withRollup);
    const recordsOnly = await storeEngine(store, { sources, presentRecords });
    engines.push(recordsOnly);
    let calls = 0;
    return {
      async compare(query, ordered) {
        calls += 1;
        const base = { id: `differential-${calls}`, name: `differential-${calls}`, maxRows: 10_000 };
        let saved: SavedQuery;
        try {
          saved = query.params ? { ...base, ...sandboxedSql(query.sql) } : { ...base, sql: query.sql };
        } catch {
          return undefined;
        }
        const params = query.params ?? { project: 'p1' };
        const records = await outcome(recordsOnly, saved, params, ordered);
        const readsBefore = reads;
        const rollup = await outcome(withRollup, saved, params, ordered);
        return { records, rollup, readRollup: reads > readsBefore };
      },
      async close() {
        for (const engine of engines) await engine.close();
        await writer?.close();
        await store.close();
      },
    };
  } catch (error) {
    for (const engine of engines) await engine.close();
    await writer?.close();
    await store.close();
    throw error;
  }
}

function sandboxedSql(callerSql: string): Pick<SavedQuery, 'sql' | 'callerLineOffset'> {
  const merged = sandboxSql(logsAll, callerSql, logsAllParameters);
  return { sql: merged.sql, callerLineOffset: merged.callerLineOffset };
}

async function outcome(
  engine: QueryEngine,
  saved: SavedQuery,
  params: Record<string, string>,
  ordered: boolean,
): Promise<Outcome> {
  try {
    const result = await engine.run(saved, params, { now });
    const rows = result.rows.map((row) =>
      JSON.stringify(row, (_key, value) => (typeof value === 'bigint' ? `${value}n` : value)),
    );
    return { columns: result.columns, rows: ordered ? rows : rows.sort() };
  } catch (error) {
    return { failed: String((error as { code?: string }).code ?? (error as Error).name) };
  }
}
