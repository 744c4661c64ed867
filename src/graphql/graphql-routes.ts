import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { YogaServerInstance } from 'graphql-yoga';
import type { Snapshot } from '../endpoints/snapshot.js';
import { abandonSignal } from '../http/abandon-signal.js';
import { allMethods } from '../http/app.js';
import { clientIdentity } from '../http/client-identity.js';
import { readBodiesAsBytes } from '../http/read-bodies.js';
import { declaresEncoding, decodedBody } from '../http/request-body.js';
import { sendRaw } from '../http/send-raw.js';
import type { GraphQLContext } from './context.js';
import type { FastOperations } from './fast-operation.js';
import { createGraphiQLPage } from './graphiql-page.js';
import { bodyReadEarly, earlySighting, replayedAnswers } from './replayed-answers.js';
import type { ResponseReplay } from './response-replay.js';
import {
  createReplayRecording,
  headerRecord,
  keepRecorded,
  type ReplayRecording,
} from './use-response-replay.js';
import { type FaceServerContext, graphqlPath, isGraphiQLPageRequest } from './yoga.js';

export interface GraphQLRoutesOptions {
  /** One server over a schema factory: each operation gets the schema of the snapshot it began on. */
  readonly yoga: YogaServerInstance<FaceServerContext, GraphQLContext>;
  /** The endpoints served now: GraphiQL's example tabs are made from them. */
  readonly snapshot: () => Snapshot;
  /** The most bytes of a request body. */
  readonly maxBodyBytes: number;
  /** Responses kept to answer the same request again, before yoga. @default none kept */
  readonly replay?: ResponseReplay | undefined;
  /** Answers the usual request for a document yoga accepted before, without yoga. @default none */
  readonly fast?: FastOperations | undefined;
}

type ServerContext = FaceServerContext & { req: FastifyRequest; reply: FastifyReply };

/**
 * The GraphQL face on Fastify: `/graphql` answered, in turn, by a kept response to the same
 * request (response-replay.ts), by the fast path for a document yoga accepted before
 * (fast-operation.ts), or by yoga (`yoga.fetch` over the bytes Fastify read, within the body
 * limit, the response sent by Fastify); and GraphiQL's page for a
 * browser without a key. A request seen twice gets its answer kept, whichever path made it.
 */
export function graphqlRoutes(options: GraphQLRoutesOptions) {
  const { yoga, replay, fast } = options;
  const page = createGraphiQLPage(options.snapshot);

  return async function routes(app: FastifyInstance) {
    // Yoga reads every body itself (JSON, GraphQL, form, multipart) and answers each per the
    // GraphQL-over-HTTP spec; Fastify only bounds its size.
    readBodiesAsBytes(app, options.maxBodyBytes);
    if (replay) app.answerEarly(replayedAnswers(replay, { maxBodyBytes: options.maxBodyBytes, fast }));

    app.route({
      method: [...allMethods],
      url: graphqlPath,
      // A browser cannot send a key to open the page; the page asks for one for every operation.
      config: { isPublic: isGraphiQLPageRequest, readsGrant: true },
      // A request whose kept answer was looked for before Fastify comes with its body read.
      preParsing: bodyReadEarly,
      handler: async (request, reply) => {
        if (isGraphiQLPageRequest(request)) {
          const { headers, body } = await page.load(request.headers['accept-encoding']);
          return reply.headers(headers).send(body);
        }
        let body = request.body as Buffer | undefined;
        let { headers } = request;
        // A compressed body, or one in a charset it does not read, is refused or decoded here:
        // yoga reads any body as UTF-8 JSON, whatever its headers say. Such a request goes to
        // yoga (neither a kept answer nor the fast path takes one with Content-Encoding).
        if (declaresEncoding(headers)) {
          body = body && (await decodedBody(headers, body, options.maxBodyBytes));
          const { 'content-encoding': _, 'content-length': __, ...rest } = headers;
          headers = rest;
        }
        const { grant } = request;
        // A signed token's request goes to yoga alone, over the schema of what it may call: kept
        // answers and compiled plans were made over the whole schema, without its pinned values.
        const key = grant ? undefined : replay?.keyOf(request, body);
        let recording: ReplayRecording | undefined;
        const sighted = earlySighting(request.raw);
        // Looked up and sighted before Fastify: not again.
        if (sighted !== undefined) recording = sighted ?? undefined;
        else if (replay && key !== undefined) {
          const kept = replay.find(key.head, key.body);
          if (kept) return sendRaw(reply, kept.status, kept.head, kept.body);
          if (replay.worthKeeping(key)) recording = createReplayRecording(key);
        }
        const answer = grant ? undefined : await fast?.answer(request, reply, recording);
        if (answer) {
          sendRaw(reply, answer.status, answer.head, answer.body);
          if (replay && recording) keepRecorded(replay, recording, answer);
          return;
        }
        const context: ServerContext = {
          req: request,
          reply,
          client: () => clientIdentity(request.raw, request.query),
          replayRecording: recording,
          grant,
        };
        // Yoga gets the bytes Fastify read as a fetch body, never the Node request: whatwg-node's
        // Node adapter tests a parsed body with `Object.keys()`, one string per byte of a Buffer
        // (a 9.5 MiB text/plain body cost ~340 MiB), and an empty or absent one would make it
        // read the stream Fastify has already drained, and wait for ever.
        const response = await yoga.fetch(
          `http://${request.headers.host ?? 'localhost'}${request.url}`,
          {
            method: request.method,
            headers: headers as Record<string, string>,
            signal: abandonSignal(reply),
            ...(request.method === 'GET' || request.method === 'HEAD'
              ? {}
              : { body: (body ?? '') as BodyInit }),
          },
          context,
        );
        // Never a stream worth streaming: the schema has no subscriptions or @defer.
        return reply
          .code(response.status)
          .headers(headerRecord(response.headers))
          .send(Buffer.from(await response.arrayBuffer()));
      },
    });
  };
}
