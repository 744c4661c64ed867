import type { FastifyInstance } from 'fastify';
import { type HealthCondition, healthOf } from '../endpoints/health.js';
import type { Snapshot } from '../endpoints/snapshot.js';
import { allowMethods } from './allow-methods.js';
import { allMethods } from './app.js';

/** The store's state as the backend reports it (backends/backend.ts's StoreState). */
type StoreState =
  | { readonly ok: true }
  | { readonly ok: false; readonly reason: string; readonly retryAfterSeconds: number };

/**
 * `GET /health`: answered without a key, naming the engine, the endpoints refused, if any, and
 * the conditions that hold now (each part's `conditions` reader says its own, or undefined).
 * 503 with Retry-After while the store cannot serve (reopening after a fatal error), so a
 * container's healthcheck fails at once rather than a store answering nothing but errors.
 */
export function healthRoute(options: {
  readonly engine: string;
  readonly snapshot: () => Snapshot;
  readonly conditions: readonly (() => HealthCondition | undefined)[];
  readonly store: () => StoreState;
}) {
  return async function routes(app: FastifyInstance) {
    app.route({
      method: [...allMethods],
      url: '/health',
      config: { isPublic: () => true },
      handler: async (request, reply) => {
        allowMethods(request, ['GET', 'HEAD']);
        const store = options.store();
        if (!store.ok)
          return reply
            .code(503)
            .header('retry-after', String(store.retryAfterSeconds))
            .send({ status: 'unavailable', engine: options.engine, reason: store.reason });
        const conditions = options.conditions.flatMap((condition) => condition() ?? []);
        return reply.send(healthOf(options.engine, options.snapshot(), conditions));
      },
    });
  };
}
