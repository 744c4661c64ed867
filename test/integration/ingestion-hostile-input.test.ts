import { connect } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  leaksInternals,
  type QuerygateUnderTest,
  startQuerygateUnderTest,
} from '../helpers/querygate-server.js';

/**
 * POST /api/logs on the real server with values and keys that once failed other clients or grew
 * the store without bound: a bad value fails only its own request, with a 400 naming the event
 * index and field; what it was committed beside is stored; no body names a server path.
 */

const now = new Date('2026-05-01T12:00:00Z');
const source = 'cloudflare.logs.prod';

describe('hostile ingestion over HTTP', () => {
  let app: QuerygateUnderTest;

  beforeAll(async () => {
    // Schema changes unpaced: the cap on typed fields is under test here, not the pacing of
    // changes (storage-schema-pacing.test.ts), which would keep the wide event's keys in _extra.
    app = await startQuerygateUnderTest({ now, environment: { QUERYGATE_SCHEMA_CHANGE_INTERVAL_MS: '0' } });
  });

  afterAll(async () => {
    await app?.close();
  });

  const listed = async (project: string) => {
    const result = await app.get('/api/endpoints/logs.all', { project, project_tier: 'FREE' });
    expect(result.status, result.text).toBe(200);
    return (result.body as { result: Array<{ event_message: string; metadata: unknown[] }> }).result;
  };

  it('returns 400 naming the event index and field for -9223372036854775808, while requests sent beside it answer 200', async () => {
    const good = (n: number) => ({
      event_message: `good ${n}`,
      project: 'poison-ref',
      metadata: { request: { path: `/p${n}` }, n },
    });
    // JSON.stringify cannot write the int64 minimum exactly, so the poisoned body is spelled out.
    const poisoned =
      `{"batch": [${JSON.stringify(good(100))}, ` +
      '{"event_message": "bad", "project": "poison-ref", "metadata": {"n": -9223372036854775808}}]}';
    const [bad, ...goods] = await Promise.all([
      app.request('POST', '/api/logs', { params: { source_name: source }, body: poisoned }),
      ...Array.from({ length: 12 }, (_, n) => app.ingest(source, [good(n)])),
    ]);
    if (!bad) throw new Error('no answer to the poisoned request');
    expect(bad.status, bad.text).toBe(400);
    const message = (bad.body as { error: { message: string } }).error.message;
    expect(message).toMatch(/^event 1: field metadata\.n: integer -9223372036854775808 /);
    for (const result of goods) expect(result.status, result.text).toBe(200);

    // Every good request is stored; nothing of the refused one, not even its good first event.
    const messages = (await listed('poison-ref')).map((row) => row.event_message).sort();
    expect(messages).toEqual(Array.from({ length: 12 }, (_, n) => `good ${n}`).sort());
  });

  it.each([
    [
      'an integer beyond 2^53 in a list',
      '{"metadata": {"ids": [1, 18446744073709551615]}}',
      /^event 0: field metadata\.ids\[1\]: integer 18446744073709551616 /,
    ],
    [
      'an integer beyond 2^53 at the top level',
      '{"level": 9007199254740993}',
      /^event 0: field level: integer 9007199254740992 /,
    ],
  ])('returns 400 naming the field for %s', async (_name, fields, expected) => {
    const body = `{"event_message": "x", ${fields.slice(1, -1)}}`;
    const result = await app.request('POST', '/api/logs', { params: { source_name: source }, body });
    expect(result.status, result.text).toBe(400);
    expect((result.body as { error: { message: string } }).error.message).toMatch(expected);
  });

  it('answers 200 for 10,000 distinct metadata keys and serves the record with its typed fields capped at 500', async () => {
    const metadata = Object.fromEntries(Array.from({ length: 10_000 }, (_, i) => [`key_${i}`, i]));
    const result = await app.ingest(source, [
      { event_message: 'wide', project: 'wide-ref', metadata: { request: { path: '/' }, ...metadata } },
    ]);
    expect(result.status, result.text).toBe(200);
    const rows = await listed('wide-ref');
    expect(rows).toHaveLength(1);
    const [typed] = (rows[0]?.metadata ?? []) as Array<Record<string, unknown>>;
    // The seed's request and response, then new keys up to 500 named fields in all (8 seed fields).
    expect(Object.keys(typed ?? {})).toHaveLength(2 + (500 - 8));
  });

  it('names no server path and no engine text in any answer', () => {
    expect(app.responses.length).toBeGreaterThan(0);
    for (const response of app.responses) {
      expect(response.status).toBeLessThan(500);
      expect(leaksInternals(response.text)).toBe(false);
      expect(response.text).not.toMatch(/\/tmp\/|querygate-rest-|\.duckdb|\.ndjson|Error:/);
    }
  });
});

