import { mkdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { Logger } from 'pino';
import { makeDataDirectory } from '../../data-directory.js';
import type { DemoTraffic } from '../../demo/traffic.js';
import type { LogSource } from '../../endpoints/sources.js';
import { queryableTable, type TableSource } from '../../endpoints/table-source.js';
import type { SavedQuery } from '../../engines/query-engine.js';
import { queriesDir as shippedQueriesDir } from '../../paths.js';
import { batchDir as batchDirOf } from '../../server-file.js';
import { translateToDuckDb } from '../../sql/translate.js';
import { openDatabase } from '../../storage/database.js';
import { ensureLogTables } from '../../storage/log-tables.js';
import { createLogWriter } from '../../storage/log-writer.js';
import { createPresentRecords } from '../../storage/present-records.js';
import { startRetention } from '../../storage/retention.js';
import { retentionPolicy } from '../../storage/retention-policy.js';
import { createRollups } from '../../storage/rollups.js';
import { createTableWriter, type TableWriter } from '../../storage/table-writer.js';
import { ensureWarehouseTables } from '../../storage/warehouse-tables.js';
import type { Timers } from '../../timers.js';
import { systemTimers } from '../../timers.js';
import type { Backend, BackendSettings } from '../backend.js';
import { startShippedDemo } from './demo.js';
import { createDuckDbEngine } from './engine.js';
import { openRecoveringStore, type StoreHooks, type StoreOpening } from './store-recovery.js';
import { readTableSchemas } from './table-schemas.js';

/** The file of the embedded store, in the data directory. */
const storeFile = 'querygate.duckdb';

/**
 * The embedded backend: the logs in one DuckDB file of the data directory (`storage/`), the saved
 * BigQuery SQL translated to DuckDB and run on it. The UDF macros ship with querygate, whatever
 * queries directory is served.
 */
export const duckdbBackend: Backend<undefined> = {
  title: 'DuckDB',
  engineCallsVariable: 'QUERYGATE_DUCKDB_CONNECTIONS',

  async open({ settings, sources, tables = [], queries, now, timers, logger }) {
    const path = join(settings.dataDir, storeFile);
    // Batch files get a directory of their own: the only one DuckDB may read once locked down.
    const batchDir = batchDirOf(settings.dataDir);
    // Checked first: a recursive mkdir never returns under /proc (see makeDataDirectory).
    makeDataDirectory(settings.dataDir);
    mkdirSync(batchDir, { recursive: true });
    // The table sources as last migrated: a reopening after a fatal error opens with them.
    let declared = tables;
    const store = await openRecoveringStore({
      log: logger,
      open: (attempt, hooks) =>
        openStore({
          path,
          batchDir,
          settings,
          sources,
          tables: declared,
          queries,
          now,
          timers,
          logger,
          hooks,
          // The injected fault is for the first opening only: a reopening must succeed.
          failCheckpoints: settings.faultInjection === 'checkpoint' && attempt === 0,
          // A reopening opens the store it had, or waits for it to come back.
          existing: attempt > 0,
        }),
    });
    const demo = store.first.demo;
    return {
      engine: store.engine,
      logs: store.logs,
      tables: store.tables,
      timeoutMs: settings.queryTimeoutMs,
      demo: demo && { atStart: demo.atStart, close: async () => {} },
      // The file, its write-ahead log and the writer's ingest journal (see storage/log-writer.ts).
      storeBytes: () => fileBytes([path, `${path}.wal`, `${path}.journal`]),
      storeState: store.state,
      async migrateTables(next) {
        const made = await store.guarded((opening) => opening.tables.redeclare(next));
        declared = next;
        return made.flatMap((migration) => migration.changes.map((change) => `${migration.table}.${change}`));
      },
      close: () => store.close(),
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

interface StoreParts {
  readonly path: string;
  readonly batchDir: string;
  readonly settings: BackendSettings;
  readonly sources: readonly LogSource[];
  readonly tables: readonly TableSource[];
  readonly queries: readonly SavedQuery[];
  readonly now: () => Date;
  readonly timers: Timers | undefined;
  readonly logger: Logger;
  readonly hooks: StoreHooks;
  readonly failCheckpoints: boolean;
  readonly existing: boolean;
}

/**
 * One opening of the store file and of everything that holds its connections: the log writer
 * (which replays its ingest journal), the warehouse tables, memory trim, retention, demo traffic,
 * the engine and the table writer. Closing it closes them all, then the instance.
 */
async function openStore(
  parts: StoreParts,
): Promise<StoreOpening & { readonly demo: DemoTraffic | undefined; readonly tables: TableWriter }> {
  const { settings, sources, tables, now, timers, logger } = parts;
  const database = await openDatabase(parts.path, {
    memoryLimit: settings.duckdbMemoryLimit,
    threads: settings.duckdbThreads,
    failCheckpoints: parts.failCheckpoints,
    existing: parts.existing,
  });
  const closers: (() => Promise<void> | void)[] = [() => database.close()];
  const close = async () => {
    // Last opened first; each part closes whatever the others did.
    for (const closer of closers.reverse()) {
      try {
        await closer();
      } catch (error) {
        logger.warn({ err: error }, 'closing a part of the store failed');
      }
    }
  };
  try {
    const retentionDays = retentionPolicy(settings.retentionDays);
    // Writes to each table (a log source's or a table source's), counted: the engine prepares
    // the statements reading one again after a write to it (see DuckDbEngineOptions.tableMark).
    const tableWrites = new Map<string, number>();
    const written = (name: string) => tableWrites.set(name, (tableWrites.get(name) ?? 0) + 1);
    const presentRecords = createPresentRecords();
    const rollups = createRollups(sources);
    // A schema change's rewritten column is DuckDB's until the checkpoint after it, and the
    // allocator returns it within about a second (database.ts): meanwhile, and for 2 s after,
    // memory above the ad-hoc ceiling is the writer's, not a caller query's to be stopped for.
    let schemaChanges = 0;
    let schemaChangeEndedAt = Number.NEGATIVE_INFINITY;
    const writerHoldsMemory = () => schemaChanges > 0 || performance.now() - schemaChangeEndedAt < 2_000;
    const writer = createLogWriter(database, {
      tempDir: parts.batchDir,
      now,
      schemaLimits: settings.schemaLimits,
      schemaChangeIntervalMs: settings.schemaChangeIntervalMs,
      // A quarter of DuckDB's memory for data not yet checkpointed, the rest for queries.
      checkpointMemoryBytes: Math.floor(settings.duckdbMemoryLimitBytes / 4),
      retention: retentionDays,
      log: logger,
      onStoreFailure: parts.hooks.failed,
      reopen: parts.hooks.reopen,
      // A schema change needing more than an eighth of DuckDB's memory runs with queries held off.
      runAlone: parts.hooks.runAlone,
      aloneAboveBytes: Math.floor(settings.duckdbMemoryLimitBytes / 8),
      onCommitted: written,
      presentRecords,
      rollups,
      sources,
      onSchemaChange: (changing) => {
        schemaChanges += changing ? 1 : -1;
        if (!changing) schemaChangeEndedAt = performance.now();
      },
    });
    closers.push(() => writer.close());
    await writer.ready();
    const migrated = await withConnection(database, (setup) => ensureWarehouseTables(setup, tables));
    for (const { table, changes } of migrated)
      logger.info({ table, changes }, `table ${table} migrated to its declaration in sources.yaml`);
    const retention = startRetention({
      writer,
      sources,
      policy: retentionDays,
      now,
      timers: timers ?? systemTimers,
      log: logger,
    });
    closers.push(() => retention.stop());
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
    if (demo) closers.push(() => demo.close());
    const engine = await createDuckDbEngine({
      database,
      sources: queryableTables(sources, tables),
      queries: parts.queries,
      queriesDir: shippedQueriesDir,
      timeoutMs: settings.queryTimeoutMs,
      connections: settings.duckdbConnections,
      adhocConnections: settings.adhoc?.calls,
      adhocMemoryCeilingBytes: settings.adhoc?.memoryCeilingBytes,
      writerHoldsMemory,
      // Caller SQL of sandboxed endpoints runs here: DuckDB itself refuses files and settings.
      // And DuckDB's own spill directory (its default, next to the file): locked out of it, data
      // past the memory limit (a schema change's rewritten column above all) cannot be evicted
      // and the statement, or the checkpoint after it, runs out of memory instead.
      lockdown: { allowedDirectories: [`${parts.batchDir}/`, `${parts.path}.tmp/`] },
      tableMark: (names) => names.map((name) => tableWrites.get(name) ?? 0).join(','),
      presentRecords,
      rollups,
      acknowledgedCommits: () => writer.committed(),
      log: logger,
    });
    closers.push(() => engine.close());
    const tableWriter = await createTableWriter(database, tables, {
      onWritten: written,
    });
    closers.push(() => tableWriter.close());
    // Clients are answered once their records are journaled; queries wait for the commit after.
    const logs = { write: writer.acknowledge, committed: writer.committed };
    return { engine, logs, tables: tableWriter, demo, close };
  } catch (error) {
    await close();
    throw error;
  }
}

/** What the engine reads: the log sources and the table sources, by every name SQL may use. */
function queryableTables(sources: readonly LogSource[], tables: readonly TableSource[]) {
  return [...sources, ...tables.map(queryableTable)];
}

async function withConnection<T>(
  database: { connect(): Promise<DuckDBConnection> },
  use: (connection: DuckDBConnection) => Promise<T>,
): Promise<T> {
  const connection = await database.connect();
  try {
    return await use(connection);
  } finally {
    connection.closeSync();
  }
}

/** The bytes of the files that exist among `paths`. */
function fileBytes(paths: readonly string[]): number {
  return paths.reduce((total, path) => total + (statSync(path, { throwIfNoEntry: false })?.size ?? 0), 0);
}
