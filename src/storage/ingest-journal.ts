import { createReadStream } from 'node:fs';
import { type FileHandle, open } from 'node:fs/promises';
import { createInterface } from 'node:readline';
import { stepsInTurn } from './in-turn.js';
import { joinedArrayParts } from './log-batch.js';
import type { LogEvent } from './log-event.js';

/**
 * querygate's own record of acknowledged ingestion, beside DuckDB's write-ahead log: the second
 * half of the guarantee "an acknowledged record survives kill -9 at any moment; the store always
 * opens". A WAL that DuckDB cannot replay is set aside at open (database.ts) and what it held is
 * written again from here.
 *
 * Every batch is appended as one line and fsynced before its requests are answered: the batch's
 * records as the JSON DuckDB reads (log-batch.ts batchJson), so a record is serialised once.
 * Appends, and the emptying, run one at a time in the order they were asked for; the lines asked
 * for while one append is written and fsynced are written together next, with one fsync (under
 * load a fsync took 4-5 ms, and each request waited for those of the requests before it). The
 * journal is emptied only right after a CHECKPOINT succeeds, when DuckDB's main file holds
 * everything committed (every batch appended before was committed before the CHECKPOINT), so it
 * always covers every record the main file may lack. Replay is
 * idempotent by record id: at open the writer stores only the journaled records whose id the
 * table lacks (records are told apart by id; reusing an id is the client's risk).
 */
export interface IngestJournal {
  readonly path: string;
  /**
   * Appends one committed group, its records as the JSON arrays of its batches (log-batch.ts
   * batchJson) joined into one, and waits for it to reach the disk.
   */
  append(source: string, arrays: readonly Uint8Array[]): Promise<void>;
  /** The batches in the journal, oldest first. A torn last line (a crash mid-append) is skipped. */
  batches(): AsyncIterable<JournalBatch>;
  /** Bytes appended since the journal was last emptied. */
  size(): number;
  /** Empties the journal after the appends asked for before; call only after a successful CHECKPOINT. */
  clear(): Promise<void>;
  close(): Promise<void>;
}

export interface JournalBatch {
  readonly source: string;
  readonly events: LogEvent[];
}

/** A line of the journal's first format (before records were written as DuckDB reads them). */
type JournalEvent = [
  id: string,
  timestamp: string,
  eventMessage: string,
  project: string | null,
  metadata: LogEvent['metadata'],
  extra: LogEvent['extra'],
];

/** A record as batchJson writes it. */
interface JournalRecord {
  readonly id: string;
  readonly timestamp: string;
  readonly event_message: string;
  readonly project?: string | null;
  readonly metadata: LogEvent['metadata'];
  readonly _extra: LogEvent['extra'] | null;
}

const lineEnd = Buffer.from('}\n');

/** Opens (creating if needed) the journal at `path`. */
export async function openIngestJournal(path: string): Promise<IngestJournal> {
  const handle: FileHandle = await open(path, 'a+');
  const { size } = await handle.stat();
  let bytes = await wholeLinesLength(handle, size);
  // Whether the file may end in part of a line since `bytes`: an append that failed part way (a
  // full disk) or a crash mid-append leaves one. Cut off before the next append, or that line
  // would join it and both be unreadable at replay, an acknowledged record lost with them.
  let torn = bytes < size;
  // Appends and the emptying, in the order asked for.
  const inTurn = stepsInTurn();
  // The append not begun yet: lines asked for while another append writes and fsyncs join it,
  // so they share one write and one fsync (the journal's own group commit).
  let waiting: { readonly parts: Uint8Array[]; readonly done: Promise<void> } | undefined;
  return {
    path,
    append: (source, arrays) => {
      if (!waiting) {
        const parts: Uint8Array[] = [];
        const done = inTurn(async () => {
          if (waiting?.parts === parts) waiting = undefined;
          // The records' bytes as they are, not decoded and encoded again, copied once.
          const lines = Buffer.concat(parts);
          if (torn) {
            // Should it fail, so does this append, unacknowledged: never written after a torn line.
            await handle.truncate(bytes);
            torn = false;
          }
          try {
            await handle.appendFile(lines);
            await handle.datasync();
          } catch (error) {
            torn = true;
            throw error;
          }
          bytes += lines.length;
        });
        waiting = { parts, done };
      }
      waiting.parts.push(Buffer.from(`{"source":${JSON.stringify(source)},"records":`));
      waiting.parts.push(...joinedArrayParts(arrays), lineEnd);
      return waiting.done;
    },
    batches: () => readBatches(path),
    size: () => bytes,
    clear: () => {
      // Appends asked for from now on come after the emptying.
      waiting = undefined;
      return inTurn(async () => {
        await handle.truncate(0);
        bytes = 0;
        torn = false;
        await handle.datasync();
      });
    },
    close: () => inTurn(() => handle.close()),
  };
}

/**
 * The bytes of the journal's whole lines, those up to its last newline: what follows is part of
 * a line whose append never returned, so none of its records was acknowledged.
 */
async function wholeLinesLength(handle: FileHandle, size: number): Promise<number> {
  const chunk = Buffer.alloc(64 * 1024);
  for (let end = size; end > 0; ) {
    const start = Math.max(0, end - chunk.length);
    const { bytesRead } = await handle.read(chunk, 0, end - start, start);
    const newline = chunk.subarray(0, bytesRead).lastIndexOf(0x0a);
    if (newline >= 0) return start + newline + 1;
    end = start;
  }
  return 0;
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
  let parsed: { source?: unknown; records?: unknown; events?: unknown };
  try {
    parsed = JSON.parse(line) as typeof parsed;
  } catch {
    // Only the last line can be torn, and it was never acknowledged: its fsync did not return.
    return undefined;
  }
  if (typeof parsed.source !== 'string') return undefined;
  if (Array.isArray(parsed.records)) {
    const events = (parsed.records as JournalRecord[]).map(
      (record): LogEvent => ({
        id: record.id,
        timestamp: BigInt(record.timestamp),
        eventMessage: record.event_message,
        project: record.project ?? null,
        // Fitted to the type of its day: fitted again at replay, conflicts already in `_extra`.
        metadata: record.metadata,
        extra: record._extra ?? {},
      }),
    );
    return { source: parsed.source, events };
  }
  if (!Array.isArray(parsed.events)) return undefined;
  // A journal written by an earlier version, replayed once at the first start after the upgrade.
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
