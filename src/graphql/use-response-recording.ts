import type { Plugin } from 'graphql-yoga';
import type { GraphQLContext } from './context.js';
import type { ReplayServerContext } from './response-replay.js';

/**
 * Tells a request's recording (see `createResponseReplay`) whether yoga processed one plain
 * result without errors, the only kind of response that may be replayed. Requests without a
 * recording (`yoga.fetch` in tests, requests yoga reads itself) pass untouched.
 */
export function useResponseRecording(): Plugin<GraphQLContext, ReplayServerContext> {
  return {
    onResultProcess({ result, serverContext }) {
      const { recording } = serverContext;
      if (!recording) return;
      recording.clean = !Array.isArray(result) && !(Symbol.asyncIterator in result) && !result.errors?.length;
    },
  };
}
