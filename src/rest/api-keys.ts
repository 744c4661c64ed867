import { createHash, timingSafeEqual } from 'node:crypto';

/**
 * Whether a presented key is one of the configured keys, in time that does not depend on how
 * much of it matches. Comparing SHA-256 digests keeps lengths equal, so length leaks nothing.
 */
export function createApiKeyCheck(keys: readonly string[]): (presented: string | undefined) => boolean {
  const digests = keys.map(digest);
  return (presented) => {
    if (presented === undefined || presented === '') return false;
    const candidate = digest(presented);
    let found = false;
    for (const key of digests) found = timingSafeEqual(key, candidate) || found;
    return found;
  };
}

function digest(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}
