import fp from 'fastify-plugin';
import { createMetrics, type Metrics } from '../metrics/metrics.js';

declare module 'fastify' {
  interface FastifyInstance {
    /** The server's Prometheus metrics: every part counts into them; `GET /metrics` reads them. */
    readonly metrics: Metrics;
  }
}

/**
 * The metrics every later part counts into, decorated first. The gauges read the resolver's cache
 * and the backend's store when Prometheus scrapes, by which time both are registered.
 */
export const metricsPlugin = fp(
  async (app) => {
    app.decorate(
      'metrics',
      createMetrics({
        cache: () => app.resolver.stats(),
        sharedCache: () => app.sharedResults.stats(),
        storeBytes: () => app.storeBytes(),
      }),
    );
  },
  { name: 'querygate-metrics' },
);
