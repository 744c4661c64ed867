import { LRUCache } from 'lru-cache';
import { type Grant, pinnedNames } from './grant.js';
import type { Endpoint } from './registry.js';
import { type Snapshot, snapshotServing } from './snapshot.js';

/**
 * The snapshot as a signed token sees it: only the endpoints its grant names, with the
 * parameters it pins optional (the caller may leave them out). The faces derive their schema and
 * document from it as from any snapshot, so `endpoints`, OpenAPI and introspection list only what
 * the token may call. Views are kept with the snapshot by what tells them apart (the endpoints
 * and the pinned names, never the pinned values), so every tenant of one dashboard shares one
 * view and one GraphQL schema, and a reload drops them all with the snapshot.
 */
export function grantedSnapshot(snapshot: Snapshot, grant: Grant): Snapshot {
  const granted = snapshot.endpoints.filter((endpoint) => grant.allows(endpoint.name));
  const restated = granted.map((endpoint) => ({ endpoint, pinned: pinnedNames(grant, endpoint.parameters) }));
  const key = restated.map(({ endpoint, pinned }) => `${endpoint.name}(${pinned.join(',')})`).join('\n');
  const views = snapshot.derived(createGrantedViews);
  let view = views.get(key);
  if (view === undefined) {
    view = snapshotServing(
      snapshot,
      restated.map(({ endpoint, pinned }) => withOptional(endpoint, pinned)),
    );
    views.set(key, view);
  }
  return view;
}

// A handful of distinct grants per deployment is usual (one per kind of dashboard); each view
// holds its own GraphQL schema, so the count is bounded.
const maxViews = 64;

function createGrantedViews(_snapshot: Snapshot): LRUCache<string, Snapshot> {
  return new LRUCache<string, Snapshot>({ max: maxViews });
}

/** The endpoint with these parameters optional: the same id and hash, so the same cache keys. */
function withOptional(endpoint: Endpoint, names: readonly string[]): Endpoint {
  if (names.length === 0) return endpoint;
  return {
    ...endpoint,
    parameters: endpoint.parameters.map((parameter) =>
      names.includes(parameter.name) ? { ...parameter, required: false } : parameter,
    ),
  };
}
