import DataLoader from 'dataloader';
import type { Endpoint } from '../endpoints/registry.js';
import type { ParameterValues } from '../engines/query-engine.js';
import { QuerygateError } from '../errors.js';
import { canonicalKey } from '../resolve/canonical-key.js';
import type { ResolvedResult, Resolver } from '../resolve/resolver.js';

/** What every resolver of one GraphQL operation sees. */
export interface GraphQLContext {
  /**
   * Runs an endpoint with bound parameters through the resolver layer. Within one operation the
   * same endpoint and parameters (e.g. two aliases of one field) run once.
   */
  readonly loadEndpoint: (endpoint: Endpoint, params: ParameterValues) => Promise<ResolvedResult>;
}

export interface EndpointCall {
  readonly endpoint: Endpoint;
  readonly params: ParameterValues;
}

export interface GraphQLContextOptions {
  readonly resolver: Resolver;
  /** The operation's request; when the client goes away its runs may be abandoned. */
  readonly signal?: AbortSignal | undefined;
  /**
   * Distinct endpoint calls one operation may make. Aliases let one request ask for many runs;
   * a REST request is one. @default 16
   */
  readonly maxCallsPerOperation?: number;
  /** Told of every call answered, with its result (what a replayed response is made of). */
  readonly onResolved?: ((call: EndpointCall, resolved: ResolvedResult) => void) | undefined;
}

export const defaultMaxCallsPerOperation = 16;

/** A fresh context (and DataLoader) per operation, so deduplication never outlives a request. */
export function createGraphQLContext(options: GraphQLContextOptions): GraphQLContext {
  const { resolver, signal, onResolved } = options;
  // Not a batch in the SQL sense: every distinct call is its own run. The loader's cache is
  // what matters here: it keys calls by the resolver layer's canonical key.
  const loader = new DataLoader<EndpointCall, ResolvedResult, string>(
    (calls) =>
      Promise.all(
        calls.map(async (call) => {
          try {
            const resolved = await resolver.resolve(call.endpoint, call.params, signal ? { signal } : {});
            onResolved?.(call, resolved);
            return resolved;
          } catch (error) {
            return asError(error);
          }
        }),
      ),
    { cacheKeyFn: (call) => canonicalKey(call.endpoint, call.params) },
  );
  const maxCalls = options.maxCallsPerOperation ?? defaultMaxCallsPerOperation;
  const distinct = new Set<string>();
  return {
    loadEndpoint: (endpoint, params) => {
      const call = { endpoint, params };
      distinct.add(canonicalKey(endpoint, params));
      if (distinct.size > maxCalls) {
        return Promise.reject(
          new QuerygateError(
            'BAD_REQUEST',
            `An operation may run at most ${maxCalls} distinct endpoint calls`,
            {
              details: { maxCallsPerOperation: maxCalls },
            },
          ),
        );
      }
      return loader.load(call);
    },
  };
}

/** DataLoader tells failures from results by `instanceof Error`. */
function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
