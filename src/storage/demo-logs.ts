import { type LogSource, readSources } from '../endpoints/sources.js';
import { queriesDir as shippedQueriesDir } from '../paths.js';

/**
 * Deterministic demo traffic for the nine log sources, shaped like Logflare's Supabase sources
 * and written as the JSON events the ingestion API accepts, so that a fresh store answers all
 * three saved queries for every interval and tier.
 *
 * Events are a function of their time: time is cut into minutes, and the candidates of a minute
 * (their instants and contents) depend only on the seed, the stream and the minute. How many of
 * them exist follows the traffic rate at their age before `now`, the higher rate keeping a
 * superset of the lower. So the events of `(after, now]` are exactly those a full run up to
 * `now` has there, and a store topped up range by range looks like a fresh seed near its `now`.
 */
export interface DemoLogsOptions {
  /** The instant the traffic leads up to: no event is later, and the rates follow the age before it. */
  now: Date;
  /**
   * Only events later than this instant: a top-up of traffic written up to it. The range never
   * reaches further back than `days` before `now`.
   * @default `days` before `now`
   */
  after?: Date;
  /** How far back the traffic reaches. @default demoDays */
  days?: number;
  /** Projects that get traffic. @default demoProjects */
  projects?: readonly string[];
  /** Seed of the PRNG; the same options give the same events. @default 1 */
  seed?: number;
  /** Multiplies every volume. @default 1 (about 30,000 events for the demo projects over 3 days) */
  scale?: number;
}

export interface DemoLogEvent {
  /** UUID-shaped, drawn from the PRNG. */
  id: string;
  /** ISO 8601 UTC with microseconds, e.g. `2025-01-02T03:04:05.678901Z`. */
  timestamp: string;
  event_message: string;
  /** Set on the sources whose records carry a top-level `project` (`LogSource.hasProject`). */
  project?: string;
  metadata: Record<string, unknown>;
}

export const demoProjects: readonly string[] = ['default', 'acme-prod', 'acme-staging'];
/** How many days of traffic a fresh demo store gets. */
export const demoDays = 3;

type Rng = () => number;
/** Rows of a table with their relative frequency first. */
type Weighted<T> = readonly (readonly [weight: number, value: T])[];
type DemoFunction = ReturnType<typeof demoFunctions>[number][1];

interface EventContext {
  readonly rng: Rng;
  readonly project: string;
  readonly functions: Weighted<DemoFunction>;
  readonly timestamp: string;
  /** Fills `{project}`, `{ip}` and `{n}` (a number from 1 to 999) in a message template. */
  readonly fill: (template: string) => string;
  /**
   * A weighted choice. The n-th call of the events of one minute follows a low-discrepancy
   * sequence, so that even a few minutes of traffic hold every row of some weight.
   */
  readonly choose: <T>(table: Weighted<T>) => T;
}

interface DemoSource {
  /** Events per hour per project in each of {@link AGE_BANDS}. */
  readonly rates: readonly [number, number, number, number];
  readonly build: (ctx: EventContext) => Pick<DemoLogEvent, 'event_message' | 'metadata'>;
}

const MINUTE = 60_000;
const HOUR = 60 * MINUTE;
const DAY = 24 * HOUR;
/**
 * Upper ages of the bands. Traffic is densest near `now` so that the per-second buckets of
 * `functions.invocation-stats` (5min) and the per-minute ones of `usage.api-counts` (minutely) fill.
 */
const AGE_BANDS = [5 * MINUTE, HOUR, DAY, Number.POSITIVE_INFINITY] as const;
/** Bands from this one on follow {@link dailyCycle}; the last hour stays flat so its minutes fill evenly. */
const FIRST_CYCLING_BAND = 2;
/** The highest value of {@link dailyCycle}. */
const DAILY_CYCLE_PEAK = 1 / 0.6;
/** Candidates are drawn per slot of this length, aligned to the epoch. */
const SLOT = MINUTE;
/**
 * Steps of the sequences behind `choose`, one per call within an event: irrational and
 * independent of one another over the rationals, so that two choices of one event do not correlate.
 */
