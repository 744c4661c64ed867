import { hash, mulberry32, uuid, type Weighted, weights } from './random.js';

/**
 * The demo's catalogue: what Supabase's services log (routes, statuses, messages, places), each
 * row with its relative frequency, read by the per-source builders.
 */

/** `[weight, [slug, method, median execution ms]]` */
export const FUNCTIONS: Weighted<readonly [string, string, number]> = [
  [5, ['hello-world', 'POST', 18]],
  [2, ['stripe-webhook', 'POST', 140]],
  [2, ['send-email', 'POST', 420]],
  [1, ['og-image', 'GET', 950]],
];
/** `[weight, [method, path and search, status, median origin ms]]`: the four API areas, and paths in none. */
export const EDGE_ROUTES: Weighted<readonly [string, string, number, number]> = [
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
export const EDGE_ERRORS = weights({ 400: 4, 401: 5, 403: 2, 404: 3, 429: 1, 500: 2, 502: 1 });
/** Mostly 2xx, some 4xx/5xx, rare 1xx/3xx: every status class the stats query counts occurs. */
export const RELAY_STATUSES = weights({
  200: 910,
  101: 3,
  302: 7,
  400: 20,
  401: 15,
  404: 10,
  500: 20,
  503: 5,
});
export const USER_AGENTS = [
  'supabase-js/2.45.4',
  'Dart/3.4 (dart:io)',
  'okhttp/4.12.0',
  'PostmanRuntime/7.39.0',
];
/** `x-client-info` of the Supabase clients, as the API gateway logs it (none for a bare fetch). */
export const CLIENT_INFO = ['supabase-js-web/2.45.4', 'supabase-flutter/2.5.6', 'supabase-kt/2.4.0', ''];
/**
 * Where requests come from, as Cloudflare's `request.cf` describes it (a subset of its fields,
 * named as in Logflare's sample edge event): `[country, continent, city, region, colo, timezone, asn]`.
 */
export const PLACES: readonly (readonly [string, string, string, string, string, string, number])[] = [
  ['US', 'NA', 'Ashburn', 'Virginia', 'IAD', 'America/New_York', 14618],
  ['DE', 'EU', 'Frankfurt am Main', 'Hesse', 'FRA', 'Europe/Berlin', 3320],
  ['GB', 'EU', 'London', 'England', 'LHR', 'Europe/London', 2856],
  ['IN', 'AS', 'Mumbai', 'Maharashtra', 'BOM', 'Asia/Kolkata', 55836],
  ['BR', 'SA', 'Sao Paulo', 'Sao Paulo', 'GRU', 'America/Sao_Paulo', 28573],
  ['JP', 'AS', 'Tokyo', 'Tokyo', 'NRT', 'Asia/Tokyo', 2516],
  ['SG', 'AS', 'Singapore', 'Singapore', 'SIN', 'Asia/Singapore', 16509],
];
/** Supabase edge-function regions, as `x_sb_edge_region` names them. */
export const EDGE_REGIONS = ['us-east-1', 'eu-central-1', 'ap-southeast-1'];
/**
 * The csvlog `detail` and `hint` Postgres adds to some errors, by message class, as Studio's
 * Logs Explorer shows them (`parsed.detail`, `parsed.hint`).
 */
export const POSTGRES_DETAILS: Record<string, { detail?: string; hint?: string }> = {
  'duplicate key': { detail: 'Key (id)=({n}) already exists.' },
  'permission denied': { hint: 'Grant the role SELECT on the table, or add a row level security policy.' },
  'does not exist': { hint: 'Perhaps you meant to reference the table "public.todos".' },
  'password authentication': {
    detail: 'Connection matched pg_hba.conf line 89: "host all all 0.0.0.0/0 scram-sha-256"',
  },
};
/** Postgres SQLSTATE of each demo message class (`00000` is success). */
export const SQL_STATES: Record<string, string> = {
  'duplicate key': '23505',
  'permission denied': '42501',
  'does not exist': '42P01',
  'no transaction': '25P01',
  'password authentication': '28P01',
};

/** `[weight, [event_type, level, message]]` */
export const FUNCTION_EVENTS: Weighted<readonly [string, string, string]> = [
  [10, ['Boot', 'log', 'booted (time: {n}ms)']],
  [10, ['Shutdown', 'log', 'shutdown']],
  [30, ['Log', 'info', 'Handling request {n}']],
  [15, ['Log', 'info', 'Webhook received: checkout.session.completed']],
  [8, ['Log', 'warning', 'Retrying upstream fetch (attempt 2)']],
  [6, ['Log', 'error', 'Upstream responded with 502 Bad Gateway']],
  [4, ['UncaughtException', 'error', "TypeError: Cannot read properties of undefined (reading 'email')"]],
];
/** `[weight, [error_severity, user_name, message, query]]` */
export const POSTGRES_LINES: Weighted<readonly [string, string, string, string]> = [
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
export const GOTRUE_LINES: Weighted<readonly [string, string, number, string, string]> = [
  [30, ['POST', '/token', 200, 'info', 'request completed']],
  [4, ['POST', '/token', 400, 'info', '400: Invalid login credentials']],
  [15, ['GET', '/user', 200, 'info', 'request completed']],
  [3, ['POST', '/signup', 200, 'info', 'request completed']],
  [3, ['POST', '/logout', 204, 'info', 'request completed']],
  [10, ['GET', '/health', 200, 'info', 'request completed']],
  [1, ['POST', '/token', 500, 'error', 'Unhandled server error: context deadline exceeded']],
];
/** `[weight, [level, message]]` */
export const REALTIME_LINES: Weighted<readonly [string, string]> = [
  [20, ['info', 'Channel joined: realtime:public:todos']],
  [10, ['info', 'Billing metrics: realtime:{project} connected clients {n}']],
  [2, ['warning', 'Replication slot lag: {n} MB']],
  [1, ['error', 'UnableToConnectToProject: Realtime was unable to connect to the project database']],
];
/** `[weight, [method, url, status]]` */
export const STORAGE_LINES: Weighted<readonly [string, string, number]> = [
  [20, ['GET', '/object/public/avatars/user-{n}.png', 200]],
  [5, ['POST', '/object/uploads/report-{n}.pdf', 200]],
  [5, ['POST', '/object/sign/private/invoice-{n}.pdf', 200]],
  [3, ['GET', '/object/public/avatars/missing.png', 400]],
  [1, ['POST', '/object/uploads/archive.zip', 413]],
];
export const POSTGREST_LINES = weights({
  'Schema cache loaded in {n}.0 milliseconds': 10,
  'Received a schema cache reload notification': 5,
  'Connection successful': 3,
  'Failed listening for notifications on the "pgrst" channel. Retrying...': 1,
});
export const PGBOUNCER_LINES = weights({
  'LOG C-0x55d5{n}: postgres/authenticator@{ip}:{n} login attempt: db=postgres user=authenticator': 20,
  'LOG C-0x55d5{n}: postgres/authenticator@{ip}:{n} closing because: client close request': 15,
  'LOG stats: {n} xacts/s, {n} queries/s, in {n} B/s, out {n} B/s, xact {n} us, query {n} us': 5,
  'WARNING C-0x55d5{n}: (nodb)/(nouser)@{ip}:{n} pooler error: no more connections allowed': 1,
});

export type DemoFunction = ReturnType<typeof demoFunctions>[number][1];

/** Function ids depend on the project only, so that they stay the same across seeds and restarts. */
export function demoFunctions(project: string) {
  return FUNCTIONS.map(([weight, [slug, method, medianMs]]) => {
    const rng = mulberry32(hash(`${project}/${slug}`));
    const id = uuid(rng);
    const ids = { function_id: id, deployment_id: `${project}_${id}_${1 + Math.floor(rng() * 30)}` };
    return [weight, { slug, method, medianMs, ids }] as const;
  });
}
