import type { IncomingHttpHeaders } from 'node:http';
import type { Plugin } from 'graphql-yoga';
import type { Snapshot } from '../endpoints/snapshot.js';
import { compiledOperationsOf, type Executor } from './compiled-operations.js';

/**
 * The media type yoga answers each `Accept` header with, as yoga chose it for operations it
 * executed: the fast path answers only requests whose `Accept` yoga has answered before, so it
 * never decides content negotiation itself.
 */
export interface AnsweredMediaTypes {
  get(accept: string): string | undefined;
  note(accept: string, mediaType: string): void;
}

/** A handful of `Accept` headers is what real clients send; more are left to yoga. */
const maxAcceptHeaders = 64;

export function createAnsweredMediaTypes(): AnsweredMediaTypes {
  const byAccept = new Map<string, string>();
  return {
    get: (accept) => byAccept.get(accept),
    note(accept, mediaType) {
      if (byAccept.size < maxAcceptHeaders || byAccept.has(accept)) byAccept.set(accept, mediaType);
    },
  };
}

/** What the face hands yoga: the Node request, whose `Accept` header the answer is noted under. */
interface FaceRequestContext {
  readonly req?: { readonly headers: IncomingHttpHeaders };
}

// The only media types of a single, non-streamed result (yoga's regular result processor).
const regularMediaTypes = new Set(['application/json', 'application/graphql-response+json']);

/**
 * Compiles every document yoga is about to execute (so it has been parsed, validated and kept
 * within the limits) with graphql-jit, kept with the snapshot whose schema it was validated
 * against, and notes the media type yoga answered its `Accept` header with. Yoga itself goes on
 * executing as it does; the face answers later requests for the same document (see
 * fast-operation.ts).
 */
export function useCompiledOperations(
  snapshot: () => Snapshot,
  mediaTypes: AnsweredMediaTypes,
): Plugin<Record<string, unknown>, FaceRequestContext> {
  const executed = new WeakSet<object>();
  return {
    onExecute({ args, executeFn }) {
      const operations = compiledOperationsOf(snapshot());
      // A reload swapped the snapshot while this request was under way: its plan is not kept.
      if (args.schema !== operations.schema) return;
      const query = (args.contextValue as { params?: { query?: unknown } }).params?.query;
      if (typeof query !== 'string') return;
      operations.accept(args.document, query, args.operationName, executeFn as Executor);
      const { request } = args.contextValue as { request?: object };
      if (request) executed.add(request);
    },
    onResponse({ request, response, serverContext }) {
      if (!executed.has(request) || !serverContext.req) return;
      const mediaType = (response.headers.get('content-type') ?? '').split(';')[0]?.trim() ?? '';
      if (regularMediaTypes.has(mediaType))
        mediaTypes.note(serverContext.req.headers.accept ?? '', mediaType);
    },
  };
}
