import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { queriesDir as shippedQueriesDir } from '../../paths.js';
import { translateToDuckDb } from '../../sql/translate.js';
import { openDatabase } from '../../storage/database.js';
import { ensureLogTables } from '../../storage/log-tables.js';
import { createLogWriter } from '../../storage/log-writer.js';
import { startRetention } from '../../storage/retention.js';
import { retentionPolicy } from '../../storage/retention-policy.js';
import { systemTimers } from '../../timers.js';
import type { Backend } from '../backend.js';
import { startShippedDemo } from './demo.js';
import { createDuckDbEngine } from './engine.js';
import { readTableSchemas } from './table-schemas.js';

/** The file of the embedded store, in the data directory. */
const storeFile = 'querygate.duckdb';
/** Where the log writer stages batch files for read_json, in the data directory. */
const batchDirectory = 'ingest-batches';

/**
 * The embedded backend: the logs in one DuckDB file of the data directory (`storage/`), the saved
 * BigQuery SQL translated to DuckDB and run on it. The UDF macros ship with querygate, whatever
 * queries directory is served.
 */
export const duckdbBackend: Backend<undefined> = {
  title: 'DuckDB',
  engineCallsVariable: 'QUERYGATE_DUCKDB_CONNECTIONS',

  async open({ settings, sources, queries, now, timers, logger }) {
    const database = await openDatabase(join(settings.dataDir, storeFile), {
      memoryLimit: settings.duckdbMemoryLimit,
      threads: settings.duckdbThreads,
    });
    const retentionDays = retentionPolicy(settings.retentionDays);
    // Batch files get a directory of their own: the only one DuckDB may read once locked down.
    const batchDir = join(settings.dataDir, batchDirectory);
    mkdirSync(batchDir, { recursive: true });
    const writer = createLogWriter(database, {
      tempDir: batchDir,
      now,
      schemaLimits: settings.schemaLimits,
      schemaChangeIntervalMs: settings.schemaChangeIntervalMs,
      // A quarter of DuckDB's memory for data not yet checkpointed, the rest for queries.
      checkpointMemoryBytes: Math.floor(settings.duckdbMemoryLimitBytes / 4),
      retention: retentionDays,
      log: logger,
      sources,
    });
    await writer.ready();
    const retention = startRetention({
      writer,
      sources,
      policy: retentionDays,
      now,
      timers: timers ?? systemTimers,
      log: logger,
    });
    const demo = settings.demo
      ? await startShippedDemo({
          database,
          writer,
          sources,
          now,
          timers,
          logger,
          queriesDir: settings.queriesDir,
        })
      : undefined;
    const engine = await createDuckDbEngine({
      database,
      sources,
      queries,
      queriesDir: shippedQueriesDir,
      timeoutMs: settings.queryTimeoutMs,
      connections: settings.duckdbConnections,
      // Caller SQL of sandboxed endpoints runs here: DuckDB itself refuses files and settings.
      lockdown: { allowedDirectories: [`${batchDir}/`] },
    });
    return {
      engine,
      logs: writer,
      timeoutMs: settings.queryTimeoutMs,
      demo,
      async close() {
        await retention.stop();
        await writer.close();
        database.close();
      },
    };
  },

  async scratch({ sources }) {
    const database = await openDatabase(':memory:');
    try {
      const setup = await database.connect();
      await ensureLogTables(setup, sources);
      setup.closeSync();
      const engine = await createDuckDbEngine({
        database,
        sources,
        queries: [],
        queriesDir: shippedQueriesDir,
        timeoutMs: 30_000,
        connections: 1,
      });
      return {
        ...engine,
        async close() {
          try {
            await engine.close();
          } finally {
            database.close();
          }
        },
      };
    } catch (error) {
      database.close();
      throw error;
    }
  },

  async querySession({ settings, sources }) {
    const database = await openDatabase(join(settings.dataDir, storeFile), {
      memoryLimit: settings.duckdbMemoryLimit,
      threads: settings.duckdbThreads,
    });
    // The writer creates the source tables of a new store, so a query over it binds (to no rows).
    const writer = createLogWriter(database, { sources });
    const close = async () => {
      await writer.close();
      database.close();
    };
    try {
      await writer.ready();
    } catch (error) {
      await close();
      throw error;
    }
    return {
      async explain(sql) {
        const connection = await database.connect();
        try {
          const tables = await readTableSchemas(connection, sources);
          return translateToDuckDb(sql, { tables }).sql;
        } finally {
          connection.closeSync();
        }
      },
      engine: () =>
        createDuckDbEngine({
          database,
          sources,
          queries: [],
          queriesDir: shippedQueriesDir,
          timeoutMs: settings.queryTimeoutMs,
        }),
      close,
    };
  },
};
