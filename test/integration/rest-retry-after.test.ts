import { pino } from 'pino';
import { expect, it } from 'vitest';
import { QuerygateError } from '../../src/errors.js';
import { createHttpApp } from '../../src/http/app.js';

it('answers ENGINE_BUSY over REST with 503 and a Retry-After header of the advised seconds', async () => {
  const app = await createHttpApp({
    logger: pino({ level: 'silent' }),
    keyScope: () => 'all',
    headersTimeoutMs: 10_000,
    requestTimeoutMs: 30_000,
    keepAliveTimeoutMs: 5_000,
    maxConnections: 16,
    maxBodyBytes: 1024,
    corsOrigins: [],
  });
  app.get('/busy', async () => {
    throw new QuerygateError('ENGINE_BUSY', 'Too many calls of this endpoint', {
      details: { retryAfterSeconds: 4 },
    });
  });
  const url = await app.listen({ port: 0, host: '127.0.0.1' });
  try {
    const response = await fetch(`${url}/busy`);
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('4');
    expect(await response.json()).toEqual({
      error: { code: 'ENGINE_BUSY', message: 'Too many calls of this endpoint' },
    });
  } finally {
    await app.close();
  }
});
