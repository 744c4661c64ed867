import { createServer } from 'node:http';
import cors from '@fastify/cors';
import Fastify, {
  type FastifyBaseLogger,
  type FastifyInstance,
  type FastifyReply,
  type FastifyRequest,
  LogController,
} from 'fastify';
import type { Logger } from 'pino';
import type { Grant } from '../endpoints/grant.js';
import { QuerygateError } from '../errors.js';
import {
  createConnectionKeyCheck,
  type KeyScope,
  presentedApiKey,
  type RouteScope,
  scopeAllows,
} from './api-keys.js';
import { answerClientError } from './client-errors.js';
import { type EarlyAnswer, ServedRequest, withEarlyAnswers } from './early-answer.js';
import { errorBody, toQuerygateError } from './respond.js';
import { looksLikeToken, type TokenVerifier } from './signed-tokens.js';
import { nextTickRecord } from './tick-record.js';
import { truncatedHeader } from './truncated-header.js';

/** The HTTP settings of the server (see `Config`). */
export interface HttpAppOptions {
  readonly logger: Logger;
  /** The scope of a presented key, undefined when it is no key (constant time, see `createKeyScopeCheck`). */
  readonly keyScope: (key: string | undefined) => KeyScope | undefined;
  readonly headersTimeoutMs: number;
  readonly requestTimeoutMs: number;
  readonly keepAliveTimeoutMs: number;
  readonly maxConnections: number;
  readonly maxBodyBytes: number;
  /** Origins allowed to call from a browser; empty: no CORS at all. */
  readonly corsOrigins: readonly string[];
  /** Verifies signed tokens (see signed-tokens.ts); undefined: only keys are accepted. @default none */
  readonly tokens?: TokenVerifier | undefined;
}

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * Offers every request to `answer` before Fastify routes it (see `EarlyAnswer`). Not while
     * CORS is configured: its hook adds headers to every answer, so every request goes its way.
     */
    answerEarly(answer: EarlyAnswer): void;
    /** One of Node's nextTick records, kept while the app serves (see `nextTickRecord`). */
    readonly nextTickRecord: object;
  }
  interface FastifyContextConfig {
    /** Requests this route answers without a key (`/health`, GraphiQL's page). */
    isPublic?: (request: FastifyRequest) => boolean;
    /** What a key must be allowed to do to call this route. @default 'query' */
    scope?: RouteScope;
    /**
     * The route answers a signed token within its grant (it lists and calls only the endpoints
     * the token names, with its pinned values). A query route without it refuses every token:
     * a token may do what its claims say and nothing else. @default false
     */
    readsGrant?: boolean;
  }
  interface FastifyRequest {
    /** What the signed token the request came with lets it do; undefined for an API key. */
    grant: Grant | undefined;
  }
}

/** Every method a route of ours answers, so that a wrong one gets 405 with `Allow`, never 404. */
export const allMethods = ['GET', 'HEAD', 'POST', 'PUT', 'DELETE', 'PATCH', 'OPTIONS'] as const;

/**
 * The Fastify instance every face registers its routes on, as a plugin (`app.register(face)`):
 * errors encoded as `{"error": {code, message}}`, a key required before routing unless a route
 * says otherwise (`config.isPublic`), CORS when configured, and the server's limits on slow or
 * idle clients. Faces throw QuerygateError; anything else is logged and masked.
 */