const CHOICE_STEPS = [(Math.sqrt(5) - 1) / 2, Math.SQRT2 - 1, Math.sqrt(3) - 1];
/** The state of a slot's own generator takes this where a candidate's takes its index. */
const SLOT_STATE = 0xffffffff;
/** Relative volume of the n-th project (cycled), so that projects differ as real ones do. */
const PROJECT_SCALES = [1, 1.5, 0.5];

/** `[weight, [slug, method, median execution ms]]` */
const FUNCTIONS: Weighted<readonly [string, string, number]> = [
  [5, ['hello-world', 'POST', 18]],
  [2, ['stripe-webhook', 'POST', 140]],
  [2, ['send-email', 'POST', 420]],
  [1, ['og-image', 'GET', 950]],
];
/** `[weight, [method, path and search, status, median origin ms]]`: the four API areas, and paths in none. */
const EDGE_ROUTES: Weighted<readonly [string, string, number, number]> = [
  [30, ['GET', '/rest/v1/todos?select=*', 200, 35]],
  [10, ['GET', '/rest/v1/profiles?select=id,username&id=eq.{n}', 200, 28]],
  [6, ['POST', '/rest/v1/todos', 201, 45]],
  [3, ['POST', '/rest/v1/rpc/dashboard_stats', 200, 180]],
  [8, ['GET', '/storage/v1/object/public/avatars/user-{n}.png', 200, 60]],
  [2, ['POST', '/storage/v1/object/uploads/report-{n}.pdf', 200, 320]],
  [8, ['POST', '/auth/v1/token?grant_type=refresh_token', 200, 70]],
  [4, ['GET', '/auth/v1/user', 200, 25]],
  [1, ['POST', '/auth/v1/signup', 200, 240]],
  [5, ['GET', '/realtime/v1/websocket?vsn=1.0.0', 101, 15]],
  [4, ['POST', '/functions/v1/hello-world', 200, 40]],
  [2, ['POST', '/graphql/v1', 200, 55]],
  [1, ['GET', '/favicon.ico', 404, 4]],
];
const EDGE_ERRORS = weights({ 400: 4, 401: 5, 403: 2, 404: 3, 429: 1, 500: 2, 502: 1 });
/** Mostly 2xx, some 4xx/5xx, rare 1xx/3xx: every status class the stats query counts occurs. */
const RELAY_STATUSES = weights({ 200: 910, 101: 3, 302: 7, 400: 20, 401: 15, 404: 10, 500: 20, 503: 5 });
const USER_AGENTS = ['supabase-js/2.45.4', 'Dart/3.4 (dart:io)', 'okhttp/4.12.0', 'PostmanRuntime/7.39.0'];
/** `x-client-info` of the Supabase clients, as the API gateway logs it (none for a bare fetch). */
const CLIENT_INFO = ['supabase-js-web/2.45.4', 'supabase-flutter/2.5.6', 'supabase-kt/2.4.0', ''];
/**
 * Where requests come from, as Cloudflare's `request.cf` describes it (a subset of its fields,
 * named as in Logflare's sample edge event): `[country, continent, city, region, colo, timezone, asn]`.
 */
const PLACES: readonly (readonly [string, string, string, string, string, string, number])[] = [
  ['US', 'NA', 'Ashburn', 'Virginia', 'IAD', 'America/New_York', 14618],
  ['DE', 'EU', 'Frankfurt am Main', 'Hesse', 'FRA', 'Europe/Berlin', 3320],
  ['GB', 'EU', 'London', 'England', 'LHR', 'Europe/London', 2856],
  ['IN', 'AS', 'Mumbai', 'Maharashtra', 'BOM', 'Asia/Kolkata', 55836],
  ['BR', 'SA', 'Sao Paulo', 'Sao Paulo', 'GRU', 'America/Sao_Paulo', 28573],
  ['JP', 'AS', 'Tokyo', 'Tokyo', 'NRT', 'Asia/Tokyo', 2516],
  ['SG', 'AS', 'Singapore', 'Singapore', 'SIN', 'Asia/Singapore', 16509],
];
/** Supabase edge-function regions, as `x_sb_edge_region` names them. */
const EDGE_REGIONS = ['us-east-1', 'eu-central-1', 'ap-southeast-1'];
/**
 * The csvlog `detail` and `hint` Postgres adds to some errors, by message class, as Studio's
 * Logs Explorer shows them (`parsed.detail`, `parsed.hint`).
 */
