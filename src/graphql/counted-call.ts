import type { Endpoint } from '../endpoints/registry.js';
import type { ResolvedResult } from '../resolve/resolver.js';
import type { GraphQLContext } from './context.js';

/**
 * An endpoint field's call, counted from the field's start: with its cache outcome when it has a
 * result, with its error otherwise (a bad argument included). Each field counts, so two aliases
 * of one call count twice, though the operation's loader runs it once.
 */
export async function countedCall(
  context: Pick<GraphQLContext, 'metrics'>,
  endpoint: Pick<Endpoint, 'name'>,
  call: () => Promise<ResolvedResult>,
): Promise<ResolvedResult> {
  const counts = context.metrics?.endpoint(endpoint.name);
  if (!counts) return call();
  const startedAt = performance.now();
  try {
    const resolved = await call();
    counts.answered('graphql', resolved.cache, startedAt);
    return resolved;
  } catch (error) {
    counts.failed('graphql', error, startedAt);
    throw error;
  }
}