export async function createHttpApp(options: HttpAppOptions): Promise<FastifyInstance> {
  const { keyScope } = options;
  const connectionKeyScope = createConnectionKeyCheck(keyScope);
  const earlyAnswers: EarlyAnswer[] = [];
  const app = Fastify({
    loggerInstance: options.logger as FastifyBaseLogger,
    // A line per request would cost more than serving a cached hit; errors are logged.
    logController: new LogController({ disableRequestLogging: true }),
    // Errors are logged with the request they failed; a child logger per request is not worth it.
    childLoggerFactory: (logger) => logger,
    bodyLimit: options.maxBodyBytes,
    // Node's own limits on the server below; Fastify's copies must agree with them.
    requestTimeout: options.requestTimeoutMs,
    keepAliveTimeout: options.keepAliveTimeoutMs,
    // Long queries legitimately keep a socket quiet; slow senders are cut by the request timeout.
    connectionTimeout: 0,
    exposeHeadRoutes: false,
    // The server's parts are plugins whose start may legitimately take long (seeding the demo
    // store, deriving every endpoint's shape on BigQuery): no deadline on a plugin's start.
    pluginTimeout: 0,
    return503OnClosing: false,
    // A request Node cannot parse answers in our error shape, naming what is wrong.
    clientErrorHandler: answerClientError,
    serverFactory: (handler) =>
      createServer(
        {
          headersTimeout: options.headersTimeoutMs,
          requestTimeout: options.requestTimeoutMs,
          keepAliveTimeout: options.keepAliveTimeoutMs,
          // How often Node checks for the two timeouts above (its default is every 30 s).
          connectionsCheckingInterval: Math.min(1_000, options.headersTimeoutMs),
          IncomingMessage: ServedRequest,
          // Refused in withEarlyAnswers instead, with a body that names the header.
          requireHostHeader: false,
        },
        withEarlyAnswers(earlyAnswers, connectionKeyScope, handler),
      ),
    // An absolute-form target (`GET http://host/path`) is routed by its path; one that is no URL
    // is marked here and refused before anything else.
    rewriteUrl(req) {
      const target = req.url ?? '/';
      if (target.startsWith('/')) return target;
      try {
        const url = new URL(target, 'http://querygate.invalid');
        return `${url.pathname}${url.search}`;
      } catch {
        (req as ServedRequest).badTarget = true;
        return '/';
      }
    },
    frameworkErrors(error, request, reply) {
      // A path that does not decode (`%E0%A4%A`) names no route; without a key it is still a 401.
      // The router failed before the query string was parsed.
      const query = Object.fromEntries(new URLSearchParams(request.raw.url?.split('?')[1] ?? ''));
      const known =
        keyScope(presentedApiKey(request.raw, query)) !== undefined
          ? new QuerygateError('NOT_FOUND', `No route for ${request.method} ${request.url.split('?')[0]}`, {
              cause: error,
            })
          : unauthenticated();
      void (reply as unknown as FastifyReply)
        .code(known.status)
        .headers(errorHeaders(known))
        .send(errorBody(known));
    },
  });
  app.server.maxConnections = options.maxConnections;
  // Node answers an Expect other than 100-continue with an empty 417 (RFC 9110, 10.1.1); this
  // one says what was refused, in the shape of every other error.
  app.server.on('checkExpectation', (request, response) => {
    const refused = new QuerygateError(
      'EXPECTATION_FAILED',
      `Expect: ${String(request.headers.expect).slice(0, 100)} is not supported; only 100-continue is`,
    );
    const body = errorBody(refused);
    response.writeHead(417, {
      'content-type': 'application/json; charset=utf-8',
      'content-length': Buffer.byteLength(body),
      connection: 'close',
    });
    response.end(body);
  });
  app.decorateRequest('grant', undefined);
  app.decorate('nextTickRecord', await nextTickRecord());
  app.decorate('answerEarly', (answer: EarlyAnswer) => {
    if (options.corsOrigins.length === 0) earlyAnswers.push(answer);
  });

  if (options.corsOrigins.length > 0) {
    // Registered first: its hook answers preflights before the key is asked for.
    await app.register(cors, {
      origin: options.corsOrigins.includes('*') ? '*' : [...options.corsOrigins],
      methods: ['GET', 'HEAD', 'POST'],
      allowedHeaders: ['x-api-key', 'authorization', 'content-type', 'x-source', 'cache-control'],
      exposedHeaders: ['age', 'cache-control', truncatedHeader],
      maxAge: 600,
    });
  }

  app.addHook('onRequest', (request, _reply, done) => {
    if ((request.raw as ServedRequest).badTarget) {
      done(new QuerygateError('BAD_REQUEST', 'The request target is not a valid URL'));
      return;
    }
    // Fastify builds `routeOptions` afresh on every read: read once.
    const { config } = request.routeOptions;
    if (config.isPublic?.(request)) {
      done();
      return;
    }
    const presented = presentedApiKey(request.raw, request.query);
    const scope = connectionKeyScope(request.raw.socket, presented);
    if (scope === undefined) {
      // Not a key: a signed token, when tokens are configured, is verified before anything runs.
      if (options.tokens && presented !== undefined && looksLikeToken(presented)) {
        options.tokens(presented).then((grant) => {
          request.grant = grant;
          done(grantRefusal(request, grant, config));
        }, done);
        return;
      }
      done(unauthenticated());
      return;
    }
    // A path that names no route is a 404 for any valid key: it needs no scope.
    const need = config.scope ?? 'query';
    if (!request.is404 && !scopeAllows(scope, need)) {
      done(forbidden(request, need));
      return;
    }
    done();
  });

  app.setNotFoundHandler((request) => {
    throw new QuerygateError('NOT_FOUND', `No route for ${request.method} ${request.url.split('?')[0]}`);
  });

  app.setErrorHandler((error, request, reply) => {
    const known = mediaTypeRefusal(error, request) ?? toQuerygateError(error);
    if (known.code === 'INTERNAL') request.log.error({ err: error }, 'unexpected error');
    if (reply.sent || reply.raw.headersSent) {
      reply.raw.destroy();
      return;
    }
    void reply.code(known.status).headers(errorHeaders(known)).send(errorBody(known));
  });

  return app;
}

