import type { Database } from './database.js';
import { generateDemoLogs } from './demo-logs.js';
import { quoteIdent } from './field-type.js';
import type { LogWriter } from './log-writer.js';
import { logSources } from './sources.js';

const batchSize = 5000;

/**
 * Fills an empty store with a few days of demo logs ending at `now`, through the same writer as
 * ingestion. A store holding any record is left alone. Returns how many events were written.
 */
export async function seedDemoLogs(database: Database, writer: LogWriter, now: Date): Promise<number> {
  const connection = await database.connect();
  try {
    const counts = logSources
      .map((source) => `(SELECT count(*) FROM ${quoteIdent(source.name)})`)
      .join(' + ');
    const reader = await connection.runAndReadAll(`SELECT ${counts} AS total`);
    if (Number(reader.getRows()[0]?.[0] ?? 0) > 0) return 0;
  } finally {
    connection.closeSync();
  }
  let written = 0;
  for (const [source, events] of generateDemoLogs({ now })) {
    for (let start = 0; start < events.length; start += batchSize) {
      written += (await writer.write(source, events.slice(start, start + batchSize))).ingested;
    }
  }
  return written;
}
