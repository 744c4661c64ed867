import { type DuckDBConnection, listValue } from '@duckdb/node-api';
import { quoteIdent } from '../endpoints/field-type.js';
import { findLogSource, type LogSource } from '../endpoints/sources.js';
import type { IngestJournal } from './ingest-journal.js';
import type { LogEvent } from './log-event.js';

export interface JournalReplayOptions {
  readonly connection: DuckDBConnection;
  readonly journal: IngestJournal;
  readonly sources: readonly LogSource[];
  /** Stores events in one transaction, as the writer does. */
  readonly commit: (source: LogSource, events: readonly LogEvent[]) => Promise<void>;
  /**
   * Told of records DuckDB refuses even alone (a commit that failed after they were acknowledged
   * may have left such records in the journal): kept there, they would fail every opening.
   */
  readonly refused: (source: LogSource, events: readonly LogEvent[], error: unknown) => Promise<void>;
  /**
   * Microseconds before which a source's records are expired (deleted by retention), if it has
   * retention: such records are not stored again, so replay never brings back what retention took.
   */
  readonly expiredBefore: (source: LogSource) => bigint | undefined;
}

/**
 * Stores the journaled records whose id no table holds: those a set-aside WAL took with it.
 * Returns how many it stored.
 */
export async function replayJournal(options: JournalReplayOptions): Promise<number> {
  const { connection, journal } = options;
  const idsBySource = new Map<string, Set<string>>();
  for await (const batch of journal.batches()) {
    const ids = idsBySource.get(batch.source) ?? new Set<string>();
    idsBySource.set(batch.source, ids);
    for (const event of batch.events) ids.add(event.id);
  }
  const present = new Map<string, Set<string>>();
  for (const [name, ids] of idsBySource) {
    const reader = await connection.runAndReadAll(
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
    const cutoff = options.expiredBefore(source);
    const missing = batch.events.filter(
      (event) => !stored.has(event.id) && (cutoff === undefined || event.timestamp >= cutoff),
    );
    if (missing.length === 0) continue;
    restored += await commitOrSetAside(options, source, missing);
  }
  return restored;
}

/**
 * Commits events; should DuckDB refuse them, each half on its own, down to the events it refuses
 * alone, which go to `refused`: the store opens whatever the journal holds. Answers how many it
 * committed.
 */
async function commitOrSetAside(
  options: JournalReplayOptions,
  source: LogSource,
  events: readonly LogEvent[],
): Promise<number> {
  try {
    await options.commit(source, events);
    return events.length;
  } catch (error) {
    if (events.length === 1) {
      await options.refused(source, events, error);
      return 0;
    }
    const half = Math.ceil(events.length / 2);
    return (
      (await commitOrSetAside(options, source, events.slice(0, half))) +
      (await commitOrSetAside(options, source, events.slice(half)))
    );
  }
}
