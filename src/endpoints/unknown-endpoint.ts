import { QuerygateError } from '../errors.js';
import type { Grant } from './grant.js';
import { likelyMeant } from './likely-meant.js';
import { refusalLine } from './refusal.js';
import type { EndpointRegistry } from './registry.js';

/**
 * The 404 of a call naming no endpoint, with the one its caller most likely meant (`did you mean
 * usage.api-counts?`, also as `details.didYouMean`). Only an endpoint the caller may call is ever
 * offered: a signed token hears of its grant's endpoints alone, never of the others' names.
 */
export function unknownEndpoint(
  ref: string,
  registry: Pick<EndpointRegistry, 'endpoints'> & Partial<Pick<EndpointRegistry, 'refused'>>,
  grant: Grant | undefined,
  said: string,
): QuerygateError {
  // An endpoint of the directory refused when it loaded (SQL DuckDB cannot answer as BigQuery
  // does, a bad contract) is not "no endpoint": its author hears why, as GET /health says it,
  // rather than a 404 that reads like a typo. Only a caller who may call that name hears of it.
  const refusals = (registry.refused ?? []).filter(
    (refusal) => refusal.endpoint === ref && (grant === undefined || grant.allows(refusal.endpoint)),
  );
  if (refusals.length > 0)
    return new QuerygateError(
      'NOT_FOUND',
      `Endpoint '${ref}' is not served: it was refused when the queries loaded (${refusals.map(refusalLine).join('; ')})`,
      { details: { refused: refusals } },
    );
  const callable = registry.endpoints
    .map((endpoint) => endpoint.name)
    .filter((name) => grant === undefined || grant.allows(name));
  const meant = likelyMeant(ref, callable);
  return new QuerygateError('NOT_FOUND', `${said}${meant === undefined ? '' : ` (did you mean ${meant}?)`}`, {
    ...(meant === undefined ? {} : { details: { didYouMean: meant } }),
  });
}
