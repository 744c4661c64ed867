import DataLoader from 'dataloader';
import { endpointNotGranted, type Grant } from '../endpoints/grant.js';
import type { Endpoint } from '../endpoints/registry.js';
import type { ParameterValues } from '../engines/query-engine.js';
import { QuerygateError } from '../errors.js';
import { createKeyedSemaphore } from '../keyed-semaphore.js';
import type { Metrics } from '../metrics/metrics.js';
import { canonicalKey } from '../resolve/canonical-key.js';
import type { ResolvedResult, Resolver } from '../resolve/resolver.js';
import { systemTimers, type Timers } from '../timers.js';
import { countedLoad } from './counted-call.js';

/** What every resolver of one GraphQL operation sees. */
export interface GraphQLContext {
  /**
   * Runs an endpoint with bound parameters through the resolver layer. Within one operation the
   * same endpoint and parameters (e.g. two aliases of one field) run once.
   */
  readonly loadEndpoint: (endpoint: Endpoint, params: ParameterValues) => Promise<ResolvedResult>;
  /**
   * The operation has its answer (or none is wanted): calls it started and nobody awaits any more
   * are abandoned, so their engine runs stop unless another caller shares them.
   */
  readonly endOperation: () => void;
  /** Where endpoint calls are counted (see counted-call.ts); undefined where none are. */
  readonly metrics: Pick<Metrics, 'endpoint'> | undefined;
  /** What the signed token the operation came with lets it call and pins; undefined for a key. */
  readonly grant: Grant | undefined;
}

export interface EndpointCall {
  readonly endpoint: Endpoint;
  readonly params: ParameterValues;
}

/** A call with its canonical key, worked out once for the loader and the cache. */
interface KeyedCall extends EndpointCall {
  readonly key: string;
}

export interface GraphQLContextOptions {
  readonly resolver: Resolver;
  /** The signed token's grant: calls outside it are refused. @default none (an API key) */
  readonly grant?: Grant | undefined;
  /** Where endpoint field calls are counted. @default none */
  readonly metrics?: Pick<Metrics, 'endpoint'> | undefined;
  /**
   * The operation's request; when the client goes away its runs are abandoned. A function is
   * asked only once a call is to run: most operations are answered from the cache and never
   * need one (whatwg-node makes a request's signal on first read).
   */
  readonly signal?: AbortSignal | (() => AbortSignal | undefined) | undefined;
  /**
   * Who is calling (see `ResolveOptions.client`): the runs the operation starts count against it.
   * Asked only when a call is to run, once per operation: a cache hit needs no identity.
   */
  readonly client?: (() => string) | undefined;
  /**
   * The longest the operation may take, from now: calls still waiting for their turn then fail
   * with ENGINE_TIMEOUT without ever starting, and calls running are abandoned with it. Each
   * engine run keeps its own deadline as well. @default none
   */
  readonly timeoutMs?: number | undefined;
  /** The timers the deadline is kept with. @default Node's, unref'd */
  readonly timers?: Timers | undefined;
  /**
   * Distinct endpoint calls one operation may make. Aliases let one request ask for many runs;
   * a REST request is one. @default 16
   */
  readonly maxCallsPerOperation?: number;
  /**
   * Calls of one operation that run (wait for or hold an engine connection) at once; the others
   * wait their turn inside the operation, so one operation never fills the engine's queues.
   * Cached results are answered without a turn. @default 2
   */
  readonly concurrency?: number;
}

const defaultMaxCallsPerOperation = 16;
const defaultOperationConcurrency = 2;

