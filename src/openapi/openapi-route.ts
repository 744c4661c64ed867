import type { FastifyInstance } from 'fastify';
import { grantedSnapshot } from '../endpoints/granted-snapshot.js';
import type { Snapshot } from '../endpoints/snapshot.js';
import { allowMethods } from '../http/allow-methods.js';
import { allMethods } from '../http/app.js';
import { openApiFor, openApiPath } from './document.js';

/**
 * The OpenAPI document of the snapshot served, behind the key like the API it describes; a signed
 * token gets the document of what it may call (see `grantedSnapshot`).
 */
export function openApiRoute(options: { readonly snapshot: () => Snapshot }) {
  return async function routes(app: FastifyInstance) {
    app.route({
      method: [...allMethods],
      url: openApiPath,
      config: { readsGrant: true },
      handler: async (request, reply) => {
        allowMethods(request, ['GET', 'HEAD']);
        const snapshot = options.snapshot();
        return reply.send(openApiFor(request.grant ? grantedSnapshot(snapshot, request.grant) : snapshot));
      },
    });
  };
}
