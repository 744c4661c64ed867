import { describe, expect, it } from 'vitest';
import { fixtureNow } from '../fixtures/spec-fixture.js';
import { byName, expectNoServerErrors, serveDuringFile, testApiKey } from '../helpers/querygate-server.js';

/**
 * Vector's http sinks in self-hosted Supabase, replayed as they send.
 *
 * Source: supabase/supabase `docker/volumes/logs/vector.yml`: sinks of `type: 'http'`,
 * `encoding.codec: 'json'` (a batch is one JSON array, `Content-Type: application/json`),
 * `method: 'post'`, header `x-api-key`, `uri: 'http://analytics:4000/api/logs?source_name=<source>'`.
 * The events are what its `project_logs` and `kong_logs` / `auth_logs` transforms make of a
 * container line: `project: "default"`, `event_message`, `appname`, an RFC 3339 timestamp with
 * nanoseconds, and `metadata.request` / `metadata.response` for Kong.
 */

const server = serveDuringFile({ now: fixtureNow });

function vectorSink(source: string, events: readonly unknown[]) {
  return fetch(`${server().url}/api/logs?source_name=${source}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'x-api-key': testApiKey },
    body: JSON.stringify(events),
  });
}

const kongLine = (path: string) =>
  `172.18.0.1 - - [15/May/2026:12:30:00 +0000] "GET ${path} HTTP/1.1" 200 12 "-" "curl/8.5.0"`;

const kongEvents = [0, 1, 2].map((n) => ({
  project: 'default',
  appname: 'supabase-kong',
  event_message: kongLine(`/rest/v1/items?n=${n}`),
  timestamp: `2026-05-15T12:30:0${n}.123456789Z`,
  metadata: {
    request: {
      headers: { referer: '-', user_agent: 'curl/8.5.0', cf_connecting_ip: '172.18.0.1' },
      method: 'GET',
      path: `/rest/v1/items?n=${n}`,
      protocol: 'HTTP/1.1',
    },
    response: { status_code: 200 },
  },
}));

describe("Vector's http sink (self-hosted Supabase)", () => {
  it('stores a batch of Kong lines posted as a JSON array, readable through logs.all', async () => {
    const response = await vectorSink('cloudflare.logs.prod', kongEvents);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ message: 'Logged!', ingested: 3 });
    const read = await server().request('GET', byName('logs.all'), {
      params: { project: 'default', project_tier: 'ENTERPRISE' },
      headers: { 'cache-control': 'no-cache' },
    });
    const rows = (read.body as { result: Array<{ event_message: string; timestamp: number }> }).result;
    // Newest first, timestamps truncated from nanoseconds to microseconds.
    expect(rows.map((row) => [row.event_message, row.timestamp])).toEqual(
      [2, 1, 0].map((n) => [
        kongLine(`/rest/v1/items?n=${n}`),
        Date.UTC(2026, 4, 15, 12, 30, n) * 1000 + 123_456,
      ]),
    );
  });

  it('stores the auth, realtime and database sinks too, each named by source_name', async () => {
    const sinks: ReadonlyArray<readonly [string, unknown]> = [
      [
        'gotrue.logs.prod',
        {
          project: 'default',
          appname: 'supabase-auth',
          event_message: '{"level":"info","msg":"request completed","path":"/health"}',
          timestamp: '2026-05-15T12:31:00.000000001Z',
          metadata: {
            level: 'info',
            msg: 'request completed',
            path: '/health',
            timestamp: '2026-05-15T12:31:00Z',
          },
        },
      ],
      [
        'realtime.logs.prod',
        {
          appname: 'realtime-dev.supabase-realtime',
          event_message: 'Billing metrics: tenant=realtime-dev',
          timestamp: '2026-05-15T12:31:01.5Z',
          metadata: { project: 'default', external_id: 'default', level: 'info' },
        },
      ],
      [
        'postgres.logs',
        {
          project: 'default',
          appname: 'supabase-db',
          event_message: '2026-05-15 12:31:02.000 UTC [1] LOG:  checkpoint starting: time',
          timestamp: '2026-05-15T12:31:02.000Z',
          metadata: {
            host: 'db-default',
            parsed: { error_severity: 'LOG', timestamp: '2026-05-15T12:31:02.000Z' },
          },
        },
      ],
    ];
    for (const [source, event] of sinks) {
      const response = await vectorSink(source, [event]);
      expect(response.status, source).toBe(200);
      expect(await response.json()).toEqual({ message: 'Logged!', ingested: 1 });
    }
  });

  it('never answered 5xx or leaked internals', () => {
    expectNoServerErrors(server());
  });
});
