import type { FastifyInstance } from 'fastify';
import { allowMethods } from '../http/allow-methods.js';
import { allMethods } from '../http/app.js';
import type { Metrics } from '../metrics/metrics.js';

export const metricsPath = '/metrics';

/**
 * `GET /metrics` in Prometheus' text format, behind the API key like every route but `/health`
 * (Prometheus sends it as `authorization: { credentials: <key> }`, a Bearer token): the counters
 * name endpoints and sources, which are not for anyone who can reach the port.
 */
export function metricsRoutes(metrics: Metrics) {
  return async function routes(app: FastifyInstance) {
    app.route({
      method: [...allMethods],
      url: metricsPath,
      handler: async (request, reply) => {
        allowMethods(request, ['GET', 'HEAD']);
        return reply.type(metrics.contentType).send(await metrics.exposition());
      },
    });
  };
}