const POSTGRES_DETAILS: Record<string, { detail?: string; hint?: string }> = {
  'duplicate key': { detail: 'Key (id)=({n}) already exists.' },
  'permission denied': { hint: 'Grant the role SELECT on the table, or add a row level security policy.' },
  'does not exist': { hint: 'Perhaps you meant to reference the table "public.todos".' },
  'password authentication': {
    detail: 'Connection matched pg_hba.conf line 89: "host all all 0.0.0.0/0 scram-sha-256"',
  },
};
/** Postgres SQLSTATE of each demo message class (`00000` is success). */
const SQL_STATES: Record<string, string> = {
  'duplicate key': '23505',
  'permission denied': '42501',
  'does not exist': '42P01',
  'no transaction': '25P01',
  'password authentication': '28P01',
};

/** `[weight, [event_type, level, message]]` */
const FUNCTION_EVENTS: Weighted<readonly [string, string, string]> = [
  [10, ['Boot', 'log', 'booted (time: {n}ms)']],
  [10, ['Shutdown', 'log', 'shutdown']],
  [30, ['Log', 'info', 'Handling request {n}']],
  [15, ['Log', 'info', 'Webhook received: checkout.session.completed']],
  [8, ['Log', 'warning', 'Retrying upstream fetch (attempt 2)']],
  [6, ['Log', 'error', 'Upstream responded with 502 Bad Gateway']],
  [4, ['UncaughtException', 'error', "TypeError: Cannot read properties of undefined (reading 'email')"]],
];
/** `[weight, [error_severity, user_name, message, query]]` */
const POSTGRES_LINES: Weighted<readonly [string, string, string, string]> = [
  [30, ['LOG', 'authenticator', 'connection authorized: user=authenticator database=postgres', '']],
  [20, ['LOG', 'supabase_admin', 'connection received: host={ip} port={n}', '']],
  [8, ['LOG', 'postgres', 'checkpoint complete: wrote {n} buffers (0.1%); 0 WAL file(s) added', '']],
  [4, ['ERROR', 'anon', 'duplicate key value violates unique constraint "todos_pkey"', 'insert into todos']],
  [3, ['ERROR', 'anon', 'permission denied for table profiles', 'select * from public.profiles']],
  [2, ['ERROR', 'authenticated', 'relation "public.todo" does not exist', 'select * from public.todo']],
  [2, ['WARNING', 'postgres', 'there is no transaction in progress', 'COMMIT']],
  [6, ['LOG', 'authenticated', 'statement: COMMIT', 'COMMIT']],
  [1, ['FATAL', 'postgres', 'password authentication failed for user "postgres"', '']],
];
/** `[weight, [method, path, status, level, msg]]` */
const GOTRUE_LINES: Weighted<readonly [string, string, number, string, string]> = [
  [30, ['POST', '/token', 200, 'info', 'request completed']],
  [4, ['POST', '/token', 400, 'info', '400: Invalid login credentials']],
  [15, ['GET', '/user', 200, 'info', 'request completed']],
  [3, ['POST', '/signup', 200, 'info', 'request completed']],
  [3, ['POST', '/logout', 204, 'info', 'request completed']],
  [10, ['GET', '/health', 200, 'info', 'request completed']],
  [1, ['POST', '/token', 500, 'error', 'Unhandled server error: context deadline exceeded']],
];
/** `[weight, [level, message]]` */
const REALTIME_LINES: Weighted<readonly [string, string]> = [
  [20, ['info', 'Channel joined: realtime:public:todos']],
  [10, ['info', 'Billing metrics: realtime:{project} connected clients {n}']],
  [2, ['warning', 'Replication slot lag: {n} MB']],
  [1, ['error', 'UnableToConnectToProject: Realtime was unable to connect to the project database']],
];
/** `[weight, [method, url, status]]` */
const STORAGE_LINES: Weighted<readonly [string, string, number]> = [
  [20, ['GET', '/object/public/avatars/user-{n}.png', 200]],
  [5, ['POST', '/object/uploads/report-{n}.pdf', 200]],
  [5, ['POST', '/object/sign/private/invoice-{n}.pdf', 200]],
  [3, ['GET', '/object/public/avatars/missing.png', 400]],
  [1, ['POST', '/object/uploads/archive.zip', 413]],
];
const POSTGREST_LINES = weights({
  'Schema cache loaded in {n}.0 milliseconds': 10,
  'Received a schema cache reload notification': 5,
  'Connection successful': 3,
  'Failed listening for notifications on the "pgrst" channel. Retrying...': 1,
});
const PGBOUNCER_LINES = weights({
  'LOG C-0x55d5{n}: postgres/authenticator@{ip}:{n} login attempt: db=postgres user=authenticator': 20,
  'LOG C-0x55d5{n}: postgres/authenticator@{ip}:{n} closing because: client close request': 15,
  'LOG stats: {n} xacts/s, {n} queries/s, in {n} B/s, out {n} B/s, xact {n} us, query {n} us': 5,
  'WARNING C-0x55d5{n}: (nodb)/(nouser)@{ip}:{n} pooler error: no more connections allowed': 1,
});

