import type { FastifyReply } from 'fastify';

/**
 * Sends an answer straight to Node's response, with any headers a hook set before it (CORS).
 * For cached answers only: they are the cheapest answers there are, and Fastify's reply pipeline
 * (serialisation checks, onSend hooks, header merging) cost a fifth of their CPU time.
 * A string body under a few pages goes out in one write(2) with the head (see result-body.ts).
 */
export function sendRaw(
  reply: FastifyReply,
  status: number,
  headers: Readonly<Record<string, string | number>>,
  body: string | Buffer,
): void {
  reply.hijack();
  const set = reply.getHeaders();
  const names = Object.keys(set);
  let head = headers;
  if (names.length > 0) {
    const merged: Record<string, string | number | string[]> = { ...headers };
    for (const name of names) merged[name] = set[name] as string | number | string[];
    head = merged as Record<string, string | number>;
  }
  reply.raw.writeHead(status, head);
  reply.raw.end(body);
}
