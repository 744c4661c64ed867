import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { YogaServerInstance } from 'graphql-yoga';
import type { Snapshot } from '../endpoints/snapshot.js';
import { allMethods } from '../http/app.js';
import { clientIdentity } from '../http/client-identity.js';
import { readBodiesAsBytes } from '../http/read-bodies.js';
import { sendRaw } from '../http/send-raw.js';
import type { GraphQLContext } from './context.js';
import { createGraphiQLPage } from './graphiql-page.js';
import type { Answer, Recording, ResponseReplay } from './response-replay.js';
import { type FaceServerContext, graphqlPath, isGraphiQLPageRequest } from './yoga.js';

export interface GraphQLRoutesOptions {
  /** One server over a schema factory: each operation gets the schema of the snapshot it began on. */
  readonly yoga: YogaServerInstance<FaceServerContext, GraphQLContext>;
  /** The answers kept for replay; the server empties it when a reload swaps the snapshot. */
  readonly replay: ResponseReplay;
  /** The endpoints served now: GraphiQL's example tabs are made from them. */
  readonly snapshot: () => Snapshot;
  /** The most bytes of a request body. */
  readonly maxBodyBytes: number;
}

type ServerContext = FaceServerContext & { req: FastifyRequest; reply: FastifyReply };

/**
 * The GraphQL face on Fastify: `/graphql` served by yoga through its Fastify integration
 * (`handleNodeRequestAndResponse` with Fastify's request and reply, the response sent by
 * Fastify), GraphiQL's page for a browser without a key, and plain requests answered again from
 * a kept response while its results are fresh (see response-replay.ts).
 */
export function graphqlRoutes(options: GraphQLRoutesOptions) {
  const { replay, yoga } = options;
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
        const key = replay.keyOf(request.raw as { method: string; url: string } & typeof request.raw, body);
        const kept = key === undefined ? undefined : replay.find(key);
        if (kept) return sendRaw(reply, kept.status, kept.headers, kept.body);
        const recording: Recording | undefined = key === undefined ? undefined : { calls: [], clean: false };
        const context: ServerContext = {
          req: request,
          reply,
          client: () => clientIdentity(request.raw, request.query),
          ...(recording ? { recording } : {}),
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
        const answer: Answer = {
          status: response.status,
          headers: headerRecord(response.headers),
          // Never a stream worth streaming: the schema has no subscriptions or @defer.
          body: Buffer.from(await response.arrayBuffer()),
        };
        if (key !== undefined && recording) replay.keep(key, answer, recording);
        return send(reply, answer);
      },
    });
  };
}

function hasNoBody(request: FastifyRequest, body: Buffer | undefined): boolean {
  return request.method !== 'GET' && request.method !== 'HEAD' && (body === undefined || body.length === 0);
}

function send(reply: FastifyReply, answer: Answer): FastifyReply {
  return reply.code(answer.status).headers(answer.headers).send(answer.body);
}

/** A plain object of the headers, without the framing Fastify sets itself for the buffered body. */
function headerRecord(headers: Headers): Record<string, string> {
  const record: Record<string, string> = {};
  // whatwg-node's Headers may keep the case yoga wrote ('Transfer-Encoding').
  headers.forEach((value, name) => {
    const lower = name.toLowerCase();
    if (lower !== 'content-length' && lower !== 'transfer-encoding') record[lower] = value;
  });
  return record;
}
