import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  type DuckDBConnection,
  type DuckDBPreparedStatement,
  DuckDBTimestampValue,
  type DuckDBType,
  TIMESTAMP,
  VARCHAR,
} from '@duckdb/node-api';
import { isQuerygateError, QuerygateError } from '../errors.js';
import { nowParameter, type Translation, translateToDuckDb } from '../sql/translate.js';
import type { Database } from '../storage/database.js';
import { decodeRows } from './duckdb-rows.js';
import { type QueryableTable, readTableSchemas } from './duckdb-schema.js';
import { createFairPool, type PoolLease } from './fair-pool.js';
import type { ParameterValues, QueryEngine, QueryResult, RunOptions, SavedQuery } from './query-engine.js';

export interface DuckDbEngineOptions {
  readonly database: Database;
  /** The tables queries may read (the log sources) and the other names they answer to. */
  readonly sources: readonly QueryableTable[];
  /** The saved queries, translated once here so a query that cannot run stops start-up. */
  readonly queries: readonly SavedQuery[];
  /** Where `udf/*.duckdb.sql` (the DuckDB macros standing in for BigQuery UDFs) live. */
  readonly queriesDir: string;
  /** Connections running queries side by side. @default 4 */
  readonly connections?: number;
  /** Connections the calls of one endpoint may hold at once. @default half the connections, rounded up */
  readonly connectionsPerEndpoint?: number;
  /** Calls of one endpoint that may wait for a connection; more are refused (ENGINE_BUSY). @default 8 */
  readonly queuePerEndpoint?: number;
  /**
   * A call not answered this long after it asked for a connection (waiting for one counts) is
   * interrupted and answered with ENGINE_TIMEOUT.
   */
  readonly timeoutMs: number;
  /** The timers deadlines are kept with; tests pass manual ones. @default Node's */
  readonly timers?: EngineTimers;
}

/** The timers a deadline needs (the resolver layer's `Timers` fit). */
export interface EngineTimers {
  setTimeout(callback: () => void, delayMs: number): unknown;
  clearTimeout(handle: unknown): void;
}

const nodeTimers: EngineTimers = {
  setTimeout: (callback, delayMs) => setTimeout(callback, delayMs),
  clearTimeout: (handle) => clearTimeout(handle as NodeJS.Timeout),
};

const udfFiles = ['generate_timestamp_trunc_array.duckdb.sql'];
/** How often an interrupt is given again while the interrupted run has not ended. */
const interruptRepeatMs = 5;
const nowName = nowParameter.slice(1);

