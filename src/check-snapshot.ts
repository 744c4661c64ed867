import type { Snapshot } from './endpoints/snapshot.js';
import { schemaFor } from './graphql/schema.js';
import { openApiFor } from './openapi/document.js';

/**
 * The checks a snapshot must pass, beyond those `snapshotOf` makes (contracts, SQL, shapes from
 * the engine and their locks), before it is served: every face builds from it (the GraphQL schema,
 * the OpenAPI document). Throws with one line per problem. The server calls it at start and on
 * each reload, and `querygate queries check` calls it, so the two never disagree. A new face
 * that builds from the snapshot adds its build here.
 */
export function checkSnapshot(snapshot: Snapshot): void {
  schemaFor(snapshot);
  openApiFor(snapshot);
}
