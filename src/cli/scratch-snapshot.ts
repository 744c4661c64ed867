import type { BigQuery } from '@google-cloud/bigquery';
import { loadEndpointRegistry } from '../endpoints/registry.js';
import { type Snapshot, type SnapshotOptions, snapshotOf } from '../endpoints/snapshot.js';
import { queryableTable } from '../endpoints/table-source.js';
import type { BigQueryConfig } from '../engines/bigquery-config.js';
import { createBigQueryEngine } from '../engines/bigquery-engine.js';
import { createDuckDbEngine } from '../engines/duckdb-engine.js';
import type { QueryEngine } from '../engines/query-engine.js';
import { queriesDir as shippedQueriesDir } from '../paths.js';
import { openDatabase } from '../storage/database.js';
import { ensureLogTables } from '../storage/log-tables.js';
import { ensureWarehouseTables } from '../storage/warehouse-tables.js';

/** Where `loadScratchSnapshot` derives shapes: BigQuery when configured, else an empty DuckDB store. */
export interface ScratchBigQuery {
  readonly config: BigQueryConfig;
  /** @default createBigQueryClient(config), with application-default credentials */
  readonly client?: BigQuery | undefined;
}

/**
 * Loads a queries directory as the server would, without a server or a data directory: on the
 * configured BigQuery (each endpoint dry-run, so its shape is the warehouse's), or else against an
 * empty in-memory DuckDB store holding its sources' tables. For the commands that print the
 * schema or check and lock queries.
 */
export async function loadScratchSnapshot(
  queriesDir: string,
  options: SnapshotOptions = {},
  bigquery?: ScratchBigQuery,
): Promise<Snapshot> {
  const registry = loadEndpointRegistry(queriesDir);
  if (bigquery) {
    const engine = await createBigQueryEngine({
      config: bigquery.config,
      queries: [],
      sources: [...registry.sources, ...registry.tables.map(queryableTable)],
      queriesDir: shippedQueriesDir,
      ...(bigquery.client ? { client: bigquery.client } : {}),
    });
    return withEngine(engine, (it) => snapshotOf(registry, queriesDir, it, options));
  }
  const database = await openDatabase(':memory:');
  try {
    const setup = await database.connect();
    await ensureLogTables(setup, registry.sources);
    await ensureWarehouseTables(setup, registry.tables);
    setup.closeSync();
    const engine = await createDuckDbEngine({
      database,
      sources: [...registry.sources, ...registry.tables.map(queryableTable)],
      queries: [],
      queriesDir: shippedQueriesDir,
      timeoutMs: 30_000,
      connections: 1,
    });
    return await withEngine(engine, (it) => snapshotOf(registry, queriesDir, it, options));
  } finally {
    database.close();
  }
}

async function withEngine<T>(engine: QueryEngine, use: (engine: QueryEngine) => Promise<T>): Promise<T> {
  try {
    return await use(engine);
  } finally {
    await engine.close();
  }
}
