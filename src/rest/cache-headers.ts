import type { ResolvedResult } from '../resolve/resolver.js';

/**
 * HTTP caching headers that tell the truth about a result (RFC 9111). `Age` is how long ago the
 * result was computed and `max-age` its whole lifetime, so a client's remaining freshness is
 * `max-age - Age`, exactly what the resolver layer will still serve. `private`: the response
 * depends on an API key that shared caches never see. Results that are never cached say so.
 */
export function cacheHeaders(
  resolved: Pick<ResolvedResult, 'maxAgeSeconds' | 'ageSeconds'>,
): Record<string, string> {
  if (resolved.maxAgeSeconds <= 0) return { 'cache-control': 'no-store' };
  return { 'cache-control': `private, max-age=${resolved.maxAgeSeconds}`, age: String(resolved.ageSeconds) };
}
