import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { endpointNotGranted, withPinnedValues } from '../endpoints/grant.js';
import type { Endpoint } from '../endpoints/registry.js';
import { callerSqlParameter } from '../endpoints/sandboxable.js';
import { sandboxedEndpoint } from '../endpoints/sandboxed-call.js';
import type { Snapshot } from '../endpoints/snapshot.js';
import { unknownEndpoint } from '../endpoints/unknown-endpoint.js';
import { badParameter } from '../errors.js';
import { abandonSignal } from '../http/abandon-signal.js';
import { allowMethods } from '../http/allow-methods.js';
import { allMethods } from '../http/app.js';
import { clientIdentity } from '../http/client-identity.js';
import { readBodiesAsBytes } from '../http/read-bodies.js';
import { readGetBody } from '../http/read-get-body.js';
import { decodedBody } from '../http/request-body.js';
import { toJson } from '../http/respond.js';
import { sendRaw } from '../http/send-raw.js';
import { truncatedHeader } from '../http/truncated-header.js';
import type { Metrics } from '../metrics/metrics.js';
import type { Resolver } from '../resolve/resolver.js';
import { cacheHeaders } from './cache-headers.js';
import { cachedHits } from './cached-hits.js';
import { byNamePrefix, type CalledEndpoint, calledEndpoint, logflareCallPrefixes } from './call-paths.js';
import { boundParameters, parameterValues, type Query } from './parameter-values.js';
import { formatOfAccept, resultFormatOf } from './result-formats.js';

export interface EndpointRoutesOptions {
  /** Read per request, so a reload can put a new registry in place. */
  readonly registry: () => Snapshot;
  readonly resolver: Resolver;
  /** Where each answered call is counted. */
  readonly metrics: Pick<Metrics, 'endpoint'>;
}

/**
 * The endpoint list and every path Logflare answers an endpoint call on, plus querygate's own
 * `/api/endpoints/<name>`. All of them bind the same contract and go through the same resolver,
 * so every form of one call shares one cache entry. Logflare's paths take the endpoint's UUID or
 * its name, and POST with parameters in a JSON object body as well as in the query string.
 */
export function endpointRoutes(options: EndpointRoutesOptions) {
  const { registry, resolver, metrics } = options;

  /** Answers a call and counts it, with its cache outcome or its error. */
  async function answer(called: CalledEndpoint, request: FastifyRequest, reply: FastifyReply) {
    const startedAt = performance.now();
    const counts = metrics.endpoint(called.endpoint.name);
    try {
      counts.answered('rest', await respond(called, request, reply), startedAt);
    } catch (error) {
      counts.failed('rest', error, startedAt);
      throw error;
    }
  }

  async function respond(
    { endpoint: saved, format }: CalledEndpoint,
    request: FastifyRequest,
    reply: FastifyReply,
  ) {
    const { grant } = request;
    if (grant && !grant.allows(saved.name)) throw endpointNotGranted(saved.name);
    const sent = parameterValues(request.query as Query, await requestBody(saved, request));
    // A token's pinned values take their parameters' place, so they bind and key the cache.
    const values = grant ? { ...sent, values: withPinnedValues(grant, saved.parameters, sent.values) } : sent;
    const endpoint = saved.sandboxed ? withCallerSql(saved, values.values) : saved;
    const params = boundParameters(endpoint, values);
    const refresh = asksForFreshResult(request);
    // Most calls are hits: they are answered at once, without the cancellation a run needs.
    const resolved =
      (!refresh && resolver.cached(endpoint, params)) ||
      (await resolver.resolve(endpoint, params, {
        signal: abandonSignal(reply),
        refresh,
        client: clientIdentity(request.raw, request.query),
      }));
    // A path without a format suffix answers as its Accept asks, so it varies by Accept.
    const written = resultFormatOf(registry(), endpoint, format ?? formatOfAccept(request.headers.accept));
    const { body, length } = resolved.encoded(written.response);
    const headers: Record<string, string | number> = {
      'content-type': written.contentType,
      'content-length': length,
    };
    if (format === undefined) headers.vary = 'Accept';
    if (resolved.result.truncated === true) headers[truncatedHeader] = 'true';
    const caching = cacheHeaders(resolved);
    for (const name of Object.keys(caching)) headers[name] = caching[name] as string;
    sendRaw(reply, 200, headers, body);
    return resolved.cache;
  }

  const logflareRoute = (request: FastifyRequest<{ Params: { ref: string } }>, reply: FastifyReply) => {
    allowMethods(request, ['GET', 'HEAD', 'POST']);
    const { ref } = request.params;
    const called = calledEndpoint(registry(), ref, false);
    if (!called)
      throw unknownEndpoint(ref, registry(), request.grant, `No endpoint with id or name '${ref}'`);
    return answer(called, request, reply);
  };

  return async function routes(app: FastifyInstance) {
    // Bodies are read as bytes and parsed here, so every malformed one gets our message.
    readBodiesAsBytes(app);
    app.answerEarly(cachedHits(options));

    for (const url of ['/api/endpoints', '/api/endpoints/']) {
      app.route({
        method: [...allMethods],
        url,
        config: { readsGrant: true },
        handler: async (request, reply) => {
          allowMethods(request, ['GET', 'HEAD']);
          const { grant } = request;
          const listed = grant
            ? registry().endpoints.filter((endpoint) => grant.allows(endpoint.name))
            : registry().endpoints;
          return reply
            .type('application/json; charset=utf-8')
            .send(toJson({ result: listed.map(describeEndpoint) }));
        },
      });
    }
    app.route<{ Params: { ref: string } }>({
      method: [...allMethods],
      url: `${byNamePrefix}:ref`,
      config: { readsGrant: true },
      handler: (request, reply) => {
        const { ref } = request.params;
        const called = calledEndpoint(registry(), ref, true);
        if (!called) throw unknownEndpoint(ref, registry(), request.grant, `No endpoint named '${ref}'`);
        allowMethods(request, ['GET', 'HEAD']);
        return answer(called, request, reply);
      },
    });
    for (const prefix of logflareCallPrefixes) {
      for (const url of [`${prefix}/:ref`, `${prefix}/name/:ref`]) {
        app.route<{ Params: { ref: string } }>({
          method: [...allMethods],
          url,
          config: { readsGrant: true },
          handler: logflareRoute,
        });
      }
    }
  };
}