/** The embedded engine: saved BigQuery SQL translated to DuckDB and run on the local store. */
export async function createDuckDbEngine(options: DuckDbEngineOptions): Promise<QueryEngine> {
  const setup = await options.database.connect();
  // Each saved query is translated against the tables as the store has them when it loads.
  const translate = async (sql: string) =>
    translateToDuckDb(sql, { tables: await readTableSchemas(setup, options.sources) });
  let translations: Map<string, Translation>;
  try {
    // BigQuery sorts NULLs first ascending and last descending; DuckDB's default puts them last
    // both ways. Set for the whole database so ORDER BY anywhere (windows, aggregates) agrees.
    await setup.run(`SET GLOBAL default_null_order = 'nulls_first_on_asc_last_on_desc'`);
    const tables = await readTableSchemas(setup, options.sources);
    translations = new Map(
      options.queries.map((query) => [query.id, translateToDuckDb(query.sql, { tables })]),
    );
    for (const file of udfFiles) await setup.run(readFileSync(join(options.queriesDir, 'udf', file), 'utf8'));
    for (const query of options.queries) await assertBinds(setup, query, translations.get(query.id));
  } catch (error) {
    setup.closeSync();
    throw error;
  }
  const size = options.connections ?? 4;
  const connections = await openConnections(options.database, size);
  const pool = createFairPool(connections, {
    perKeyLimit: options.connectionsPerEndpoint ?? Math.ceil(size / 2),
    maxQueuedPerKey: options.queuePerEndpoint ?? 8,
    maxWaitMs: options.timeoutMs,
  });
  const timers = options.timers ?? nodeTimers;

  async function run(
    query: SavedQuery,
    params: ParameterValues,
    runOptions: RunOptions,
  ): Promise<QueryResult> {
    let translation = translations.get(query.id);
    if (!translation) {
      translation = await translate(query.sql);
      translations.set(query.id, translation);
    }
    // One stop for both ends of a call: its deadline, which starts when it asks for a connection
    // (so a caller never waits longer than the timeout, queued or running), and its caller going away.
    const stop = new AbortController();
    let timedOut = false;
    const timer = timers.setTimeout(() => {
      timedOut = true;
      stop.abort();
    }, options.timeoutMs);
    const onCallerGone = () => stop.abort();
    runOptions.signal?.addEventListener('abort', onCallerGone, { once: true });
    if (runOptions.signal?.aborted) stop.abort();
    let lease: PoolLease<Connection> | undefined;
    let repeat: NodeJS.Timeout | undefined;
    try {
      lease = await pool.acquire(query.id, stop.signal);
      const { connection } = lease.item;
      // DuckDB forgets an interrupt that comes before the query has begun (while it is prepared,
      // or before a worker thread picks it up), so once given it is repeated until the run ends.
      const interrupt = () => {
        connection.interrupt();
        repeat ??= setInterval(() => connection.interrupt(), interruptRepeatMs);
      };
      stop.signal.addEventListener('abort', interrupt, { once: true });
      if (stop.signal.aborted) interrupt();
      const prepared = await lease.item.prepare(query.id, translation.sql);
      const values: Record<string, string | null | DuckDBTimestampValue> = {};
      const types: Record<string, DuckDBType> = {};
      for (const name of translation.parameters) {
        values[name] = params[name] ?? null;
        types[name] = VARCHAR;
      }
      if (translation.usesNow) {
        values[nowName] = new DuckDBTimestampValue(BigInt(runOptions.now.getTime()) * 1000n);
        types[nowName] = TIMESTAMP;
      }
      prepared.bind(values, types);
      const reader = await prepared.streamAndReadUntil(query.maxRows);
      return decodeRows(reader, query.maxRows);
    } catch (error) {
      if (isQuerygateError(error) && error.code === 'ENGINE_BUSY') throw error;
      if (timedOut) {
        throw new QuerygateError(
          'ENGINE_TIMEOUT',
          lease
            ? `${query.name} did not finish within ${options.timeoutMs} ms`
            : `${query.name} did not get a connection within ${options.timeoutMs} ms (other calls held them)`,
        );
      }
      if (runOptions.signal?.aborted) throw new QuerygateError('ENGINE_ERROR', `${query.name} was cancelled`);
      throw new QuerygateError(
        'ENGINE_ERROR',
        `${query.name} failed on DuckDB: ${(error as Error).message}`,
        {
          cause: error,
        },
      );
    } finally {
      timers.clearTimeout(timer);
      clearInterval(repeat);
      runOptions.signal?.removeEventListener('abort', onCallerGone);
      lease?.release();
    }
  }

  return {
    kind: 'duckdb',
    ready: async () => {},
    run,
    close: async () => {
      for (const { connection } of connections) connection.closeSync();
      setup.closeSync();
    },
  };
}

/**
 * Prepares a saved query's translation once at load: what DuckDB cannot bind is refused now, at
 * start-up, rather than on the first call.
 */
async function assertBinds(
  connection: DuckDBConnection,
  query: SavedQuery,
  translation: Translation | undefined,
): Promise<void> {
  if (!translation) return;
  try {
    (await connection.prepare(translation.sql)).destroySync();
  } catch (error) {
    throw new QuerygateError(
      'UNSUPPORTED_SQL',
      `${query.name}: DuckDB cannot bind the translation: ${(error as Error).message}`,
      { cause: error, details: { construct: 'the translated query' } },
    );
  }
}

interface Connection {
  readonly connection: DuckDBConnection;
  /** A statement prepared once per connection and query, reused by later calls. */
  prepare(key: string, sql: string): Promise<DuckDBPreparedStatement>;
}

async function openConnections(database: Database, size: number): Promise<Connection[]> {
  const opened: Connection[] = [];
  for (let i = 0; i < size; i++) {
    const connection = await database.connect();
    const statements = new Map<string, DuckDBPreparedStatement>();
    opened.push({
      connection,
      async prepare(key, sql) {
        let statement = statements.get(key);
        if (!statement) {
          statement = await connection.prepare(sql);
          statements.set(key, statement);
        }
        return statement;
      },
    });
  }
  return opened;
}
