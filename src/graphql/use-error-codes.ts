import { GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';
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
export function codeOfRequestError(message: string): ErrorCode {
  return argumentProblems.some((pattern) => pattern.test(message)) ? 'BAD_PARAMETER' : 'BAD_REQUEST';
}

const isQuerygateCode = (code: unknown): boolean => typeof code === 'string' && code in errorStatus;

/**
 * Gives every error of a response an `extensions.code` from querygate's codes, the same REST
 * uses. Errors a resolver threw already carry one (QuerygateError); the errors graphql-js raises
 * before execution carry none or yoga's (GRAPHQL_PARSE_FAILED, GRAPHQL_VALIDATION_FAILED, ...),
 * which this replaces.
 */
export function useErrorCodes(): Plugin {
  return {
    onResultProcess({ result, setResult }) {
      if (Array.isArray(result) || !('errors' in result) || !result.errors?.length) return;
      if (result.errors.every((error) => isQuerygateCode(error.extensions?.code))) return;
      setResult({
        ...result,
        errors: result.errors.map((error) =>
          isQuerygateCode(error.extensions?.code)
            ? error
            : new GraphQLError(error.message, {
                nodes: error.nodes,
                source: error.source,
                positions: error.positions,
                path: error.path,
                originalError: error.originalError,
                extensions: { ...error.extensions, code: codeOfRequestError(error.message) },
              }),
        ),
      });
    },
  };
}
