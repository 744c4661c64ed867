import type { IncomingMessage, ServerResponse } from 'node:http';
import { bindParameters } from '../endpoints/bind-parameters.js';
import type { Endpoint, EndpointRegistry } from '../endpoints/registry.js';
import type { ParameterValues } from '../engines/query-engine.js';
import { QuerygateError } from '../errors.js';
import type { Resolver } from '../resolve/resolver.js';
import { cacheHeaders } from './cache-headers.js';
import { readLogEvents } from './read-log-events.js';
import type { RequestTarget } from './request-target.js';
import { sendJson } from './respond.js';
import { resultBody } from './result-body.js';

/** What the ingestion route needs of the store. */
export interface LogSink {
  write(sourceName: string, events: unknown[]): Promise<{ ingested: number }>;
}

export interface RestHandlerOptions {
  /** The endpoints served now; each request uses the set it started with. */
  readonly registry: () => EndpointRegistry;
  readonly resolver: Resolver;
  readonly logs: LogSink;
  readonly maxBodyBytes: number;
}

const endpointPrefix = '/api/endpoints/';
const byIdPrefix = '/api/endpoints/query/';

/**
 * The REST face: the Logflare-compatible endpoint paths, the endpoint list and log ingestion.
 * Authentication and error encoding happen around it (see server.ts); a handler either answers
 * or throws a QuerygateError. Returns false when the path is not a REST route.
 */
export function createRestHandler(options: RestHandlerOptions) {
  const { resolver } = options;

  async function runEndpoint(
    endpoint: Endpoint,
    url: RequestTarget,
    req: IncomingMessage,
    res: ServerResponse,
  ) {
    const params = bindParameters(endpoint.parameters, (name) => url.searchParams.getAll(name));
    const refresh = asksForFreshResult(req);
    // Most calls are hits: they are answered at once, without the cancellation a run needs.
    const resolved =
      (!refresh && resolver.cached(endpoint, params)) || (await run(endpoint, params, res, refresh));
    sendJson(res, 200, resultBody(resolved.result), cacheHeaders(resolved));
  }

  function run(endpoint: Endpoint, params: ParameterValues, res: ServerResponse, refresh: boolean) {
    // A caller that hangs up abandons its query.
    const abandoned = new AbortController();
    res.once('close', () => {
      if (!res.writableFinished) abandoned.abort();
    });
    return resolver.resolve(endpoint, params, { signal: abandoned.signal, refresh });
  }

  return async function handle(
    req: IncomingMessage,
    res: ServerResponse,
    url: RequestTarget,
  ): Promise<boolean> {
    const path = url.pathname;
    const registry = options.registry();
    if (path === '/api/endpoints' || path === '/api/endpoints/') {
      allowMethods(req, ['GET', 'HEAD']);
      sendJson(res, 200, { result: registry.endpoints.map(describeEndpoint) });
      return true;
    }
    if (path.startsWith(endpointPrefix)) {
      const reference = decodePathSegment(
        path.startsWith(byIdPrefix) ? path.slice(byIdPrefix.length) : path.slice(endpointPrefix.length),
      );
      const endpoint = reference === undefined ? undefined : registry.find(reference);
      const byId = path.startsWith(byIdPrefix);
      if (
        !endpoint ||
        (byId && endpoint.id !== reference?.toLowerCase()) ||
        (!byId && endpoint.name !== reference)
      ) {
        throw new QuerygateError(
          'NOT_FOUND',
          `No endpoint ${byId ? 'with id' : 'named'} '${reference ?? path}'`,
        );
      }
      allowMethods(req, ['GET', 'HEAD']);
      await runEndpoint(endpoint, url, req, res);
      return true;
    }
    if (path === '/api/logs') {
      allowMethods(req, ['POST']);
      const source = url.searchParams.get('source_name');
      if (!source)
        throw new QuerygateError('BAD_PARAMETER', "Parameter 'source_name' is required", {
          details: { parameter: 'source_name' },
        });
      const events = await readLogEvents(req, { maxBytes: options.maxBodyBytes });
      const { ingested } = await options.logs.write(source, events);
      sendJson(res, 200, { message: 'Logged!', ingested });
      return true;
    }
    return false;
  };
}

/** `Cache-Control: no-cache` (or `Pragma: no-cache`): the caller wants a result computed now. */
function asksForFreshResult(req: IncomingMessage): boolean {
  if (req.headers['cache-control'] === undefined && req.headers.pragma === undefined) return false;
  const directives = `${req.headers['cache-control'] ?? ''},${req.headers.pragma ?? ''}`.toLowerCase();
  return directives.split(',').some((directive) => directive.trim() === 'no-cache');
}

function allowMethods(req: IncomingMessage, methods: readonly string[]): void {
  if (!methods.includes(req.method ?? '')) {
    throw new QuerygateError(
      'METHOD_NOT_ALLOWED',
      `${req.method} is not allowed here; use ${methods.join(' or ')}`,
      {
        details: { allow: methods.join(', ') },
      },
    );
  }
}

function decodePathSegment(segment: string): string | undefined {
  if (segment === '' || segment.includes('/')) return undefined;
  if (!segment.includes('%')) return segment;
  try {
    return decodeURIComponent(segment);
  } catch {
    return undefined;
  }
}

/** The public description of an endpoint, in the snake_case of the REST API. */
export function describeEndpoint(endpoint: Endpoint) {
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
    })),
    max_rows: endpoint.maxRows,
    cache_seconds: endpoint.cacheSeconds,
    warm_seconds: endpoint.warmSeconds,
    sandboxing: endpoint.sandboxed ? 'enabled' : 'disabled',
  };
}
