import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { fixtureNow } from '../fixtures/spec-fixture.js';
import {
  expectNoServerErrors,
  type QuerygateUnderTest,
  startQuerygateUnderTest,
  testApiKey,
} from '../helpers/querygate-server.js';

/**
 * A kept GraphQL answer is sent again before Fastify, which reads the body itself and hands the
 * request on to the route when it has no answer (src/graphql/replayed-answers.ts). These check,
 * on the real server, that both ways give the route's answer: the same bytes and headers, the
 * same counts, the body limit and the key check as the route applies them.
 */

// Small enough that a body can be over it while still short enough to be looked up for replay.
const maxBodyBytes = 1024;
let service: QuerygateUnderTest;

beforeAll(async () => {
  // No events: their ingestion would be over this body limit; an empty result caches all the same.
  service = await startQuerygateUnderTest({
    now: fixtureNow,
    environment: { QUERYGATE_MAX_BODY_BYTES: String(maxBodyBytes) },
  });
});

afterAll(async () => {
  expectNoServerErrors(service);
  await service?.close();
});

const operation = (project: string) =>
  JSON.stringify({
    query: `query Counts($project: String!) { usage { apiCounts(project: $project, interval: HOURLY) { timestamp totalRestRequests } } }`,
    variables: { project },
  });

const post = (body: string, apiKey: string | null = testApiKey) =>
  service.request('POST', '/graphql', {
    apiKey,
    headers: { 'content-type': 'application/json', accept: 'application/graphql-response+json' },
    body,
  });

describe('a replayed GraphQL answer', () => {
  it('is the bytes and headers of the answer the route made, and counts as the hit it is', async () => {
    const body = operation('replay-early');
    const first = await post(body);
    const second = await post(body);
    const before = service.resolverStats();
    const replayed = [await post(body), await post(body)];
    const after = service.resolverStats();
    expect([first, second, ...replayed].map((answer) => answer.status)).toEqual([200, 200, 200, 200]);
    expect(first.body).toEqual({ data: { usage: { apiCounts: [] } } });
    for (const answer of [second, ...replayed]) {
      expect(answer.text).toBe(first.text);
      expect(answer.headers.get('content-type')).toBe(first.headers.get('content-type'));
      expect(answer.headers.get('content-length')).toBe(String(Buffer.byteLength(first.text)));
    }
    // One endpoint call per operation, each a hit of the result the first one computed.
    expect(after.hits - before.hits).toBe(2);
    expect(after.misses - before.misses).toBe(0);
  });

  it('answers a request as long as a kept one but not the same through the route, which gets the body read', async () => {
    const kept = operation('replay-length-a');
    const other = operation('replay-length-b');
    expect(Buffer.byteLength(other)).toBe(Buffer.byteLength(kept));
    for (let i = 0; i < 3; i++) expect((await post(kept)).status).toBe(200);
    const before = service.resolverStats();
    const answer = await post(other);
    const after = service.resolverStats();
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ data: { usage: { apiCounts: [] } } });
    // Its own call, run: not the kept answer's.
    expect(after.misses - before.misses).toBe(1);
  });

  it("refuses a body over the server's limit with 413 every time, though short enough to be looked up", async () => {
    const body = operation(`replay-large-${'x'.repeat(maxBodyBytes)}`);
    expect(Buffer.byteLength(body)).toBeGreaterThan(maxBodyBytes);
    const answers = [await post(body), await post(body), await post(body)];
    expect(answers.map((answer) => answer.status)).toEqual([413, 413, 413]);
    expect(answers.map((answer) => (answer.body as { error?: { code?: string } }).error?.code)).toEqual([
      'PAYLOAD_TOO_LARGE',
      'PAYLOAD_TOO_LARGE',
      'PAYLOAD_TOO_LARGE',
    ]);
  });

  it('is never sent without a valid key, however often the request was answered', async () => {
    const body = operation('replay-keys');
    for (let i = 0; i < 3; i++) expect((await post(body)).status).toBe(200);
    expect((await post(body, null)).status).toBe(401);
    expect((await post(body, `${testApiKey}x`)).status).toBe(401);
    expect((await post(body)).status).toBe(200);
  });

  it('survives a client that hangs up halfway through a body it would replay, and answers the next', async () => {
    const body = operation('replay-cut');
    for (let i = 0; i < 3; i++) expect((await post(body)).status).toBe(200);
    const { port } = new URL(service.url);
    // The head says the kept body's length, so the body is read early; half of it comes.
    await new Promise<void>((resolve, reject) => {
      const socket = connect(Number(port), '127.0.0.1', () => {
        socket.write(
          `POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-KEY: ${testApiKey}\r\n` +
            'Content-Type: application/json\r\nAccept: application/graphql-response+json\r\n' +
            `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body.slice(0, body.length / 2)}`,
        );
        setTimeout(() => socket.destroy(), 50);
      });
      socket.on('close', () => resolve());
      socket.on('error', reject);
    });
    const again = await post(body);
    expect(again.status).toBe(200);
    expect(again.body).toEqual({ data: { usage: { apiCounts: [] } } });
  });
});

