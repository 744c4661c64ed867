import { randomUUID } from 'node:crypto';
import { readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { StructType } from '../endpoints/field-type.js';
import type { LogSource } from '../endpoints/sources.js';
import { isQuerygateError, QuerygateError } from '../errors.js';
import type { Database } from './database.js';
import { insertFromNdjsonStatement, recordLine, type StoredRecord } from './log-batch.js';
import { checkLogEvents, type LogEvent } from './log-event.js';
import { ensureLogTables } from './log-tables.js';
import {
  addFieldStatement,
  changeColumnTypeStatement,
  fieldAdditions,
  reconcileMetadata,
} from './schema-evolution.js';

export interface LogWriterOptions {
  /**
   * Where batch files wait for DuckDB to read them; they are removed after every batch.
   * @default the database file's directory, or `os.tmpdir()` for `:memory:`
   */
  readonly tempDir?: string;
  /** The clock that stamps events sent without a timestamp. @default () => new Date() */
  readonly now?: () => Date;
  /** The sources it keeps a table for and accepts events of. @default the shipped nine */
  readonly sources?: readonly LogSource[];
}

export interface LogWriter {
  /** Creates missing tables and reads their schemas; the first write does it if nobody did. */
  ready(): Promise<void>;
  /**
   * Stores the events of one request, all or nothing. When it resolves the records are
   * committed to DuckDB's write-ahead log (they survive a crash) and visible to the next query.
   * Throws BAD_PARAMETER for an unknown source, BAD_REQUEST naming the first bad event, and
   * ENGINE_ERROR when the store fails (then nothing of the request is stored).
   */
  write(sourceName: string, events: readonly unknown[]): Promise<{ ingested: number }>;
  /** Lets queued writes finish, then closes the writer's connection. */
  close(): Promise<void>;
}

/**
 * The one writer of a database's log tables. Writes and schema changes run one at a time on a
 * single connection, so a batch's ALTERs and INSERT share one transaction and the schema the
 * writer has in memory is always the one committed. Use one writer per database.
 */
export function createLogWriter(db: Database, options: LogWriterOptions = {}): LogWriter {
  const now = options.now ?? (() => new Date());
  const inMemory = db.path === ':memory:';
  const tempDir = options.tempDir ?? (inMemory ? tmpdir() : dirname(db.path));
  const tempPrefix = inMemory ? 'querygate-ingest-' : `${basename(db.path)}.ingest-`;
  let queue: Promise<unknown> = Promise.resolve();
  let closed = false;
  let opened: Promise<{ connection: DuckDBConnection; types: Map<string, StructType> }> | undefined;

  const open = () => {
    opened ??= (async () => {
      // Left behind only if a process died mid-batch: the file lock makes this writer the only one.
      if (!inMemory && options.tempDir === undefined) await removeLeftoverBatches(tempDir, tempPrefix);
      const connection = await db.connect();
      return { connection, types: await ensureLogTables(connection, options.sources) };
    })();
    return opened;
  };

  const enqueue = <T>(task: () => Promise<T>): Promise<T> => {
    const result = queue.then(task);
    queue = result.catch(() => undefined);
    return result;
  };

  const store = async (source: LogSource, events: readonly LogEvent[]) => {
    const { connection, types } = await open();
    const before = types.get(source.name) as StructType;
    let type = before;
    const lines = events.map((event) => {
      const fitted = reconcileMetadata(event.metadata, type);
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
        const additions = fieldAdditions(before, type);
        if (additions.length === 1 && additions[0]) {
          await connection.run(addFieldStatement(source.name, 'metadata', additions[0]));
        } else if (additions.length > 1) {
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
    return { ingested: events.length };
  };

  // Requests for one source that arrive while another commit runs are stored together in the next
  // transaction: one batch file, one INSERT and one WAL fsync for all of them (group commit).
  // Every request was checked on its own before it joined, so a group fails only on a database
  // error, and then every request in it fails with nothing stored.
  const gathering = new Map<string, { events: LogEvent[]; requests: Array<GroupMember> }>();
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
            for (const member of created.requests) member.resolve({ ingested: member.count });
          } catch (error) {
            const failure = storeFailure(source, error);
            for (const member of created.requests) member.reject(failure);
          }
        });
      }
      for (const event of events) group.events.push(event);
      group.requests.push({ count: events.length, resolve, reject });
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
      if (opened) (await opened.catch(() => undefined))?.connection.closeSync();
    },
  };
}

/**
 * A failure of the store rather than of the request: ENGINE_ERROR (502), as the BigQuery sink
 * answers a failed insert, with DuckDB's message. A file-system error (say, a full disk under the
 * batch file) shows only its code, not the server's paths.
 */
function storeFailure(source: LogSource, error: unknown): QuerygateError {
  if (isQuerygateError(error)) return error;
  const syscall = (error as { syscall?: unknown } | null)?.syscall;
  const reason =
    typeof syscall === 'string'
      ? `: the batch file could not be written (${String((error as { code?: unknown }).code)})`
      : ` on DuckDB: ${(error as Error).message}`;
  return new QuerygateError('ENGINE_ERROR', `Storing events in ${source.name} failed${reason}`, {
    cause: error,
  });
}

interface GroupMember {
  readonly count: number;
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
