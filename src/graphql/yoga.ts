import { createInMemoryAPQStore, useAPQ } from '@graphql-yoga/plugin-apq';
import { GraphQLError } from 'graphql';
import { createYoga, maskError, type YogaServerInstance } from 'graphql-yoga';
import type { Logger } from 'pino';
import type { Grant } from '../endpoints/grant.js';
import { grantedSnapshot } from '../endpoints/granted-snapshot.js';
import type { Snapshot } from '../endpoints/snapshot.js';
import { isQuerygateError, QuerygateError } from '../errors.js';
import type { Metrics } from '../metrics/metrics.js';
import type { Resolver } from '../resolve/resolver.js';
import type { Timers } from '../timers.js';
import { createGraphQLContext, type GraphQLContext } from './context.js';
import type { ResponseReplay } from './response-replay.js';
import { schemaFor } from './schema.js';
import { type AnsweredMediaTypes, useCompiledOperations } from './use-compiled-operations.js';
import { useErrorCodes } from './use-error-codes.js';
import { useGrantedFields } from './use-granted-fields.js';
import { useNotAcceptableAnswer } from './use-not-acceptable.js';
import { useOperationEnd } from './use-operation-end.js';
import { useOrderedExecution } from './use-ordered-execution.js';
import { useDocumentLimits, useRequestParamsCheck } from './use-request-limits.js';
import { type ReplayServerContext, useResponseReplay } from './use-response-replay.js';

export const graphqlPath = '/graphql';

/** What the HTTP face hands yoga with each request. */
export type FaceServerContext = ReplayServerContext & {
  /** Who is calling (see `clientIdentity`), asked only when a call is to run; its runs count against its bound. */
  readonly client?: (() => string) | undefined;
  /** What a signed token lets the request do (see `grantedSnapshot`); undefined for an API key. */
  readonly grant?: Grant | undefined;
};

export interface GraphQLFaceOptions {
  /** The endpoints served now; each operation runs on the schema of the snapshot it started with. */
  readonly snapshot: () => Snapshot;
  readonly resolver: Resolver;
  /** Where each endpoint field call is counted. @default none */
  readonly metrics?: Pick<Metrics, 'endpoint'> | undefined;
  readonly logger: Logger;
  /** Operations one batched request (a JSON array) may carry. @default 10 */
  readonly maxBatch?: number;
  /** Queries kept for automatic persisted queries (APQ), least recently used first out. @default 1000 */
  readonly maxPersistedQueries?: number;
  /** Engine calls one operation runs at once (see `createGraphQLContext`). @default 2 */
  readonly operationConcurrency?: number;
  /** The longest one operation may take, its waiting turns included (the query timeout). @default none */
  readonly operationTimeoutMs?: number | undefined;
  /** The timers operation deadlines are kept with. @default Node's, unref'd */
  readonly timers?: Timers | undefined;
  /** Responses kept to answer the same request again (see `useResponseReplay`). @default none kept */
  readonly replay?: ResponseReplay | undefined;
  /**
   * Where the media types yoga answers are noted, for the face's fast path (see
   * `useCompiledOperations`); with it, documents yoga executes are compiled. @default not noted
   */
  readonly mediaTypes?: AnsweredMediaTypes | undefined;
}

/** A fresh context for one operation, as the face's yoga makes it (see `createGraphQLContext`). */
export function operationContext(
  options: GraphQLFaceOptions,
  signal: () => AbortSignal | undefined,
  client: (() => string) | undefined,
  grant?: Grant | undefined,
): GraphQLContext {
  return createGraphQLContext({
    grant,
    resolver: options.resolver,
    metrics: options.metrics,
    signal,
    client,
    concurrency: options.operationConcurrency,
    timeoutMs: options.operationTimeoutMs,
    timers: options.timers,
  });
}

/**
 * The GraphQL face as a yoga server (usable in-process through `yoga.fetch`). Every field goes
 * through the registry and the resolver layer like REST does; yoga only parses, validates,
 * executes and encodes. GraphiQL is served separately (see `graphqlRoutes`), so yoga never
 * renders HTML.
 */
export function createQuerygateYoga(
  options: GraphQLFaceOptions,
): YogaServerInstance<FaceServerContext, GraphQLContext> {
  const { logger } = options;
  return createYoga<FaceServerContext, GraphQLContext>({
    // A schema factory: a reload swaps the snapshot, and the next operation gets its schema.
    // A signed token's operation gets the schema of what it may call, kept per grant view.
    schema: ({ grant }) => schemaFor(grant ? grantedSnapshot(options.snapshot(), grant) : options.snapshot()),
    graphqlEndpoint: graphqlPath,
    graphiql: false,
    landingPage: false,
    // Same origin only: GraphiQL is served from here, and other sites have no business calling.
    cors: false,
    context: ({ request, client, grant }) => operationContext(options, () => request.signal, client, grant),
    maskedErrors: {
      maskError(error, message, isDev): Error {
        const known = findQuerygateError(error);
        // A located wrapper keeps the path and our extensions; return it as it is.
        if (known) return error instanceof GraphQLError ? error : known;
        // graphql-js's own errors (syntax, validation, variable values) are the client's to see.
        if (maskError(error, message, isDev) === error) return error as Error;
        // Yoga logs the original in full; the client learns only that something went wrong.
        return new QuerygateError('INTERNAL', 'Internal error; the server log has the details');
      },
    },
    logging: {
      debug: (...args: unknown[]) => logger.debug({ args }, 'graphql'),
      info: (...args: unknown[]) => logger.info({ args }, 'graphql'),
      warn: (...args: unknown[]) => logger.warn({ args }, 'graphql'),
      error: (...args: unknown[]) =>
        args[0] instanceof Error
          ? logger.error({ err: args[0] }, 'unexpected error in GraphQL')
          : logger.error({ args }, 'graphql'),
    },
    // Apollo's BatchHttpLink and graphql-request's batchRequests send a JSON array.
    batching: { limit: options.maxBatch ?? 10 },
    plugins: [
      // First, so APQ and the limits below only ever see object-shaped variables and extensions.
      useRequestParamsCheck(),
      // Apollo's persisted-queries link: a hash alone, then the query once the hash is unknown.
      useAPQ({
        store: createInMemoryAPQStore({ max: options.maxPersistedQueries ?? 1000, ttl: 24 * 3600 * 1000 }),
      }),
      ...useDocumentLimits(),
      useOperationEnd(),
      useErrorCodes(),
      useGrantedFields(options.snapshot),
      useOrderedExecution(),
      ...(options.mediaTypes ? [useCompiledOperations(options.snapshot, options.mediaTypes)] : []),
      useNotAcceptableAnswer(),
      // Last: it keeps the response the plugins above have made.
      ...(options.replay ? [useResponseReplay(options.replay)] : []),
    ],
  });
}

/** Our error, where graphql-js or yoga wrapped it (located errors keep it as `originalError`). */
function findQuerygateError(error: unknown): QuerygateError | undefined {
  let current: unknown = error;
  for (let depth = 0; depth < 4 && typeof current === 'object' && current !== null; depth++) {
    if (isQuerygateError(current)) return current;
    current = (current as { originalError?: unknown }).originalError;
  }
  return undefined;
}

/** Mirrors yoga's own rule for when a GET is a browser opening GraphiQL. */
export function isGraphiQLPageRequest(req: {
  readonly method: string;
  readonly headers: { readonly accept?: string | undefined };
}): boolean {
  return req.method === 'GET' && (req.headers.accept ?? '').includes('text/html');
}
