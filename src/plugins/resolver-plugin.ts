import fp from 'fastify-plugin';
import type { Logger } from 'pino';
import type { Config } from '../config.js';
import { splitCacheBudget } from '../resolve/cache-budget.js';
import { createClientAdmission } from '../resolve/client-admission.js';
import { connectRedisResults } from '../resolve/redis-results.js';
import { createResolver, type Resolver } from '../resolve/resolver.js';
import { localResults, type SharedResults } from '../resolve/shared-results.js';
import type { Timers } from '../timers.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The resolver layer both faces share (cache, warming, single flight, admission). */
    readonly resolver: Resolver;
    /** Where replicas share results (Redis), or this process alone; `/health` and `/metrics` read it. */
    readonly sharedResults: SharedResults;
  }
}

export interface ResolverPluginOptions {
  readonly config: Config;
  readonly logger: Logger;
  /** @default the system clock */
  readonly now?: (() => Date) | undefined;
  readonly timers?: Timers | undefined;
}

/**
 * The resolver layer over the backend's engine. Drops the results of endpoints a reload changed
 * or removed; on close stops warming and cancels runs under way (before the engine closes).
 */
export const resolverPlugin = fp<ResolverPluginOptions>(
  async (app, { config, logger, now, timers }) => {
    const { redis } = config;
    const shared = redis
      ? await connectRedisResults({
          url: redis.url,
          commandTimeoutMs: redis.timeoutMs,
          leaseMs: redis.leaseMs,
          // A replica waits for another's run no longer than a run of its own may take.
          maxWaitMs: config.queryTimeoutMs + redis.leaseMs,
          onChange: (up) =>
            up
              ? logger.info('shared cache (Redis) reachable: sharing results, warm runs and runs')
              : logger.warn('shared cache (Redis) unreachable: answering from this replica alone'),
        })
      : localResults();
    const resolver = createResolver({
      shared,
      engine: app.engine,
      ...(now ? { now } : {}),
      ...(timers ? { timers } : {}),
      maxCacheBytes: splitCacheBudget(config.cacheMaxBytes).results,
      clientAdmission: createClientAdmission({
        maxRunsPerClient: config.clientEngineCalls,
        // One endpoint's calls hold no more of a client's turns than of the engine's calls.
        maxRunsPerClientEndpoint: config.endpointConnections,
        maxQueuedPerClient: config.clientQueue,
        // Node's timers, as the engine's deadlines use: a test's manual clock moves cache time only.
        maxWaitMs: config.queryTimeoutMs,
      }),
      onWarmError: (error, endpoint) => {
        app.metrics.endpoint(endpoint.name).warmed(true);
        logger.warn({ err: error, endpoint: endpoint.name }, 'cache warm run failed');
      },
      onWarmed: (endpoint) => app.metrics.endpoint(endpoint.name).warmed(false),
      onEvicted: () => app.metrics.evicted(1),
    });
    app.addHook('onClose', async () => {
      await resolver.close();
      await shared.close();
    });
    // Results (with their warm timers) of changed or removed endpoints go; the others stay.
    app.swaps.subscribe((_next, gone) => resolver.retain((endpoint) => !gone(endpoint)));
    app.decorate('resolver', resolver);
    app.decorate('sharedResults', shared);
  },
  { name: 'querygate-resolver', dependencies: ['querygate-metrics', 'querygate-backend'] },
);
