import { loadEndpointRegistry } from '../endpoints/registry.js';
import { type Snapshot, type SnapshotOptions, snapshotOf } from '../endpoints/snapshot.js';
import { createDuckDbEngine } from '../engines/duckdb-engine.js';
import { queriesDir as shippedQueriesDir } from '../paths.js';
import { openDatabase } from '../storage/database.js';
import { ensureLogTables } from '../storage/log-tables.js';

/**
 * Loads a queries directory against an empty in-memory DuckDB store holding its sources' tables:
 * every check the server makes at start, without a server or a data directory. For the commands
 * that print the schema or check queries.
 */
export async function loadScratchSnapshot(
  queriesDir: string,
  options: SnapshotOptions = {},
): Promise<Snapshot> {
  const registry = loadEndpointRegistry(queriesDir);
  const database = await openDatabase(':memory:');
  try {
    const setup = await database.connect();
    await ensureLogTables(setup, registry.sources);
    setup.closeSync();
    const engine = await createDuckDbEngine({
      database,
      sources: registry.sources,
      queries: [],
      queriesDir: shippedQueriesDir,
      timeoutMs: 30_000,
      connections: 1,
    });
    try {
      return await snapshotOf(registry, queriesDir, engine, options);
    } finally {
      await engine.close();
    }
  } finally {
    database.close();
  }
}
