import type { Plugin } from 'graphql-yoga';
import type { GraphQLContext } from './context.js';

/**
 * Ends each operation once execution is done (see `GraphQLContext.endOperation`). graphql-js can
 * finish before every resolver it started has: a list whose item fails, or an error nulling a
 * parent, no longer awaits its siblings. Their engine runs would go on for nobody; this stops them.
 */
export function useOperationEnd(): Plugin<GraphQLContext> {
  return {
    onExecute({ args }) {
      return {
        onExecuteDone() {
          (args.contextValue as Partial<GraphQLContext>).endOperation?.();
        },
      };
    },
  };
}
