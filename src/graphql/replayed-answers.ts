import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import type { preParsingHookHandler } from 'fastify';
import { presentedApiKey } from '../http/api-keys.js';
import type { EarlyAnswer, RequestHandler } from '../http/early-answer.js';
import type { ReplayableRequest, ResponseReplay } from './response-replay.js';
import { graphqlPath } from './yoga.js';

const readBody = Symbol('readBody');
const reading = Symbol('reading');

/** A request whose body is being read here: its response, its head's key, the body so far. */
interface Reading {
  readonly res: ServerResponse;
  readonly route: RequestHandler;
  readonly head: string;
  /** The one chunk a small body comes in, or the chunks of a larger one. */
  body: Buffer | Buffer[] | undefined;
}
type ReadRequest = IncomingMessage & { [readBody]?: Buffer; [reading]?: Reading };

/**
 * A kept GraphQL answer sent again before Fastify (see `EarlyAnswer` and `createResponseReplay`):
 * a plain POST of JSON to `/graphql` with a query key and a body as long as some kept answer's
 * to the same head is read here, and when the replay has its answer, sent; otherwise it goes on
 * to Fastify with the body already read, which `bodyReadEarly` gives its route in place of the
 * spent request stream. Everything else is left to the route unread.
 *
 * A replay is the cheapest answer the server gives, so it makes as little as it can per request:
 * its listeners are made once (the request carries what they need), a body that comes in one
 * chunk is looked up as it came, and the kept head object is written as it is.
 */
export function replayedAnswers(replay: ResponseReplay): EarlyAnswer {
  function onData(this: ReadRequest, chunk: Buffer) {
    const read = this[reading] as Reading;
    if (read.body === undefined) read.body = chunk;
    else if (Array.isArray(read.body)) read.body.push(chunk);
    else read.body = [read.body, chunk];
  }
  function onEnd(this: ReadRequest) {
    const { res, route, head, body: read } = this[reading] as Reading;
    const body = read === undefined ? Buffer.alloc(0) : Array.isArray(read) ? Buffer.concat(read) : read;
    const kept = replay.find(head, body);
    if (kept !== undefined) {
      res.writeHead(kept.status, kept.head);
      res.end(kept.body);
      return;
    }
    // A copy, never a view over the socket's read buffer, as Fastify's own reader makes.
    this[readBody] = Array.isArray(read) ? body : Buffer.from(body);
    route(this, res);
  }
  return (req, res, scopeOf, route) => {
    if (req.method !== 'POST' || req.url !== graphqlPath) return false;
    const head = replay.headOf(req as ReplayableRequest);
    // Only a body as long as a kept answer's can be one: any other (an executed operation's, its
    // variables varying) is left to Fastify unread rather than read twice.
    if (head === undefined || !replay.mayKeepBodyOf(head, Number(req.headers['content-length'])))
      return false;
    if (scopeOf(req.socket, presentedApiKey(req, undefined)) !== 'all') return false;
    (req as ReadRequest)[reading] = { res, route, head, body: undefined };
    // No 'error' listener: a request cut short emits 'error' only to one (IncomingMessage's
    // `_destroy`), and its socket is destroyed, the response with it; one listener fewer per replay.
    req.on('data', onData);
    req.on('end', onEnd);
    return true;
  };
}

/**
 * The route's `preParsing` hook: the body `replayedAnswers` read, as the stream Fastify's body
 * reader reads (with its length and limits), or the request's own stream.
 */
export const bodyReadEarly: preParsingHookHandler = (request, _reply, payload, done) => {
  const body = (request.raw as ReadRequest)[readBody];
  done(null, body === undefined ? payload : Readable.from([body]));
};