/** A fresh context (and DataLoader) per operation, so deduplication never outlives a request. */
export function createGraphQLContext(options: GraphQLContextOptions): GraphQLContext {
  const { resolver } = options;
  let client: string | undefined;
  const who = () => {
    client ??= options.client?.();
    return client;
  };
  // Every run the operation starts carries this signal: it fires when the client goes away, when
  // the operation is refused, when its deadline passes and when the operation has its answer.
  // Made with the first call that runs: an operation answered from the cache never builds one
  // (nor the DOMException aborting it would make).
  let operation: AbortController | undefined;
  function operationSignal(): AbortSignal {
    if (operation) return operation.signal;
    const made = new AbortController();
    operation = made;
    const outer = typeof options.signal === 'function' ? options.signal() : options.signal;
    if (outer?.aborted) made.abort();
    else outer?.addEventListener('abort', () => made.abort(), { once: true });
    return made.signal;
  }
  // At most `concurrency` of the operation's calls hold a turn at once, first come first served.
  let turns: ReturnType<typeof createKeyedSemaphore> | undefined;
  const turnsOf = () => {
    turns ??= createKeyedSemaphore({
      capacity: options.concurrency ?? defaultOperationConcurrency,
      handOff: 'first-come',
      cancelled,
    });
    return turns;
  };
  // Why the operation stopped early, when it did: the calls cut short fail with it.
  let refusal: QuerygateError | undefined;
  const timers = options.timers ?? systemTimers;
  const { timeoutMs } = options;
  // The engine's deadline starts with each run; turns waited inside the operation come before
  // it, so the operation keeps its own over all its calls, from the first that needs a run (an
  // operation answered from the cache, or refused before it executes, never sets one).
  let deadline: unknown;
  function startDeadline(signal: AbortSignal): void {
    if (timeoutMs === undefined || deadline !== undefined || signal.aborted) return;
    deadline = timers.setTimeout(() => {
      refusal ??= new QuerygateError(
        'ENGINE_TIMEOUT',
        `The operation did not finish within ${timeoutMs} ms; its calls not yet started were not run`,
      );
      operation?.abort();
    }, timeoutMs);
    signal.addEventListener('abort', () => timers.clearTimeout(deadline), { once: true });
  }

  async function resolve(call: KeyedCall): Promise<ResolvedResult> {
    // A refusal may come before any call made the operation's abort signal (it is made lazily,
    // only for a call that runs): calls batched before it must still answer nothing.
    if (refusal) throw refusal;
    const hit = resolver.cached(call.endpoint, call.params, call.key);
    if (hit) return hit;
    const signal = operationSignal();
    startDeadline(signal);
    const done = await turnsOf().acquire('operation', { signal });
    try {
      return await resolver.resolve(call.endpoint, call.params, { signal, client: who() });
    } finally {
      done();
    }
  }

  // Not a batch in the SQL sense: every distinct call is its own run. The loader's cache is
  // what matters here: it keys calls by the resolver layer's canonical key.
  const loader = new DataLoader<KeyedCall, ResolvedResult, string>(
    (calls) =>
      Promise.all(
        calls.map(async (call) => {
          try {
            return await resolve(call);
          } catch (error) {
            // Runs cut short by a refusal or the deadline fail with it, not with a cancellation.
            return refusal ?? asError(error);
          }
        }),
      ),
    { cacheKeyFn: (call) => call.key },
  );
  const maxCalls = options.maxCallsPerOperation ?? defaultMaxCallsPerOperation;
  // The calls the loader was asked for: asking again (an alias, or graphql-js executing a document
  // graphql-jit already ran, see fast-operation.ts) gets the same answer, never a second run.
  const asked = new Set<string>();
  const { metrics, grant } = options;
  return {
    loadEndpoint: (endpoint, params) => {
      // The schema a token executes over has only its endpoints; this is the second lock.
      if (grant && !grant.allows(endpoint.name))
        return countedLoad(metrics, endpoint, Promise.reject(endpointNotGranted(endpoint.name)));
      const key = canonicalKey(endpoint, params);
      const call = { endpoint, params, key };
      // Counted on its first ask only (see counted-call.ts): an alias is the same call.
      if (asked.has(key)) return loader.load(call);
      if (refusal) return countedLoad(metrics, endpoint, Promise.reject(refusal));
      if (asked.size >= maxCalls) {
        refusal = new QuerygateError(
          'BAD_REQUEST',
          `An operation may run at most ${maxCalls} distinct endpoint calls`,
          { details: { maxCallsPerOperation: maxCalls } },
        );
        // A refused operation answers nothing, so the calls it already started are abandoned.
        operation?.abort();
        return countedLoad(metrics, endpoint, Promise.reject(refusal));
      }
      asked.add(key);
      return countedLoad(metrics, endpoint, loader.load(call));
    },
    endOperation: () => operation?.abort(),
    metrics: options.metrics,
    grant,
  };
}

const cancelled = () =>
  new QuerygateError('ENGINE_ERROR', 'The operation was cancelled before this call ran');

/** DataLoader tells failures from results by `instanceof Error`. */
function asError(error: unknown): Error {
  return error instanceof Error ? error : new Error(String(error));
}
