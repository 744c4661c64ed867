import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { YogaServerInstance } from 'graphql-yoga';
import type { Snapshot } from '../endpoints/snapshot.js';
import { allMethods } from '../http/app.js';
import { clientIdentity } from '../http/client-identity.js';
import { readBodiesAsBytes } from '../http/read-bodies.js';
import type { GraphQLContext } from './context.js';
import { createGraphiQLPage } from './graphiql-page.js';
import { headerRecord } from './use-response-replay.js';
import { type FaceServerContext, graphqlPath, isGraphiQLPageRequest } from './yoga.js';

export interface GraphQLRoutesOptions {
  /** One server over a schema factory: each operation gets the schema of the snapshot it began on. */
  readonly yoga: YogaServerInstance<FaceServerContext, GraphQLContext>;
  /** The endpoints served now: GraphiQL's example tabs are made from them. */
  readonly snapshot: () => Snapshot;
  /** The most bytes of a request body. */
  readonly maxBodyBytes: number;
}

type ServerContext = FaceServerContext & { req: FastifyRequest; reply: FastifyReply };

/**
 * The GraphQL face on Fastify: `/graphql` served by yoga through its Fastify integration
 * (`handleNodeRequestAndResponse` with Fastify's request and reply, the response sent by
 * Fastify), and GraphiQL's page for a browser without a key. Kept responses are yoga's business
 * (see use-response-replay.ts).
 */
export function graphqlRoutes(options: GraphQLRoutesOptions) {
  const { yoga } = options;
  const page = createGraphiQLPage(options.snapshot);

  return async function routes(app: FastifyInstance) {
    // Yoga reads every body itself (JSON, GraphQL, form, multipart) and answers each per the
    // GraphQL-over-HTTP spec; Fastify only bounds its size.
    readBodiesAsBytes(app, options.maxBodyBytes);

    app.route({
      method: [...allMethods],
      url: graphqlPath,
      // A browser cannot send a key to open the page; the page asks for one for every operation.
      config: { isPublic: isGraphiQLPageRequest },
      handler: async (request, reply) => {
        if (isGraphiQLPageRequest(request)) {
          const { headers, body } = await page.load(request.headers['accept-encoding']);
          return reply.headers(headers).send(body);
        }
        const body = request.body as Buffer | undefined;
        const context: ServerContext = {
          req: request,
          reply,
          client: () => clientIdentity(request.raw, request.query),
        };
        const response = hasNoBody(request, body)
          ? // whatwg-node would read an empty body from the request stream Fastify has already
            // drained and wait for ever; it gets the empty body it was sent instead.
            await yoga.fetch(
              `http://${request.headers.host ?? 'localhost'}${request.url}`,
              { method: request.method, headers: request.headers as Record<string, string>, body: '' },
              context,
            )
          : await yoga.handleNodeRequestAndResponse(request, reply, context);
        // Never a stream worth streaming: the schema has no subscriptions or @defer.
        return reply
          .code(response.status)
          .headers(headerRecord(response.headers))
          .send(Buffer.from(await response.arrayBuffer()));
      },
    });
  };
}

function hasNoBody(request: FastifyRequest, body: Buffer | undefined): boolean {
  return request.method !== 'GET' && request.method !== 'HEAD' && (body === undefined || body.length === 0);
}
