import type { IncomingMessage, ServerResponse } from 'node:http';
import type { YogaServerInstance } from 'graphql-yoga';
import { LRUCache } from 'lru-cache';
import type { QueryResult } from '../engines/query-engine.js';
import type { Resolver, ReusedCall } from '../resolve/resolver.js';
import type { EndpointCall, GraphQLContext } from './context.js';

/**
 * What answering one request read, filled in while yoga answers it: the endpoint calls with the
 * results they were given (see `createGraphQLContext`'s `onResolved`) and whether yoga processed
 * one plain result without errors (see `useResponseRecording`).
 */
export interface Recording {
  readonly calls: Array<EndpointCall & { readonly result: QueryResult }>;
  clean: boolean;
}

/** What yoga's server context carries on the node:http mount. */
export type ReplayServerContext = {
  req?: IncomingMessage;
  res?: ServerResponse;
  recording?: Recording;
};

export interface ResponseReplayOptions {
  readonly yoga: YogaServerInstance<ReplayServerContext, GraphQLContext>;
  readonly resolver: Resolver;
  /** Upper bound of the approximate bytes of the responses kept. @default 8 MiB */
  readonly maxBytes?: number;
  /** Larger request bodies are left to yoga and never replayed. @default 64 KiB */
  readonly maxRequestBytes?: number;
}

interface Replay {
  readonly calls: ReadonlyArray<EndpointCall & { readonly result: WeakRef<QueryResult> }>;
  readonly status: number;
  readonly statusText: string;
  readonly headers: Readonly<Record<string, string>>;
  readonly body: Buffer;
}

/**
 * Answers a GraphQL request again from the response yoga gave to the same request, as long as
 * the results it was made of are still the resolver layer's fresh cached results.
 *
 * Why: on a cache hit, yoga's fetch-API adapter, parsing, validation, execution and encoding
 * cost about ten times what node:http itself does. A response is a pure function of the request
 * (method, target, the headers yoga reads, body) and of the results of its endpoint calls
 * (fields map rows, the registry and schema are fixed), so the bytes can be sent again while
 * those results are. Each replay still goes through `resolver.reuse`, so every call counts as the
 * same hit, keeps its key live for warming and is refused once its result expired or was replaced;
 * then yoga answers as usual and the new response is kept. Only 200 responses without errors
 * whose calls all cache are kept. Results are held weakly: replays never keep evicted results alive.
 *
 * Only plain requests take this path: GET, or POST with an `application/json` body of known
 * length and no content encoding, asking for no streamed media type. Anything else is left to
 * yoga untouched (`handle` returns false).
 */
export function createResponseReplay(options: ResponseReplayOptions) {
  const { yoga, resolver } = options;
  const maxRequestBytes = options.maxRequestBytes ?? 64 * 1024;
  const replays = new LRUCache<string, Replay>({
    maxSize: options.maxBytes ?? 8 * 1024 * 1024,
    sizeCalculation: (replay, key) => key.length + replay.body.length + 256 * (replay.calls.length + 1),
  });

  function serve(key: string, res: ServerResponse): boolean {
    const replay = replays.get(key);
    if (!replay) return false;
    const calls: ReusedCall[] = replay.calls.map(({ endpoint, params, result }) => ({
      endpoint,
      params,
      result: result.deref(),
    }));
    if (!resolver.reuse(calls)) return false;
    send(res, replay);
    return true;
  }

  async function answerAndRecord(req: IncomingMessage, res: ServerResponse, key: string, body?: Buffer) {
    // As yoga's own node:http adapter does: the request is abandoned when the client goes away.
    const abandoned = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) abandoned.abort();
    });
    const request = new yoga.fetchAPI.Request(`http://${req.headers.host ?? 'localhost'}${req.url}`, {
      method: req.method as string,
      headers: req.headers as Record<string, string>,
      // A Buffer's memory is a plain ArrayBuffer; the DOM typings only cannot tell.
      ...(body ? { body: body as Uint8Array<ArrayBuffer> } : {}),
      signal: abandoned.signal,
    });
    const recording: Recording = { calls: [], clean: false };
    const response = await yoga.fetch(request, { req, res, recording });
    const answer: Replay = {
      calls: recording.calls.map(({ endpoint, params, result }) => ({
        endpoint,
        params,
        result: new WeakRef(result),
      })),
      status: response.status,
      statusText: response.statusText,
      headers: headerRecord(response.headers),
      // Never a stream: the request asked for no streamed media type and the schema has no
      // subscriptions or @defer, so the body is one piece.
      body: Buffer.from(await response.arrayBuffer()),
    };
    send(res, answer);
    if (
      answer.status === 200 &&
      recording.clean &&
      answer.calls.every(({ endpoint }) => endpoint.cacheSeconds > 0)
    ) {
      replays.set(key, answer);
    }
  }

  return {
    /** Answers a replayable request (from a kept response or through yoga); false leaves it to the caller. */
    async handle(req: IncomingMessage, res: ServerResponse): Promise<boolean> {
      const head = replayableHead(req, maxRequestBytes);
      if (head === undefined) return false;
      let key = head;
      let body: Buffer | undefined;
      if (req.method === 'POST') {
        body = await readBody(req);
        // The client went away before it finished sending: nobody is left to answer.
        if (!body) return true;
        // latin1 maps bytes to characters one to one, so different bodies never share a key.
        key = `${head}\n${body.toString('latin1')}`;
      }
      if (!serve(key, res)) await answerAndRecord(req, res, key, body);
      return true;
    },
  };
}

/**
 * The key of everything but the body that yoga's answer depends on, or undefined when the
 * request is not one to replay. Yoga reads the method, the target, `content-type` and `accept`.
 */
function replayableHead(req: IncomingMessage, maxRequestBytes: number): string | undefined {
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
  return `${req.method} ${req.url}\n${contentType}\n${accept}`;
}

// Media types yoga answers with a stream (or a page), which are not one piece to keep.
const streamedMediaTypes = /text\/event-stream|multipart\/mixed|text\/html/i;

function mediaType(contentType: string): string {
  return (contentType.split(';')[0] ?? '').trim().toLowerCase();
}

/** The whole request body, or undefined when the client went away before sending it all. */
function readBody(req: IncomingMessage): Promise<Buffer | undefined> {
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.once('end', () => resolve(chunks.length === 1 ? (chunks[0] as Buffer) : Buffer.concat(chunks)));
    // After 'end' these change nothing: a promise settles once.
    req.once('error', () => resolve(undefined));
    req.once('close', () => resolve(undefined));
  });
}

/** A plain object of the headers, which writeHead is quickest with. */
function headerRecord(headers: Headers): Record<string, string> {
  const record: Record<string, string> = {};
  headers.forEach((value, name) => {
    record[name] = value;
  });
  return record;
}

/** Writes a response the way yoga's node:http adapter does: one writeHead, then the body. */
function send(res: ServerResponse, replay: Replay): void {
  if (res.destroyed || res.writableEnded) return;
  res.writeHead(replay.status, replay.statusText, replay.headers);
  res.end(replay.body);
}
