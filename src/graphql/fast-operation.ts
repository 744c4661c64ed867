import type { IncomingHttpHeaders } from 'node:http';
import type { FastifyReply, FastifyRequest } from 'fastify';
import type { ExecutionResult, GraphQLError } from 'graphql';
import { type FetchAPI, processRegularResult } from 'graphql-yoga';
import type { Snapshot } from '../endpoints/snapshot.js';
import type { Metrics } from '../metrics/metrics.js';
import type { Resolver } from '../resolve/resolver.js';
import {
  type CompiledOperation,
  type CompiledOperations,
  compiledOperationsOf,
} from './compiled-operations.js';
import type { GraphQLContext } from './context.js';
import { runSpliced, splicedBody } from './encoded-fields.js';
import { createRememberedCalls, valuesKey } from './remembered-calls.js';
import type { KeptAnswer } from './response-replay.js';
import type { AnsweredMediaTypes } from './use-compiled-operations.js';
import { withErrorCodes } from './use-error-codes.js';
import { type ReplayRecording, recordingLoad } from './use-response-replay.js';

export interface FastOperationOptions {
  /** The endpoints served now: an operation is answered on the snapshot it starts with. */
  readonly snapshot: () => Snapshot;
  /** The yoga that accepted the documents: its error masking is the fast path's. */
  readonly yoga: object;
  /** The media type yoga answered each `Accept` header with. */
  readonly mediaTypes: AnsweredMediaTypes;
  /** A fresh operation context, as yoga's `context` makes it. */
  readonly contextFor: (request: FastifyRequest, reply: FastifyReply) => GraphQLContext;
  /** The resolver the contexts call: remembered calls are reused from it (remembered-calls.ts). */
  readonly resolver: Resolver;
  /** Where endpoint calls are counted, as the contexts count them. @default none */
  readonly metrics?: Pick<Metrics, 'endpoint'> | undefined;
}

/** A request the fast path may answer, read (see `readRequest`). */
interface FastRequest {
  /** The media type of the answer, as yoga chose it for the request's `Accept`. */
  readonly mediaType: string;
  readonly operations: CompiledOperations;
  readonly operation: CompiledOperation;
  readonly variables: Record<string, unknown> | null | undefined;
  /** The key of the declared variables' values, when the operation is spliced and they are scalars. */
  readonly valuesKeyed: string | undefined;
}

interface YogaMasking {
  readonly errorMessage?: string;
  readonly maskError: (error: unknown, message: string) => Error;
}

/** A GraphQL-over-HTTP request as a JSON body holds it, before it is checked. */
interface JsonParams {
  readonly query?: unknown;
  readonly variables?: unknown;
  readonly operationName?: unknown;
  readonly extensions?: unknown;
}

/**
 * Answers the usual GraphQL request without yoga's request pipeline: a JSON POST of one
 * operation whose document yoga has already accepted (parsed, validated, within the limits) and
 * compiled for the schema served now (see use-compiled-operations.ts), asking for a media type
 * yoga has already answered. graphql-jit executes it; whatever is unusual is yoga's, as before:
 * first sight of a document, a batch, an APQ hash, a GET, another body type, unknown fields,
 * variables graphql-jit refuses (graphql-js words the refusal), so this answers undefined. A
 * result with errors is executed again by yoga's own executor with the same operation context,
 * whose loader answers every call it already made (no call runs twice), so error messages,
 * locations and null propagation are graphql-js's; errors are then masked by yoga's own function
 * and coded like yoga's (useErrorCodes), and yoga's own result processor makes the body, status
 * and headers. So the answer is the one yoga would give, byte for byte.
 */
