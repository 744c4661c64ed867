import type { FastifyReply } from 'fastify';

/** Aborts when the caller hangs up before its answer: it abandons its query. */
export function abandonSignal(reply: FastifyReply): AbortSignal {
  const abandoned = new AbortController();
  reply.raw.once('close', () => {
    if (!reply.raw.writableFinished) abandoned.abort();
  });
  return abandoned.signal;
}
