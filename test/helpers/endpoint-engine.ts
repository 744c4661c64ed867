import { createDuckDbEngine } from '../../src/backends/duckdb/engine.js';
import { type EndpointRegistry, loadEndpointRegistry } from '../../src/endpoints/registry.js';
import { type Snapshot, snapshotOf } from '../../src/endpoints/snapshot.js';
import type { QueryEngine } from '../../src/engines/query-engine.js';
import { queriesDir } from '../../src/paths.js';
import { type FixtureRecord, insertStatement } from './log-fixture.js';
import { createScratchEngine, type ScratchEngine } from './scratch-engine.js';
import { logSources } from './shipped-sources.js';

/** The saved endpoints on the real DuckDB engine over an in-memory store that tests fill by hand. */
export interface EndpointEngine {
  readonly registry: EndpointRegistry;
  /** The shipped queries with their shapes, as the server serves them. */
  readonly snapshot: Snapshot;
  readonly engine: QueryEngine;
  readonly scratch: ScratchEngine;
  /** Inserts records into a source table with plain DuckDB SQL. */
  insert(source: string, records: readonly FixtureRecord[]): Promise<void>;
  close(): Promise<void>;
}

export async function createEndpointEngine(): Promise<EndpointEngine> {
  const scratch = await createScratchEngine();
  const registry = loadEndpointRegistry(queriesDir);
  const engine = await createDuckDbEngine({
    database: scratch.database,
    sources: logSources,
    queries: registry.endpoints,
    queriesDir,
    timeoutMs: 10_000,
  });
  const snapshot = await snapshotOf(registry, queriesDir, engine);
  return {
    registry,
    snapshot,
    engine,
    scratch,
    async insert(source, records) {
      await scratch.duckdb(insertStatement(source, records));
    },
    async close() {
      await engine.close();
      await scratch.close();
    },
  };
}

/** The endpoint of a name, or a failed test. */
export function endpointNamed(registry: EndpointRegistry, name: string) {
  const endpoint = registry.find(name);
  if (!endpoint) throw new Error(`queries/ has no endpoint ${name}`);
  return endpoint;
}