export function createFastOperations(options: FastOperationOptions) {
  const { yoga, mediaTypes } = options;
  // A clean answer's status and headers by media type: yoga answers only the few of
  // `regularMediaTypes` (use-compiled-operations.ts).
  const cleanHeads = new Map<string, KeptAnswer>();
  const remembered = createRememberedCalls(options);
  // Clients send the same `content-type` on every request: the last one's verdict is kept.
  let lastContentType: string | undefined;
  let lastPlainJson = false;
  const plainJson = (contentType: string | undefined): boolean => {
    if (contentType !== lastContentType) {
      lastContentType = contentType;
      lastPlainJson = isPlainJson(contentType);
    }
    return lastPlainJson;
  };

  // Yoga's masking as yoga runs it (our maskError, the original logged when masked, an error
  // masked once): a public property at run time, which yoga's typings mark private.
  const masking = (yoga as unknown as { maskedErrorsOpts: YogaMasking | null }).maskedErrorsOpts;

  function maskErrors(result: ExecutionResult): ExecutionResult {
    if (!result.errors?.length || !masking) return result;
    const message = masking.errorMessage ?? 'Unexpected error.';
    return {
      ...result,
      errors: result.errors.map((error) => masking.maskError(error, message) as GraphQLError),
    };
  }

  /** A request the fast path may answer, read: anything else is yoga's (undefined). */
  function readRequest(headers: IncomingHttpHeaders, body: Buffer): FastRequest | undefined {
    if (body.length === 0) return undefined;
    const mediaType = mediaTypes.get(headers.accept ?? '');
    if (!mediaType || !plainJson(headers['content-type']) || headers['content-encoding'] !== undefined) {
      return undefined;
    }
    let params: JsonParams;
    try {
      params = JSON.parse(body.toString('utf8')) as JsonParams;
    } catch {
      return undefined;
    }
    if (!isSingleOperation(params)) return undefined;
    const operations = compiledOperationsOf(options.snapshot());
    const operation = operations.find(params.query, params.operationName);
    if (!operation) return undefined;
    const variables = params.variables as Record<string, unknown> | null | undefined;
    const { spliced } = operation;
    const valuesKeyed = spliced && valuesKey(spliced.remembered.variables, variables);
    return { mediaType, operations, operation, variables, valuesKeyed };
  }

  /** The same values of the declared variables answered before: no context, no coercion. */
  function rememberedAnswer(
    read: FastRequest,
    recording: ReplayRecording | undefined,
  ): KeptAnswer | undefined {
    const { spliced } = read.operation;
    if (!spliced || read.valuesKeyed === undefined) return undefined;
    const rows = remembered.again(spliced.remembered, read.valuesKeyed, recording);
    if (rows === undefined) return undefined;
    read.operations.countSpliced();
    return splicedAnswer(splicedBody(spliced, rows), read.mediaType, cleanHeads);
  }

  return {
    /**
     * The answer to a POST made from the calls its operation made before for the same values of
     * its declared variables (see remembered-calls.ts), or undefined. Synchronous, and needs
     * nothing of Fastify's, so the face can answer before Fastify routes (replayed-answers.ts).
     */
    remembered(
      headers: IncomingHttpHeaders,
      body: Buffer,
      recording: ReplayRecording | undefined,
    ): KeptAnswer | undefined {
      const read = readRequest(headers, body);
      return read && rememberedAnswer(read, recording);
    },

    /** Whether any operation of the snapshot served now was answered spliced, so may be remembered. */
    remembers: (): boolean => compiledOperationsOf(options.snapshot()).splices > 0,

    /** The answer to a request, or undefined when yoga is to answer it. */
    async answer(
      request: FastifyRequest,
      reply: FastifyReply,
      recording: ReplayRecording | undefined,
    ): Promise<KeptAnswer | undefined> {
      const { body } = request;
      if (request.method !== 'POST' || !Buffer.isBuffer(body)) return undefined;
      const read = readRequest(request.headers, body);
      if (!read) return undefined;
      const again = rememberedAnswer(read, recording);
      if (again) return again;
      const { operations, operation, variables, valuesKeyed, mediaType } = read;
      const { spliced } = operation;
      const context = options.contextFor(request, reply);
      const contextValue: GraphQLContext = recording
        ? { ...context, loadEndpoint: recordingLoad(context.loadEndpoint, recording) }
        : context;
      if (spliced) {
        const made = await runSpliced(spliced, operations.schema, contextValue, variables);
        if (made !== undefined) {
          context.endOperation();
          operations.countSpliced();
          if (recording) recording.clean = true;
          if (valuesKeyed !== undefined) remembered.remember(spliced.remembered, valuesKeyed, made);
          return splicedAnswer(
            splicedBody(
              spliced,
              made.map((call) => call.rows),
            ),
            mediaType,
            cleanHeads,
          );
        }
      }
      let result = await operations.run(operation, contextValue, variables);
      if (result === undefined) return undefined;
      try {
        if (result.errors?.length) {
          result = (await operation.execute({
            schema: operations.schema,
            document: operation.document,
            contextValue,
            variableValues: variables,
            operationName: operation.operationName,
          })) as ExecutionResult;
        }
      } finally {
        context.endOperation();
      }
      result = withErrorCodes(maskErrors(result));
      if (recording) recording.clean = !result.errors?.length;
      return processed(result, mediaType);
    },
  };
}