/**
 * Fastify's refusal of a Content-Type it cannot read (`;;;`, or one no parser of the route
 * takes) says only "Unsupported Media Type": this one names the header, as our own 415s do.
 */
function mediaTypeRefusal(error: unknown, request: FastifyRequest): QuerygateError | undefined {
  if ((error as { code?: unknown } | null)?.code !== 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return undefined;
  const sent = String(request.headers['content-type'] ?? '').slice(0, 100);
  return new QuerygateError(
    'UNSUPPORTED_MEDIA_TYPE',
    `Unsupported Content-Type '${sent}'; send application/json`,
    { cause: error },
  );
}

function unauthenticated(): QuerygateError {
  return new QuerygateError(
    'UNAUTHENTICATED',
    'Missing or invalid API key: send it as X-API-KEY, Authorization: Bearer or ?api_key=',
  );
}

/**
 * Why a token may not call this route, or undefined when it may: an ingestion route needs the
 * token's ingest claim, any other route must read grants (`readsGrant`). A path that names no
 * route is a 404 for a valid token, as for a key.
 */
function grantRefusal(
  request: FastifyRequest,
  grant: Grant,
  config: FastifyRequest['routeOptions']['config'],
): QuerygateError | undefined {
  if (request.is404) return undefined;
  const path = request.url.split('?')[0];
  if ((config.scope ?? 'query') === 'ingest') {
    return grant.ingest
      ? undefined
      : new QuerygateError(
          'FORBIDDEN',
          `This token has no ingest claim; ${request.method} ${path} needs one (querygate token --ingest)`,
          { details: { scope: 'ingest' } },
        );
  }
  return config.readsGrant
    ? undefined
    : new QuerygateError(
        'FORBIDDEN',
        `A signed token may call endpoints, list them and read their OpenAPI and GraphQL faces; ${request.method} ${path} needs an API key`,
        { details: { scope: 'query' } },
      );
}

function forbidden(request: FastifyRequest, need: RouteScope): QuerygateError {
  const path = request.url.split('?')[0];
  return new QuerygateError(
    'FORBIDDEN',
    `This API key has the ingest scope only; ${request.method} ${path} needs the ${need} scope (a key of QUERYGATE_API_KEYS)`,
    { details: { scope: need } },
  );
}

function errorHeaders(error: QuerygateError): Record<string, string> {
  const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8' };
  // A refused signed token names its rule (signed-tokens.ts): RFC 6750's challenge for a bearer token.
  if (error.code === 'UNAUTHENTICATED')
    headers['www-authenticate'] =
      error.details?.rule === undefined ? 'X-API-KEY' : 'Bearer error="invalid_token"';
  const allow = error.details?.allow;
  if (typeof allow === 'string') headers.allow = allow;
  const retryAfter = error.details?.retryAfterSeconds;
  if (typeof retryAfter === 'number') headers['retry-after'] = String(retryAfter);
  return headers;
}