describe('ingestion bodies in flight beyond QUERYGATE_INGEST_INFLIGHT_BYTES', () => {
  let app: QuerygateUnderTest;
  // Each request is 5 MB of events once inflated: one fits the bound, two do not.
  const inFlightBytes = 6_000_000;
  const eventsPerRequest = 10_000;

  beforeAll(async () => {
    app = await startQuerygateUnderTest({
      now,
      environment: { QUERYGATE_INGEST_INFLIGHT_BYTES: String(inFlightBytes) },
    });
  });

  afterAll(async () => {
    await app?.close();
  });

  const gzippedBatch = (request: number) =>
    gzipSync(
      JSON.stringify(
        Array.from({ length: eventsPerRequest }, (_, i) => ({
          event_message: `request ${request} event ${i}`,
          project: 'in-flight',
          metadata: {
            request: { url: `https://in-flight-${request}.supabase.co/rest/v1/t`, path: '/rest/v1/t' },
            pad: 'x'.repeat(400),
          },
        })),
      ),
    );

  it('answers 503 with Retry-After to the gzip batches that do not fit, stores every one it answers 200 and none it refuses', async () => {
    const bodies = Array.from({ length: 6 }, (_, request) => gzippedBatch(request));
    expect(bodies.every((body) => body.length < 100_000)).toBe(true);
    const answers = await Promise.all(
      bodies.map(async (body) => {
        const response = await fetch(`${app.url}/api/logs?source_name=${source}`, {
          method: 'POST',
          headers: {
            'x-api-key': app.apiKey,
            'content-type': 'application/json',
            'content-encoding': 'gzip',
          },
          body: new Uint8Array(body),
        });
        return {
          status: response.status,
          retryAfter: response.headers.get('retry-after'),
          text: await response.text(),
        };
      }),
    );
    const stored = new Set(answers.flatMap((answer, request) => (answer.status === 200 ? [request] : [])));
    const refused = answers.filter((answer) => answer.status !== 200);
    expect(stored.size).toBeGreaterThan(0);
    expect(refused.length).toBeGreaterThan(0);
    for (const answer of refused) {
      expect(answer.status, answer.text).toBe(503);
      expect(answer.retryAfter).toBe('1');
      expect(JSON.parse(answer.text).error).toMatchObject({
        code: 'ENGINE_BUSY',
        message: expect.stringContaining('QUERYGATE_INGEST_INFLIGHT_BYTES'),
      });
    }

    // Once they are answered the bytes are given back: a request sent again alone is taken.
    const again = answers.findIndex((answer) => answer.status === 503);
    const resent = await fetch(`${app.url}/api/logs?source_name=${source}`, {
      method: 'POST',
      headers: { 'x-api-key': app.apiKey, 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: new Uint8Array(bodies[again] as Buffer),
    });
    expect(resent.status, await resent.text()).toBe(200);
    stored.add(again);

    // Every record of the requests answered 200, none of those answered 503 (usage.api-counts
    // counts a request's records by the project in their url).
    for (const request of bodies.keys()) {
      const counted = await app.get('/api/endpoints/usage.api-counts', {
        project: `in-flight-${request}`,
        interval: 'daily',
      });
      expect(counted.status, counted.text).toBe(200);
      const rows = (counted.body as { result: Array<{ total_rest_requests: number }> }).result;
      const total = rows.reduce((sum, row) => sum + Number(row.total_rest_requests), 0);
      expect(total, `request ${request}`).toBe(stored.has(request) ? eventsPerRequest : 0);
    }
  });
  // Found from outside: once one event had widened a source's metadata to 500 fields, a 24 KB gzip
  // body of 450,000 tiny events cost DuckDB gigabytes to store, and three at once held every query
  // and ingestion of the server for minutes, while the bodies' bytes were well within the bound.
  it('answers 413 naming how many events to send at once when storing a small body in a wide source would exceed the bound, and stores none of it', async () => {
    const post = async (target: string, events: readonly unknown[]) => {
      const response = await fetch(`${app.url}/api/logs?source_name=${target}`, {
        method: 'POST',
        headers: { 'x-api-key': app.apiKey, 'content-type': 'application/json', 'content-encoding': 'gzip' },
        body: new Uint8Array(gzipSync(JSON.stringify(events))),
      });
      return { status: response.status, text: await response.text() };
    };
    // Counted by the operator's SQL route (`querygate query` through the server).
    const stored = async (table: string) => {
      const response = await fetch(`${app.url}/api/store-query`, {
        method: 'POST',
        headers: { 'x-api-key': app.apiKey, 'content-type': 'application/json' },
        body: JSON.stringify({
          sql: `select count(*) as n from \`${table}\``,
          params: {},
          now: now.toISOString(),
          max_rows: 1,
        }),
      });
      const text = await response.text();
      expect(response.status, text).toBe(200);
      return Number(JSON.parse(text).result[0].n);
    };
    const small = (count: number) =>
      Array.from({ length: count }, (_, i) => ({
        event_message: `e${i}`,
        project: 'wide',
        metadata: { k0: i },
      }));

    // One event with 600 keys takes the source's metadata to its 500 typed fields.
    const wide = Object.fromEntries(Array.from({ length: 600 }, (_, i) => [`k${i}`, i]));
    const widened = await post('realtime.logs.prod', [
      { event_message: 'wide', project: 'wide', metadata: wide },
    ]);
    expect(widened.status, widened.text).toBe(200);

    // 5,000 events are a 20 KB body: about 40 MB to store at 500 fields each, beyond the 6 MB bound.
    const refused = await post('realtime.logs.prod', small(5_000));
    expect(refused.status, refused.text).toBe(413);
    const { error } = JSON.parse(refused.text);
    expect(error.code).toBe('PAYLOAD_TOO_LARGE');
    expect(error.message).toContain('QUERYGATE_INGEST_INFLIGHT_BYTES');
    const most = Number(/send at most (\d+) records per request/.exec(error.message)?.[1]);
    expect(most).toBeGreaterThan(0);
    expect(most).toBeLessThan(5_000);
    expect(await stored('realtime.logs.prod')).toBe(1);

    // As many as it says are taken; four such requests at once count at what they cost to store,
    // so the bound takes one at a time and tells the others to come again.
    const together = await Promise.all(
      Array.from({ length: 4 }, () => post('realtime.logs.prod', small(most))),
    );
    const taken = together.filter((answer) => answer.status === 200).length;
    expect(taken).toBeGreaterThan(0);
    for (const answer of together.filter((answer) => answer.status !== 200)) {
      expect(answer.status, answer.text).toBe(503);
      expect(JSON.parse(answer.text).error.code).toBe('ENGINE_BUSY');
    }
    expect(taken).toBeLessThan(4);
    expect(await stored('realtime.logs.prod')).toBe(1 + taken * most);
    // The same 5,000 events into a narrow source are taken: what counts is what the records cost
    // to store, not the bytes of the body.
    const narrow = await post('pgbouncer.logs.prod', small(5_000));
    expect(narrow.status, narrow.text).toBe(200);
    expect(await stored('pgbouncer.logs.prod')).toBe(5_000);
  });

  // 450,000 records of `{"event_message":"a"}` are a 24 KB gzip body that held some 490 MB of
  // the server's memory while each record was read and checked, sixteen such bodies 31 s of its
  // main thread: a body's records are counted before any of them is read.
  it('answers 413 to a body of more records than the bound takes before checking any of them', async () => {
    const records = Array.from({ length: 60_000 }, () => ({ not_a_field: 1 }));
    const response = await fetch(`${app.url}/api/logs?source_name=pgbouncer.logs.prod`, {
      method: 'POST',
      headers: { 'x-api-key': app.apiKey, 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: new Uint8Array(gzipSync(JSON.stringify(records))),
    });
    const text = await response.text();
    // Each record lacks event_message: read one by one, the first would be refused 400.
    expect(response.status, text).toBe(413);
    const { error } = JSON.parse(text);
    expect(error.code).toBe('PAYLOAD_TOO_LARGE');
    expect(error.message).toMatch(/These 60000 records .* send at most \d+ records per request/);
  });

  // Found by fuzzing: a Content-Length beyond QUERYGATE_MAX_BODY_BYTES was counted against the
  // bytes in flight first, so beside another request it answered 503 "send this request again",
  // which a client (Vector) does for ever, for a body that can never be taken.
  it('answers 413, not 503, to a body declared larger than the body limit while another request is in flight', async () => {
    const url = new URL(app.url);
    const head = (length: number) =>
      `POST /api/logs?source_name=${source} HTTP/1.1\r\nHost: x\r\nx-api-key: ${app.apiKey}\r\ncontent-type: application/json\r\ncontent-length: ${length}\r\n\r\n`;
    // 5 MB declared and not yet sent: held in flight (the bound is 6 MB).
    const slow = connect(Number(url.port), url.hostname);
    slow.on('error', () => {});
    slow.write(`${head(5_000_000)}[`);
    await new Promise((resolve) => setTimeout(resolve, 200));
    const oversized = connect(Number(url.port), url.hostname);
    const answer = await new Promise<string>((resolve) => {
      let text = '';
      oversized.on('data', (chunk) => {
        text += String(chunk);
        if (text.includes('\r\n\r\n')) resolve(text);
      });
      oversized.on('error', () => resolve(text));
      oversized.write(head(20_000_000));
    });
    oversized.destroy();
    slow.destroy();
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
  });
});
