import type { FastifyInstance } from 'fastify';

/** `GET /health`: answered without a key, naming the engine. */
export function healthRoute(options: { readonly engine: string }) {
  return async function routes(app: FastifyInstance) {
    app.get('/health', { config: { isPublic: () => true } }, async (_request, reply) =>
      reply.send({ status: 'ok', engine: options.engine }),
    );
  };
}
