import { randomUUID } from 'node:crypto';
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
  DuckDBTypeId,
  ResultReturnType,
  TIMESTAMP,
  VARCHAR,
} from '@duckdb/node-api';
import { type CallerFaultOf, callerSqlError } from '../../engines/caller-sql-errors.js';
import { startDeadline } from '../../engines/deadline.js';
import { isoMicros } from '../../engines/iso-micros.js';
import { parameterValueError } from '../../engines/parameter-value-errors.js';
import { createPlanCache, type PlanCache } from '../../engines/plan-cache.js';
import {
  type EngineOptions,
  type ParameterType,
  type ParameterValues,
  planKey,
  type QueryEngine,
  type QueryResult,
  type ResultColumn,
  type RunOptions,
  type SavedQuery,
} from '../../engines/query-engine.js';
import { raisedRunError } from '../../engines/raised-run-errors.js';
import { QuerygateError } from '../../errors.js';
import { raisedMessage } from '../../sql/raised-errors.js';
import { nowParameter, type Translation, translateToDuckDb } from '../../sql/translate.js';
import type { StoreLog } from '../../storage/log-writer.js';
import type { PresentRecords } from '../../storage/present-records.js';
import type { Rollups } from '../../storage/rollups.js';
import { systemTimers } from '../../timers.js';
import { createConnectionPool, type PoolLease } from './connection-pool.js';
import { type DuckDbLockdown, lockDownDuckDb } from './lockdown.js';
import { createMemoryCeiling, type StopReason } from './memory-ceiling.js';
import { type DuckDbFunctions, readDuckDbFunctions, readFromRollup } from './rollup-rewrite.js';
import {
  DuplicateColumnNames,
  decodeRows,
  describeColumns,
  NullArrayElement,
  type RecordWire,
} from './rows.js';
import { type QueryableTable, readTableSchemas } from './table-schemas.js';
import { duckDbValueFault } from './value-errors.js';

/**
 * The DuckDB file the engine reads: anything that hands out connections to it. The store
 * (`storage/database.ts`) opens it; the engine only connects, so it never imports the store.
 */
export interface DuckDbConnector {
  connect(): Promise<DuckDBConnection>;
}

export interface DuckDbEngineOptions extends EngineOptions {
  readonly database: DuckDbConnector;
  /** The tables queries may read (the log sources) and the other names they answer to. */
  readonly sources: readonly QueryableTable[];
  /**
   * Connections running queries side by side, lent first come first served (the resolver layer
   * shares the engine's calls fairly between endpoints). @default 4
   */
  readonly connections?: number;
  /**
   * Connections of their own for caller SQL (sandboxed calls), so the ad-hoc lane never takes
   * the saved queries' connections (see resolve/fair-engine.ts). @default none: they share
   */
  readonly adhocConnections?: number | undefined;
  /** Resident bytes past which a caller query is stopped (see memory-ceiling.ts). @default none */
  readonly adhocMemoryCeilingBytes?: number | undefined;
  /** Whether the memory above that ceiling is the log writer's now (see MemoryCeilingOptions.othersHold). */
  readonly writerHoldsMemory?: (() => boolean) | undefined;
  /**
   * A call not answered this long after it asked for a connection (waiting for one counts) is
   * interrupted and answered with ENGINE_TIMEOUT.
   */
  readonly timeoutMs: number;
  /**
   * Turns external access off and locks the configuration of the whole DuckDB instance once the
   * engine is set up (see lockdown.ts); the server passes it, one-off commands need not.
   * @default left as it is
   */
  readonly lockdown?: DuckDbLockdown;
  /**
   * A mark of the rows of these tables (store names: log and table sources), changed by every
   * write to one. DuckDB plans a prepared statement without parameters once, with the tables'
   * statistics as they are then, and keeps that plan until the catalog changes (DDL), not when
   * rows arrive: a GROUP BY over a small range becomes a perfect hash aggregate that fails once
   * rows outside it arrive, a filter the statistics say nothing passes is dropped (no rows, ever
   * after), and a sort packs its columns into the range seen (wrong values). Such a statement
   * prepared under another mark is prepared again (about half a millisecond). One with a
   * parameter is left alone: DuckDB plans it again at every call, as it never keeps the plan of
   * a statement with parameters that reads a table (`PreparedStatement::CanCachePlan`).
   * @default the rows never change
   */
  readonly tableMark?: ((tables: readonly string[]) => string) | undefined;
  /**
   * Which records every row of each log table has (storage/present-records.ts): a CROSS JOIN
   * UNNEST over one needs no filter. A translation made under another `mark()` is made again,
   * and a run during which the mark moved is run again.
   * @default none known (every such UNNEST filters)
   */
  readonly presentRecords?: PresentRecords | undefined;
  /**
   * The log sources' hourly rollups (storage/rollups.ts): a query they answer exactly reads one
   * instead of the records (rollup-rewrite.ts). Marked as presentRecords is. @default none
   */
  readonly rollups?: Rollups | undefined;
  /**
   * The commits of ingested records acknowledged but not yet committed (log-writer.ts
   * committed()): a call waits for them first, so it reads every record acknowledged before it.
   * @default none
   */
  readonly acknowledgedCommits?: (() => Promise<void> | undefined) | undefined;
  /**
   * Where a run's failure of the store itself (see `storeFault`) is logged in full, under the
   * reference its caller is given instead of DuckDB's message. @default none: the caller gets
   * DuckDB's message (one-off commands, whose caller is the operator)
   */
  readonly log?: Pick<StoreLog, 'error'> | undefined;
}

