import { mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { LogSource } from '../../endpoints/sources.js';
import { queryableTable, type TableSource } from '../../endpoints/table-source.js';
import { queriesDir as shippedQueriesDir } from '../../paths.js';
import { translateToDuckDb } from '../../sql/translate.js';
import { openDatabase } from '../../storage/database.js';
import { ensureLogTables } from '../../storage/log-tables.js';
import { createLogWriter } from '../../storage/log-writer.js';
import { startMemoryTrim } from '../../storage/memory-trim.js';
import { startRetention } from '../../storage/retention.js';
import { retentionPolicy } from '../../storage/retention-policy.js';
import { createTableWriter } from '../../storage/table-writer.js';
import { ensureWarehouseTables } from '../../storage/warehouse-tables.js';
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

  async open({ settings, sources, tables = [], queries, now, timers, logger }) {
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
    await withConnection(database, (setup) => ensureWarehouseTables(setup, tables));
    // Real timers even when the clock is a test's: RSS is the process's, not simulated.
    const memoryTrim =
      settings.memoryTargetBytes === undefined
        ? undefined
        : await startMemoryTrim({ database, targetBytes: settings.memoryTargetBytes, timers: systemTimers });
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
      sources: queryableTables(sources, tables),
      queries,
      queriesDir: shippedQueriesDir,
      timeoutMs: settings.queryTimeoutMs,
      connections: settings.duckdbConnections,
      adhocConnections: settings.adhoc?.calls,
      adhocMemoryCeilingBytes: settings.adhoc?.memoryCeilingBytes,
      // Caller SQL of sandboxed endpoints runs here: DuckDB itself refuses files and settings.
      lockdown: { allowedDirectories: [`${batchDir}/`] },
    });
    const tableWriter = await createTableWriter(database, tables);
    return {
      engine,
      logs: writer,
      tables: tableWriter,
      timeoutMs: settings.queryTimeoutMs,
      demo,
      // The file, its write-ahead log and the writer's ingest journal (see storage/log-writer.ts).
      storeBytes: () => fileBytes([database.path, `${database.path}.wal`, `${database.path}.journal`]),
      async close() {
        tableWriter.close();
        await memoryTrim?.stop();
        await retention.stop();
        await writer.close();
        database.close();
      },
    };
  },

  async scratch({ sources, tables = [] }) {
    const database = await openDatabase(':memory:');
    try {
      const setup = await database.connect();
      await ensureLogTables(setup, sources);
      await ensureWarehouseTables(setup, tables);
      setup.closeSync();
      const engine = await createDuckDbEngine({
        database,
        sources: queryableTables(sources, tables),
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

  async querySession({ settings, sources, tables = [] }) {
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
      await withConnection(database, (setup) => ensureWarehouseTables(setup, tables));
    } catch (error) {
      await close();
      throw error;
    }
    return {
      async explain(sql) {
        const connection = await database.connect();
        try {
          const schemas = await readTableSchemas(connection, queryableTables(sources, tables));
          return translateToDuckDb(sql, { tables: schemas }).sql;
        } finally {
          connection.closeSync();
        }
      },
      engine: () =>
        createDuckDbEngine({
          database,
          sources: queryableTables(sources, tables),
          queries: [],
          queriesDir: shippedQueriesDir,
          timeoutMs: settings.queryTimeoutMs,
        }),
      close,
    };
  },
};

/** What the engine reads: the log sources and the table sources, by every name SQL may use. */
function queryableTables(sources: readonly LogSource[], tables: readonly TableSource[]) {
  return [...sources, ...tables.map(queryableTable)];
}

async function withConnection(
  database: { connect(): Promise<DuckDBConnection> },
  use: (connection: DuckDBConnection) => Promise<void>,
): Promise<void> {
  const connection = await database.connect();
  try {
    await use(connection);
  } finally {
    connection.closeSync();
  }
}

/** The bytes of the files that exist among `paths`. */
function fileBytes(paths: readonly string[]): number {
  return paths.reduce((total, path) => total + (statSync(path, { throwIfNoEntry: false })?.size ?? 0), 0);
}
