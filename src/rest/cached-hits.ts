import type { IncomingMessage } from 'node:http';
import { parse as parseQuery } from 'fast-querystring';
import type { Endpoint, EndpointRegistry } from '../endpoints/registry.js';
import type { Snapshot } from '../endpoints/snapshot.js';
import type { ParameterValues } from '../engines/query-engine.js';
import { presentedApiKey } from '../http/api-keys.js';
import type { EarlyAnswer } from '../http/early-answer.js';
import { truncatedHeader } from '../http/truncated-header.js';
import type { EndpointMetrics, Metrics } from '../metrics/metrics.js';
import { canonicalKey } from '../resolve/canonical-key.js';
import type { Resolver } from '../resolve/resolver.js';
import { byNamePrefix, type CalledEndpoint, calledEndpoint, logflareCallPrefixes } from './call-paths.js';
import { boundParameters, type Query, queryParameterValues } from './parameter-values.js';
import { formatOfAccept, type ResultFormatName, resultFormatOf } from './result-formats.js';

export interface CachedHitsOptions {
  readonly registry: () => Snapshot;
  readonly resolver: Resolver;
  readonly metrics: Pick<Metrics, 'endpoint'>;
}

/** A call as its request target names it: worked out once per target and registry. */
interface KnownCall {
  readonly endpoint: Endpoint;
  readonly params: ParameterValues;
  readonly key: string;
  readonly counts: EndpointMetrics;
  /** The format the path's suffix chose; undefined: as the request's Accept asks. */
  readonly format: ResultFormatName | undefined;
}

// Dashboards repeat a few hundred targets; a client sending ever new ones only refills this.
const maxKnownTargets = 1024;
const maxKnownTargetLength = 2048;

/**
 * The commonest call there is, a GET of an endpoint whose result is cached, answered before
 * Fastify (see `EarlyAnswer`) with the bytes, headers and counts its route gives it. Everything
 * else goes to the route: another method, a body, `Cache-Control`/`Pragma` on the request, a key
 * that is not a query key, a sandboxed endpoint, parameters the contract refuses, a miss.
 *
 * A target (path and query string) always names the same call of the same registry, so what it
 * binds to is kept by target: a repeated call is a map lookup, not a parse, a contract check and
 * a key. Targets carrying `api_key` are never kept (the key would be), nor read from the kept.
 * The query string is parsed by the parser Fastify's router uses, so both read the same values.
 */
export function cachedHits(options: CachedHitsOptions): EarlyAnswer {
  const { registry, resolver, metrics } = options;
  let known = { registry: registry(), calls: new Map<string, KnownCall>() };

  /** The call a target names, or undefined when it is not one to answer here. */
  function callOf(target: string, query: Query | undefined): KnownCall | undefined {
    const current = registry();
    if (known.registry !== current) known = { registry: current, calls: new Map() };
    const kept = query === undefined ? known.calls.get(target) : undefined;
    if (kept !== undefined) return kept;
    const queryAt = target.indexOf('?');
    const called = calledOn(current, queryAt === -1 ? target : target.slice(0, queryAt));
    if (called === undefined) return undefined;
    const { endpoint } = called;
    if (endpoint.sandboxed || endpoint.cacheSeconds <= 0) return undefined;
    const values = query ?? (queryAt === -1 ? {} : parseQuery(target.slice(queryAt + 1)));
    const params = boundParameters(endpoint, queryParameterValues(values));
    const call = {
      endpoint,
      params,
      key: canonicalKey(endpoint, params),
      counts: metrics.endpoint(endpoint.name),
      format: called.format,
    };
    if (query === undefined && target.length <= maxKnownTargetLength) {
      if (known.calls.size >= maxKnownTargets) known.calls.clear();
      known.calls.set(target, call);
    }
    return call;
  }

  return (req, res, scopeOf) => {
    if (req.method !== 'GET' || !plainGet(req)) return false;
    const target = req.url as string;
    if (!startsACallPath(target)) return false;
    // A key in the query string: the only case where the key check needs the query parsed.
    const query = target.includes('api_key') ? parseTargetQuery(target) : undefined;
    if (scopeOf(req.socket, presentedApiKey(req, query)) !== 'all') return false;
    const startedAt = performance.now();
    const call = callOf(target, query);
    if (call === undefined) return false;
    const resolved = resolver.cached(call.endpoint, call.params, call.key);
    if (resolved === undefined) return false;
    const { format } = call;
    const written = resultFormatOf(
      known.registry,
      call.endpoint,
      format ?? formatOfAccept(req.headers.accept),
    );
    const { body, length } = resolved.encoded(written.response);
    const cacheControl = `private, max-age=${resolved.maxAgeSeconds}`;
    // A path without a format suffix answers as its Accept asks (endpoint-routes.ts does the same).
    const headers: Record<string, string | number> =
      format === undefined
        ? {
            'content-type': written.contentType,
            'content-length': length,
            'cache-control': cacheControl,
            age: String(resolved.ageSeconds),
            vary: 'Accept',
          }
        : {
            'content-type': written.contentType,
            'content-length': length,
            'cache-control': cacheControl,
            age: String(resolved.ageSeconds),
          };
    if (resolved.result.truncated === true) headers[truncatedHeader] = 'true';
    res.writeHead(200, headers);
    res.end(body);
    // A GET has no body: its stream is left unread and undrained (see `ServedRequest.answered`).
    req.answered();
    call.counts.answered('rest', resolved.cache, startedAt);
    return true;
  };
}

/** A GET without a body, conditions or a no-cache ask: one the route would answer from the cache. */
function plainGet(req: IncomingMessage): boolean {
  const { headers } = req;
  return (
    headers['cache-control'] === undefined &&
    headers.pragma === undefined &&
    headers['content-length'] === undefined &&
    headers['transfer-encoding'] === undefined
  );
}

function parseTargetQuery(target: string): Query {
  const queryAt = target.indexOf('?');
  return queryAt === -1 ? {} : parseQuery(target.slice(queryAt + 1));
}

// The call paths the routes serve, longest prefix first (`name/` before a bare ref). A path the
// router would decode or treat specially goes to the router.
const byIdOrName = logflareCallPrefixes.flatMap((prefix) => [`${prefix}/name/`, `${prefix}/`]);
/** Where every call path starts: querygate's, and Logflare's outside `/api/endpoints/`. */
const callPathStarts = [
  byNamePrefix,
  ...logflareCallPrefixes.filter((prefix) => !prefix.startsWith(byNamePrefix)).map((prefix) => `${prefix}/`),
];

function startsACallPath(target: string): boolean {
  for (const start of callPathStarts) if (target.startsWith(start)) return true;
  return false;
}

const plainRef = /^[A-Za-z0-9._-]+$/;

function calledOn(registry: EndpointRegistry, path: string): CalledEndpoint | undefined {
  for (const prefix of byIdOrName) {
    if (path.startsWith(prefix)) return found(registry, path.slice(prefix.length), false);
  }
  return path.startsWith(byNamePrefix) ? found(registry, path.slice(byNamePrefix.length), true) : undefined;
}

function found(registry: EndpointRegistry, ref: string, nameOnly: boolean): CalledEndpoint | undefined {
  return plainRef.test(ref) ? calledEndpoint(registry, ref, nameOnly) : undefined;
}
