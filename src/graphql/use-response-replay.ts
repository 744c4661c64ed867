import type { IncomingHttpHeaders } from 'node:http';
import type { Plugin } from 'graphql-yoga';
import { canonicalKey } from '../resolve/canonical-key.js';
import type { GraphQLContext } from './context.js';
import type { KeptCall, ResponseReplay } from './response-replay.js';

/** The HTTP request yoga is handed by the face (Fastify's), whose body Fastify has already read. */
export interface ReplayServerContext {
  readonly req?: {
    readonly raw: { readonly method?: string; readonly url?: string; readonly headers: IncomingHttpHeaders };
    readonly body?: unknown;
  };
}

/** What answering one request read, while yoga answers it. */
interface Answering {
  readonly key: string;
  /** By canonical key: two aliases of one call are one call, as the operation's loader has it. */
  readonly calls: Map<string, KeptCall>;
  /** Yoga processed one plain result without errors, the only kind of response to keep. */
  clean: boolean;
}

/**
 * Answers a GraphQL request again from the response yoga gave to the same request, while the
 * results it was made of are still the resolver layer's fresh cached results (see
 * `createResponseReplay` for why and when). Its `onRequest` ends a request early with a kept
 * response; its own later hooks note the endpoint calls an operation reads (by wrapping the
 * context's `loadEndpoint`) and whether the result was clean, and keep the response once it is
 * made. Requests yoga is not handed by the face (`yoga.fetch` in tests) pass untouched.
 */
export function useResponseReplay(replay: ResponseReplay): Plugin<GraphQLContext, ReplayServerContext> {
  // Per request, by the face's request object, which every hook is handed in the server context.
  const answering = new WeakMap<object, Answering>();
  return {
    onRequest({ serverContext, endResponse, fetchAPI }) {
      const req = serverContext.req;
      if (!req) return;
      const body = Buffer.isBuffer(req.body) ? req.body : undefined;
      const key = replay.keyOf(
        { method: req.raw.method ?? 'GET', url: req.raw.url ?? '/', headers: req.raw.headers },
        body,
      );
      if (key === undefined) return;
      const kept = replay.find(key);
      if (kept) {
        endResponse(
          new fetchAPI.Response(kept.body as Uint8Array<ArrayBuffer>, {
            status: kept.status,
            headers: kept.headers,
          }),
        );
        return;
      }
      answering.set(req, { key, calls: new Map(), clean: false });
    },
    onContextBuilding({ context }) {
      const req = (context as ReplayServerContext).req;
      const state = req && answering.get(req);
      if (!state) return;
      return ({ context: built, extendContext }) => {
        const load = built.loadEndpoint;
        extendContext({
          loadEndpoint: async (endpoint, params) => {
            const resolved = await load(endpoint, params);
            state.calls.set(canonicalKey(endpoint, params), { endpoint, params, result: resolved.result });
            return resolved;
          },
        });
      };
    },
    onResultProcess({ result, serverContext }) {
      const state = serverContext.req && answering.get(serverContext.req);
      if (!state) return;
      state.clean = !Array.isArray(result) && !(Symbol.asyncIterator in result) && !result.errors?.length;
    },
    async onResponse({ response, serverContext }) {
      const req = serverContext.req;
      const state = req && answering.get(req);
      if (!req || !state) return;
      answering.delete(req);
      if (response.status !== 200 || !state.clean) return;
      // Never a stream worth streaming: the schema has no subscriptions or @defer.
      const body = Buffer.from(await response.clone().arrayBuffer());
      replay.keep(state.key, { status: response.status, headers: headerRecord(response.headers), body }, [
        ...state.calls.values(),
      ]);
    },
  };
}

/** A plain object of the headers, without the framing the face sets itself for the buffered body. */
export function headerRecord(headers: Headers): Record<string, string> {
  const record: Record<string, string> = {};
  // whatwg-node's Headers may keep the case yoga wrote ('Transfer-Encoding').
  headers.forEach((value, name) => {
    const lower = name.toLowerCase();
    if (lower !== 'content-length' && lower !== 'transfer-encoding') record[lower] = value;
  });
  return record;
}
