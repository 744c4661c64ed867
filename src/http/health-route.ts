import type { FastifyInstance } from 'fastify';
import { healthOf } from '../endpoints/health.js';
import type { Snapshot } from '../endpoints/snapshot.js';

/** `GET /health`: answered without a key, naming the engine and the endpoints refused, if any. */
export function healthRoute(options: { readonly engine: string; readonly snapshot: () => Snapshot }) {
  return async function routes(app: FastifyInstance) {
    app.get('/health', { config: { isPublic: () => true } }, async (_request, reply) =>
      reply.send(healthOf(options.engine, options.snapshot())),
    );
  };
}