describe('a replayed GraphQL answer on the wire', () => {
  /** Sends `requests` one after another on one keep-alive connection; each answer's head and body as sent. */
  async function rawExchanges(requests: string[]): Promise<{ head: string; body: string }[]> {
    const { port } = new URL(service.url);
    const socket = connect(Number(port), '127.0.0.1');
    let received = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
    });
    const answers: { head: string; body: string }[] = [];
    try {
      for (const request of requests) {
        received = Buffer.alloc(0);
        socket.write(request);
        for (;;) {
          const end = received.indexOf('\r\n\r\n');
          const head = end === -1 ? '' : received.subarray(0, end).toString('latin1');
          const length = Number(/\r\ncontent-length: (\d+)/i.exec(head)?.[1] ?? Number.NaN);
          if (end !== -1 && received.length >= end + 4 + length) {
            answers.push({ head, body: received.subarray(end + 4, end + 4 + length).toString('utf8') });
            break;
          }
          await new Promise((resolve) => setTimeout(resolve, 5));
        }
      }
    } finally {
      socket.destroy();
    }
    return answers;
  }

  it.each(['application/graphql-response+json', 'application/json'])(
    'is byte for byte the executed answer, status line and headers included but the date, for Accept %s',
    async (accept) => {
      const body = operation(`replay-wire-${accept}`);
      const request =
        `POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-KEY: ${testApiKey}\r\n` +
        `Content-Type: application/json\r\nAccept: ${accept}\r\n` +
        `Content-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
      // The first is executed, the second executed and kept, the third and fourth replayed early.
      const before = service.resolverStats();
      const answers = await rawExchanges([request, request, request, request]);
      const after = service.resolverStats();
      expect(after.misses - before.misses).toBe(1);
      const [executed, ...again] = answers.map(({ head, body }) => ({
        head: head.replace(/\r\ndate: [^\r]*/i, ''),
        body,
      }));
      expect(executed?.head).toMatch(/^HTTP\/1\.1 200 OK\r\n/);
      expect(executed?.head.toLowerCase()).toContain(`\r\ncontent-type: ${accept}; charset=utf-8\r\n`);
      expect(JSON.parse(executed?.body ?? '')).toEqual({ data: { usage: { apiCounts: [] } } });
      for (const answer of again) expect(answer).toEqual(executed);
    },
  );

  /** Writes `pieces` on one connection, a few ms apart; the first `count` answers' status and body. */
  async function rawWrites(pieces: string[], count: number): Promise<{ status: number; body: string }[]> {
    const { port } = new URL(service.url);
    const socket = connect(Number(port), '127.0.0.1');
    let received = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      received = Buffer.concat([received, chunk]);
    });
    try {
      for (const piece of pieces) {
        socket.write(piece);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const answers: { status: number; body: string }[] = [];
      for (let waited = 0; answers.length < count && waited < 5_000; waited += 5) {
        const end = received.indexOf('\r\n\r\n');
        const head = end === -1 ? '' : received.subarray(0, end).toString('latin1');
        const length = Number(/\r\ncontent-length: (\d+)/i.exec(head)?.[1] ?? Number.NaN);
        if (end !== -1 && received.length >= end + 4 + length) {
          const body = received.subarray(end + 4, end + 4 + length).toString('utf8');
          answers.push({ status: Number(head.split(' ')[1]), body });
          received = received.subarray(end + 4 + length);
        } else await new Promise((resolve) => setTimeout(resolve, 5));
      }
      return answers;
    } finally {
      socket.destroy();
    }
  }

  it('answers a body that comes in pieces, and requests written together, each in its turn', async () => {
    const body = operation('replay-pieces');
    for (let i = 0; i < 3; i++) expect((await post(body)).status).toBe(200);
    const kept = (await post(body)).text;
    const request = (sent: string) =>
      `POST /graphql HTTP/1.1\r\nHost: 127.0.0.1\r\nX-API-KEY: ${testApiKey}\r\n` +
      'Content-Type: application/json\r\nAccept: application/graphql-response+json\r\n' +
      `Content-Length: ${Buffer.byteLength(sent)}\r\n\r\n${sent}`;
    // As long as the kept body, so read early too, then handed to the route, which refuses it.
    const notJson = `{${'x'.repeat(Buffer.byteLength(body) - 1)}`;
    const split = request(body);
    const before = service.resolverStats();
    const answers = await rawWrites(
      [split.slice(0, -20), split.slice(-20) + request(body) + request(notJson) + request(body)],
      4,
    );
    const after = service.resolverStats();
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 400, 200]);
    for (const answer of [answers[0], answers[1], answers[3]]) expect(answer?.body).toBe(kept);
    // The three replays, each the hit of its one call.
    expect(after.hits - before.hits).toBe(3);
    expect(after.misses - before.misses).toBe(0);
  });
});

describe('an answer made from the calls an operation made before, sent before Fastify', () => {
  // Each request carries an undeclared variable of its own, so none is ever replayed: after the
  // first two (yoga's, then the fast path's, which remembers the calls) they are answered from
  // the remembered calls.
  const varied = (project: string, request: number | string) =>
    JSON.stringify({
      query: `query Counts($project: String!) { usage { apiCounts(project: $project, interval: HOURLY) { timestamp totalRestRequests } } }`,
      variables: { project, request },
    });

  it("refuses a body over the server's limit with 413, though its declared values were answered before", async () => {
    for (let request = 0; request < 3; request++)
      expect((await post(varied('remembered-large', request))).status).toBe(200);
    const large = varied('remembered-large', 'x'.repeat(maxBodyBytes));
    expect(Buffer.byteLength(large)).toBeGreaterThan(maxBodyBytes);
    const answer = await post(large);
    expect(answer.status).toBe(413);
    expect((answer.body as { error?: { code?: string } }).error?.code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('is never sent without a valid key', async () => {
    for (let request = 0; request < 3; request++)
      expect((await post(varied('remembered-keys', request))).status).toBe(200);
    expect((await post(varied('remembered-keys', 3), null)).status).toBe(401);
    expect((await post(varied('remembered-keys', 4), `${testApiKey}x`)).status).toBe(401);
    const answer = await post(varied('remembered-keys', 5));
    expect(answer.status).toBe(200);
    expect(answer.body).toEqual({ data: { usage: { apiCounts: [] } } });
  });
});