const demoSources: Record<string, DemoSource> = {
  'cloudflare.logs.prod': {
    rates: [900, 600, 100, 40],
    // Shaped like the edge events Logflare's own samples show (request.cf, request.headers,
    // response.headers, logflare_worker), with the fields Studio's Logs Explorer templates read.
    build: ({ rng, project, timestamp, fill, choose }) => {
      const [method, target, okStatus, originMs] = choose(EDGE_ROUTES);
      const host = `${project}.supabase.co`;
      const url = new URL(`https://${host}${fill(target)}`);
      const status = rng() < 0.05 ? choose(EDGE_ERRORS) : okStatus;
      const [ip, userAgent, ray] = [ipAddress(rng), pick(rng, USER_AGENTS), randomHex(rng, 8)];
      const [country, continent, city, region, colo, timezone, asn] = pick(rng, PLACES);
      const clientInfo = pick(rng, CLIENT_INFO);
      const headers = {
        accept: '*/*',
        cf_connecting_ip: ip,
        cf_ipcountry: country,
        cf_ray: ray,
        content_length: method === 'GET' ? '0' : String(64 + Math.floor(rng() * 4000)),
        host,
        user_agent: userAgent,
        x_client_info: clientInfo === '' ? null : clientInfo,
        x_forwarded_proto: 'https',
        x_real_ip: ip,
      };
      // Public storage objects are cached at the edge; everything else passes through.
      const cacheStatus = url.pathname.startsWith('/storage/v1/object/public')
        ? rng() < 0.6
          ? 'HIT'
          : 'MISS'
        : 'DYNAMIC';
      const bytes = status === 101 ? 0 : 120 + Math.floor(rng() * 20_000);
      const responseHeaders = {
        cf_cache_status: cacheStatus,
        cf_ray: `${ray}-${colo}`,
        content_length: String(bytes),
        content_type: url.pathname.endsWith('.png') ? 'image/png' : 'application/json; charset=utf-8',
        date: new Date(timestamp).toUTCString(),
        sb_gateway_version: '1',
      };
      return {
        event_message: `${method} | ${status} | ${ip} | ${ray} | ${url.href} | ${userAgent}`,
        metadata: {
          request: {
            url: url.href,
            path: url.pathname,
            search: url.search,
            method,
            host,
            protocol: 'https:',
            headers,
            cf: { asn, city, colo, continent, country, region, timezone, httpProtocol: 'HTTP/2' },
          },
          response: { status_code: status, origin_time: skewed(rng, originMs), headers: responseHeaders },
          logflare_worker: { worker_id: randomHex(rng, 3).toUpperCase() },
        },
      };
    },
  },
  'deno-relay-logs': {
    rates: [1800, 300, 40, 12],
    build: ({ rng, project, functions, choose }) => {
      const { slug, method, medianMs, ids } = choose(functions);
      const [status, pathname] = [choose(RELAY_STATUSES), `/functions/v1/${slug}`];
      const host = `${project}.supabase.co`;
      const url = `https://${host}${pathname}`;
      // Cold starts give the long tail that the p95/p99 columns of the stats endpoint exist to show.
      const coldStartMs = rng() < 0.04 ? 200 + Math.floor(rng() * 1500) : 0;
      const region = pick(rng, EDGE_REGIONS);
      return {
        event_message: `${method} | ${status} | ${url}`,
        metadata: {
          project_ref: project,
          ...ids,
          version: ids.deployment_id.split('_').at(-1),
          execution_time_ms: skewed(rng, medianMs) + coldStartMs,
          execution_id: uuid(rng),
          request: {
            method,
            url,
            pathname,
            host,
            protocol: 'https:',
            search: '',
            headers: {
              accept: 'application/json',
              user_agent: pick(rng, USER_AGENTS),
              x_client_info: 'supabase-js/2.45.4',
            },
          },
          response: {
            status_code: status,
            headers: {
              content_type: 'application/json',
              x_sb_edge_region: region,
              x_served_by: 'supabase-edge-runtime',
            },
          },
        },
      };
    },
  },
  'deno-subhosting-events': {
    rates: [240, 60, 10, 4],
    build: ({ rng, project, timestamp, functions, fill, choose }) => {
      const [event_type, level, message] = choose(FUNCTION_EVENTS);
      const fn = choose(functions).ids;
      const metadata = { project_ref: project, ...fn, event_type, level, execution_id: uuid(rng), timestamp };
      return { event_message: fill(message), metadata };
    },
  },
  'postgres.logs': {
    rates: [120, 60, 20, 10],
    // `parsed` holds the columns of Postgres' csvlog, as Supabase's postgres_logs carry them.
    build: ({ rng, project, timestamp, fill, choose }) => {
      const [error_severity, user_name, message, query] = choose(POSTGRES_LINES);
      const event_message = fill(message);
      const state = Object.entries(SQL_STATES).find(([text]) => event_message.includes(text));
      const extra = Object.entries(POSTGRES_DETAILS).find(([text]) => event_message.includes(text))?.[1];
      const processId = 1000 + Math.floor(rng() * 60_000);
      const parsed = {
        timestamp: timestamp.replace('T', ' ').replace('Z', ' UTC'),
        error_severity,
        user_name,
        database_name: 'postgres',
        query,
        sql_state_code: state ? state[1] : '00000',
        command_tag:
          query === ''
            ? message.startsWith('connection')
              ? 'authentication'
              : ''
            : query.split(' ')[0]?.toUpperCase(),
        application_name: user_name === 'authenticator' ? 'postgrest' : 'psql',
        backend_type: message.startsWith('checkpoint') ? 'checkpointer' : 'client backend',
        connection_from: `${ipAddress(rng)}:${1024 + Math.floor(rng() * 60_000)}`,
        process_id: processId,
        session_id: `${processId.toString(16)}.${randomHex(rng, 4)}`,
        session_line_num: 1 + Math.floor(rng() * 20),
        ...(extra?.detail ? { detail: fill(extra.detail) } : {}),
        ...(extra?.hint ? { hint: extra.hint } : {}),
      };
      return { event_message, metadata: { host: `db-${project}`, parsed } };
    },
  },
  'gotrue.logs.prod': {
    rates: [120, 60, 10, 5],
    build: ({ rng, project, timestamp, choose }) => {
      const [method, path, status, level, msg] = choose(GOTRUE_LINES);
      const line = {
        component: 'api',
        level,
        method,
        msg,
        path,
        status,
        remote_addr: ipAddress(rng),
        request_id: uuid(rng),
        // GoTrue names the failure of a request that did not succeed.
        ...(status >= 400 ? { error: status >= 500 ? 'context deadline exceeded' : 'invalid_grant' } : {}),
        // GoTrue logs durations in nanoseconds.
        duration: skewed(rng, 40) * 1_000_000,
        // Successful logins and signups are audit events, which GoTrue logs on the request line.
        ...(status === 200 && (path === '/token' || path === '/signup')
          ? {
              auth_event: {
                action: path === '/token' ? 'login' : 'user_signedup',
                actor_id: uuid(rng),
                log_type: path === '/token' ? 'account' : 'team',
              },
            }
          : {}),
      };
      // GoTrue logs JSON lines; Logflare keeps the line as the message and its fields as metadata.
      return { event_message: JSON.stringify({ ...line, time: timestamp }), metadata: { project, ...line } };
    },
  },
  'realtime.logs.prod': {
    rates: [60, 30, 8, 4],
    build: ({ project, fill, choose }) => {
      const [level, message] = choose(REALTIME_LINES);
      return { event_message: fill(message), metadata: { project, level, external_id: project } };
    },
  },
  'storage.logs.prod.2': {
    rates: [60, 40, 8, 4],
    build: ({ rng, project, fill, choose }) => {
      const [method, target, status] = choose(STORAGE_LINES);
      const [url, level, ip] = [fill(target), status < 400 ? 'info' : 'warning', ipAddress(rng)];
      return {
        event_message: `${method} | ${status} | ${ip} | ${uuid(rng)} | ${url} | ${pick(rng, USER_AGENTS)}`,
        metadata: {
          project,
          level,
          tenantId: project,
          reqId: `req-${randomHex(rng, 3)}`,
          responseTime: skewed(rng, 30),
          req: { method, url, hostname: `${project}.supabase.co`, remoteAddress: ip },
          res: { statusCode: status },
        },
      };
    },
  },
  'postgREST.logs.prod': {
    rates: [120, 60, 12, 6],
    build: ({ project, fill, choose }) => ({
      event_message: fill(choose(POSTGREST_LINES)),
      metadata: { project, host: `db-${project}` },
    }),
  },
  'pgbouncer.logs.prod': {
    rates: [60, 30, 6, 3],
    build: ({ project, fill, choose }) => ({
      event_message: fill(choose(PGBOUNCER_LINES)),
      metadata: { project, host: `db-${project}` },
    }),
  },
};

