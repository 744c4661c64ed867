import { QuerygateError } from '../errors.js';
import type { Grant } from './grant.js';
import { likelyMeant } from './likely-meant.js';
import type { EndpointRegistry } from './registry.js';

/**
 * The 404 of a call naming no endpoint, with the one its caller most likely meant (`did you mean
 * usage.api-counts?`, also as `details.didYouMean`). Only an endpoint the caller may call is ever
 * offered: a signed token hears of its grant's endpoints alone, never of the others' names.
 */
export function unknownEndpoint(
  ref: string,
  registry: Pick<EndpointRegistry, 'endpoints'>,
  grant: Grant | undefined,
  said: string,
): QuerygateError {
  const callable = registry.endpoints
    .map((endpoint) => endpoint.name)
    .filter((name) => grant === undefined || grant.allows(name));
  const meant = likelyMeant(ref, callable);
  return new QuerygateError('NOT_FOUND', `${said}${meant === undefined ? '' : ` (did you mean ${meant}?)`}`, {
    ...(meant === undefined ? {} : { details: { didYouMean: meant } }),
  });
}
