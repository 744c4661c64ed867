import { request } from 'node:http';
import type { AddressInfo } from 'node:net';
import { brotliCompressSync, deflateSync, gzipSync } from 'node:zlib';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { toQuerygateError } from '../../src/http/respond.js';
import { readLogEvents } from '../../src/rest/read-log-events.js';

const maxBytes = 64 * 1024;
let app: FastifyInstance;
let url: string;

beforeAll(async () => {
  // Fastify reads the bytes within the wire limit, as the ingest routes configure it; answers
  // with the events read, or the error's code: anything but a QuerygateError is a 500.
  app = Fastify();
  app.removeAllContentTypeParsers();
  app.addContentTypeParser('*', { parseAs: 'buffer', bodyLimit: maxBytes }, (_request, body, done) =>
    done(null, body),
  );
  app.post('/api/logs', async (request, reply) => {
    const { events } = await readLogEvents(request.headers, request.body as Buffer | undefined, { maxBytes });
    return reply.send({ events });
  });
  app.setErrorHandler((error, _request, reply) => {
    const known = toQuerygateError(error);
    void reply
      .code(known.code === 'INTERNAL' ? 500 : known.status)
      .send({ code: known.code === 'INTERNAL' ? 'UNEXPECTED' : known.code, message: String(error) });
  });
  await app.listen({ port: 0, host: '127.0.0.1' });
  url = `http://127.0.0.1:${(app.server.address() as AddressInfo).port}/api/logs?source_name=x`;
});

afterAll(async () => {
  // fetch keeps connections alive; without closing them close() waits out the keep-alive timeout.
  app.server.closeAllConnections();
  await app.close();
});

async function post(body: string | Uint8Array, headers: Record<string, string>) {
  // A copy into a fresh ArrayBuffer is what fetch's BodyInit type accepts.
  const response = await fetch(url, {
    method: 'POST',
    headers,
    body: typeof body === 'string' ? body : new Uint8Array(body),
  });
  return {
    status: response.status,
    body: (await response.json()) as { events?: unknown[]; code?: string; message?: string },
  };
}

const json = { 'content-type': 'application/json' };
const ndjson = { 'content-type': 'application/x-ndjson' };

