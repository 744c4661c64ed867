import { type ExecutionArgs, type ExecutionResult, execute, GraphQLError } from 'graphql';
import type { Plugin } from 'graphql-yoga';

/**
 * Executes with graphql-js's `execute` instead of yoga's default (@graphql-tools/executor).
 *
 * Why: the default builds an object whose fields resolve asynchronously in the order they
 * settle, so an operation asking for `a`, `b`, `c` on a cache miss could answer `a`, `c`, `b`
 * when `b` waited on `a`'s call. The GraphQL spec orders a response's fields as the selection
 * does, and clients comparing or hashing answers rely on it; graphql-js keeps that order. Yoga's
 * executor adds nothing this service uses (no @defer, @stream or subscriptions) but one rule,
 * kept here: a request refused before execution began (variables that cannot be coerced) is an
 * HTTP 400, which yoga reads from the errors' `http` extension.
 */
export function useOrderedExecution(): Plugin {
  return {
    onExecute({ setExecuteFn }) {
      setExecuteFn((args: ExecutionArgs) => {
        const result = execute(args);
        return result instanceof Promise || 'data' in result ? result : asRequestError(result);
      });
    },
  };
}

function asRequestError(result: ExecutionResult): ExecutionResult {
  return {
    errors: (result.errors ?? []).map(
      (error) =>
        new GraphQLError(error.message, {
          nodes: error.nodes,
          source: error.source,
          positions: error.positions,
          path: error.path,
          originalError: error.originalError,
          extensions: { ...error.extensions, http: { ...(error.extensions.http as object), status: 400 } },
        }),
    ),
  };
}
