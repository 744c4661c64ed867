import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import type { preParsingHookHandler } from 'fastify';
import { presentedApiKey } from '../http/api-keys.js';
import type { EarlyAnswer } from '../http/early-answer.js';
import type { ReplayableRequest, ResponseReplay } from './response-replay.js';
import { graphqlPath } from './yoga.js';

const readBody = Symbol('readBody');
type ReadRequest = IncomingMessage & { [readBody]?: Buffer };

/**
 * A kept GraphQL answer sent again before Fastify (see `EarlyAnswer` and `createResponseReplay`):
 * a plain POST of JSON to `/graphql` with a query key and a body as long as some kept answer's
 * is read here, and when the replay has its answer, sent; otherwise it goes on to Fastify with
 * the body already read, which `bodyReadEarly` gives its route in place of the spent request
 * stream. Everything else is left to the route unread.
 */
export function replayedAnswers(replay: ResponseReplay): EarlyAnswer {
  return (req, res, scopeOf, route) => {
    if (req.method !== 'POST' || req.url !== graphqlPath) return false;
    const head = replay.headOf(req as ReplayableRequest);
    // Only a body as long as a kept answer's can be one: any other (an executed operation's, its
    // variables varying) is left to Fastify unread rather than read twice.
    if (head === undefined || !replay.mayKeepBodyOf(Number(req.headers['content-length']))) return false;
    if (scopeOf(req.socket, presentedApiKey(req, undefined)) !== 'all') return false;
    const chunks: Buffer[] = [];
    let received = 0;
    req.on('data', (chunk: Buffer) => {
      chunks.push(chunk);
      received += chunk.length;
    });
    req.once('error', () => res.destroy());
    req.once('end', () => {
      // A copy, never a view over the socket's read buffer, as Fastify's own reader makes.
      const body = Buffer.concat(chunks, received);
      const key = replay.keyOf(req as ReplayableRequest, body, head);
      const kept = key === undefined ? undefined : replay.find(key);
      if (kept !== undefined) {
        res.writeHead(kept.status, kept.head);
        res.end(kept.body);
        return;
      }
      (req as ReadRequest)[readBody] = body;
      route(req, res);
    });
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