/**
 * Demo events for every shipped source, keyed by source name, oldest first, in
 * `(after, now]`. The same options always give the same events.
 */
export function generateDemoLogs(options: DemoLogsOptions): Map<string, DemoLogEvent[]> {
  const { now, after, days = demoDays, projects = demoProjects, seed = 1, scale = 1 } = options;
  const nowMs = now.getTime();
  const fromMs = Math.max(nowMs - days * DAY, after?.getTime() ?? Number.NEGATIVE_INFINITY);
  const result = new Map<string, DemoLogEvent[]>();
  // The demo is of the nine sources shipped in queries/sources.yaml, whatever directory is served.
  for (const source of readSources(shippedQueriesDir)) {
    const demo = demoSources[source.name];
    if (!demo) continue;
    const events: [us: number, event: DemoLogEvent][] = [];
    projects.forEach((project, p) => {
      // One stream per source and project, so that editing one table leaves the other sources alone.
      const stream: Stream = {
        source,
        demo,
        project,
        functions: demoFunctions(project),
        seed: hash(`${seed}/${source.name}/${project}`),
        volume: scale * at(PROJECT_SCALES, p % PROJECT_SCALES.length),
      };
      for (let slot = Math.floor(fromMs / SLOT); slot * SLOT <= nowMs; slot++) {
        drawSlot(stream, slot, fromMs, nowMs, events);
      }
    });
    const inTimeOrder = events.sort(([a], [b]) => a - b).map(([, event]) => event);
    result.set(source.name, inTimeOrder);
  }
  return result;
}

