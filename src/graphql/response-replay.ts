import type { IncomingHttpHeaders } from 'node:http';
import { LRUCache } from 'lru-cache';
import type { QueryResult } from '../engines/query-engine.js';
import { largestStringBody } from '../http/send-raw.js';
import type { CacheOutcome, EndpointMetrics, Metrics } from '../metrics/metrics.js';
import { canonicalKey } from '../resolve/canonical-key.js';
import type { Resolver, ReusedCall } from '../resolve/resolver.js';
import type { EndpointCall } from './context.js';
import { createRequestShelves, type ShelvedRequest } from './request-shelves.js';

/** An endpoint call a response was made of, with the result it was given. */
export type KeptCall = EndpointCall & { readonly result: QueryResult };

export interface ResponseReplayOptions {
  readonly resolver: Resolver;
  /** Where the endpoint calls of a replayed answer are counted, as hits. @default none */
  readonly metrics?: Pick<Metrics, 'endpoint'> | undefined;
  /** Upper bound of the approximate bytes of the responses kept. @default 8 MiB */
  readonly maxBytes?: number;
  /** Larger request bodies are never replayed. @default 64 KiB */
  readonly maxRequestBytes?: number;
  /**
   * Upper bound of the approximate bytes of the keys of requests seen once: a response is kept
   * only for a request seen before, since a one-off (a dashboard's varying variables) would cost
   * its copy and its bookkeeping for nothing. @default 1 MiB
   */
  readonly maxSightedBytes?: number;
}

/** A response as sent: what is kept, and what is sent again. */
export interface Answer {
  readonly status: number;
  /** Lower-case names, without the framing (`content-length`, `transfer-encoding`). */
  readonly headers: Readonly<Record<string, string>>;
  readonly body: string | Buffer;
}

/** A kept answer, ready to be sent again as it is. */
export interface KeptAnswer extends Answer {
  /** The headers with the body's `content-length`, worked out once. */
  readonly head: Readonly<Record<string, string | number>>;
}

/** A kept answer with the request it answers and the calls it was made of. */
interface Replay extends KeptAnswer, ShelvedRequest {
  readonly calls: readonly KeptReplayCall[];
  readonly size: number;
}

/**
 * `resolver.reuse` of kept calls (all or nothing: each must still be the fresh cached result),
 * each counted, when `counting`, as a hit answered in the instant it was asked (a latency of 0,
 * as no clock is read for it: a clock reading costs about as much as the rest of the reuse). The
 * counter is made once, not per answer.
 */
export function keptCallsReuser(
  resolver: Resolver,
  counting: boolean,
): (calls: readonly KeptReplayCall[]) => boolean {
  const countReused = counting
    ? (call: ReusedCall, cache: CacheOutcome) => (call as KeptReplayCall).counts?.answered('graphql', cache)
    : undefined;
  return (calls) => resolver.reuse(calls, countReused);
}

/**
 * An endpoint call a kept answer was made of, as `resolver.reuse` reads it on every replay: its
 * key and its counters worked out once (the key, the same string each time, is hashed once), its
 * result held weakly so that a replay never keeps an evicted result alive.
 */
export class KeptReplayCall implements ReusedCall {
  readonly key: string;
  readonly #result: WeakRef<QueryResult>;

  constructor(
    readonly endpoint: EndpointCall['endpoint'],
    readonly params: EndpointCall['params'],
    result: QueryResult,
    readonly counts: EndpointMetrics | undefined,
  ) {
    this.key = canonicalKey(endpoint, params);
    this.#result = new WeakRef(result);
  }

  get result(): QueryResult | undefined {
    return this.#result.deref();
  }
}

/**
 * A request as the replay knows it: its head (method, target and the headers yoga reads) and
 * its body (empty for a GET).
 */
export interface ReplayKey {
  readonly head: string;
  readonly body: Buffer;
}

/** The parts of a request its replay key is made of. */
export interface ReplayableRequest {
  readonly method: string;
  readonly url: string;
  readonly headers: IncomingHttpHeaders;
}

