import type { Endpoint } from '../endpoints/registry.js';
import type { ParameterValues } from '../engines/query-engine.js';

/**
 * The identity of one result: the endpoint's UUID and its contract's parameters, sorted by
 * name, with unset ones (absent, null or empty) left out. A call by name, by UUID, over REST or
 * over GraphQL with the same bound values lands on the same key; values outside the contract
 * never take part, so they cannot split one result into many.
 */
export function canonicalKey(endpoint: Pick<Endpoint, 'id' | 'parameters'>, params: ParameterValues): string {
  const pairs: [string, string][] = [];
  for (const { name } of endpoint.parameters) {
    const value = params[name];
    if (value !== null && value !== undefined && value !== '') pairs.push([name, value]);
  }
  pairs.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
  // URL encoding keeps the separators unambiguous whatever the values contain.
  return `${endpoint.id.toLowerCase()}?${new URLSearchParams(pairs).toString()}`;
}