interface Stream {
  readonly source: LogSource;
  readonly demo: DemoSource;
  readonly project: string;
  readonly functions: Weighted<DemoFunction>;
  readonly seed: number;
  /** Multiplies the rates of `demo`. */
  readonly volume: number;
}

/**
 * Appends the events of one slot that lie in `(fromMs, nowMs]`. Candidate `index` exists where
 * `index + offset` is below the expected count of the whole slot at the rate of its own instant:
 * on average the rate, and a higher rate keeps every candidate a lower one keeps.
 */
function drawSlot(
  stream: Stream,
  slot: number,
  fromMs: number,
  nowMs: number,
  events: [us: number, event: DemoLogEvent][],
): void {
  const { source, demo, project, functions, volume } = stream;
  const startMs = slot * SLOT;
  const perSlot = (volume * SLOT) / HOUR;
  const bound = peakRate(demo.rates, nowMs - startMs - SLOT, nowMs - startMs) * perSlot;
  const slotRng = sfc32(stream.seed, slot, SLOT_STATE);
  const offset = slotRng();
  if (offset >= bound) return;
  const phases = CHOICE_STEPS.map(() => slotRng());
  const [fromUs, nowUs] = [fromMs * 1000, nowMs * 1000];
  for (let index = 0; index + offset < bound; index++) {
    const rng = sfc32(stream.seed, slot, index);
    const us = startMs * 1000 + Math.floor(rng() * SLOT * 1000);
    if (us <= fromUs || us > nowUs) continue;
    const ms = us / 1000;
    if (index + offset >= rateAt(demo.rates, nowMs - ms, ms) * perSlot) continue;
    let calls = 0;
    const choose = <T>(table: Weighted<T>): T => {
      const [step, phase] = [CHOICE_STEPS[calls], phases[calls]];
      calls += 1;
      return weightedAt(
        table,
        step === undefined || phase === undefined ? rng() : (phase + index * step) % 1,
      );
    };
    const fill = (template: string) => fillTemplate(template, rng, project);
    const timestamp = isoMicros(us);
    const { event_message, metadata } = demo.build({ rng, project, functions, timestamp, fill, choose });
    const top = source.hasProject ? { project } : {};
    events.push([us, { id: uuid(rng), timestamp, event_message, ...top, metadata }]);
  }
}