/**
 * Answers a GraphQL request again from the response yoga gave to the same request, as long as
 * the results it was made of are still the resolver layer's fresh cached results.
 *
 * Why: on a cache hit, yoga's parsing, validation, execution and encoding cost several times
 * what the HTTP server itself does. A response is a pure function of the
 * request (method, target, the headers yoga reads, body) and of the results of its endpoint calls
 * (fields map rows, the registry and schema are fixed), so the bytes can be sent again while
 * those results are. Each replay still goes through `resolver.reuse`, so every call counts as the
 * same hit, keeps its key live for warming and is refused once its result expired or was replaced;
 * then yoga answers as usual and the new response is kept. Only 200 responses to one operation
 * without errors whose calls all cache are kept (a batch, an error, an APQ miss never are).
 * Results are held weakly: replays never keep evicted results alive.
 *
 * `useResponseReplay` is the yoga plugin that asks and keeps. Only plain requests take this path: GET, or POST with an `application/json` body of known
 * length and no content encoding, asking for no streamed media type (`keyOf` is undefined).
 */
export function createResponseReplay(options: ResponseReplayOptions) {
  const { resolver, metrics } = options;
  const maxRequestBytes = options.maxRequestBytes ?? 64 * 1024;
  const heads = createHeadStrings();
  // Kept answers and sightings stand by request (request-shelves.ts), bounded and ordered by
  // recency in an LRU each, whose evictions take them off their shelves.
  const keptShelves = createRequestShelves<Replay>();
  const replays = new LRUCache<Replay, true>({
    maxSize: options.maxBytes ?? 8 * 1024 * 1024,
    sizeCalculation: (_true, replay) => replay.size,
    dispose: (_true, replay) => keptShelves.remove(replay),
  });
  // Sightings (requests seen once, on the executed path) by a key of head and body: one string
  // and one map insert per executed request, cheaper there than shelving a copy of every body.
  const sighted = new LRUCache<string, true>({
    maxSize: options.maxSightedBytes ?? 1024 * 1024,
    sizeCalculation: (_true, key) => key.length + 64,
  });

  const reuse = keptCallsReuser(resolver, metrics !== undefined);

  // The kept answer last made the most recent: until another is (answered or kept), it still is,
  // so a client repeating one request (a dashboard polling it) costs no bump of the LRU.
  let mostRecent: Replay | undefined;

  /** The kept answer to send again, while every result it was made of is fresh. */
  const answer = (replay: Replay | undefined): KeptAnswer | undefined => {
    if (replay === undefined) return undefined;
    if (!reuse(replay.calls)) return undefined;
    if (replay !== mostRecent) {
      replays.get(replay);
      mostRecent = replay;
    }
    return replay;
  };

  return {
    /** The replay key of a request, or undefined when it is not one to replay. */
    keyOf(req: ReplayableRequest, body: Buffer | undefined): ReplayKey | undefined {
      const head = replayableHead(req, maxRequestBytes, heads);
      if (head === undefined) return undefined;
      if (req.method !== 'POST') return { head, body: noBody };
      if (!body || body.length === 0) return undefined;
      return { head, body };
    },

    /** The part of a request's replay key that its head gives, or undefined when it is not one to replay. */
    headOf: (req: ReplayableRequest): string | undefined => replayableHead(req, maxRequestBytes, heads),

    /**
     * Where kept answers to requests of this head with a body of this many bytes stand, if any
     * does: a request of another length cannot be one of them, so the face need not read its body
     * early to look, and once it has, looks only there (replayed-answers.ts, `findOn`).
     */
    shelfOf: (head: string, bodyBytes: number): KeptShelf | undefined => keptShelves.shelf(head, bodyBytes),

    /** The kept answer to a request (its head and body) to send again, while every result it was made of is fresh. */
    find: (head: string, body: Buffer): KeptAnswer | undefined => answer(keptShelves.find(head, body)),

    /** The same on the shelf `shelfOf` gave for the request's head and body length. */
    findOn: (shelf: KeptShelf, body: Buffer): KeptAnswer | undefined =>
      answer(keptShelves.findOn(shelf, body)),

    /**
     * Whether the answer to a request with this key is worth keeping: true when the same request
     * was seen before (and not kept since); otherwise notes that it has been seen once.
     */
    worthKeeping(key: ReplayKey): boolean {
      // latin1 maps bytes to characters one to one, so different bodies never share a key.
      const sighting = `${key.head}\n${key.body.toString('latin1')}`;
      if (sighted.delete(sighting)) return true;
      sighted.set(sighting, true);
      return false;
    },

    /**
     * Forgets every kept answer: a reload replaced the schema they were answered with, and an
     * answer may hold more of it than its endpoint calls (`endpoints`, introspection).
     */
    clear(): void {
      replays.clear();
      mostRecent = undefined;
      sighted.clear();
      keptShelves.clear();
    },

    /** How many answers are kept. */
    get size(): number {
      return replays.size;
    },

    /** Keeps yoga's clean answer to a request when every call it made caches. */
    keep(key: ReplayKey, answer: Answer, calls: readonly KeptCall[]): void {
      if (answer.status !== 200 || !calls.every(({ endpoint }) => endpoint.cacheSeconds > 0)) return;
      // Small bodies as text, larger ones as bytes (see `largestStringBody`).
      const bytes = typeof answer.body === 'string' ? Buffer.from(answer.body) : answer.body;
      const body = bytes.length > largestStringBody ? bytes : bytes.toString('utf8');
      const length = bytes.length;
      const requestBody = key.body.length === 0 ? key.body : Buffer.from(key.body);
      const replay: Replay = {
        requestHead: key.head,
        requestBody,
        status: answer.status,
        headers: answer.headers,
        body,
        head: { ...answer.headers, 'content-length': length },
        size: key.head.length + requestBody.length + 2 * length + 256 * (calls.length + 1),
        calls: calls.map(
          ({ endpoint, params, result }) =>
            new KeptReplayCall(endpoint, params, result, metrics?.endpoint(endpoint.name)),
        ),
      };
      replays.set(replay, true);
      mostRecent = undefined;
      if (!replays.has(replay)) return;
      const replaced = keptShelves.add(replay);
      if (replaced !== undefined) replays.delete(replaced);
    },
  };
}

