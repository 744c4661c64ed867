import type { Endpoint, EndpointRegistry } from '../endpoints/registry.js';
import { type ResultFormatName, splitFormatSuffix } from './result-formats.js';

/**
 * The paths that call an endpoint, which the routes (endpoint-routes.ts) serve and the early
 * answer of cached hits (cached-hits.ts) recognises: one list, so the two cannot disagree.
 */

/** querygate's own call: this prefix, then the endpoint's name. */
export const byNamePrefix = '/api/endpoints/';

/** Logflare's calls: each prefix, then `/<uuid or name>` or `/name/<name>`. */
export const logflareCallPrefixes = ['/api/endpoints/query', '/endpoints/query'] as const;

/** An endpoint a call path names, with the format its suffix chose; none: as Accept asks. */
export interface CalledEndpoint {
  readonly endpoint: Endpoint;
  readonly format?: ResultFormatName | undefined;
}

/**
 * The endpoint a path's reference names (by name only, or by id or name), whole or with a format
 * suffix (`.csv`, `.ndjson`, `.json`) split off; the whole reference wins, names being dotted.
 */
export function calledEndpoint(
  registry: EndpointRegistry,
  ref: string,
  nameOnly: boolean,
): CalledEndpoint | undefined {
  const named = (candidate: string) => {
    const endpoint = registry.find(candidate);
    return endpoint && (!nameOnly || endpoint.name === candidate) ? endpoint : undefined;
  };
  const whole = named(ref);
  if (whole) return { endpoint: whole };
  const suffixed = splitFormatSuffix(ref);
  const endpoint = suffixed && named(suffixed.ref);
  return endpoint ? { endpoint, format: suffixed.format } : undefined;
}