/** Events per hour per unit of volume at an instant `ageMs` before now. */
function rateAt(rates: DemoSource['rates'], ageMs: number, atMs: number): number {
  const band = AGE_BANDS.findIndex((upTo) => ageMs < upTo);
  const rate = at(rates, band);
  return band < FIRST_CYCLING_BAND ? rate : rate * dailyCycle(atMs);
}

/** The highest rate over the ages from `youngestMs` to `oldestMs`: the bound candidates are drawn to. */
function peakRate(rates: DemoSource['rates'], youngestMs: number, oldestMs: number): number {
  let peak = 0;
  AGE_BANDS.forEach((upTo, band) => {
    const lower = band === 0 ? Number.NEGATIVE_INFINITY : at(AGE_BANDS, band - 1);
    if (oldestMs < lower || youngestMs >= upTo) return;
    peak = Math.max(peak, at(rates, band) * (band < FIRST_CYCLING_BAND ? 1 : DAILY_CYCLE_PEAK));
  });
  return peak;
}

/** Relative traffic at an instant's hour of day: 1 on average, peak at 15:00 UTC, a fifth of it at 03:00. */
function dailyCycle(atMs: number): number {
  const hourOfDay = (((atMs % DAY) + DAY) % DAY) / HOUR;
  return (0.6 + 0.4 * Math.cos(((hourOfDay - 15) / 24) * 2 * Math.PI)) * DAILY_CYCLE_PEAK;
}

/** Function ids depend on the project only, so that they stay the same across seeds and restarts. */
function demoFunctions(project: string) {
  return FUNCTIONS.map(([weight, [slug, method, medianMs]]) => {
    const rng = mulberry32(hash(`${project}/${slug}`));
    const id = uuid(rng);
    const ids = { function_id: id, deployment_id: `${project}_${id}_${1 + Math.floor(rng() * 30)}` };
    return [weight, { slug, method, medianMs, ids }] as const;
  });
}

