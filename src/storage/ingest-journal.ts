import { createReadStream } from 'node:fs';
import { type FileHandle, open, stat } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import type { LogEvent } from './log-event.js';

/**
 * querygate's own record of acknowledged ingestion, beside DuckDB's write-ahead log: the second
 * half of the guarantee "an acknowledged record survives kill -9 at any moment; the store always
 * opens". A WAL that DuckDB cannot replay is set aside at open (database.ts) and what it held is
 * written again from here.
 *
 * Every committed batch is appended as one line and fsynced before its requests are answered.
 * The journal is emptied only right after a CHECKPOINT succeeds, when DuckDB's main file holds
 * everything committed, so it always covers every record the main file may lack. Replay is
 * idempotent by record id: at open the writer stores only the journaled records whose id the
 * table lacks (records are told apart by id; reusing an id is the client's risk).
 */
export interface IngestJournal {
  readonly path: string;
  /** Appends one committed batch and waits for it to reach the disk. */
  append(source: string, events: readonly LogEvent[]): Promise<void>;
  /** The batches in the journal, oldest first. A torn last line (a crash mid-append) is skipped. */
  batches(): AsyncIterable<JournalBatch>;
  /** Bytes appended since the journal was last emptied. */
  size(): number;
  /** Empties the journal; call only after a successful CHECKPOINT. */
  clear(): Promise<void>;
  close(): Promise<void>;
}

export interface JournalBatch {
  readonly source: string;
  readonly events: LogEvent[];
}

type JournalEvent = [
  id: string,
  timestamp: string,
  eventMessage: string,
  project: string | null,
  metadata: LogEvent['metadata'],
  extra: LogEvent['extra'],
];

/** Opens (creating if needed) the journal at `path`. */
export async function openIngestJournal(path: string): Promise<IngestJournal> {
  const handle: FileHandle = await open(path, 'a');
  let bytes = (await stat(path)).size;
  return {
    path,
    async append(source, events) {
      const line = `${JSON.stringify({ source, events: events.map(toJournalEvent) })}\n`;
      await handle.appendFile(line);
      await handle.datasync();
      bytes += Buffer.byteLength(line);
    },
    batches: () => readBatches(path),
    size: () => bytes,
    async clear() {
      await handle.truncate(0);
      await handle.datasync();
      bytes = 0;
    },
    close: () => handle.close(),
  };
}

function toJournalEvent(event: LogEvent): JournalEvent {
  return [event.id, String(event.timestamp), event.eventMessage, event.project, event.metadata, event.extra];
}

async function* readBatches(path: string): AsyncIterable<JournalBatch> {
  const lines = createInterface({ input: createReadStream(path), crlfDelay: Number.POSITIVE_INFINITY });
  try {
    for await (const line of lines) {
      const batch = parseBatch(line);
      if (batch) yield batch;
    }
  } finally {
    lines.close();
  }
}

function parseBatch(line: string): JournalBatch | undefined {
  let parsed: { source?: unknown; events?: unknown };
  try {
    parsed = JSON.parse(line) as typeof parsed;
  } catch {
    // Only the last line can be torn, and it was never acknowledged: its fsync did not return.
    return undefined;
  }
  if (typeof parsed.source !== 'string' || !Array.isArray(parsed.events)) return undefined;
  const events = (parsed.events as JournalEvent[]).map(
    ([id, timestamp, eventMessage, project, metadata, extra]): LogEvent => ({
      id,
      timestamp: BigInt(timestamp),
      eventMessage,
      project,
      metadata,
      extra,
    }),
  );
  return { source: parsed.source, events };
}
