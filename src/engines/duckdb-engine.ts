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
import { QuerygateError } from '../errors.js';
import { nowParameter, type Translation, translateToDuckDb } from '../sql/translate.js';
import type { Database } from '../storage/database.js';
import { decodeRows } from './duckdb-rows.js';
import { type QueryableTable, readTableSchemas } from './duckdb-schema.js';
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
  /** A query still running after this long is interrupted and answered with ENGINE_TIMEOUT. */
  readonly timeoutMs: number;
}

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
  const pool = await createConnectionPool(options.database, options.connections ?? 4);

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
    const lease = await pool.acquire(runOptions.signal);
    let timedOut = false;
    let repeat: NodeJS.Timeout | undefined;
    // DuckDB forgets an interrupt that comes before the query has begun (while it is prepared, or
    // before a worker thread picks it up), so once given it is repeated until the run ends.
    const interrupt = () => {
      lease.connection.interrupt();
      repeat ??= setInterval(() => lease.connection.interrupt(), interruptRepeatMs);
    };
    const timer = setTimeout(() => {
      timedOut = true;
      interrupt();
    }, options.timeoutMs);
    runOptions.signal?.addEventListener('abort', interrupt, { once: true });
    // A caller who left while the connection was leased never fires 'abort' again.
    if (runOptions.signal?.aborted) interrupt();
    try {
      const prepared = await lease.prepare(query.id, translation.sql);
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
      if (timedOut) {
        throw new QuerygateError(
          'ENGINE_TIMEOUT',
          `${query.name} did not finish within ${options.timeoutMs} ms`,
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
      clearTimeout(timer);
      clearInterval(repeat);
      runOptions.signal?.removeEventListener('abort', interrupt);
      lease.release();
    }
  }

  return {
    kind: 'duckdb',
    ready: async () => {},
    run,
    close: async () => {
      pool.close();
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

interface Lease {
  readonly connection: DuckDBConnection;
  /** A statement prepared once per connection and query, reused by later calls. */
  prepare(key: string, sql: string): Promise<DuckDBPreparedStatement>;
  release(): void;
}

/** A fixed set of connections handed out first come, first served. */
async function createConnectionPool(database: Database, size: number) {
  const idle: Lease[] = [];
  const waiting: Array<(lease: Lease) => void> = [];
  const all: DuckDBConnection[] = [];
  for (let i = 0; i < size; i++) {
    const connection = await database.connect();
    all.push(connection);
    const statements = new Map<string, DuckDBPreparedStatement>();
    const lease: Lease = {
      connection,
      async prepare(key, sql) {
        let statement = statements.get(key);
        if (!statement) {
          statement = await connection.prepare(sql);
          statements.set(key, statement);
        }
        return statement;
      },
      release() {
        const next = waiting.shift();
        if (next) next(lease);
        else idle.push(lease);
      },
    };
    idle.push(lease);
  }
  return {
    acquire(signal?: AbortSignal): Promise<Lease> {
      const lease = idle.pop();
      if (lease) return Promise.resolve(lease);
      return new Promise<Lease>((resolve, reject) => {
        const onAbort = () => {
          const index = waiting.indexOf(take);
          if (index >= 0) waiting.splice(index, 1);
          reject(new QuerygateError('ENGINE_ERROR', 'The query was cancelled before it started'));
        };
        const take = (leased: Lease) => {
          signal?.removeEventListener('abort', onAbort);
          resolve(leased);
        };
        waiting.push(take);
        signal?.addEventListener('abort', onAbort, { once: true });
      });
    },
    close() {
      for (const connection of all) connection.closeSync();
    },
  };
}
