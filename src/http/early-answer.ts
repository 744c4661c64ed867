import { IncomingMessage, type ServerResponse } from 'node:http';
import type { ConnectionKeyCheck } from './api-keys.js';

/**
 * The request object of every request the server reads (Node's `IncomingMessage` option): each
 * property that Fastify, the early answers and the app add to a request is declared here, so
 * every request has one hidden class from the start, whatever path answers it.
 *
 * Why: a property added to some requests only gives those another hidden class, and Node's HTTP
 * and stream code every request runs through (its parser callbacks, `Readable.push`,
 * `resOnFinish`) then sees several: Fastify sets `originalUrl` on every request it routes, the
 * replay added a field of its own. Traced with `--trace-deopt` between the peer table's loads,
 * that code was deoptimised on "wrong map" and compiled again for several classes; with one
 * request class, REST traffic after the replay deoptimised 10 functions rather than 18. The rest
 * is the traffic's own (GET and POST streams, listener sets, each client's header set), and no
 * gain in requests/s could be told from the noise of a loaded host (README, Development).
 */
export class ServedRequest extends IncomingMessage {
  /** Fastify's copy of the target before `rewriteUrl`, set on every request it routes. */
  originalUrl: string | undefined = undefined;
  /** What an early answer keeps on a request while it reads its body, its own to shape. */
  earlyState: object | undefined = undefined;
  /** The target is no URL (see `rewriteUrl` in app.ts). */
  badTarget = false;
}

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
