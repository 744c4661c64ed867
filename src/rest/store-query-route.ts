import { createHash } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { QueryEngine } from '../engines/query-engine.js';
import { allMethods } from '../http/app.js';
import { readBodiesAsBytes } from '../http/read-bodies.js';
import { toJson } from '../http/respond.js';
import { truncatedHeader } from '../http/truncated-header.js';
import { operatorRequest } from './operator-request.js';

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
        const {
          sql,
          params,
          now,
          max_rows: maxRows,
        } = operatorRequest(request, requestBody, '{"sql", "params", "now", "max_rows"}');
        const result = await options.engine.run(
          // Plans are kept by id and hash: each text gets its own, never the last query's.
          {
            id: 'querygate-query',
            name: 'query',
            sql,
            maxRows,
            hash: createHash('sha256').update(sql).digest('hex'),
          },
          params,
          {
            now: new Date(now),
          },
        );
        if (result.truncated === true) reply.header(truncatedHeader, 'true');
        return reply.type('application/json; charset=utf-8').send(toJson({ result: result.rows }));
      },
    });
  };
}