/**
 * The body that may carry parameters: a POST's, and a GET's to a sandboxed endpoint whose query
 * string has no `sql` (Logflare reads that GET body; Studio sends its SQL in it).
 */
async function requestBody(endpoint: Endpoint, request: FastifyRequest): Promise<Buffer | undefined> {
  const query = request.query as Query;
  const raw =
    request.method === 'POST'
      ? (request.body as Buffer | undefined)
      : request.method === 'GET' && endpoint.sandboxed && query[callerSqlParameter] === undefined
        ? await readGetBody(request)
        : undefined;
  // Decompressed within the body limit on the wire: a parameter object needs no more.
  return raw && decodedBody(request.headers, raw, request.routeOptions.bodyLimit ?? 1024 * 1024);
}

/** A sandboxed endpoint with the caller's `sql` in place of its final SELECT, or as saved without one. */
function withCallerSql(endpoint: Endpoint, values: (name: string) => readonly string[]): Endpoint {
  const given = values(callerSqlParameter);
  if (given.length > 1) throw badParameter(callerSqlParameter, 'is given more than once');
  const [sql] = given;
  return sql === undefined || sql === '' ? endpoint : sandboxedEndpoint(endpoint, sql);
}

/** `Cache-Control: no-cache` (or `Pragma: no-cache`): the caller wants a result computed now. */
function asksForFreshResult(request: FastifyRequest): boolean {
  const { headers } = request;
  if (headers['cache-control'] === undefined && headers.pragma === undefined) return false;
  const directives = `${headers['cache-control'] ?? ''},${headers.pragma ?? ''}`.toLowerCase();
  return directives.split(',').some((directive) => directive.trim() === 'no-cache');
}

/** The public description of an endpoint, in the snake_case of the REST API. */
function describeEndpoint(endpoint: Endpoint) {
  return {
    id: endpoint.id,
    name: endpoint.name,
    description: endpoint.description,
    parameters: endpoint.parameters.map((parameter) => ({
      name: parameter.name,
      required: parameter.required,
      description: parameter.description,
      format: parameter.format,
      ...(parameter.values ? { values: parameter.values, other_values: parameter.otherValues } : {}),
      ...(parameter.fallback === undefined ? {} : { fallback: parameter.fallback }),
      ...(parameter.default === undefined ? {} : { default: parameter.default }),
      ...(parameter.min === undefined ? {} : { min: parameter.min }),
      ...(parameter.max === undefined ? {} : { max: parameter.max }),
    })),
    max_rows: endpoint.maxRows,
    cache_seconds: endpoint.cacheSeconds,
    warm_seconds: endpoint.warmSeconds,
    sandboxing: endpoint.sandboxed ? 'enabled' : 'disabled',
  };
}
