import { connect, type Socket } from 'node:net';
import { describe, expect, it } from 'vitest';
import { fixtureNow } from '../fixtures/spec-fixture.js';
import { serveDuringFile, testApiKey } from '../helpers/querygate-server.js';

/**
 * The server's limits on clients that hold sockets: slow headers, a slow body, idle connections
 * beyond the cap. Set short here so the test takes seconds; the defaults are in config.ts.
 */

const server = serveDuringFile({
  now: fixtureNow,
  environment: {
    QUERYGATE_HEADERS_TIMEOUT_MS: '500',
    QUERYGATE_REQUEST_TIMEOUT_MS: '1000',
    QUERYGATE_MAX_CONNECTIONS: '4',
  },
});

/** A raw connection that records what the server sent and when it closed. */
function open(): Promise<{ socket: Socket; received: () => string; closed: Promise<void> }> {
  const { hostname, port } = new URL(server().url);
  return new Promise((resolve, reject) => {
    let text = '';
    const socket = connect(Number(port), hostname, () => resolve({ socket, received: () => text, closed }));
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => {
      text += chunk;
    });
    const closed = new Promise<void>((done) => socket.once('close', () => done()));
    socket.once('error', reject);
  });
}

describe('clients that hold a socket', () => {
  it('cuts a client that never finishes its headers', async () => {
    const client = await open();
    client.socket.write('GET /health HTTP/1.1\r\nHost: x\r\n');
    await client.closed;
    expect(client.received()).toMatch(/^HTTP\/1\.1 408|^$/);
  });

  it('cuts a client that never finishes its body, without a 200', async () => {
    const client = await open();
    client.socket.write(
      'POST /api/logs?source_name=cloudflare.logs.prod HTTP/1.1\r\nHost: x\r\n' +
        `x-api-key: ${testApiKey}\r\ncontent-type: application/json\r\ncontent-length: 100000\r\n\r\n{"batch": [`,
    );
    await client.closed;
    expect(client.received()).not.toMatch(/^HTTP\/1\.1 200/);
  });

  it('refuses connections beyond the cap while still serving the ones it holds', async () => {
    const held = await Promise.all([open(), open(), open(), open()]);
    const extra = await open();
    await extra.closed;
    expect(extra.received()).toBe('');
    const [first] = held;
    first?.socket.write('GET /health HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    await first?.closed;
    expect(first?.received()).toMatch(/^HTTP\/1\.1 200/);
    for (const client of held) client.socket.destroy();
  });
});

describe('requests Node refuses before routing them', () => {
  const head = `Host: x\r\nx-api-key: ${testApiKey}\r\n`;
  it.each([
    [
      'a Content-Length that is no number',
      `POST /api/logs HTTP/1.1\r\n${head}content-length: abc\r\n\r\n`,
      400,
      /Content-Length/,
    ],
    [
      'both Content-Length and Transfer-Encoding',
      `POST /api/logs HTTP/1.1\r\n${head}content-length: 5\r\ntransfer-encoding: chunked\r\n\r\n`,
      400,
      /Transfer-Encoding .*Content-Length/,
    ],
    ['a method that is no token', `G@T /health HTTP/1.1\r\n${head}\r\n`, 400, /method/],
    // RFC 9112, 3.2: a server must answer 400 to an HTTP/1.1 request without Host.
    [
      'an HTTP/1.1 request without Host',
      `GET /health HTTP/1.1\r\nx-api-key: ${testApiKey}\r\n\r\n`,
      400,
      /Host/,
    ],
    // RFC 9110, 10.1.1: 100-continue is the only expectation; any other is answered 417.
    [
      'an Expect other than 100-continue',
      `GET /health HTTP/1.1\r\n${head}expect: teapot\r\n\r\n`,
      417,
      /teapot/,
    ],
    // Node's default limit on the request line and headers is 16 KiB.
    [
      'a query string of 20,000 characters',
      `GET /health?x=${'a'.repeat(20_000)} HTTP/1.1\r\n${head}\r\n`,
      431,
      /larger than \d+ bytes/,
    ],
  ])(
    'answers %s in the error shape of every answer, naming what is wrong',
    async (_label, request, status, named) => {
      const client = await open();
      client.socket.write(request);
      await client.closed;
      const [answerHead, body = ''] = client.received().split('\r\n\r\n');
      expect(answerHead).toMatch(new RegExp(`^HTTP/1\\.1 ${status} `));
      const { error } = JSON.parse(body) as { error: { code: string; message: string } };
      expect(error.code).toBe(
        status === 431 ? 'HEADERS_TOO_LARGE' : status === 417 ? 'EXPECTATION_FAILED' : 'BAD_REQUEST',
      );
      expect(error.message).toMatch(named);
    },
  );
});
