import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  BIGINT,
  BOOLEAN,
  DOUBLE,
  type DuckDBConnection,
  type DuckDBPreparedStatement,
  DuckDBTimestampValue,
  type DuckDBType,
  TIMESTAMP,
  VARCHAR,
} from '@duckdb/node-api';
import { QuerygateError } from '../errors.js';
import { nowParameter, type Translation, translateToDuckDb } from '../sql/translate.js';
import { systemTimers, type Timers } from '../timers.js';
import { createConnectionPool, type PoolLease } from './connection-pool.js';
import { decodeRows, describeColumns, type RecordWire } from './duckdb-rows.js';
import { type QueryableTable, readTableSchemas } from './duckdb-schema.js';
import { isoMicros } from './iso-micros.js';
import {
  type ParameterType,
  type ParameterValues,
  planKey,
  type QueryEngine,
  type QueryResult,
  type RunOptions,
  remainingMs,
  type SavedQuery,
} from './query-engine.js';

/**
 * The DuckDB file the engine reads: anything that hands out connections to it. The store
 * (`storage/database.ts`) opens it; the engine only connects, so it never imports the store.
 */
export interface DuckDbConnector {
  connect(): Promise<DuckDBConnection>;
}

export interface DuckDbEngineOptions {
  readonly database: DuckDbConnector;
  /** The tables queries may read (the log sources) and the other names they answer to. */
  readonly sources: readonly QueryableTable[];
  /** The saved queries, translated once here so a query that cannot run stops start-up. */
  readonly queries: readonly SavedQuery[];
  /** Where `udf/*.duckdb.sql` (the DuckDB macros standing in for BigQuery UDFs) live. */
  readonly queriesDir: string;
  /**
   * Connections running queries side by side, lent first come first served (the resolver layer
   * shares the engine's calls fairly between endpoints). @default 4
   */
  readonly connections?: number;
  /**
   * A call not answered this long after it asked for a connection (waiting for one counts) is
   * interrupted and answered with ENGINE_TIMEOUT.
   */
  readonly timeoutMs: number;
  /** The timers deadlines are kept with; tests pass manual ones. @default Node's */
  readonly timers?: Timers;
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
    // Keyed by the query's hash: a changed query is translated and prepared anew.
    translations = new Map(
      options.queries.map((query) => [planKey(query), translateToDuckDb(query.sql, { tables })]),
    );
    for (const file of udfFiles) await setup.run(readFileSync(join(options.queriesDir, 'udf', file), 'utf8'));
    for (const query of options.queries) await assertBinds(setup, query, translations.get(planKey(query)));
  } catch (error) {
    setup.closeSync();
    throw error;
  }
  // The plan keys of the queries served (see retain): those given at start, until a reload says
  // which. So a reload refused after describing its texts leaves no plans of them. Without
  // queries at start (scratch engines), every plan is kept.
  let retained: ReadonlySet<string> | undefined =
    options.queries.length > 0 ? new Set(options.queries.map(planKey)) : undefined;
  const isRetained = (key: string) => retained === undefined || retained.has(key);
  const size = options.connections ?? 4;
  const connections = await openConnections(options.database, size, isRetained);
  const pool = createConnectionPool(connections);
  const timers = options.timers ?? systemTimers;
  const tableSources = new Set(
    options.sources.filter((source) => source.kind === 'table').map((source) => source.name),
  );
  // A query over table sources only answers STRUCTs as BigQuery answers a STRUCT column.
  const wireOf = (translation: Translation): RecordWire =>
    translation.tables.length > 0 && translation.tables.every((table) => tableSources.has(table))
      ? 'objects'
      : 'repeated';

  async function translationOf(query: SavedQuery): Promise<Translation> {
    let translation = translations.get(planKey(query));
    if (!translation) {
      translation = await translate(query.sql);
      if (isRetained(planKey(query))) translations.set(planKey(query), translation);
    }
    return translation;
  }

  async function run(
    query: SavedQuery,
    params: ParameterValues,
    runOptions: RunOptions,
  ): Promise<QueryResult> {
    // No await when the translation is at hand: the call's deadline starts at once.
    const translation = translations.get(planKey(query)) ?? (await translationOf(query));
    // One stop for both ends of a call: its deadline, which starts when it asks for a connection
    // (so a caller never waits longer than the timeout, queued or running), and its caller going away.
    const stop = new AbortController();
    let timedOut = false;
    const timer = timers.setTimeout(
      () => {
        timedOut = true;
        stop.abort();
      },
      remainingMs(options.timeoutMs, runOptions),
    );
    const onCallerGone = () => stop.abort();
    runOptions.signal?.addEventListener('abort', onCallerGone, { once: true });
    if (runOptions.signal?.aborted) stop.abort();
    let lease: PoolLease<Connection> | undefined;
    let repeat: NodeJS.Timeout | undefined;
    try {
      lease = await pool.acquire(stop.signal);
      const { connection } = lease.item;
      // DuckDB forgets an interrupt that comes before the query has begun (while it is prepared,
      // or before a worker thread picks it up), so once given it is repeated until the run ends.
      const interrupt = () => {
        connection.interrupt();
        repeat ??= setInterval(() => connection.interrupt(), interruptRepeatMs);
      };
      stop.signal.addEventListener('abort', interrupt, { once: true });
      if (stop.signal.aborted) interrupt();
      const prepared = await lease.item.prepare(planKey(query), translation.sql);
      bindAll(prepared, query, translation, params, runOptions.now);
      const reader = await prepared.streamAndReadUntil(query.maxRows);
      return decodeRows(reader, query.maxRows, wireOf(translation));
    } catch (error) {
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

  /**
   * The result columns of a query, on the set-up connection (loads and reloads are rare and one
   * at a time). A statement whose parameters have no type yet has no result types either, so the
   * query runs under `LIMIT 0` (which DuckDB answers without reading the tables) with every
   * parameter bound (see describeValues).
   */
  async function describe(query: SavedQuery) {
    try {
      const translation = await translationOf(query);
      const statement = await setup.prepare(`SELECT * FROM (${translation.sql}) AS described LIMIT 0`);
      try {
        bindAll(statement, query, translation, describeValues(query, translation), new Date(0));
        return describeColumns(await statement.run());
      } finally {
        statement.destroySync();
      }
    } catch (error) {
      throw new QuerygateError(
        'ENGINE_ERROR',
        `${query.name} does not prepare on DuckDB: ${(error as Error).message}`,
        { cause: error },
      );
    }
  }

  return {
    kind: 'duckdb',
    ready: async () => {},
    run,
    describe,
    retain(queries) {
      retained = new Set(queries.map(planKey));
      for (const key of translations.keys()) if (!isRetained(key)) translations.delete(key);
      // Prepared statements go when their connection is next leased: only its lessee uses them.
    },
    plans: () => ({
      texts: translations.size,
      statements: connections.reduce((sum, connection) => sum + connection.statements(), 0),
    }),
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

/** Binds every parameter with its type, and `CURRENT_TIMESTAMP()` as `now`. */
function bindAll(
  statement: DuckDBPreparedStatement,
  query: SavedQuery,
  translation: Translation,
  params: ParameterValues,
  now: Date,
): void {
  const values: Record<string, BoundValue> = {};
  const types: Record<string, DuckDBType> = {};
  for (const name of translation.parameters) {
    const type = query.parameterTypes?.[name] ?? 'STRING';
    values[name] = boundValue(type, params[name] ?? null);
    types[name] = duckdbTypes[type];
  }
  if (translation.usesNow) {
    values[nowName] = new DuckDBTimestampValue(BigInt(now.getTime()) * 1000n);
    types[nowName] = TIMESTAMP;
  }
  statement.bind(values, types);
}

/**
 * Values to describe a query with. DuckDB binds a NULL without a type, so a parameter returned
 * as a column would come back INTEGER: each non-text parameter gets a value of its type. Text ones
 * stay NULL, which every saved query reads as unset (an empty string could reach a CAST).
 */
function describeValues(query: SavedQuery, translation: Translation): ParameterValues {
  const placeholders: Readonly<Record<ParameterType, string | null>> = {
    STRING: null,
    INT64: '0',
    FLOAT64: '0',
    BOOL: 'false',
    TIMESTAMP: '1970-01-01T00:00:00Z',
  };
  return Object.fromEntries(
    translation.parameters.map((name) => [name, placeholders[query.parameterTypes?.[name] ?? 'STRING']]),
  );
}

type BoundValue = string | bigint | number | boolean | null | DuckDBTimestampValue;

const duckdbTypes: Readonly<Record<ParameterType, DuckDBType>> = {
  STRING: VARCHAR,
  INT64: BIGINT,
  FLOAT64: DOUBLE,
  BOOL: BOOLEAN,
  TIMESTAMP: TIMESTAMP,
};

/** A parameter's canonical text (see ParameterValues) as the DuckDB value of its type. */
function boundValue(type: ParameterType, text: string | null): BoundValue {
  if (text === null) return null;
  switch (type) {
    case 'INT64':
      return BigInt(text);
    case 'FLOAT64':
      return Number(text);
    case 'BOOL':
      return text === 'true';
    case 'TIMESTAMP':
      return new DuckDBTimestampValue(isoMicros(text));
    default:
      return text;
  }
}

interface Connection {
  readonly connection: DuckDBConnection;
  /**
   * A statement prepared once per connection and query, reused by later calls. Only the caller
   * holding the connection's lease calls it, so it also destroys the statements of plans no
   * longer retained: no other run can be using them.
   */
  prepare(key: string, sql: string): Promise<DuckDBPreparedStatement>;
  /** How many statements it keeps. */
  statements(): number;
}

async function openConnections(
  database: DuckDbConnector,
  size: number,
  isRetained: (key: string) => boolean,
): Promise<Connection[]> {
  const opened: Connection[] = [];
  for (let i = 0; i < size; i++) {
    const connection = await database.connect();
    const statements = new Map<string, DuckDBPreparedStatement>();
    opened.push({
      connection,
      statements: () => statements.size,
      async prepare(key, sql) {
        for (const [kept, statement] of statements) {
          if (kept !== key && !isRetained(kept)) {
            statements.delete(kept);
            statement.destroySync();
          }
        }
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
