import fp from 'fastify-plugin';
import type { Logger } from 'pino';
import { checkSnapshot } from '../check-snapshot.js';
import type { EndpointRegistry } from '../endpoints/registry.js';
import { createServedEndpoints } from '../endpoints/reload.js';
import { snapshotOf } from '../endpoints/snapshot.js';
import type { SnapshotSwaps } from '../endpoints/snapshot-swaps.js';

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * Where a reload announces the snapshot it swapped in; each part that keeps something per
     * endpoint subscribes (decorated first, before any part).
     */
    readonly swaps: SnapshotSwaps;
    /** The snapshot served now and how a reload replaces it. */
    readonly served: ReturnType<typeof createServedEndpoints>;
  }
}

export interface ServedEndpointsPluginOptions {
  readonly registry: EndpointRegistry;
  readonly queriesDir: string;
  readonly logger: Logger;
}

/**
 * The endpoints served: the registry with its shapes from the engine, checked in full
 * (`checkSnapshot`) before use, and reloaded on request. A swap is announced on `app.swaps`.
 */
export const servedEndpointsPlugin = fp<ServedEndpointsPluginOptions>(
  async (app, { registry, queriesDir, logger }) => {
    const initial = await snapshotOf(registry, queriesDir, app.engine);
    checkSnapshot(initial);
    const served = createServedEndpoints({
      initial,
      engine: app.engine,
      logger,
      check: checkSnapshot,
      onSwap: app.swaps.emit,
    });
    app.addHook('onClose', async () => served.close());
    app.decorate('served', served);
  },
  { name: 'querygate-served-endpoints', dependencies: ['querygate-backend'] },
);