export type FastOperations = ReturnType<typeof createFastOperations>;

/**
 * The body, status and headers yoga's result processor makes of a result, with the head to send.
 * The head is built property by property, never spread from the headers: a spread copy given one
 * more property made V8 create a new hidden class for every answer (148,000 in one 1M-row peer
 * table, read with `--log-maps`).
 */
function processed(result: ExecutionResult, mediaType: string): KeptAnswer {
  const { body, init } = processRegularResult(
    result,
    bodyAndInit as unknown as FetchAPI,
    mediaType,
  ) as unknown as {
    readonly body: string;
    readonly init: { readonly status: number; readonly headers: Record<string, string> };
  };
  const headers: Record<string, string> = {};
  const head: Record<string, string | number> = {};
  for (const [name, value] of Object.entries(init.headers)) {
    const lower = name.toLowerCase();
    headers[lower] = head[lower] = value;
  }
  head['content-length'] = Buffer.byteLength(body);
  return { status: init.status, headers, head, body };
}

/**
 * The answer of a spliced body: the status and headers yoga's result processor gives a result
 * without errors depend on the media type alone, so they are worked out once per media type.
 */
function splicedAnswer(body: Buffer, mediaType: string, cleanHeads: Map<string, KeptAnswer>): KeptAnswer {
  let clean = cleanHeads.get(mediaType);
  if (clean === undefined) {
    clean = processed({ data: {} }, mediaType);
    cleanHeads.set(mediaType, clean);
  }
  const head: Record<string, string | number> = {};
  for (const name in clean.headers) head[name] = clean.headers[name] as string;
  head['content-length'] = body.length;
  return { status: clean.status, headers: clean.headers, head, body };
}

/**
 * Stands in for the fetch API's Response, to which yoga's result processor hands the body it
 * made and the status and headers it worked out: they are sent by Fastify as they are.
 */
const bodyAndInit = {
  Response: class {
    constructor(
      readonly body: string,
      readonly init: unknown,
    ) {}
  },
};

/** `application/json`, in UTF-8 (yoga's JSON parser reads nothing else). */
function isPlainJson(contentType: string | undefined): boolean {
  if (contentType === undefined) return false;
  const [type, ...parameters] = contentType.toLowerCase().split(';');
  if (type?.trim() !== 'application/json') return false;
  return parameters.every((parameter) => parameter.replace(/\s/g, '') === 'charset=utf-8');
}

/**
 * One operation with no extensions (an APQ hash is yoga's), a string document, and variables
 * and operation name of the types yoga reads: anything else is yoga's to answer or refuse.
 */
function isSingleOperation(
  params: unknown,
): params is { query: string; variables?: object | null; operationName?: string | null } {
  if (typeof params !== 'object' || params === null || Array.isArray(params)) return false;
  for (const name in params) if (!singleOperationFields.has(name)) return false;
  const { query, variables, operationName, extensions } = params as JsonParams;
  return (
    typeof query === 'string' &&
    (variables === undefined ||
      variables === null ||
      (typeof variables === 'object' && !Array.isArray(variables))) &&
    (operationName === undefined || operationName === null || typeof operationName === 'string') &&
    (extensions === undefined || extensions === null)
  );
}

const singleOperationFields = new Set(['query', 'variables', 'operationName', 'extensions']);
