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
    await options.commit(source, missing);
    restored += missing.length;
  }
  return restored;
}