export type ResponseReplay = ReturnType<typeof createResponseReplay>;

/** Kept answers to requests of one head and body length (`ResponseReplay.shelfOf`). */
export type KeptShelf = readonly Replay[];

/**
 * The key of everything but the body that yoga's answer depends on, or undefined when the
 * request is not one to replay. Yoga reads the method, the target, `content-type` and `accept`.
 */
function replayableHead(
  req: ReplayableRequest,
  maxRequestBytes: number,
  heads: HeadStrings,
): string | undefined {
  const { accept = '', 'content-type': contentType = '' } = req.headers;
  if (streamedMediaTypes.test(accept)) return undefined;
  if (req.method === 'POST') {
    const length = req.headers['content-length'];
    if (
      mediaType(contentType) !== 'application/json' ||
      length === undefined ||
      !/^\d+$/.test(length) ||
      Number(length) === 0 ||
      Number(length) > maxRequestBytes ||
      req.headers['transfer-encoding'] !== undefined ||
      req.headers['content-encoding'] !== undefined
    ) {
      return undefined;
    }
  } else if (req.method !== 'GET') {
    return undefined;
  }
  return heads.of(req.method, req.url, contentType, accept);
}

/**
 * Makes a head's string, and gives the last one made again while a client repeats its head: a
 * string built anew per request is flattened and hashed again by every map lookup, a reused one
 * keeps its hash.
 */
function createHeadStrings() {
  let last = { method: '', url: '', contentType: '', accept: '', head: '' };
  return {
    of(method: string, url: string, contentType: string, accept: string): string {
      if (
        method === last.method &&
        url === last.url &&
        contentType === last.contentType &&
        accept === last.accept
      )
        return last.head;
      last = { method, url, contentType, accept, head: `${method} ${url}\n${contentType}\n${accept}` };
      return last.head;
    },
  };
}

type HeadStrings = ReturnType<typeof createHeadStrings>;

// A GET's body, the same empty buffer for every key (a buffer nothing writes into).
const noBody = Buffer.alloc(0);

// Media types yoga answers with a stream (or a page), which are not one piece to keep.
const streamedMediaTypes = /text\/event-stream|multipart\/mixed|text\/html/i;

function mediaType(contentType: string): string {
  // Clients send this exact value nearly always: no need to split and fold it.
  if (contentType === 'application/json') return contentType;
  return (contentType.split(';')[0] ?? '').trim().toLowerCase();
}
