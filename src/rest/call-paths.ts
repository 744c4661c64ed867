/**
 * The paths that call an endpoint, which the routes (endpoint-routes.ts) serve and the early
 * answer of cached hits (cached-hits.ts) recognises: one list, so the two cannot disagree.
 */

/** querygate's own call: this prefix, then the endpoint's name. */
export const byNamePrefix = '/api/endpoints/';

/** Logflare's calls: each prefix, then `/<uuid or name>` or `/name/<name>`. */
export const logflareCallPrefixes = ['/api/endpoints/query', '/endpoints/query'] as const;
