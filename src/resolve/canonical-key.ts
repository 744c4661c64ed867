import type { Endpoint } from '../endpoints/registry.js';
import type { ParameterValues } from '../engines/query-engine.js';

type KeyedEndpoint = Pick<Endpoint, 'id' | 'parameters'> & { readonly hash?: string | undefined };

/**
 * The identity of one result: the endpoint's UUID with the hash of its SQL and contract (so a
 * changed endpoint never answers from its old results) and its contract's parameters, sorted by
 * name, with unset ones (absent, null or empty) left out. A call by name, by UUID, over REST or
 * over GraphQL with the same bound values lands on the same key; values outside the contract
 * never take part, so they cannot split one result into many.
 */
export function canonicalKey(endpoint: KeyedEndpoint, params: ParameterValues): string {
  const { prefix, names } = keyShape(endpoint);
  let query = '';
  for (const name of names) {
    const value = params[name];
    if (value === null || value === undefined || value === '') continue;
    query += query === '' ? formPair(name, value) : `&${formPair(name, value)}`;
  }
  return prefix + query;
}

// Worked out per call, not remembered: the hit paths (REST per request target, GraphQL replay
// per kept call) keep the key they built, so this runs on misses and executed fields only.
function keyShape(endpoint: KeyedEndpoint) {
  const names = endpoint.parameters.map(({ name }) => name).sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  const version = endpoint.hash === undefined ? '' : `@${endpoint.hash}`;
  return { prefix: `${endpoint.id.toLowerCase()}${version}?`, names };
}

// Form encoding (URLSearchParams) keeps the separators unambiguous whatever the values contain.
// Contract names and most values (projects, intervals) consist only of the characters it leaves
// as they are, so those are joined as they are; the key is the same either way.
const formSafe = /^[A-Za-z0-9*\-._]*$/;

function formPair(name: string, value: string): string {
  return formSafe.test(name) && formSafe.test(value)
    ? `${name}=${value}`
    : new URLSearchParams([[name, value]]).toString();
}