/** Log-normal around `median` (a long right tail), as a positive integer. */
function skewed(rng: Rng, median: number): number {
  const normal = Math.sqrt(-2 * Math.log(1 - rng())) * Math.cos(2 * Math.PI * rng());
  return Math.max(1, Math.round(median * Math.exp(0.6 * normal)));
}

function fillTemplate(template: string, rng: Rng, project: string): string {
  return template
    .replaceAll('{project}', project)
    .replace(/\{ip\}/g, () => ipAddress(rng))
    .replace(/\{n\}/g, () => String(1 + Math.floor(rng() * 999)));
}

/** From the documentation ranges of RFC 5737: realistic, and nobody's real address. */
function ipAddress(rng: Rng): string {
  return `${pick(rng, ['192.0.2', '198.51.100', '203.0.113'])}.${1 + Math.floor(rng() * 254)}`;
}

function isoMicros(us: number): string {
  const millis = new Date(Math.floor(us / 1000)).toISOString().slice(0, -1);
  return `${millis}${String(us % 1000).padStart(3, '0')}Z`;
}

/** Shaped like a version 4 UUID. */
function uuid(rng: Rng): string {
  const [h, variant] = [randomHex(rng, 16), '89ab'.charAt(Math.floor(rng() * 4))];
  return `${h.slice(0, 8)}-${h.slice(8, 12)}-4${h.slice(13, 16)}-${variant}${h.slice(17, 20)}-${h.slice(20)}`;
}

const HEX_BYTES = Array.from({ length: 256 }, (_, byte) => byte.toString(16).padStart(2, '0'));

function randomHex(rng: Rng, bytes: number): string {
  let hex = '';
  for (let i = 0; i < bytes; i++) hex += at(HEX_BYTES, Math.floor(rng() * 256));
  return hex;
}

/** A weighted table from `{ value: weight }`; numeric keys come back as numbers. */
function weights<K extends string | number>(table: Record<K, number>): Weighted<K> {
  return Object.entries<number>(table).map(([key, weight]) => [
    weight,
    (/^\d+$/.test(key) ? Number(key) : key) as K,
  ]);
}

/** The row of `table` at `fraction` (0 to 1) of its cumulative weight. */
function weightedAt<T>(table: Weighted<T>, fraction: number): T {
  let r = fraction * table.reduce((sum, [weight]) => sum + weight, 0);
  for (const [weight, value] of table) {
    r -= weight;
    if (r < 0) return value;
  }
  return at(table, table.length - 1)[1];
}

function pick<T>(rng: Rng, items: readonly T[]): T {
  return at(items, Math.floor(rng() * items.length));
}

function at<T>(items: readonly T[], index: number): T {
  return items[index] as T;
}

/** FNV-1a, to seed one PRNG stream per source and project. */
function hash(text: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) h = Math.imul(h ^ text.charCodeAt(i), 0x01000193);
  return h >>> 0;
}

/**
 * sfc32 (Chris Doty-Humphrey's small fast counting generator) over three 32-bit words: 96 bits
 * of key, so that every stream, slot and candidate has a sequence of its own (a 32-bit seed per
 * candidate would repeat ids among a few tens of thousands of events). The step is a bijection,
 * so distinct keys never merge; the first outputs are skipped because they mix the key poorly.
 */
function sfc32(a: number, b: number, c: number): Rng {
  let x = a | 0;
  let y = b | 0;
  let z = c | 0;
  let counter = 1;
  const next = () => {
    const t = (((x + y) | 0) + counter) | 0;
    counter = (counter + 1) | 0;
    x = y ^ (y >>> 9);
    y = (z + (z << 3)) | 0;
    z = (((z << 21) | (z >>> 11)) + t) | 0;
    return (t >>> 0) / 4294967296;
  };
  for (let i = 0; i < 15; i++) next();
  return next;
}

/** mulberry32: a tiny, fast 32-bit PRNG; plenty for demo data, no dependency. */
function mulberry32(seed: number): Rng {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = Math.imul(a ^ (a >>> 15), a | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
