import type { FastifyInstance } from 'fastify';
import { type HealthCondition, healthOf } from '../endpoints/health.js';
import type { Snapshot } from '../endpoints/snapshot.js';

/**
 * `GET /health`: answered without a key, naming the engine, the endpoints refused, if any, and
 * the conditions that hold now (each part's `conditions` reader says its own, or undefined).
 */
export function healthRoute(options: {
  readonly engine: string;
  readonly snapshot: () => Snapshot;
  readonly conditions: readonly (() => HealthCondition | undefined)[];
}) {
  return async function routes(app: FastifyInstance) {
    app.get('/health', { config: { isPublic: () => true } }, async (_request, reply) => {
      const conditions = options.conditions.flatMap((condition) => condition() ?? []);
      return reply.send(healthOf(options.engine, options.snapshot(), conditions));
    });
  };
}
