import { randomUUID } from 'node:crypto';
import { appendFile, readdir, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { quoteIdent, type StructType } from '../endpoints/field-type.js';
import { type LogWriteOptions, logRecordFields } from '../endpoints/log-record.js';
import type { LogSource } from '../endpoints/sources.js';
import { isQuerygateError, QuerygateError } from '../errors.js';
import type { Database } from './database.js';
import { createGroupCommit } from './group-commit.js';
import { stepsInTurn } from './in-turn.js';
import { type IngestJournal, openIngestJournal } from './ingest-journal.js';
import { replayJournal } from './journal-replay.js';
import {
  batchJson,
  insertFromJsonStatement,
  joinedArrayParts,
  readJsonBatch,
  type StoredRecord,
} from './log-batch.js';
import { checkLogEvents, type LogEvent } from './log-event.js';
import { ensureLogTables, metadataTypeChange } from './log-tables.js';
import type { PresentRecordsKeeper } from './present-records.js';
import { expiredBefore, type RetentionPolicy } from './retention-policy.js';
import type { BatchRollup, RollupsKeeper } from './rollups.js';
import {
  countFields,
  defaultSchemaLimits,
  type SchemaLimits,
  withMissingFields,
} from './schema-evolution.js';
import { createSchemaPacing } from './schema-pacing.js';
import { storingCost } from './storing-cost.js';
import { inTransaction, runInTransaction } from './transaction.js';

/** Where the writer reports what a client must not see (engine messages, paths). */
export interface StoreLog {
  error(details: object, message: string): void;
  warn(details: object, message: string): void;
  info?(details: object, message: string): void;
}

export interface LogWriterOptions {
  /**
   * Where batch files wait for DuckDB to read them; they are removed after every batch.
   * @default the database file's directory, or `os.tmpdir()` for `:memory:`
   */
  readonly tempDir?: string;
  /** The clock that stamps events sent without a timestamp. @default () => new Date() */
  readonly now?: () => Date;
  /**
   * The sources it keeps a table for, accepts events of and replays the journal into: the served
   * queries directory's.
   */
  readonly sources: readonly LogSource[];
  /** How far each source's typed `metadata` may grow. @default defaultSchemaLimits (500 fields, 15 levels) */
  readonly schemaLimits?: SchemaLimits;
  /**
   * Least time between two changes of one source's `metadata` type (see schema-pacing.ts);
   * fields new in between wait in `_extra`. @default 0 (a change whenever a new field comes)
   */
  readonly schemaChangeIntervalMs?: number;
  /** Which records are expired: journal replay does not store them again. @default none */
  readonly retention?: RetentionPolicy;
  /**
   * Journal size after which the writer checkpoints DuckDB and empties the journal (it also does
   * time a table's last row group fills, whichever comes first: see checkpointDue). @default 64 MiB
   */
  readonly journalCheckpointBytes?: number;
  /**
   * Memory DuckDB may hold for data committed since the last checkpoint before the writer
   * checkpoints. Appending to a table takes a block (256 KiB) per column for every STRUCT field,
   * about 125 MiB for a 500-field `metadata`, kept until the next checkpoint; without a bound a
   * few wide sources outgrow any memory limit. @default none (checkpoints by journal size only)
   */
  readonly checkpointMemoryBytes?: number;
  /** Gets store failures in full, and the recovery of an unreplayable WAL. @default none */
  readonly log?: StoreLog;
  /**
   * Told of every store failure no caller hears of, though the writer carries on (the journal
   * still covers the records): a checkpoint that failed (where DuckDB fails fatally, and the
   * backend must know at once), or a commit that failed after its records were acknowledged.
   * @default none
   */
  readonly onStoreFailure?: (error: unknown) => void;
  /**
   * Asked for once DuckDB refused to commit records already acknowledged: the ingest journal
   * keeps them, and the store's next opening stores them (or sets aside those DuckDB refuses even
   * alone, see journal-replay.ts). The server closes and opens the store again at once.
   * @default none (the next start stores them)
   */
  readonly reopen?: (error: unknown) => void;
  /**
   * Runs a schema change whose estimated memory (see schemaChangeBytes) is above
   * `aloneAboveBytes` with nothing else using DuckDB: the backend holds queries off (answering
   * 503 with Retry-After) and waits for those running, then runs `work`, the change's copy,
   * INSERT, COMMIT and CHECKPOINT. Beside readers such a change and its checkpoint ran out of
   * DuckDB's memory, and a checkpoint out of memory invalidates the database (issue 32).
   * @default changes run beside queries
   */
  readonly runAlone?: <T>(work: () => Promise<T>) => Promise<T>;
  /** @default never alone */
  readonly aloneAboveBytes?: number;
  /**
   * Told the source after each commit of events to its table: the engine prepares the statements
   * reading it again, since DuckDB planned them with the rows' statistics of the moment.
   * @default none
   */
  readonly onCommitted?: (sourceName: string) => void;
  /**
   * Learns, from DuckDB's statistics at open and from every batch before its commit, which
   * records every row of each table has (see present-records.ts). @default none
   */
  readonly presentRecords?: PresentRecordsKeeper;
  /** The sources' rollups, kept in the transactions that change their records. @default none */
  readonly rollups?: RollupsKeeper;
  /**
   * Told when a schema change starts (true) and when the checkpoint after it has ended (false):
   * between the two, DuckDB holds the column's rewritten copy. @default none
   */
  readonly onSchemaChange?: (changing: boolean) => void;
}

export interface LogWriter {
  /** Creates missing tables, replays the ingest journal, reads the schemas; the first write does it if nobody did. */
  ready(): Promise<void>;
  /**
   * Stores the events of one request, all or nothing, and resolves once they are acknowledged:
   * in the ingest journal, fsynced (they survive kill -9 at any moment). Their commit to DuckDB
   * follows, with the other requests acknowledged meanwhile, and a query waits for it
   * (committed()). Without a journal (a `:memory:` store), or when the request changes its
   * source's schema, it resolves once they are committed.
   * Throws BAD_PARAMETER for an unknown source, BAD_REQUEST naming the first bad event and field,
   * and ENGINE_ERROR when the store fails (then nothing of the request is stored; the message
   * gives a reference to the log entry, never the store's own text).
   */
  acknowledge(
    sourceName: string,
    events: readonly unknown[],
    options?: LogWriteOptions,
  ): Promise<{ ingested: number }>;
  /**
   * As acknowledge, resolving once the records are committed to DuckDB too (visible to any
   * connection). Should DuckDB refuse the commit, ENGINE_ERROR says the journal keeps them.
   */
  write(
    sourceName: string,
    events: readonly unknown[],
    options?: LogWriteOptions,
  ): Promise<{ ingested: number }>;
  /**
   * Settles once every request acknowledged so far is committed to DuckDB (or its commit has
   * failed: its records stay in the journal, see storeAcknowledged); undefined when none is
   * waiting. A query awaits it first, so it sees every record acknowledged before it began.
   */
  committed(): Promise<void> | undefined;
  /**
   * Deletes at most `maxRows` records of a source older than `before` (microseconds since the
   * epoch) in one transaction on the writer's queue; answers how many it deleted.
   */
  deleteBefore(sourceName: string, before: bigint, maxRows: number): Promise<number>;
  /**
   * Checkpoints DuckDB on the writer's queue (its main file then holds every commit, and blocks
   * freed by deletes and schema changes can be reused) and empties the ingest journal.
   */
  checkpoint(): Promise<void>;
  /** Lets queued writes finish, checkpoints, empties the journal and closes the writer's connection. */
  close(): Promise<void>;
}

/** DuckDB's rows per row group: the writer checkpoints as a table's last one fills (checkpointDue). */
const rowGroupRows = 122_880;

/**
 * Records, and requests, acknowledged and not yet committed past which an acknowledgement waits
 * for its own commit: what a query waits for (committed()) and what the writer holds stay
 * bounded, about a fifth of a second of DuckDB's work at 100k records/s. Requests are counted
 * too: two clients sending one record at a time to a 400-field `metadata`, answered as soon as
 * journaled, kept 380 requests waiting, and each query waited for all of them.
 */
const maxBacklog = { records: 20_000, requests: 16 };

/** How many times a checkpoint DuckDB refuses for another write's lock is tried. */
const checkpointAttempts = 5;

/** A batch DuckDB committed, and its append to the journal: acknowledged once that resolves. */
interface Durable {
  readonly durable: Promise<void>;
}

interface WriterState {
  readonly connection: DuckDBConnection;
  /** Each source's `metadata` type as committed. */
  readonly types: Map<string, StructType>;
  /**
   * Each source's type as of the last request fitted, which may not have committed yet: the next
   * one is fitted to it. Types only grow, so a request fitted to it fits every type after it.
   */
  readonly fitted: Map<string, StructType>;
  readonly journal: IngestJournal | undefined;
  /** Asks DuckDB how much memory it holds, beside the writer's connection busy committing. */
  readonly monitor: DuckDBConnection;
  /**
   * The commits of acknowledged groups, one after the other: settles once the last one asked for
   * has (never rejects). Whatever must run alone on the writer's connection waits for it.
   */
  committing: Promise<void>;
  /**
   * Per source, the commit of acknowledged records that has not started yet: requests
   * acknowledged meanwhile join it, so one commit takes every request that came while DuckDB
   * was busy (see commitWhenFree).
   */
  readonly waiting: Map<string, WaitingCommit>;
  /** Records and requests acknowledged (or being journaled) and not committed yet. */
  readonly backlog: { records: number; requests: number };
  /** Each table's rows, counted at open and kept with every commit and delete (checkpointDue). */
  readonly rows: Map<string, number>;
  /** Set once a commit filled a table's last row group: the next checkpoint is due. */
  rowGroupFilled: boolean;
  /**
   * Set once DuckDB refused acknowledged records: the journal, which holds them, is no longer
   * emptied, so the next opening stores them (journal-replay.ts).
   */
  pinned: boolean;
}

/** A commit not started yet, and the acknowledged requests it will take. */
interface WaitingCommit {
  readonly batches: PreparedBatch[];
  /** Each refused batch's error once the commit has ended (never rejects). */
  readonly refusals: Promise<Map<PreparedBatch, unknown>>;
}

/** A group's batches as one commit takes them (log writer's joinBatches). */
interface GroupBatch {
  readonly records: readonly StoredRecord[];
  /**
   * Each batch's JSON array (batchJson), in order: the journal joins them into one line, and the
   * commit into one file.
   */
  readonly arrays: readonly Buffer[];
  readonly type: StructType;
  readonly changesSchema: boolean;
}

/**
 * A request's records fitted to its source's type and serialised (batchJson) as the request
 * arrived, while DuckDB committed the requests before it. `type` holds every record of the batch
 * (and of the batches fitted before it).
 */
interface PreparedBatch {
  readonly records: readonly StoredRecord[];
  readonly type: StructType;
  readonly json: Buffer;
}

/**
 * The one writer of a database's log tables. Writes, schema changes and retention's deletes run
 * one at a time on a single connection, so a batch's schema change and INSERT share one transaction and
 * the schema the writer has in memory is always the one committed. Use one writer per database.
 *
 * Durability: an acknowledged record survives kill -9 at any moment, and the store always opens.
 * A group is acknowledged once the journal holds it (fsynced); its commit follows, in the
 * source's next commit with every request acknowledged while DuckDB was busy, so a request's
 * answer waits for no INSERT and COMMIT (the longest part of its path) unless maxBacklog waits
 * already. A group the journal failed to take is refused and never committed. The schema
 * changes it makes are ones DuckDB can replay from its WAL (changeColumnTypeStatements); should a
 * WAL still fail to replay, database.ts sets it aside and this writer restores every
 * acknowledged record from the ingest journal at open.
 *
 * Memory: a schema change rewrites the `metadata` column and DuckDB holds the old one until a
 * checkpoint, so the writer checkpoints right after every change, and paces changes per source
 * (schema-pacing.ts).
 */
export function createLogWriter(db: Database, options: LogWriterOptions): LogWriter {
  const now = options.now ?? (() => new Date());
  const checkpointBytes = options.journalCheckpointBytes ?? 64 * 1024 * 1024;
  const inMemory = db.path === ':memory:';
  const batchFiles = {
    dir: options.tempDir ?? (inMemory ? tmpdir() : dirname(db.path)),
    prefix: inMemory ? 'querygate-ingest-' : `${basename(db.path)}.ingest-`,
  };
  const pacing = createSchemaPacing({
    limits: options.schemaLimits ?? defaultSchemaLimits,
    intervalMs: options.schemaChangeIntervalMs ?? 0,
    now,
  });
  const enqueue = stepsInTurn();
  let closed = false;
  let opened: Promise<WriterState> | undefined;
  // The state once open: committed() answers without an await.
  let settledState: WriterState | undefined;

  /** Fits events to their source's latest type and serialises them: off the writer's queue. */
  const prepare = (
    state: WriterState,
    source: LogSource,
    events: readonly LogEvent[],
    admit?: LogWriteOptions['admit'],
  ): PreparedBatch => {
    const current = state.fitted.get(source.name) as StructType;
    const cost = (type: StructType) =>
      storingCost(events.length, logRecordFields(source).length + countFields(type));
    // At the type as it is first, sparing the fitting of a request refused already; then at the
    // type fitted, before it becomes the source's, so a refused request leaves no field behind.
    admit?.(cost(current));
    const fitted = pacing.fit(source, current, events);
    if (admit && fitted.type !== current) admit(cost(fitted.type));
    state.fitted.set(source.name, fitted.type);
    return { records: fitted.records, type: fitted.type, json: batchJson(fitted.records, source) };
  };

  // The commit an acknowledged batch still waits for: resolves with the error that refused it, if any.
  const commitOf = new WeakMap<PreparedBatch, Promise<unknown>>();

  /**
   * The batches of a group as one: their records, JSON arrays and files, under the type of the
   * last fitted (it holds the others'), and whether the column must change to it first.
   */
  const joinBatches = (
    state: WriterState,
    source: LogSource,
    batches: readonly PreparedBatch[],
  ): GroupBatch => {
    const stored = state.types.get(source.name) as StructType;
    const last = batches[batches.length - 1]?.type ?? stored;
    // Batches commit in the order fitted, so `last` holds the stored type; merged should a
    // retry ever commit them out of that order, as no change may drop a stored field.
    const type =
      last === stored
        ? stored
        : withMissingFields(last, stored) === last
          ? last
          : withMissingFields(stored, last);
    return {
      records:
        batches.length === 1
          ? (batches[0] as PreparedBatch).records
          : batches.flatMap((batch) => batch.records),
      arrays: batches.map((batch) => batch.json),
      type,
      changesSchema: type !== stored,
    };
  };

  /** One transaction: the schema change the group needs, if any, and its INSERT. */
  const commit = async (state: WriterState, source: LogSource, batch: GroupBatch) => {
    // Before the commit: a query must not be planned without a filter these rows need.
    options.presentRecords?.beforeCommit(
      source.name,
      batch.type,
      state.types.get(source.name) as StructType,
      batch.records,
    );
    await insertBatch(state.connection, source, batch.arrays, {
      ...batchFiles,
      alterTo: batch.changesSchema ? batch.type : undefined,
      type: batch.type,
      rollup: options.rollups?.batchRollup(source, batch.type, batch.records),
      kept: options.presentRecords?.keptWith(source.name, batch.records.length) ?? [],
    });
    state.types.set(source.name, batch.type);
    const rows = state.rows.get(source.name) ?? 0;
    state.rows.set(source.name, rows + batch.records.length);
    if (Math.floor((rows + batch.records.length) / rowGroupRows) > Math.floor(rows / rowGroupRows))
      state.rowGroupFilled = true;
    await options.rollups
      ?.afterCommit(state.connection, source.name, batch.records.length)
      .catch((error: unknown) => {
        // The batch is stored and its rollup rows with it: folding them can wait for the next batch.
        options.log?.warn({ err: error, source: source.name }, 'compacting a rollup failed');
      });
    options.onCommitted?.(source.name);
  };

  /** Makes DuckDB's main file hold every commit, then empties the journal that covered them. */
  const checkpoint = async (state: WriterState) => {
    try {
      // DuckDB refuses it while a write it committed a moment ago still holds its share of the
      // checkpoint lock (until readers older than it end): tried again a few times, 20 ms apart.
      for (let attempt = 1; ; attempt++) {
        try {
          await state.connection.run('CHECKPOINT');
          break;
        } catch (error) {
          if (attempt >= checkpointAttempts || !/other write transactions active/.test(String(error)))
            throw error;
          await new Promise((retry) => setTimeout(retry, 20));
        }
      }
    } catch (error) {
      // Another connection's open transaction can refuse it; the journal keeps covering, the next try may pass.
      options.log?.warn({ err: error }, 'checkpoint failed; the ingest journal is kept');
      options.onStoreFailure?.(error);
      throw error;
    }
    state.rowGroupFilled = false;
    if (!state.pinned) await state.journal?.clear();
  };

  const open = () => {
    opened ??= (async () => {
      // Left behind only if a process died mid-batch: the file lock makes this writer the only one.
      if (!inMemory && options.tempDir === undefined) await removeLeftoverBatches(batchFiles);
      const connection = await db.connect();
      const types = await ensureLogTables(connection, options.sources, options.log);
      for (const [table, type] of types) await options.presentRecords?.seed(connection, table, type);
      await options.rollups?.open(connection, types);
      const journal = inMemory ? undefined : await openIngestJournal(`${db.path}.journal`);
      const state: WriterState = {
        connection,
        types,
        fitted: new Map(types),
        journal,
        monitor: await db.connect(),
        committing: Promise.resolve(),
        waiting: new Map(),
        backlog: { records: 0, requests: 0 },
        rows: await tableRows(connection, [...types.keys()]),
        rowGroupFilled: false,
        pinned: false,
      };
      if (db.walSetAside) {
        options.log?.warn(
          { walSetAside: db.walSetAside },
          'DuckDB could not replay its write-ahead log; it was set aside and the ingest journal is replayed',
        );
      }
      if (journal && journal.size() > 0) {
        const restored = await replayJournal({
          connection,
          journal,
          sources: options.sources,
          commit: async (source, events) => {
            // Already journaled, and on the writer's queue (this is its first task): committed here.
            await commit(state, source, joinBatches(state, source, [prepare(state, source, events)]));
          },
          refused: async (source, events, error) => {
            // Kept whole beside the journal, never dropped: an operator can read them and send them again.
            const file = `${journal.path}.refused`;
            const line = JSON.stringify({ source: source.name, events }, (_key, value: unknown) =>
              typeof value === 'bigint' ? String(value) : value,
            );
            await appendFile(file, `${line}\n`);
            options.log?.error(
              { err: error, source: source.name, records: events.length, file },
              'DuckDB refused journaled records; they are kept in the file named and left out of the store',
            );
          },
          expiredBefore: (source) => options.retention && expiredBefore(options.retention, source, now()),
        });
        if (restored > 0) options.log?.warn({ restored }, 'restored records from the ingest journal');
        // Should it fail, the journal is kept and still covers every record: the store opens anyway.
        await checkpoint(state).catch(() => undefined);
      }
      settledState = state;
      return state;
    })();
    return opened;
  };

  /**
   * Stores a group the group commit hands over: acknowledged once journaled and committed after
   * (storeAcknowledged), or, for a schema change or a store without a journal, committed alone
   * first and journaled after (storeJoined).
   */
  const storeGroup = async (source: LogSource, batches: readonly PreparedBatch[]): Promise<Durable> => {
    const state = await open();
    const batch = joinBatches(state, source, batches);
    if (state.journal && !batch.changesSchema)
      return storeAcknowledged(state, state.journal, source, batches, batch);
    // A schema change, or a store without a journal: committed before it is acknowledged, alone.
    await state.committing;
    const { runAlone, aloneAboveBytes } = options;
    const bytes =
      batch.changesSchema && runAlone !== undefined && aloneAboveBytes !== undefined
        ? schemaChangeBytes(state.rows.get(source.name) ?? 0, batch.type)
        : 0;
    if (runAlone === undefined || aloneAboveBytes === undefined || bytes <= aloneAboveBytes) {
      return storeJoined(state, source, batch);
    }
    options.log?.warn(
      { source: source.name, estimatedBytes: bytes },
      'a large schema change runs with queries held off',
    );
    return runAlone(() => storeJoined(state, source, batch));
  };

  // When DuckDB's memory was last looked at: a query of its own, asked at most every 100 ms
  // rather than after every batch (at 100k records/s a batch commits every few milliseconds).
  let memoryCheckedAt = Number.NEGATIVE_INFINITY;
  const memoryFull = async (state: WriterState) => {
    if (options.checkpointMemoryBytes === undefined || performance.now() - memoryCheckedAt < 100)
      return false;
    memoryCheckedAt = performance.now();
    return (await uncheckpointedBytes(state.monitor)) >= options.checkpointMemoryBytes;
  };

  /**
   * Journals a group and has it committed with the acknowledged requests waiting for DuckDB;
   * resolves at once, with `durable`, which resolves once the journal holds the group: its
   * acknowledgement. Past maxBacklog waiting for DuckDB, it resolves only once its own records are
   * committed, so what waits stays bounded whatever the clients send.
   */
  const storeAcknowledged = async (
    state: WriterState,
    journal: IngestJournal,
    source: LogSource,
    batches: readonly PreparedBatch[],
    batch: GroupBatch,
  ): Promise<Durable> => {
    if (await checkpointDue(state, journal)) {
      // Every group journaled so far committed first: the journal emptied after holds none of theirs.
      await state.committing;
      await checkpoint(state).catch(() => undefined);
    }
    // A group the journal fails to take is refused though committed: the commit does not wait
    // for the journal's fsync, which runs beside it.
    const durable = journal.append(source.name, batch.arrays).catch((error: unknown) => {
      throw new JournalFailure(error);
    });
    // Handled here as well: the group commit takes it only once the store has answered.
    durable.catch(() => undefined);
    const refusals = commitWhenFree(state, source, batches);
    for (const member of batches)
      commitOf.set(
        member,
        refusals.then((refused) => refused.get(member)),
      );
    const { backlog } = state;
    const records = batch.records.length;
    backlog.records += records;
    backlog.requests += batches.length;
    void refusals.then(() => {
      backlog.records -= records;
      backlog.requests -= batches.length;
    });
    if (backlog.records > maxBacklog.records || backlog.requests > maxBacklog.requests) await refusals;
    return { durable };
  };

  /**
   * Has a group committed in the source's next commit: the one not begun yet if there is one (it
   * takes every request acknowledged while DuckDB was busy), or a new one after the commits
   * asked for before. A commit's fixed cost (its WAL's fsync above all) is then shared by as many
   * requests as came meanwhile, however many clients send. Answers each refused batch's error.
   */
  const commitWhenFree = (
    state: WriterState,
    source: LogSource,
    batches: readonly PreparedBatch[],
  ): Promise<Map<PreparedBatch, unknown>> => {
    const waiting = state.waiting.get(source.name);
    if (waiting) {
      waiting.batches.push(...batches);
      return waiting.refusals;
    }
    const taken = [...batches];
    const refusals = state.committing.then(() => {
      // Begun: requests acknowledged from now on wait for the next commit.
      state.waiting.delete(source.name);
      return commitAcknowledged(state, source, taken, joinBatches(state, source, taken));
    });
    state.waiting.set(source.name, { batches: taken, refusals });
    state.committing = refusals.then(() => undefined);
    return refusals;
  };

  /**
   * Whether to checkpoint: right after a table's last row group filled. A checkpoint writes the
   * row groups appended since the last one, and packs a table's partly filled ones again with
   * them, so a checkpoint at a row group's end rewrites almost nothing: 120,000 records
   * checkpointed after 300,000 (a last group of 54,240) took 344-386 ms, after 1,000,000 (16,960)
   * 91-119 ms. Checkpoints every 61,440 records instead of 122,880 cost DuckDB 5.7 µs a record
   * against 4.1. The journal's size bounds the interval for wide records, and DuckDB's memory for
   * data not yet checkpointed (memoryFull) that of wide sources.
   */
  const checkpointDue = async (state: WriterState, journal: IngestJournal) =>
    journal.size() >= checkpointBytes || state.rowGroupFilled || (await memoryFull(state));

  /**
   * Commits an acknowledged group; should DuckDB refuse it, each request alone, and what it still
   * refuses stays in the journal, which is then kept (pinned) until the next opening replays it.
   * Answers each refused batch's error. Never rejects: the records are acknowledged.
   */
  const commitAcknowledged = async (
    state: WriterState,
    source: LogSource,
    batches: readonly PreparedBatch[],
    batch: GroupBatch,
  ): Promise<Map<PreparedBatch, unknown>> => {
    const refused = new Map<PreparedBatch, unknown>();
    try {
      await commit(state, source, batch);
      return refused;
    } catch (error) {
      if (batches.length === 1) {
        refused.set(batches[0] as PreparedBatch, refusedAcknowledged(state, source, error));
        return refused;
      }
      options.log?.warn(
        { err: error, source: source.name, requests: batches.length },
        'a group commit failed; committing its requests one by one',
      );
    }
    for (const member of batches) {
      await commit(state, source, joinBatches(state, source, [member])).catch((error: unknown) =>
        refused.set(member, refusedAcknowledged(state, source, error)),
      );
    }
    return refused;
  };

  const refusedAcknowledged = (state: WriterState, source: LogSource, error: unknown): unknown => {
    const first = !state.pinned;
    state.pinned = true;
    // An error, not a warning: answered records wait for the store's next opening.
    options.log?.error(
      { err: error, source: source.name },
      'DuckDB refused to commit acknowledged records; the ingest journal keeps them and the next opening stores them',
    );
    options.onStoreFailure?.(error);
    if (first) options.reopen?.(error);
    return error;
  };

  /** Commits a group, journals it, and checkpoints when it is time to (always after a schema change). */
  const storeJoined = async (state: WriterState, source: LogSource, batch: GroupBatch): Promise<Durable> => {
    if (batch.changesSchema) options.onSchemaChange?.(true);
    try {
      await commit(state, source, batch);
      return await journalAndCheckpoint(state, source, batch);
    } finally {
      if (batch.changesSchema) options.onSchemaChange?.(false);
    }
  };

  const journalAndCheckpoint = async (
    state: WriterState,
    source: LogSource,
    { arrays, changesSchema }: GroupBatch,
  ): Promise<Durable> => {
    if (!state.journal) return { durable: Promise.resolve() };
    // Committed but not journaled: not acknowledged, and not to be committed again by a retry.
    const durable = state.journal.append(source.name, arrays).catch((error: unknown) => {
      throw new JournalFailure(error);
    });
    // Handled here as well: it may fail before the group commit takes it, after the checkpoint.
    durable.catch(() => undefined);
    // After a schema change DuckDB holds the column's old version until a checkpoint.
    if (changesSchema || (await checkpointDue(state, state.journal))) {
      await checkpoint(state).catch(() => undefined);
    }
    return { durable };
  };

  const commitInGroup = createGroupCommit<PreparedBatch>({
    enqueue,
    store: storeGroup,
    records: (batch) => batch.records.length,
    failure: (source, error) => storeFailure(options.log, source, error),
    onRetry: (source, error, requests) =>
      options.log?.warn(
        { err: error, source: source.name, requests },
        'a group commit failed; committing its requests one by one',
      ),
  });

  /** Stores a request's events: answers once acknowledged, or once committed too (`committedToo`). */
  const store = async (
    sourceName: string,
    events: readonly unknown[],
    committedToo: boolean,
    admit: LogWriteOptions['admit'],
  ) => {
    if (closed) throw new QuerygateError('NOT_READY', 'The log writer is closed');
    const { source, events: checked } = checkLogEvents(sourceName, events, now(), options.sources);
    if (checked.length === 0) return { ingested: 0 };
    let state: WriterState;
    try {
      state = await open();
    } catch (error) {
      throw storeFailure(options.log, source, error);
    }
    // Fitted and serialised now, beside the commit under way, in the order requests arrive.
    const prepared = prepare(state, source, checked, admit);
    const acknowledged = await commitInGroup(source, prepared);
    const refused = committedToo ? await commitOf.get(prepared) : undefined;
    if (refused !== undefined) throw journaledOnly(options.log, source, refused);
    return acknowledged;
  };

  return {
    ready: async () => {
      await enqueue(open);
    },
    acknowledge: (sourceName, events, writeOptions) => store(sourceName, events, false, writeOptions?.admit),
    write: (sourceName, events, writeOptions) => store(sourceName, events, true, writeOptions?.admit),
    committed: () => {
      // Every commit asked for holds a request until it has ended.
      const state = settledState;
      return state && state.backlog.requests > 0 ? state.committing : undefined;
    },
    // What uses the writer's connection alone waits for the acknowledged groups' commits first.
    deleteBefore: (sourceName, before, maxRows) =>
      enqueue(async () => {
        const state = await open();
        await state.committing;
        if (!state.types.has(sourceName)) throw new Error(`No log source ${sourceName}`);
        options.rollups?.beforeDelete(sourceName, before);
        // With the store's copy of the integer-text fields, which counts the table's rows.
        const deleted = await inTransaction(state.connection, async () => {
          const count = await deleteOlderRecords(state.connection, sourceName, before, maxRows);
          for (const statement of options.presentRecords?.keptWith(sourceName, -count) ?? [])
            await state.connection.run(statement);
          return count;
        });
        // DuckDB packs the rows left at the next checkpoint.
        state.rows.set(sourceName, Math.max(0, (state.rows.get(sourceName) ?? 0) - deleted));
        await options.rollups?.afterDelete(state.connection, sourceName, deleted < maxRows);
        return deleted;
      }),
    checkpoint: () =>
      enqueue(async () => {
        const state = await open();
        await state.committing;
        await checkpoint(state);
      }),
    close: async () => {
      closed = true;
      // Every write asked for before has settled, and been committed.
      await enqueue(async () => undefined);
      const state = opened && (await opened.catch(() => undefined));
      if (!state) return;
      await state.committing;
      if (state.journal) {
        await checkpoint(state).catch(() => undefined);
        await state.journal.close();
      }
      state.monitor.closeSync();
      state.connection.closeSync();
    },
  };
}

/**
 * A failure of the store rather than of the request: ENGINE_ERROR (502), as the BigQuery sink
 * answers a failed insert. The client gets a reference; the log gets DuckDB's message (which
 * names files and paths) in full under it.
 */
function storeFailure(log: StoreLog | undefined, source: LogSource, error: unknown): QuerygateError {
  if (isQuerygateError(error)) return error;
  const reference = randomUUID();
  const cause = error instanceof JournalFailure ? error.cause : error;
  log?.error({ err: cause, source: source.name, reference }, 'storing events failed');
  return new QuerygateError(
    'ENGINE_ERROR',
    `Storing events in ${source.name} failed in the store; nothing of this request was ` +
      `acknowledged (the server log has the details under reference ${reference})`,
    { cause },
  );
}

/**
 * A request whose records the journal holds but DuckDB refused to commit (ENGINE_ERROR, 502): they
 * are stored at the store's next opening, which replays the journal. The log gets DuckDB's message
 * under the reference the caller is given.
 */
function journaledOnly(log: StoreLog | undefined, source: LogSource, error: unknown): QuerygateError {
  const reference = randomUUID();
  log?.error({ err: error, source: source.name, reference }, 'committing journaled events failed');
  return new QuerygateError(
    'ENGINE_ERROR',
    `Storing events in ${source.name} failed in the store; they are kept in the ingest journal and ` +
      `stored when the store next opens (the server log has the details under reference ${reference})`,
    { cause: error },
  );
}

/**
 * Each table's rows now, from DuckDB's catalogue in one query: no table is scanned at open.
 */
async function tableRows(
  connection: DuckDBConnection,
  tables: readonly string[],
): Promise<Map<string, number>> {
  const reader = await connection.runAndReadAll('SELECT table_name, estimated_size FROM duckdb_tables()');
  const counted = new Map(reader.getRows().map(([name, size]) => [String(name), Number(size ?? 0)]));
  return new Map(tables.map((table) => [table, counted.get(table) ?? 0]));
}

/** Deletes at most `maxRows` records of `table` older than `before` (µs); answers how many. */
async function deleteOlderRecords(
  connection: DuckDBConnection,
  table: string,
  before: bigint,
  maxRows: number,
): Promise<number> {
  const quoted = quoteIdent(table);
  // rowid picks the batch: one short transaction, whatever the number of expired records.
  const result = await connection.run(
    `DELETE FROM ${quoted} WHERE rowid IN ` +
      `(SELECT rowid FROM ${quoted} WHERE "timestamp" < make_timestamp($before::BIGINT) LIMIT $limit)`,
    { before, limit: maxRows },
  );
  return Number(result.rowsChanged);
}

/**
 * What DuckDB's memory a change of `table`'s `metadata` to `type` takes, estimated as the
 * ALTER ... TYPE of the time took it: it rewrote every field of the column in every row group
 * and held the new column uncompressed until the checkpoint after it. Measured on DuckDB 1.5
 * with 16 KiB blocks: 30,000 rows to 505 fields took 79 MB (5.3 bytes per row and field);
 * 500,000 rows to 105 fields filled a 256 MB limit and spilled. So: rows × (fields + 1) × 8
 * bytes, for the table's `rows` as the writer counts them (WriterState.rows). The table copy that
 * replaced the ALTER (schema-change.ts) writes compressed row groups as it goes and takes less
 * (10M edge records: 686 MiB of process RSS under a 256 MB limit), so the estimate errs towards
 * running a change alone.
 */
export function schemaChangeBytes(rows: number, type: StructType): number {
  return rows * (countFields(type) + 1) * bytesPerRowAndField;
}

const bytesPerRowAndField = 8;

/** Memory DuckDB holds for committed data not yet checkpointed (0 when it cannot tell). */
async function uncheckpointedBytes(connection: DuckDBConnection): Promise<number> {
  const reader = await connection.runAndReadAll(
    `SELECT coalesce(sum(memory_usage_bytes), 0) FROM duckdb_memory() WHERE tag = 'IN_MEMORY_TABLE'`,
  );
  return Number(reader.getRows()[0]?.[0] ?? 0);
}

/** Where batch files wait for DuckDB to read them, and how their names begin. */
interface BatchFiles {
  readonly dir: string;
  readonly prefix: string;
}

/**
 * In one transaction, changes the column's type (when `alterTo` is given) and inserts the
 * records of the batches' JSON arrays, written as one file: DuckDB's `read_json` over several
 * files took 0.5-2 s for 4-8 small files of a 400-field `metadata` beside queries at its memory
 * limit, against 34 ms for one. The transaction's statements go to DuckDB in one call: each call
 * waits for the main thread to take its answer, busy as it is with the requests that arrive
 * meanwhile, and the commits of one source run one after the other.
 */
async function insertBatch(
  connection: DuckDBConnection,
  source: LogSource,
  arrays: readonly Uint8Array[],
  batch: BatchFiles & {
    readonly type: StructType;
    readonly alterTo: StructType | undefined;
    /** The batch's counts in its source's rollup, kept in the same transaction. */
    readonly rollup: BatchRollup | undefined;
    /** The store's copy of the table's integer-text fields, kept in it too (present-records.ts). */
    readonly kept: readonly string[];
  },
): Promise<void> {
  const { rollup } = batch;
  const file = join(batch.dir, `${batch.prefix}${randomUUID()}${batchSuffix}`);
  const rollupFile = rollup?.json && join(batch.dir, `${batch.prefix}${randomUUID()}-rollup${batchSuffix}`);
  try {
    const records = arrays.length === 1 ? (arrays[0] as Uint8Array) : Buffer.concat(joinedArrayParts(arrays));
    await writeFile(file, records);
    if (rollupFile && rollup?.json) await writeFile(rollupFile, rollup.json);
    const rows =
      rollupFile && rollup?.json && rollup.columns
        ? readJsonBatch(rollupFile, rollup.json.length, rollup.columns)
        : '';
    await runInTransaction(connection, [
      ...(batch.alterTo ? metadataTypeChange(source, batch.alterTo) : []),
      insertFromJsonStatement(source, batch.type, file, records.length),
      ...(rollup?.statements(rows) ?? []),
      ...batch.kept,
    ]);
  } finally {
    // unlink, not rm: rm first lstats the path, for every batch. Not waited for: a file that
    // cannot be removed must not fail the commit; leftovers are removed at the next start.
    unlink(file).catch(() => undefined);
    if (rollupFile) unlink(rollupFile).catch(() => undefined);
  }
}

/** The journal append failed after DuckDB committed: the batch must not be committed again. */
class JournalFailure extends Error {
  constructor(cause: unknown) {
    super('the ingest journal could not be written', { cause });
  }
}

// Batch files of earlier versions ended in .ndjson; those are removed at the start too.
const batchSuffix = '.json';

async function removeLeftoverBatches({ dir, prefix }: BatchFiles): Promise<void> {
  const names = await readdir(dir).catch(() => [] as string[]);
  await Promise.all(
    names
      .filter((name) => name.startsWith(prefix) && (name.endsWith(batchSuffix) || name.endsWith('.ndjson')))
      .map((name) => rm(join(dir, name), { force: true })),
  );
}
