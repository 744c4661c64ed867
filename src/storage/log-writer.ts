import { randomUUID } from 'node:crypto';
import { readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { type DuckDBConnection, listValue } from '@duckdb/node-api';
import { quoteIdent, type StructType } from '../endpoints/field-type.js';
import { findLogSource, type LogSource } from '../endpoints/sources.js';
import { isQuerygateError, QuerygateError } from '../errors.js';
import type { Database } from './database.js';
import { type IngestJournal, openIngestJournal } from './ingest-journal.js';
import { insertFromNdjsonStatement, recordLine, type StoredRecord } from './log-batch.js';
import { checkLogEvents, type LogEvent } from './log-event.js';
import { ensureLogTables } from './log-tables.js';
import {
  changeColumnTypeStatement,
  defaultSchemaLimits,
  reconcileMetadata,
  type SchemaLimits,
} from './schema-evolution.js';

/** Where the writer reports what a client must not see (engine messages, paths). */
export interface StoreLog {
  error(details: object, message: string): void;
  warn(details: object, message: string): void;
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
   * Journal size after which the writer checkpoints DuckDB and empties the journal.
   * @default 32 MiB
   */
  readonly journalCheckpointBytes?: number;
  /** Gets store failures in full, and the recovery of an unreplayable WAL. @default none */
  readonly log?: StoreLog;
}

export interface LogWriter {
  /** Creates missing tables, replays the ingest journal, reads the schemas; the first write does it if nobody did. */
  ready(): Promise<void>;
  /**
   * Stores the events of one request, all or nothing. When it resolves the records are
   * committed to DuckDB's write-ahead log and to the ingest journal (both fsynced: they survive
   * kill -9 at any moment) and visible to the next query.
   * Throws BAD_PARAMETER for an unknown source, BAD_REQUEST naming the first bad event and field,
   * and ENGINE_ERROR when the store fails (then nothing of the request is stored; the message
   * gives a reference to the log entry, never the store's own text).
   */
  write(sourceName: string, events: readonly unknown[]): Promise<{ ingested: number }>;
  /** Lets queued writes finish, checkpoints, empties the journal and closes the writer's connection. */
  close(): Promise<void>;
}

interface WriterState {
  readonly connection: DuckDBConnection;
  readonly types: Map<string, StructType>;
  readonly journal: IngestJournal | undefined;
}

/**
 * The one writer of a database's log tables. Writes and schema changes run one at a time on a
 * single connection, so a batch's ALTER and INSERT share one transaction and the schema the
 * writer has in memory is always the one committed. Use one writer per database.
 *
 * Durability: an acknowledged record survives kill -9 at any moment, and the store always opens.
 * The schema changes it makes are ones DuckDB can replay from its WAL (changeColumnTypeStatement);
 * should a WAL still fail to replay, database.ts sets it aside and this writer restores every
 * acknowledged record from the ingest journal at open.
 */
export function createLogWriter(db: Database, options: LogWriterOptions): LogWriter {
  const now = options.now ?? (() => new Date());
  const limits = options.schemaLimits ?? defaultSchemaLimits;
  const checkpointBytes = options.journalCheckpointBytes ?? 32 * 1024 * 1024;
  const inMemory = db.path === ':memory:';
  const tempDir = options.tempDir ?? (inMemory ? tmpdir() : dirname(db.path));
  const tempPrefix = inMemory ? 'querygate-ingest-' : `${basename(db.path)}.ingest-`;
  let queue: Promise<unknown> = Promise.resolve();
  let closed = false;
  let opened: Promise<WriterState> | undefined;

  const open = () => {
    opened ??= (async () => {
      // Left behind only if a process died mid-batch: the file lock makes this writer the only one.
      if (!inMemory && options.tempDir === undefined) await removeLeftoverBatches(tempDir, tempPrefix);
      const connection = await db.connect();
      const types = await ensureLogTables(connection, options.sources);
      const journal = inMemory ? undefined : await openIngestJournal(`${db.path}.journal`);
      const state = { connection, types, journal };
      if (db.walSetAside) {
        options.log?.warn(
          { walSetAside: db.walSetAside },
          'DuckDB could not replay its write-ahead log; it was set aside and the ingest journal is replayed',
        );
      }
      if (journal && journal.size() > 0) {
        const restored = await replayJournal(state);
        if (restored > 0) options.log?.warn({ restored }, 'restored records from the ingest journal');
        // Should it fail, the journal is kept and still covers every record: the store opens anyway.
        await checkpoint(state).catch(() => undefined);
      }
      return state;
    })();
    return opened;
  };

  const enqueue = <T>(task: () => Promise<T>): Promise<T> => {
    const result = queue.then(task);
    queue = result.catch(() => undefined);
    return result;
  };

  /** One transaction: the schema change the events need, if any, and their INSERT. */
  const commit = async (state: WriterState, source: LogSource, events: readonly LogEvent[]) => {
    const { connection, types } = state;
    const before = types.get(source.name) as StructType;
    let type = before;
    const lines = events.map((event) => {
      const fitted = reconcileMetadata(event.metadata, type, limits);
      type = fitted.type;
      const record: StoredRecord = {
        event,
        metadata: fitted.value,
        extra: { ...event.extra, ...fitted.extra },
      };
      return recordLine(record, source);
    });
    const file = join(tempDir, `${tempPrefix}${randomUUID()}.ndjson`);
    try {
      await writeFile(file, `${lines.join('\n')}\n`);
      const longestLine = lines.reduce((longest, line) => Math.max(longest, Buffer.byteLength(line)), 0);
      await connection.run('BEGIN TRANSACTION');
      try {
        if (type !== before) {
          await connection.run(changeColumnTypeStatement(source.name, 'metadata', type));
        }
        await connection.run(insertFromNdjsonStatement(source, type, file, longestLine));
        await connection.run('COMMIT');
      } catch (error) {
        // After a failed COMMIT DuckDB has already rolled back; the second rollback's error is noise.
        await connection.run('ROLLBACK').catch(() => undefined);
        throw error;
      }
      types.set(source.name, type);
    } finally {
      // The events are stored (or not) by now: a batch file that cannot be removed must not turn
      // a commit into a failure. Leftovers are removed at the next start.
      await rm(file, { force: true }).catch(() => undefined);
    }
  };

  /** Commits, then journals: a record is acknowledged only once both hold it. */
  const store = async (source: LogSource, events: readonly LogEvent[]) => {
    const state = await open();
    await commit(state, source, events);
    if (!state.journal) return;
    try {
      await state.journal.append(source.name, events);
    } catch (error) {
      // Committed but not journaled: not acknowledged, and not to be committed again by a retry.
      throw new JournalFailure(error);
    }
    if (state.journal.size() >= checkpointBytes) await checkpoint(state).catch(() => undefined);
  };

  /** Makes DuckDB's main file hold every commit, then empties the journal that covered them. */
  const checkpoint = async (state: WriterState) => {
    try {
      await state.connection.run('CHECKPOINT');
    } catch (error) {
      // Another connection's open transaction can refuse it; the journal keeps covering, the next try may pass.
      options.log?.warn({ err: error }, 'checkpoint failed; the ingest journal is kept');
      throw error;
    }
    await state.journal?.clear();
  };

  /** Stores the journaled records whose id no table holds: those a set-aside WAL took with it. */
  const replayJournal = async (state: WriterState) => {
    const journal = state.journal as IngestJournal;
    const idsBySource = new Map<string, Set<string>>();
    for await (const batch of journal.batches()) {
      const ids = idsBySource.get(batch.source) ?? new Set<string>();
      idsBySource.set(batch.source, ids);
      for (const event of batch.events) ids.add(event.id);
    }
    const present = new Map<string, Set<string>>();
    for (const [name, ids] of idsBySource) {
      const reader = await state.connection.runAndReadAll(
        `SELECT id FROM ${quoteIdent(name)} WHERE id IN (SELECT unnest($ids))`,
        { ids: listValue([...ids]) },
      );
      present.set(name, new Set(reader.getRows().map(([id]) => String(id))));
    }
    let restored = 0;
    for await (const batch of journal.batches()) {
      const source = findLogSource(batch.source, options.sources);
      const stored = present.get(batch.source);
      if (!source || !stored) continue;
      const missing = batch.events.filter((event) => !stored.has(event.id));
      if (missing.length === 0) continue;
      await commit(state, source, missing);
      restored += missing.length;
    }
    return restored;
  };

  /**
   * A failure of the store rather than of the request: ENGINE_ERROR (502), as the BigQuery sink
   * answers a failed insert. The client gets a reference; the log gets DuckDB's message (which
   * names files and paths) in full under it.
   */
  const storeFailure = (source: LogSource, error: unknown): QuerygateError => {
    if (isQuerygateError(error)) return error;
    const reference = randomUUID();
    const cause = error instanceof JournalFailure ? error.cause : error;
    options.log?.error({ err: cause, source: source.name, reference }, 'storing events failed');
    return new QuerygateError(
      'ENGINE_ERROR',
      `Storing events in ${source.name} failed in the store; nothing of this request was ` +
        `acknowledged (the server log has the details under reference ${reference})`,
      { cause },
    );
  };

  // Requests for one source that arrive while another commit runs are stored together in the next
  // transaction: one batch file, one INSERT and one WAL fsync for all of them (group commit).
  // Every request was checked on its own before it joined, so a group should fail only on a
  // store error; should it fail for any other reason, its requests are committed again one by
  // one, so the request that caused it fails alone.
  const gathering = new Map<string, { events: LogEvent[]; requests: GroupMember[] }>();
  const commitInGroup = (source: LogSource, events: readonly LogEvent[]) =>
    new Promise<{ ingested: number }>((resolve, reject) => {
      let group = gathering.get(source.name);
      if (!group) {
        const created = { events: [] as LogEvent[], requests: [] as GroupMember[] };
        gathering.set(source.name, created);
        group = created;
        void enqueue(async () => {
          gathering.delete(source.name);
          try {
            await store(source, created.events);
            for (const member of created.requests) member.resolve({ ingested: member.events.length });
            return;
          } catch (error) {
            if (created.requests.length === 1 || error instanceof JournalFailure) {
              const failure = storeFailure(source, error);
              for (const member of created.requests) member.reject(failure);
              return;
            }
            options.log?.warn(
              { err: error, source: source.name, requests: created.requests.length },
              'a group commit failed; committing its requests one by one',
            );
          }
          for (const member of created.requests) {
            await store(source, member.events).then(
              () => member.resolve({ ingested: member.events.length }),
              (error: unknown) => member.reject(storeFailure(source, error)),
            );
          }
        });
      }
      for (const event of events) group.events.push(event);
      group.requests.push({ events, resolve, reject });
    });

  return {
    ready: async () => {
      await enqueue(open);
    },
    write: async (sourceName, events) => {
      if (closed) throw new QuerygateError('NOT_READY', 'The log writer is closed');
      const { source, events: checked } = checkLogEvents(sourceName, events, now(), options.sources);
      if (checked.length === 0) return { ingested: 0 };
      return commitInGroup(source, checked);
    },
    close: async () => {
      closed = true;
      await queue;
      const state = opened && (await opened.catch(() => undefined));
      if (!state) return;
      if (state.journal) {
        await checkpoint(state).catch(() => undefined);
        await state.journal.close();
      }
      state.connection.closeSync();
    },
  };
}

/** The journal append failed after DuckDB committed: the batch must not be committed again. */
class JournalFailure extends Error {
  constructor(cause: unknown) {
    super('the ingest journal could not be written', { cause });
  }
}

interface GroupMember {
  readonly events: readonly LogEvent[];
  readonly resolve: (result: { ingested: number }) => void;
  readonly reject: (error: unknown) => void;
}

async function removeLeftoverBatches(dir: string, prefix: string): Promise<void> {
  const names = await readdir(dir).catch(() => [] as string[]);
  await Promise.all(
    names
      .filter((name) => name.startsWith(prefix) && name.endsWith('.ndjson'))
      .map((name) => rm(join(dir, name), { force: true })),
  );
}
