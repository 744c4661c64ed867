import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { QueryEngine } from '../engines/query-engine.js';
import { QuerygateError } from '../errors.js';
import { allMethods } from '../http/app.js';
import { readBodiesAsBytes } from '../http/read-bodies.js';
import { toJson } from '../http/respond.js';
import { allowMethods } from './allow-methods.js';

/** Where `querygate query` sends its SQL while this server holds the store. */
export const storeQueryPath = '/api/store-query';

const requestBody = z.object({
  sql: z.string().min(1),
  params: z.record(z.string(), z.string().nullable()),
  now: z.iso.datetime({ offset: true }),
  max_rows: z.number().int().positive(),
});

/** The body `querygate query` sends. */
export type StoreQueryRequest = z.infer<typeof requestBody>;

/**
 * `POST /api/store-query`: `querygate query` run by the server that holds the DuckDB file (one
 * process may open it for writing), as the command runs it on the file itself: any SQL of the
 * store's sources, translated as saved SQL is. It is the operator's tool, not an API: it needs a
 * query key and a client on this machine (a loopback or the server's own address), so a key
 * held elsewhere (a dashboard's, Studio's) cannot run any SQL through it.
 */
export function storeQueryRoute(options: { readonly engine: QueryEngine; readonly maxBodyBytes: number }) {
  return async function routes(app: FastifyInstance) {
    readBodiesAsBytes(app, options.maxBodyBytes);
    app.route({
      method: [...allMethods],
      url: storeQueryPath,
      handler: async (request, reply) => {
        allowMethods(request, ['POST']);
        if (!fromThisMachine(request))
          throw new QuerygateError('FORBIDDEN', `${storeQueryPath} answers clients on this machine only`);
        const body = requestBody.safeParse(parseJson(request.body as Buffer | undefined));
        if (!body.success)
          throw new QuerygateError(
            'BAD_REQUEST',
            `the body must be {"sql", "params", "now", "max_rows"}: ${body.error.issues[0]?.message}`,
          );
        const { sql, params, now, max_rows: maxRows } = body.data;
        const result = await options.engine.run(
          { id: 'querygate-query', name: 'query', sql, maxRows },
          params,
          {
            now: new Date(now),
          },
        );
        return reply.type('application/json; charset=utf-8').send(toJson({ result: result.rows }));
      },
    });
  };
}

function parseJson(body: Buffer | undefined): unknown {
  try {
    return JSON.parse(body?.toString('utf8') ?? '');
  } catch {
    return undefined;
  }
}

/**
 * Whether the client is on this machine: a loopback address, or the one it reached us at, and
 * not relaying for another (a reverse proxy on this machine adds Forwarded or X-Forwarded-For).
 */
function fromThisMachine(request: FastifyRequest): boolean {
  if (request.headers.forwarded !== undefined || request.headers['x-forwarded-for'] !== undefined)
    return false;
  const { remoteAddress, localAddress } = request.raw.socket;
  const remote = remoteAddress?.replace(/^::ffff:/, '');
  return remote === '::1' || remote?.startsWith('127.') === true || remoteAddress === localAddress;
}
