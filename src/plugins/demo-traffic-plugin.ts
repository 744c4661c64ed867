import fp from 'fastify-plugin';
import type { Logger } from 'pino';
import type { DemoSeedOutcome } from '../demo/seed.js';
import { startDemoTraffic } from '../demo/traffic.js';
import type { EndpointRegistry } from '../endpoints/registry.js';
import { logSources } from '../endpoints/sources.js';
import type { Timers } from '../timers.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** What the start did with demo traffic; `atStart` undefined when demo is off or there is no local store. */
    readonly demoTraffic: { readonly atStart: DemoSeedOutcome | undefined };
  }
}

export interface DemoTrafficPluginOptions {
  /** `QUERYGATE_DEMO`. */
  readonly enabled: boolean;
  readonly registry: EndpointRegistry;
  readonly queriesDir: string;
  readonly logger: Logger;
  readonly now: () => Date;
  readonly timers?: Timers | undefined;
}

/**
 * Seeds or tops up the demo store, then keeps adding traffic until close. Only a local store gets
 * demo traffic, and only when the queries directory declares the nine shipped sources it is
 * written to.
 */
export const demoTrafficPlugin = fp<DemoTrafficPluginOptions>(
  async (app, options) => {
    const { logger, registry } = options;
    const store = app.localStore;
    let atStart: DemoSeedOutcome | undefined;
    if (options.enabled && store) {
      const demoSources = logSources.every((source) =>
        registry.sources.some((own) => own.name === source.name),
      );
      if (!demoSources) {
        logger.warn(
          `${options.queriesDir}/sources.yaml lacks some of the nine shipped sources: no demo logs`,
        );
      } else {
        const demo = await startDemoTraffic({
          database: store.database,
          writer: store.writer,
          now: options.now,
          timers: options.timers,
          onError: (error) => logger.warn({ err: error }, 'demo top-up failed'),
        });
        app.addHook('onClose', () => demo.close());
        atStart = demo.atStart;
      }
    }
    app.decorate('demoTraffic', { atStart });
  },
  { name: 'querygate-demo-traffic', dependencies: ['querygate-backend'] },
);
