import { type ExecutionResult, GraphQLError } from 'graphql';
import type { GraphQLHTTPExtensions, Plugin } from 'graphql-yoga';
import { type ErrorCode, errorStatus } from '../errors.js';

// graphql-js reports a bad argument or variable value with these messages (graphql 16); they are
// the GraphQL face's BAD_PARAMETER. Anything else wrong with the document is a BAD_REQUEST.
const argumentProblems = [
  /^Variable "\$[^"]+" got invalid value/,
  /^Variable "\$[^"]+" of required type "[^"]+" was not provided/,
  /^Variable "\$[^"]+" of non-null type "[^"]+" must not be null/,
  /^Expected value of type "[^"]+", found /,
  /^Value "[^"]*" does not exist in "[^"]+" enum/,
  /^Enum "[^"]+" cannot represent non-enum value/,
  /^Field "[^"]+" argument "[^"]+" of type "[^"]+" is required, but it was not provided/,
  /^(String|Int|Float|Boolean|ID) cannot represent/,
];

/** The code a GraphQL-level error (syntax, validation, variables) gets, like REST's for the same fault. */
function codeOfRequestError(message: string): ErrorCode {
  return argumentProblems.some((pattern) => pattern.test(message)) ? 'BAD_PARAMETER' : 'BAD_REQUEST';
}

// Codes yoga's own plugins give that clients act on: Apollo's persisted-queries link resends the
// full query on PERSISTED_QUERY_NOT_FOUND.
const protocolCodes = new Set(['PERSISTED_QUERY_NOT_FOUND', 'PERSISTED_QUERY_MISMATCH']);

const keepsCode = (code: unknown): boolean =>
  typeof code === 'string' && (code in errorStatus || protocolCodes.has(code));

/**
 * Gives every error of a response an `extensions.code` from querygate's codes, the same REST
 * uses, and the HTTP status the GraphQL-over-HTTP spec gives it. Errors a resolver threw already
 * carry a code (QuerygateError); the errors graphql-js raises before execution carry none or
 * yoga's (GRAPHQL_PARSE_FAILED, GRAPHQL_VALIDATION_FAILED, ...), which this replaces.
 *
 * Status: an error raised while executing a field (it has a `path`) must not fail the request:
 * the response is 200 with `errors` and whatever `data` resolved, so a client such as Apollo
 * reads `graphQLErrors` instead of a network error. So a field error loses its `extensions.http`
 * (which yoga would answer with); request errors (JSON, parse, validation, variables) keep the
 * 4xx yoga gives them.
 */
export function useErrorCodes(): Plugin {
  return {
    onResultProcess({ result, setResult }) {
      if (Array.isArray(result)) {
        setResult(result.map((one) => withErrorCodes(one as ExecutionResult)));
        return;
      }
      if (Symbol.asyncIterator in result) return;
      const mapped = withErrorCodes(result as ExecutionResult);
      if (mapped !== result) setResult(mapped);
    },
  };
}

/** A result with every error coded as `useErrorCodes` codes it (shared with fast-operation.ts). */
export function withErrorCodes(result: ExecutionResult): ExecutionResult {
  if (!result.errors?.length) return result;
  if (
    result.errors.every(
      (error) =>
        keepsCode(error.extensions?.code) &&
        !isFieldErrorWithStatus(error) &&
        error.extensions?.originalError === undefined,
    )
  ) {
    return result;
  }
  return { ...result, errors: result.errors.map(recode) };
}

function isFieldErrorWithStatus(error: GraphQLError): boolean {
  return error.path !== undefined && error.extensions?.http !== undefined;
}

function recode(error: GraphQLError): GraphQLError {
  const code = keepsCode(error.extensions?.code) ? error.extensions.code : codeOfRequestError(error.message);
  // Yoga's request parser adds the parser's own error as `originalError`, whose message quotes a
  // body that is not JSON whole: a 1 MB body was answered with 1 MB of it. It is kept cut short,
  // not dropped: yoga answers a request it could not parse 400 (not 200 for `application/json`)
  // by its being there and not a GraphQL error.
  const { http, originalError, ...extensions } = error.extensions ?? {};
  const parserError =
    originalError !== null && typeof originalError === 'object'
      ? { originalError: shortened(originalError as { name?: unknown; message?: unknown }) }
      : {};
  // A field error keeps the headers it asked for (ENGINE_BUSY's Retry-After), never its status.
  const headers = (http as GraphQLHTTPExtensions | undefined)?.headers;
  const kept: GraphQLHTTPExtensions | undefined =
    error.path === undefined ? (http as GraphQLHTTPExtensions | undefined) : headers && { headers };
  return new GraphQLError(error.message, {
    nodes: error.nodes,
    source: error.source,
    positions: error.positions,
    path: error.path,
    originalError: error.originalError,
    extensions: { ...extensions, ...parserError, code, ...(kept ? { http: kept } : {}) },
  });
}

/** A parser's error as yoga gives it, its message cut to 200 characters. */
function shortened(error: { name?: unknown; message?: unknown }): { name: string; message: string } {
  const message = String(error.message ?? '');
  return {
    name: String(error.name ?? 'Error'),
    message: message.length > 200 ? `${message.slice(0, 200)}...` : message,
  };
}
