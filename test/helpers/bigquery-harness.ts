import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { BigQuery, BigQueryOptions } from '@google-cloud/bigquery';
import { afterEach } from 'vitest';
import {
  type BigQueryConfig,
  bigQueryTables,
  parseBigQueryEnvironment,
} from '../../src/backends/bigquery/config.js';
import { bigQueryNaming, createBigQueryClient } from '../../src/backends/bigquery/engine.js';
import { readBigQueryUdfs } from '../../src/backends/bigquery/udfs.js';
import type { Config } from '../../src/config.js';
import type { LogSource } from '../../src/endpoints/sources.js';
import type { TableSource } from '../../src/endpoints/table-source.js';
import { queriesDir } from '../../src/paths.js';
import { type Querygate, startQuerygate } from '../../src/server.js';
import { ensureWarehouseTables } from '../../src/storage/warehouse-tables.js';
import { type FakeBigQuery, fakeAuthClient, startFakeBigQuery } from './fake-bigquery-server.js';
import { testConfig } from './querygate-server.js';
import { createScratchEngine, type ScratchEngine } from './scratch-engine.js';
import { logSources } from './shipped-sources.js';

/**
 * A fake BigQuery on loopback over its own scratch DuckDB, with a configuration as the
 * environment would give it and a real @google-cloud/bigquery client pointed at the fake.
 */
export interface BigQueryHarness {
  readonly fake: FakeBigQuery;
  /** The fake's store: rows inserted here are what BigQuery "has". */
  readonly store: ScratchEngine;
  readonly config: BigQueryConfig;
  /** The sources the fake holds tables of: `HarnessOptions.sources`. */
  readonly sources: readonly LogSource[];
  /** The fully-qualified table of each source, as `bigQueryTables` resolves it. */
  readonly tables: Readonly<Record<string, string>>;
  /** A client of the fake with a stub token, built as the engine builds its own. */
  client(overrides?: BigQueryOptions): BigQuery;
  close(): Promise<void>;
}

export interface HarnessOptions {
  /** Extra QUERYGATE_BIGQUERY_* variables. */
  readonly environment?: Record<string, string>;
  readonly now?: () => Date;
  readonly pageSize?: number;
  /** The sources of the served queries directory. @default the nine shipped ones */
  readonly sources?: readonly LogSource[];
  /** Create the UDF routines in the fake up front, as `querygate bigquery setup` would. @default true */
  readonly withUdfs?: boolean;
  /**
   * Tables of the warehouse itself (table sources), created empty in the fake's store under their
   * source names; load rows into `store.database` (importTableFiles) before querying them.
   */
  readonly warehouseTables?: readonly TableSource[];
}

export const testProject = 'querygate-test';
export const testDataset = 'logs';

export async function startBigQueryHarness(options: HarnessOptions = {}): Promise<BigQueryHarness> {
  const sources = options.sources ?? logSources;
  const store = await createScratchEngine(sources);
  const warehouseTables = options.warehouseTables ?? [];
  const setup = await store.database.connect();
  await ensureWarehouseTables(setup, warehouseTables);
  setup.closeSync();
  const partial = parseBigQueryEnvironment({
    QUERYGATE_BIGQUERY_PROJECT: testProject,
    QUERYGATE_BIGQUERY_DATASET: testDataset,
    ...options.environment,
  });
  // The fake maps the log sources' qualified names back to their store tables; the warehouse's
  // own tables it knows by their warehouse names, as BigQuery does.
  const naming = bigQueryNaming(partial, sources, queriesDir);
  const fake = await startFakeBigQuery({
    projectId: testProject,
    database: store.database,
    tables: naming.tables,
    routines: naming.routines,
    sources,
    warehouseTables,
    ...(options.now ? { now: options.now } : {}),
    ...(options.pageSize ? { pageSize: options.pageSize } : {}),
  });
  const config: BigQueryConfig = { ...partial, apiEndpoint: fake.url };
  if (options.withUdfs ?? true) {
    for (const udf of readBigQueryUdfs(queriesDir, config)) fake.routines.set(udf.qualifiedName, udf.ddl);
  }
  return {
    fake,
    store,
    config,
    sources,
    tables: bigQueryTables(config, sources),
    client: (overrides = {}) => createBigQueryClient(config, { authClient: fakeAuthClient(), ...overrides }),
    async close() {
      await fake.close();
      await store.close();
    },
  };
}

/**
 * The real querygate on port 0 with QUERYGATE_ENGINE=bigquery on the harness's fake: its
 * configuration (so the harness's `environment` sets the timeout and the cap), a client of it,
 * `testApiKey`. Close it before the harness.
 */
export async function startQuerygateOnBigQuery(
  harness: BigQueryHarness,
  options: { readonly now?: () => Date; readonly queriesDir?: string } = {},
): Promise<Querygate> {
  // BigQuery holds the logs; the data directory is only where a generated key would go.
  const dataDir = await mkdtemp(join(tmpdir(), 'querygate-bq-'));
  const removeDataDir = () => rm(dataDir, { recursive: true, force: true });
  const { queriesDir: ownQueries, ...startOptions } = options;
  const config: Config = {
    ...testConfig(dataDir),
    ...(ownQueries ? { queriesDir: ownQueries } : {}),
    engine: 'bigquery',
    bigquery: harness.config,
  };
  let app: Querygate;
  try {
    app = await startQuerygate(config, { bigQueryClient: harness.client(), ...startOptions });
  } catch (error) {
    await removeDataDir();
    throw error;
  }
  return {
    ...app,
    async close() {
      try {
        await app.close();
      } finally {
        await removeDataDir();
      }
    },
  };
}

/**
 * For a test file that wants a fresh harness and server in each test: the returned `start` makes
 * both (its `environment` configures the harness and so the server), and both are closed after
 * each test. Call it at the top level of the file.
 */
export function useQuerygateOnBigQueryPerTest() {
  let started: { harness: BigQueryHarness; app: Querygate } | undefined;
  afterEach(async () => {
    const stopping = started;
    started = undefined;
    await stopping?.app.close();
    await stopping?.harness.close();
  });
  return async (environment: Record<string, string> = {}) => {
    const harness = await startBigQueryHarness({ environment });
    try {
      started = { harness, app: await startQuerygateOnBigQuery(harness) };
    } catch (error) {
      await harness.close();
      throw error;
    }
    return started;
  };
}
