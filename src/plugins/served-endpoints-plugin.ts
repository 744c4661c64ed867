import fp from 'fastify-plugin';
import type { Logger } from 'pino';
import { checkSnapshot } from '../check-snapshot.js';
import { refusalLine } from '../endpoints/refusal.js';
import type { EndpointRegistry } from '../endpoints/registry.js';
import { createServedEndpoints } from '../endpoints/reload.js';
import { admitToFaces, snapshotOf } from '../endpoints/snapshot.js';
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
  /**
   * `partial`: the endpoints that pass serve and each refused one is logged (and on /health);
   * `strict`: any refusal stops the start and refuses a reload. @default 'strict'
   */
  readonly refusals?: 'partial' | 'strict';
}

/**
 * The endpoints served: the registry with its shapes from the engine, checked in full
 * (`checkSnapshot`) before use, and reloaded on request. A swap is announced on `app.swaps`.
 */
export const servedEndpointsPlugin = fp<ServedEndpointsPluginOptions>(
  async (app, { registry, queriesDir, logger, refusals = 'strict' }) => {
    const initial = admitToFaces(
      await snapshotOf(registry, queriesDir, app.engine, { refusals }),
      checkSnapshot,
      refusals,
    );
    for (const refusal of initial.refused)
      logger.error({ refusal }, `endpoint ${refusal.endpoint} refused: ${refusalLine(refusal)}`);
    // The plans of the endpoints served only (describing them kept every plan it made).
    app.engine.retain?.(initial.endpoints);
    const served = createServedEndpoints({
      initial,
      engine: app.engine,
      logger,
      check: checkSnapshot,
      refusals,
      migrateTables: app.migrateTables,
      onSwap: app.swaps.emit,
    });
    app.addHook('onClose', async () => served.close());
    app.decorate('served', served);
  },
  { name: 'querygate-served-endpoints', dependencies: ['querygate-backend'] },
);
