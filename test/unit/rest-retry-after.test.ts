import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { expect, it } from 'vitest';
import { QuerygateError } from '../../src/errors.js';
import { sendError } from '../../src/rest/respond.js';

it('answers ENGINE_BUSY over REST with 503 and a Retry-After header of the advised seconds', async () => {
  const server = createServer((_req, res) =>
    sendError(
      res,
      new QuerygateError('ENGINE_BUSY', 'Too many calls of this endpoint', {
        details: { retryAfterSeconds: 4 },
      }),
      () => {},
    ),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('4');
    expect(await response.json()).toEqual({
      error: { code: 'ENGINE_BUSY', message: 'Too many calls of this endpoint' },
    });
  } finally {
    await new Promise((resolve) => server.close(resolve));
  }
});
