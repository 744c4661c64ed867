import type { DuckDBConnection } from '@duckdb/node-api';
import { quoteIdent } from '../endpoints/field-type.js';
import { readSources } from '../endpoints/sources.js';
import { queriesDir as shippedQueriesDir } from '../paths.js';
import type { Database } from '../storage/database.js';
import type { LogWriter } from '../storage/log-writer.js';
import { type DemoLogsOptions, demoDays, generateDemoLogs } from './sampler.js';

const batchSize = 5000;
const DAY = 24 * 60 * 60_000;

/**
 * One row: the instant the store's demo traffic reaches. Its presence is what makes a store a
 * demo store; a store's records are never inspected to guess it.
 */
export const demoMarkerTable = 'querygate_demo';

/**
 * Which demo traffic a store gets (tests take less of it). Every top-up of a store must use the
 * same, or its traffic changes character at the joins.
 */
export type DemoTrafficShape = Pick<DemoLogsOptions, 'projects' | 'seed' | 'scale'>;

/** Told, as the demo's events are written, how many of how many have been. */
export type DemoSeedProgress = (sent: number, total: number) => void;

/** What {@link seedDemoLogs} did. */
export type DemoSeedOutcome =
  /** The store was empty: it got the demo's days of traffic up to `until`. */
  | { readonly kind: 'seeded'; readonly written: number; readonly until: Date }
  /** The store held demo traffic up to `since`: the traffic of `(since, until]` was added. */
  | { readonly kind: 'topped-up'; readonly written: number; readonly since: Date; readonly until: Date }
  /** The store held records but no demo marker (someone's own logs): nothing was written. */
  | { readonly kind: 'not-demo' };

/**
 * Brings a store's demo traffic up to `now` through the same writer as ingestion. An empty store
 * gets the demo's days of traffic; a demo store the traffic since it was last topped up (at most
 * the demo's days), as dense near `now` as a fresh seed; a store holding other records nothing.
 */
export async function seedDemoLogs(
  database: Database,
  writer: LogWriter,
  now: Date,
  shape: DemoTrafficShape = {},
  onProgress?: DemoSeedProgress,
): Promise<DemoSeedOutcome> {
  const seededUntil = await readSeededUntil(database);
  if (seededUntil) {
    const written = await topUpDemoLogs(database, writer, seededUntil, now, shape, onProgress);
    return { kind: 'topped-up', written, since: seededUntil, until: now };
  }
  if (await holdsRecords(database)) return { kind: 'not-demo' };
  // The marker goes first, at the start of the range: a seed cut short (Ctrl-C during the first
  // start) is then completed by the next start's top-up instead of passing for a user's store.
  await withConnection(database, async (connection) => {
    await connection.run(`CREATE TABLE IF NOT EXISTS ${demoMarkerTable} (seeded_until TIMESTAMP NOT NULL)`);
    await connection.run(
      `INSERT INTO ${demoMarkerTable} VALUES (${timestampLiteral(now.getTime() - demoDays * DAY)})`,
    );
  });
  const written = await topUpDemoLogs(
    database,
    writer,
    new Date(now.getTime() - demoDays * DAY),
    now,
    shape,
    onProgress,
  );
  return { kind: 'seeded', written, until: now };
}

/**
 * Writes the demo traffic of `(after, now]` (of the demo's last days at most) and records `now`
 * in the marker, after the events: a crash in between repeats a range rather than leaving a gap.
 * Returns how many events were written.
 */
export async function topUpDemoLogs(
  database: Database,
  writer: LogWriter,
  after: Date,
  now: Date,
  shape: DemoTrafficShape = {},
  onProgress?: DemoSeedProgress,
): Promise<number> {
  if (now.getTime() <= after.getTime()) return 0;
  let written = 0;
  const generated = generateDemoLogs({ ...shape, now, after });
  const total = [...generated.values()].reduce((sum, events) => sum + events.length, 0);
  // Told at each further tenth of the events, so that a first start's long seed is never silent.
  let sent = 0;
  let tenthsTold = 0;
  if (total > 0) onProgress?.(0, total);
  for (const [source, events] of generated) {
    for (let start = 0; start < events.length; start += batchSize) {
      const batch = events.slice(start, start + batchSize);
      written += (await writer.write(source, batch)).ingested;
      sent += batch.length;
      const tenths = Math.floor((10 * sent) / total);
      if (onProgress && tenths > tenthsTold) {
        tenthsTold = tenths;
        onProgress(sent, total);
      }
    }
  }
  await withConnection(database, (connection) =>
    connection.run(`UPDATE ${demoMarkerTable} SET seeded_until = ${timestampLiteral(now.getTime())}`),
  );
  return written;
}

/** The instant the demo traffic reaches, or undefined when the store has no demo marker. */
async function readSeededUntil(database: Database): Promise<Date | undefined> {
  return withConnection(database, async (connection) => {
    const tables = await connection.runAndReadAll(
      `SELECT count(*) FROM duckdb_tables() WHERE schema_name = 'main' AND table_name = '${demoMarkerTable}'`,
    );
    if (Number(tables.getRows()[0]?.[0] ?? 0) === 0) return undefined;
    const marker = await connection.runAndReadAll(
      `SELECT epoch_ms(max(seeded_until)) FROM ${demoMarkerTable}`,
    );
    const ms = marker.getRows()[0]?.[0];
    return ms === null || ms === undefined ? undefined : new Date(Number(ms));
  });
}

async function holdsRecords(database: Database): Promise<boolean> {
  return withConnection(database, async (connection) => {
    const counts = readSources(shippedQueriesDir)
      .map((source) => `(SELECT count(*) FROM ${quoteIdent(source.name)})`)
      .join(' + ');
    const reader = await connection.runAndReadAll(`SELECT ${counts} AS total`);
    return Number(reader.getRows()[0]?.[0] ?? 0) > 0;
  });
}

async function withConnection<T>(database: Database, use: (connection: DuckDBConnection) => Promise<T>) {
  const connection = await database.connect();
  try {
    return await use(connection);
  } finally {
    connection.closeSync();
  }
}

/** Whole milliseconds only: the marker is compared with instants of the clock, which has no more. */
function timestampLiteral(ms: number): string {
  return `epoch_ms(${Math.trunc(ms)}::BIGINT)`;
}
