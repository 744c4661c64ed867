import type { FastifyInstance } from 'fastify';
import { grantedSnapshot } from '../endpoints/granted-snapshot.js';
import type { Snapshot } from '../endpoints/snapshot.js';
import { openApiFor, openApiPath } from './document.js';

/**
 * The OpenAPI document of the snapshot served, behind the key like the API it describes; a signed
 * token gets the document of what it may call (see `grantedSnapshot`).
 */
export function openApiRoute(options: { readonly snapshot: () => Snapshot }) {
  return async function routes(app: FastifyInstance) {
    app.get(openApiPath, { config: { readsGrant: true } }, async (request, reply) => {
      const snapshot = options.snapshot();
      return reply.send(openApiFor(request.grant ? grantedSnapshot(snapshot, request.grant) : snapshot));
    });
  };
}