const udfFiles = ['generate_timestamp_trunc_array.duckdb.sql'];
/** How often an interrupt is given again while the interrupted run has not ended. */
const interruptRepeatMs = 5;
const nowName = nowParameter.slice(1);
/** How long closing the engine waits for the runs it interrupted to end (real time). */
const closeWaitMs = 2_000;

/** A run the engine's closing stopped: the store is closing or reopening, so 503, try again. */
function closedDuring(query: SavedQuery): QuerygateError {
  return new QuerygateError(
    'NOT_READY',
    `${query.name} was stopped: the store closed while it ran; try again`,
    {
      details: { retryAfterSeconds: 1 },
    },
  );
}

/** The embedded engine: saved BigQuery SQL translated to DuckDB and run on the local store. */
export async function createDuckDbEngine(options: DuckDbEngineOptions): Promise<QueryEngine> {
  const setup = await options.database.connect();
  const present = options.presentRecords;
  const rollups = options.rollups;
  // What the store knew when a translation was made: the present-records mark and the rollups'.
  const storeMark = () => `${present?.mark() ?? ''}/${rollups?.mark() ?? ''}`;
  const marks = new WeakMap<Translation, string>();
  const marked = (translation: Translation, mark: string) => {
    marks.set(translation, mark);
    return translation;
  };
  /** The translation if made under the store's mark, else undefined: it must be made again. */
  const current = (translation: Translation | undefined) =>
    translation && marks.get(translation) === storeMark() ? translation : undefined;
  // The tables as the store has them now, and the mark read before them.
  const tablesNow = async () => {
    const mark = storeMark();
    return {
      mark,
      tables: await readTableSchemas(setup, options.sources, present?.of, present?.integerTexts),
    };
  };
  let functions: DuckDbFunctions | undefined;
  // Each saved query is translated against the tables as the store has them when it loads.
  const translate = async (query: SavedQuery) => {
    const { mark, tables } = await tablesNow();
    const translation = translateToDuckDb(query.sql, { tables, parameterTypes: query.parameterTypes ?? {} });
    const fromRollup =
      rollups && functions ? await readFromRollup(setup, translation.sql, rollups.of, functions) : undefined;
    return marked(fromRollup ? { ...translation, sql: fromRollup } : translation, mark);
  };
  let translations: PlanCache<Translation>;
  try {
    // BigQuery sorts NULLs first ascending and last descending; DuckDB's default puts them last
    // both ways. Set for the whole database so ORDER BY anywhere (windows, aggregates) agrees.
    await setup.run(`SET GLOBAL default_null_order = 'nulls_first_on_asc_last_on_desc'`);
    const { mark, tables } = await tablesNow();
    // Made at once, without the rollups' reading (a query of DuckDB's): under another mark when
    // there are rollups, so the first run makes each again with it.
    translations = createPlanCache(options.queries, (query) =>
      marked(
        translateToDuckDb(query.sql, { tables, parameterTypes: query.parameterTypes ?? {} }),
        rollups ? `${mark} before rollups` : mark,
      ),
    );
    for (const file of udfFiles) await setup.run(readFileSync(join(options.queriesDir, 'udf', file), 'utf8'));
    if (rollups) functions = await readDuckDbFunctions(setup);
    for (const query of options.queries) await assertBinds(setup, query, translations.get(query));
    if (options.lockdown) await lockDownDuckDb(setup, options.lockdown);
  } catch (error) {
    setup.closeSync();
    throw error;
  }
  const size = options.connections ?? 4;
  // Prepared statements follow the translations: a plan no longer retained loses both.
  const connections = await openConnections(options.database, size, translations.isRetained);
  const pool = createConnectionPool(connections);
  const adhocConnections = options.adhocConnections
    ? await openConnections(options.database, options.adhocConnections, translations.isRetained)
    : [];
  const adhocPool = adhocConnections.length > 0 ? createConnectionPool(adhocConnections) : pool;
  const ceilingBytes = options.adhocMemoryCeilingBytes;
  const memoryCeiling =
    ceilingBytes === undefined
      ? undefined
      : createMemoryCeiling({ ceilingBytes, othersHold: options.writerHoldsMemory });
  const timers = options.timers ?? systemTimers;
  // Closing a connection while a query runs on it leaves that query's promise pending for ever
  // (@duckdb/node-api 1.5: its fetch never returns, an interrupt no longer reaches the query, and
  // process.exit waits for it), holding its caller and its admission slot. So `close` stops the
  // runs first, as a deadline does, and closes only the connections no run holds (see close).
  const closing = new AbortController();
  const running = new Set<Promise<unknown>>();
  const leased = new Set<Connection>();
  const setupWork = new Set<Promise<unknown>>();
  // Fired when close gives up waiting: each run still on DuckDB is answered without it. A run
  // listens for its own time only (a promise shared by every run would keep a reaction per run).
  const abandon = new AbortController();
  const abandoned = () => {
    let stop = () => {};
    const given = new Promise<never>((_, reject) => {
      const giveUp = () => reject(new Error('the engine closed before DuckDB stopped the run'));
      abandon.signal.addEventListener('abort', giveUp, { once: true });
      stop = () => abandon.signal.removeEventListener('abort', giveUp);
    });
    given.catch(() => {});
    return { given, stop };
  };
  const tableSources = new Set(
    options.sources.filter((source) => source.kind === 'table').map((source) => source.name),
  );
  // A query over table sources only answers STRUCTs as BigQuery answers a STRUCT column.
  const wireOf = (translation: Translation): RecordWire =>
    translation.tables.length > 0 && translation.tables.every((table) => tableSources.has(table))
      ? 'objects'
      : 'repeated';

  /** Work on the set-up connection, which `close` closes only once none is under way. */
  function onSetup<T>(work: () => Promise<T>): Promise<T> {
    const done = work();
    setupWork.add(done);
    void done.finally(() => setupWork.delete(done)).catch(() => {});
    return done;
  }

  function translationOf(query: SavedQuery): Promise<Translation> {
    return onSetup(
      async () => current(translations.get(query)) ?? translations.keep(query, await translate(query)),
    );
  }

  /**
   * A saved query that runs out of DuckDB's memory while caller queries run has lost it to them:
   * they are stopped (each answers 400 SANDBOX_TOO_EXPENSIVE) and it is run once more, so no
   * caller's SQL makes a saved endpoint fail.
   */
  async function run(
    query: SavedQuery,
    params: ParameterValues,
    runOptions: RunOptions,
  ): Promise<QueryResult> {
    const commits = options.acknowledgedCommits?.();
    if (commits) await commits;
    try {
      return await runCurrent(query, params, runOptions);
    } catch (error) {
      if (query.callerLineOffset !== undefined || !isOutOfMemory(error) || !memoryCeiling) throw error;
      if ((await memoryCeiling.stopAll()) === 0) throw error;
      return runCurrent(query, params, runOptions);
    }
  }

  /**
   * Runs again when, during the run, a record its translation took as one every row has turned
   * out to be absent from a row about to be committed (the mark moves before the commit): the
   * rows read may include that one. Marks move rarely, each record path at most once.
   */
  async function runCurrent(
    query: SavedQuery,
    params: ParameterValues,
    runOptions: RunOptions,
  ): Promise<QueryResult> {
    for (;;) {
      const { result, translation } = await runOnce(query, params, runOptions);
      if (current(translation)) return result;
    }
  }

  async function runOnce(
    query: SavedQuery,
    params: ParameterValues,
    runOptions: RunOptions,
  ): Promise<{ result: QueryResult; translation: Translation }> {
    if (closing.signal.aborted) throw closedDuring(query);
    // No await when the translation is at hand: the call's deadline starts at once.
    const translation = current(translations.get(query)) ?? (await callerPlaced(query, translationOf(query)));
    // The deadline starts when the call asks for a connection: waiting for one counts. Closing
    // the engine stops the call as its caller going away would.
    const deadline = startDeadline(options.timeoutMs, runOptions, timers, closing.signal);
    let lease: PoolLease<Connection> | undefined;
    let repeat: NodeJS.Timeout | undefined;
    let stoppedFor: StopReason | undefined;
    let unwatch: (() => void) | undefined;
    try {
      lease = await (query.callerLineOffset === undefined ? pool : adhocPool).acquire(deadline.signal);
      leased.add(lease.item);
      const { connection } = lease.item;
      // DuckDB forgets an interrupt that comes before the query has begun (while it is prepared,
      // or before a worker thread picks it up), so once given it is repeated until the run ends.
      const interrupt = () => {
        connection.interrupt();
        repeat ??= setInterval(() => connection.interrupt(), interruptRepeatMs);
      };
      deadline.signal.addEventListener('abort', interrupt, { once: true });
      if (deadline.signal.aborted) interrupt();
      if (query.callerLineOffset !== undefined)
        unwatch = memoryCeiling?.watch((reason) => {
          stoppedFor = reason;
          interrupt();
        });
      const mark = plannedOnce(translation) ? (options.tableMark?.(translation.tables) ?? '') : '';
      const item = lease.item;
      const started = (async () => {
        const prepared = await item.prepare(planKey(query), translation.sql, mark);
        bindAll(prepared, query, translation, params, runOptions.now);
        // One row past the bound says whether the result was cut at it.
        return prepared.streamAndReadUntil(query.maxRows + 1);
      })();
      running.add(started);
      const givenUp = abandoned();
      const reader = await Promise.race([started, givenUp.given]).finally(() => {
        givenUp.stop();
        running.delete(started);
      });
      // A stream DuckDB stops (an interrupt, or any error once its first rows are out) ends in
      // @duckdb/node-api as one that ran out of rows: its fetch_chunk answers null for both, and
      // only the result's return type, INVALID once DuckDB holds an error for it, tells them
      // apart (the error's text is not passed on). The rows read are then some of them at most
      // (a UNION ALL of two rows answered one): such a run is answered as stopped or failed,
      // below, never as a result; so is any run a stop was asked for.
      if (stoppedFor || deadline.signal.aborted || reader.returnType === ResultReturnType.INVALID)
        throw new StreamEndedEarly(
          `its rows ended early on an error the DuckDB client does not pass on (after ${reader.currentRowCount} rows)`,
        );
      return { result: decodeRows(reader, query.maxRows, wireOf(translation)), translation };
    } catch (error) {
      if (closing.signal.aborted) throw closedDuring(query);
      if (stoppedFor) {
        const why =
          stoppedFor === 'ceiling'
            ? `took the server past ${Math.round((ceilingBytes ?? 0) / 2 ** 20)} MiB of memory`
            : 'held memory a saved endpoint needed';
        throw new QuerygateError(
          'SANDBOX_TOO_EXPENSIVE',
          `${query.name}: sql ${why} and was stopped; narrow it (a time range, a LIMIT, fewer joins)`,
          { details: { parameter: 'sql' } },
        );
      }
      if (deadline.timedOut) {
        throw new QuerygateError(
          'ENGINE_TIMEOUT',
          lease
            ? `${query.name} did not finish within ${options.timeoutMs} ms`
            : `${query.name} did not get a connection within ${options.timeoutMs} ms (other calls held them)`,
        );
      }
      if (runOptions.signal?.aborted) throw new QuerygateError('ENGINE_ERROR', `${query.name} was cancelled`);
      // A value's fault no parameter explains is the query's own, as BigQuery answers it (400):
      // raised by the translation, or DuckDB's own for the data (an INT64 overflow, a zone column).
      // Told once, for both.
      const valueFault = duckDbValueFault(error);
      const raised = raisedMessage(error) ?? valueFault?.message;
      const refused =
        parameterValueError(query, params, error, () => valueFault) ??
        (raised === undefined
          ? callerSqlError(query, error, duckDbCallerFault)
          : raisedRunError(query, raised, error));
      if (refused) throw refused;
      const message = (error as Error).message;
      if (options.log && storeFault.test(message)) {
        const reference = randomUUID();
        options.log.error({ err: error, endpoint: query.name, reference }, 'a query failed in the store');
        throw new QuerygateError(
          'ENGINE_ERROR',
          `${query.name} failed in the store, not for its SQL or values (the server log has the details under reference ${reference})`,
          { cause: error },
        );
      }
      throw new QuerygateError('ENGINE_ERROR', `${query.name} failed on DuckDB: ${message}`, {
        cause: error,
      });
    } finally {
      unwatch?.();
      deadline.end();
      clearInterval(repeat);
      if (lease) leased.delete(lease.item);
      lease?.release();
    }
  }

  /**
   * The result columns of a query, on the set-up connection (loads and reloads are rare and one
   * at a time). A statement whose parameters have no type yet has no result types either, so the
   * query runs under `LIMIT 0` (which DuckDB answers without reading the tables) with every
   * parameter bound (see describeValues).
   */
  function describe(query: SavedQuery) {
    return onSetup(() => describeOnSetup(query));
  }

  async function describeOnSetup(query: SavedQuery) {
    try {
      const translation = await translationOf(query);
      const statement = await setup.prepare(`SELECT * FROM (${translation.sql}) AS described LIMIT 0`);
      try {
        bindAll(statement, query, translation, describeValues(query, translation), new Date(0));
        const columns = describeColumns(await statement.run(), wireOf(translation));
        return withNamesAsAnswered(columns, await namesAsAnswered(translation.sql));
      } finally {
        statement.destroySync();
      }
    } catch (error) {
      throw new QuerygateError(
        'ENGINE_ERROR',
        // Its first line: the loader reads a problem per line, and DuckDB's next lines are the
        // candidate functions and the translated text under a caret, each then a problem of its own.
        `${query.name} does not prepare on DuckDB: ${(error as Error).message.split('\n', 1)[0]}`,
        { cause: error },
      );
    }
  }

  /**
   * The result's column names as a run answers them. The subquery `describe` wraps the query in
   * renames a second column of one name (`x`, `x_1`), which a run does not: the shape would list
   * a column no row has, and hide that two share a name (refused by shapeOf). The query prepared
   * alone gives its own names, once DuckDB could type its result without the parameters' values
   * (otherwise it describes one column, `unknown`, of no type); undefined when it could not.
   */
  async function namesAsAnswered(sql: string): Promise<string[] | undefined> {
    try {
      const statement = await setup.prepare(sql);
      try {
        const columns = Array.from({ length: statement.columnCount }, (_, i) => i);
        if (columns.some((i) => statement.columnTypeId(i) === DuckDBTypeId.INVALID)) return undefined;
        return columns.map((i) => statement.columnName(i));
      } finally {
        statement.destroySync();
      }
    } catch {
      return undefined;
    }
  }

  return {
    kind: 'duckdb',
    ready: async () => {},
    run,
    describe,
    retain(queries) {
      translations.retain(queries);
      // Prepared statements go when their connection is next leased: only its lessee uses them.
    },
    plans: () => ({
      texts: translations.size,
      statements: [...connections, ...adhocConnections].reduce(
        (sum, connection) => sum + connection.statements(),
        0,
      ),
    }),
    close: async () => {
      // Every run is interrupted (closing's abort); DuckDB stops one within milliseconds. One it
      // has not stopped within the wait is answered anyway and its connection left open.
      closing.abort();
      let waited: NodeJS.Timeout | undefined;
      await Promise.race([
        Promise.allSettled([...running, ...setupWork]),
        new Promise((done) => {
          waited = setTimeout(done, closeWaitMs);
        }),
      ]);
      clearTimeout(waited);
      abandon.abort();
      for (const item of [...connections, ...adhocConnections])
        if (!leased.has(item)) item.connection.closeSync();
      if (setupWork.size === 0) setup.closeSync();
    },
  };
}

