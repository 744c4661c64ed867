import {
  GOTRUE_LINES,
  PGBOUNCER_LINES,
  POSTGRES_DETAILS,
  POSTGRES_LINES,
  POSTGREST_LINES,
  REALTIME_LINES,
  SQL_STATES,
  STORAGE_LINES,
  USER_AGENTS,
} from './catalog.js';
import type { DemoSource } from './demo-source.js';
import { ipAddress, pick, randomHex, skewed, uuid } from './random.js';

/** Builders of the services behind the gateway: Postgres, its pooler, and the Supabase services. */
export const serviceSources: Record<string, DemoSource> = {
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
