import type { IncomingMessage, ServerResponse } from 'node:http';
import { Readable } from 'node:stream';
import type { preParsingHookHandler } from 'fastify';
import { presentedApiKey } from '../http/api-keys.js';
import type { BodyTaker, EarlyAnswer, RequestHandler, ServedRequest } from '../http/early-answer.js';
import type { FastOperations } from './fast-operation.js';
import type { KeptShelf, ReplayableRequest, ResponseReplay } from './response-replay.js';
import { createReplayRecording, keepRecorded, type ReplayRecording } from './use-response-replay.js';
import { graphqlPath } from './yoga.js';

/**
 * A request whose body is being read here (`ServedRequest.earlyState`): its response, its
 * head's key, the body so far, and what the route reads of it if it goes on to Fastify.
 */
interface Reading {
  readonly res: ServerResponse;
  readonly route: RequestHandler;
  readonly head: string;
  /** Where kept answers to requests of its head and body length stand, if any does. */
  readonly shelf: KeptShelf | undefined;
  /** The one chunk a small body comes in, or the chunks of a larger one. */
  body: Buffer | Buffer[] | undefined;
  /** The body read, for the route (see `bodyReadEarly`). */
  readBody: Buffer | undefined;
  /** The sighting made early (see `earlySighting`); null when the request was not worth keeping. */
  sightedEarly: ReplayRecording | null | undefined;
}
type ReadRequest = IncomingMessage & { earlyState?: Reading | undefined };

/** What the early answers read a request's body for, beside the replay. */
export interface EarlyAnswersOptions {
  /** The most bytes of a request body: a longer one is left to Fastify, which refuses it. */
  readonly maxBodyBytes: number;
  /** The fast path, whose answers from remembered calls need nothing of Fastify's. @default none */
  readonly fast?: Pick<FastOperations, 'remembered' | 'remembers'> | undefined;
}

/**
 * A kept GraphQL answer sent again before Fastify (see `EarlyAnswer` and `createResponseReplay`),
 * or an answer made from the calls an operation made before for the same values of its declared
 * variables (the fast path's `remembered`, see remembered-calls.ts): a plain POST of JSON to
 * `/graphql` with a query key is read here, when its body may be one of those (as long as some
 * kept answer's to the same head, or within the body limit once the fast path has answered an
 * operation spliced), and when either has its answer, sent; otherwise it goes on to Fastify
 * with the body already read, which `bodyReadEarly` gives its route in place of the spent
 * request stream. Everything else is left to the route unread.
 *
 * Dashboards send the same few operations with variables that change on every request (issue
 * 31): answered from remembered calls here, such a request costs about what a replay does,
 * where Fastify's request and reply objects, routing, hooks and promise chain cost as much again.
 * The request is sighted for replay here as the route would, so a request seen twice is kept.
 *
 * A replay is the cheapest answer the server gives, so it makes as little as it can per request:
 * the body is taken from Node's parser and answered at its end, within the parse (see
 * `ServedRequest.takeBody`), by a taker made once (the request carries what it needs), a body
 * that comes in one chunk is looked up as it came, and the kept head object is written as it is.
 */
export function replayedAnswers(replay: ResponseReplay, options: EarlyAnswersOptions): EarlyAnswer {
  const { fast, maxBodyBytes } = options;
  const takeChunk: BodyTaker = (req, chunk) => {
    const read = (req as ReadRequest).earlyState as Reading;
    if (chunk === null) answer(req, read);
    else if (read.body === undefined) read.body = chunk;
    else if (Array.isArray(read.body)) read.body.push(chunk);
    else read.body = [read.body, chunk];
  };
  function answer(req: ServedRequest, state: Reading) {
    const { res, route, head, shelf, body: read } = state;
    const body = read === undefined ? Buffer.alloc(0) : Array.isArray(read) ? Buffer.concat(read) : read;
    const kept = shelf === undefined ? undefined : replay.findOn(shelf, body);
    if (kept !== undefined) {
      res.writeHead(kept.status, kept.head);
      res.end(kept.body);
      req.answered();
      return;
    }
    let recording: ReplayRecording | undefined;
    if (fast) {
      // Keeping an answer copies the request's body (`ResponseReplay.keep`).
      const key = { head, body };
      recording = replay.worthKeeping(key) ? createReplayRecording(key) : undefined;
      const answer = fast.remembered(req.headers, body, recording);
      if (answer !== undefined) {
        res.writeHead(answer.status, answer.head);
        res.end(answer.body);
        req.answered();
        if (recording) keepRecorded(replay, recording, answer);
        return;
      }
    }
    // A copy, never a view over the socket's read buffer, as Fastify's own reader makes.
    const copy = Array.isArray(read) ? body : Buffer.from(body);
    if (fast) state.sightedEarly = recording ? createReplayRecording({ head, body: copy }) : null;
    state.readBody = copy;
    req.endTaken();
    route(req, res);
  }
  return (req, res, scopeOf, route) => {
    if (req.method !== 'POST' || req.url !== graphqlPath) return false;
    const head = replay.headOf(req as ReplayableRequest);
    if (head === undefined) return false;
    // Only a body that may be answered here is read: any other (an executed operation's, its
    // variables varying, before any is remembered) is left to Fastify unread rather than read twice.
    const length = Number(req.headers['content-length']);
    const shelf = replay.shelfOf(head, length);
    if (shelf === undefined && !(fast !== undefined && length <= maxBodyBytes && fast.remembers()))
      return false;
    if (scopeOf(req.socket, presentedApiKey(req, undefined)) !== 'all') return false;
    (req as ReadRequest).earlyState = {
      res,
      route,
      head,
      shelf,
      body: undefined,
      readBody: undefined,
      sightedEarly: undefined,
    };
    // Taken from the parser, not read through the stream (see `ServedRequest.takeBody`). A
    // request cut short is destroyed with its socket, the response with it.
    req.takeBody(takeChunk);
    return true;
  };
}

/**
 * Whether the request was sighted for replay before Fastify (see `ResponseReplay.worthKeeping`):
 * the recording then made, or null when it was not worth keeping; undefined when it was not
 * sighted, and the route sights it.
 */
export function earlySighting(req: IncomingMessage): ReplayRecording | null | undefined {
  return (req as ReadRequest).earlyState?.sightedEarly;
}

/**
 * The route's `preParsing` hook: the body `replayedAnswers` read, as the stream Fastify's body
 * reader reads (with its length and limits), or the request's own stream.
 */
export const bodyReadEarly: preParsingHookHandler = (request, _reply, payload, done) => {
  const body = (request.raw as ReadRequest).earlyState?.readBody;
  done(null, body === undefined ? payload : Readable.from([body]));
};