/**
 * Whether DuckDB keeps the plan it prepares for this text: only without parameters (`$__now`
 * is one). With one, DuckDB plans at every call with the statistics of the moment (see tableMark).
 */
function plannedOnce(translation: Translation): boolean {
  return translation.parameters.length === 0 && !translation.usesNow;
}

/** A translation; for a caller's SQL, a refusal placed in the caller's text. */
async function callerPlaced<T>(query: SavedQuery, pending: Promise<T>): Promise<T> {
  try {
    return await pending;
  } catch (error) {
    throw callerSqlError(query, error, duckDbCallerFault) ?? error;
  }
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
  prepare(key: string, sql: string, mark: string): Promise<DuckDBPreparedStatement>;
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
    const statements = new Map<string, { statement: DuckDBPreparedStatement; mark: string; sql: string }>();
    opened.push({
      connection,
      statements: () => statements.size,
      async prepare(key, sql, mark) {
        for (const [kept, { statement }] of statements) {
          if (kept !== key && !isRetained(kept)) {
            statements.delete(kept);
            statement.destroySync();
          }
        }
        const held = statements.get(key);
        if (held?.mark === mark && held.sql === sql) return held.statement;
        // Prepared over rows since changed (its plan may rest on statistics no longer true), or
        // translated again (see presentRecords).
        held?.statement.destroySync();
        const statement = await connection.prepare(sql);
        statements.set(key, { statement, mark, sql });
        return statement;
      },
    });
  }
  return opened;
}