describe('readLogEvents', () => {
  it('reads a single event object as a batch of one', async () => {
    expect(await post('{"event_message":"a"}', json)).toEqual({
      status: 200,
      body: { events: [{ event_message: 'a' }] },
    });
  });

  it('reads the events of a {"batch": [...]} body', async () => {
    const body = JSON.stringify({
      batch: [{ event_message: 'a' }, { event_message: 'b', metadata: { x: 1 } }],
    });
    expect((await post(body, json)).body.events).toEqual([
      { event_message: 'a' },
      { event_message: 'b', metadata: { x: 1 } },
    ]);
  });

  it('reads NDJSON, skipping blank lines and accepting CRLF', async () => {
    const body = '{"event_message":"a"}\r\n\n{"event_message":"b"}\n';
    expect((await post(body, { 'content-type': 'application/x-ndjson; charset=utf-8' })).body.events).toEqual(
      [{ event_message: 'a' }, { event_message: 'b' }],
    );
  });

  it('reads a gzip-compressed JSON body', async () => {
    const body = gzipSync(JSON.stringify({ batch: [{ event_message: 'zipped "q"\n' }] }));
    expect((await post(body, { ...json, 'content-encoding': 'gzip' })).body.events).toEqual([
      { event_message: 'zipped "q"\n' },
    ]);
  });

  it('reads a deflate- and a br-compressed JSON body, as Logflare (PlugCaisson) does', async () => {
    const body = JSON.stringify({ event_message: 'packed' });
    for (const [encoding, packed] of [
      ['deflate', deflateSync(body)],
      ['br', brotliCompressSync(body)],
    ] as const)
      expect((await post(packed, { ...json, 'content-encoding': encoding })).body.events).toEqual([
        { event_message: 'packed' },
      ]);
  });

  it('reads gzip-compressed NDJSON', async () => {
    const body = gzipSync('{"event_message":"a"}\n{"event_message":"b"}');
    expect((await post(body, { ...ndjson, 'content-encoding': 'gzip' })).body.events).toHaveLength(2);
  });

  it('returns 413 for a body larger than maxBytes', async () => {
    const body = JSON.stringify({ event_message: 'x'.repeat(maxBytes) });
    expect(await post(body, json)).toMatchObject({ status: 413, body: { code: 'PAYLOAD_TOO_LARGE' } });
  });

  it('returns 413 for a chunked body without Content-Length once it passes maxBytes', async () => {
    const { port } = app.server.address() as AddressInfo;
    const status = await new Promise<number | undefined>((resolve, reject) => {
      const req = request({ port, method: 'POST', path: '/api/logs', headers: json }, (res) => {
        res.resume();
        resolve(res.statusCode);
      });
      req.on('error', reject);
      for (let i = 0; i < 8; i += 1) req.write(' '.repeat(maxBytes / 4));
      req.end('{}');
    });
    expect(status).toBe(413);
  });

  it('returns 413 for a small gzip body that inflates beyond maxBytes', async () => {
    const body = gzipSync(JSON.stringify({ event_message: ' '.repeat(50 * maxBytes) }));
    expect(body.length).toBeLessThan(maxBytes);
    expect(await post(body, { ...json, 'content-encoding': 'gzip' })).toMatchObject({
      status: 413,
      body: { code: 'PAYLOAD_TOO_LARGE' },
    });
  });

  it('returns 400 for malformed JSON', async () => {
    expect(await post('{"event_message": ', json)).toMatchObject({
      status: 400,
      body: { code: 'BAD_REQUEST', message: expect.stringContaining('not valid JSON') },
    });
  });

  it('returns 400 naming the line of malformed NDJSON', async () => {
    const body = '{"event_message":"a"}\n{"event_message":"b"}\n{"event_message":\n';
    expect(await post(body, ndjson)).toMatchObject({
      status: 400,
      body: { code: 'BAD_REQUEST', message: expect.stringContaining('line 3') },
    });
  });

  it('returns 400 for an empty body, an empty batch and a batch that is not an array', async () => {
    for (const [body, headers] of [
      ['', json],
      ['', ndjson],
      ['{"batch": []}', json],
      ['{"batch": {"event_message": "a"}}', json],
      ['42', json],
    ] as const) {
      expect(await post(body, headers), body).toMatchObject({ status: 400, body: { code: 'BAD_REQUEST' } });
    }
  });

  it('returns 400 for a body that claims gzip but is not', async () => {
    expect(await post('{"event_message":"a"}', { ...json, 'content-encoding': 'gzip' })).toMatchObject({
      status: 400,
      body: { code: 'BAD_REQUEST', message: expect.stringContaining('gzip') },
    });
  });

  it('returns 400 for a truncated gzip body and for bytes that are not UTF-8', async () => {
    const truncated = gzipSync('{"event_message":"a"}').subarray(0, 15);
    expect((await post(truncated, { ...json, 'content-encoding': 'gzip' })).status).toBe(400);
    expect((await post(new Uint8Array([0x7b, 0xff, 0x7d]), json)).status).toBe(400);
  });

  it('returns 415 for an unsupported content type or encoding', async () => {
    expect(await post('a=b', { 'content-type': 'application/x-www-form-urlencoded' })).toMatchObject({
      status: 415,
      body: { code: 'UNSUPPORTED_MEDIA_TYPE' },
    });
    // Node 20's zlib has no zstd (gzip, deflate and br are read).
    expect(await post('{}', { ...json, 'content-encoding': 'zstd' })).toMatchObject({
      status: 415,
      body: { code: 'UNSUPPORTED_MEDIA_TYPE', message: expect.stringContaining("'zstd'") },
    });
    expect((await post('{}', { 'content-type': 'application/json; charset=latin1' })).status).toBe(415);
  });
});
