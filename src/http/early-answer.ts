import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ConnectionKeyCheck } from './api-keys.js';

/** Node's handler of a request: Fastify's, which routes it. */
export type RequestHandler = (req: IncomingMessage, res: ServerResponse) => void;

/**
 * Answers a request before Fastify routes it, or returns false, having written and read nothing,
 * to leave it to Fastify. For answers that are cheaper than the framework's own work per request
 * (a cached hit: Fastify's request and reply objects, routing, hooks and promise chain cost as
 * much as the rest of the hit together): whatever such an answer does not handle exactly as its
 * route would (an error, a method, a header it does not look at) it leaves to the route.
 *
 * True says the answer owns the request: it has answered it, or will, or hands it to `route`
 * (Fastify) later, for instance once it has read a body and found no answer in it.
 * `scopeOf` is the server's key check (see `createConnectionKeyCheck`); an answer must ask it as
 * the route's hook would. Throwing before owning the request is the same as returning false.
 */
export type EarlyAnswer = (
  req: IncomingMessage,
  res: ServerResponse,
  scopeOf: ConnectionKeyCheck,
  route: RequestHandler,
) => boolean;

/**
 * Node's request handler: each early answer in turn, then Fastify's `handler`. An early answer
 * that throws leaves the request to Fastify, which answers whatever was wrong with it.
 */
export function withEarlyAnswers(
  answers: readonly EarlyAnswer[],
  scopeOf: ConnectionKeyCheck,
  handler: RequestHandler,
): RequestHandler {
  return (req, res) => {
    for (const answer of answers) {
      try {
        if (answer(req, res, scopeOf, handler)) return;
      } catch {
        if (res.headersSent) {
          res.destroy();
          return;
        }
      }
    }
    handler(req, res);
  };
}