/**
 * DuckDB's failures of the store rather than of a query: a file it could not read or write (its
 * spill directory, the store, its WAL), a fault of its own, the store invalidated after one.
 * Their messages name the server's files (`IO Error: Could not write file "<data dir>/querygate.duckdb.tmp/..."`),
 * which are the operator's to read, not a caller's, as the log writer's store failures are.
 */
const storeFault = /^(IO|FATAL|INTERNAL) Error|database has been invalidated/i;

/** A result stream DuckDB ended on an error its client does not pass on. */
class StreamEndedEarly extends Error {}

/**
 * Whether a saved query failed for want of DuckDB's memory: its ENGINE_ERROR carries DuckDB's
 * `Out of Memory Error: failed to allocate ...`, or has a stream ended on a hidden error as its
 * cause, which may be one.
 */
function isOutOfMemory(error: unknown): boolean {
  return (
    (error as Error | undefined)?.cause instanceof StreamEndedEarly ||
    /Out of Memory Error/i.test((error as Error | undefined)?.message ?? '')
  );
}

/** DuckDB's words for a caller's query it cannot bind or run, and for one past its memory. */
const duckDbCallerFault: CallerFaultOf = (error, message) => {
  if (error instanceof NullArrayElement || error instanceof DuplicateColumnNames) return 'invalid';
  if (/out of memory/i.test(message)) return 'too-expensive';
  // Not implemented: what the caller asked of a value DuckDB has no support for, such as an
  // unknown time zone name (BigQuery refuses it too, "Invalid time zone").
  if (
    /^(Binder|Parser|Conversion|Invalid Input|Catalog|Permission|Out of Range|Not implemented) Error/.test(
      message,
    )
  )
    return 'invalid';
  return undefined;
};

/** Columns described under another name than a run answers them get the run's names. */
function withNamesAsAnswered(columns: ResultColumn[], names: readonly string[] | undefined): ResultColumn[] {
  if (names === undefined || names.length !== columns.length) return columns;
  return columns.map((column, i) => ({ ...column, name: names[i] as string }));
}
