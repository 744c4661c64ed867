import { IncomingMessage, type ServerResponse } from 'node:http';
import { QuerygateError } from '../errors.js';
import type { ConnectionKeyCheck } from './api-keys.js';
import { errorBody } from './respond.js';

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
  /** Where the body goes instead of the stream while an early answer takes it (see `takeBody`). */
  bodyTaker: BodyTaker | undefined = undefined;

  /**
   * Node's HTTP parser hands the request's body to its stream through `push`, each chunk as it
   * is parsed, then null at its end: while an early answer takes the body, here they go to it.
   */
  override push(chunk: Buffer | null, encoding?: BufferEncoding): boolean {
    const taker = this.bodyTaker;
    if (taker === undefined) return super.push(chunk, encoding);
    taker(this, chunk);
    return true;
  }

  /**
   * Gives the body's chunks to `taker` as the parser reads them, then null at its end, in place
   * of the stream, which stays empty. Why: a body read through the stream ('data' and 'end'
   * listeners, as any reader does) costs its listeners, the stream's flowing and three ticks
   * of the event loop (`resume_`, `endReadableNT`, the close after `autoDestroy`) per request,
   * about as much CPU as a replay's own work; taken here, a replay is answered within the parse.
   * A request cut short never gets its null, as it would never get 'end'.
   */
  takeBody(taker: BodyTaker): void {
    this.bodyTaker = taker;
  }

  /**
   * Once an early answer has answered: the stream is left as it is, empty and never ended (its
   * null, still to come for a GET, goes nowhere), and read once, which marks it consumed, so
   * that Node's server does not drain it after the response (`_dump`: a resume, a tick, its
   * end and close). Nothing else listens to a request an early answer owns.
   */
  answered(): void {
    this.bodyTaker = ignoreBody;
    this.read();
  }

  /**
   * Ends the stream of a request whose body was taken, for the route it goes on to (which reads
   * the body as read, see `bodyReadEarly`): 'end' and 'close' come as if it had been read.
   */
  endTaken(): void {
    this.bodyTaker = undefined;
    super.push(null);
    this.resume();
  }
}

/** Takes a body's chunks, then null at its end (see `ServedRequest.takeBody`). */
export type BodyTaker = (req: ServedRequest, chunk: Buffer | null) => void;

const ignoreBody: BodyTaker = () => {};

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
  req: ServedRequest,
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
  return (incoming, res) => {
    // Node's server makes every request a ServedRequest (its `IncomingMessage` option, app.ts).
    const req = incoming as ServedRequest;
    if (req.headers.host === undefined && req.httpVersion === '1.1') {
      refuseWithoutHost(res);
      return;
    }
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

/**
 * An HTTP/1.1 request without Host must be answered 400 (RFC 9112, 3.2). Node does so itself
 * with an empty body unless told not to (`requireHostHeader: false`, app.ts): this answer names
 * the header, in the shape of every other error.
 */
function refuseWithoutHost(res: ServerResponse): void {
  const body = errorBody(
    new QuerygateError('BAD_REQUEST', 'An HTTP/1.1 request must carry a Host header (RFC 9112, 3.2)'),
  );
  res.writeHead(400, {
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(body),
    connection: 'close',
  });
  res.end(body);
}
