import type { FastifyInstance } from 'fastify';
import type { Snapshot } from '../endpoints/snapshot.js';
import { openApiFor, openApiPath } from './document.js';

/** The OpenAPI document of the snapshot served, behind the key like the API it describes. */
export function openApiRoute(options: { readonly snapshot: () => Snapshot }) {
  return async function routes(app: FastifyInstance) {
    app.get(openApiPath, async (_request, reply) => reply.send(openApiFor(options.snapshot())));
  };
}
