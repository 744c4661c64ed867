import { afterEach, describe, expect, it } from 'vitest';
import { type Database, openDatabase } from '../../src/storage/database.js';
import { type MemoryTrim, startMemoryTrim } from '../../src/storage/memory-trim.js';
import { createManualTime } from '../helpers/manual-time.js';

/**
 * The memory target: while the process's RSS is above it, DuckDB is set to return freed memory
 * after every query (a bulk-free threshold of 256 KiB); at or below it, DuckDB's default of
 * 512 MiB is back. Read through DuckDB's own `current_setting`, with RSS readings given by the test.
 */

const MiB = 1024 * 1024;
let database: Database | undefined;
let trim: MemoryTrim | undefined;

afterEach(async () => {
  await trim?.stop();
  database?.close();
  trim = undefined;
  database = undefined;
});

async function threshold(db: Database): Promise<string> {
  const connection = await db.connect();
  try {
    const reader = await connection.runAndReadAll(
      `SELECT current_setting('allocator_bulk_deallocation_flush_threshold')::VARCHAR`,
    );
    return String(reader.getRows()[0]?.[0]);
  } finally {
    connection.closeSync();
  }
}

describe('the memory target', () => {
  it('returns freed memory after each query only while RSS is above the target, checked every interval', async () => {
    const time = createManualTime(new Date('2026-01-01T00:00:00Z'));
    let rss = 100 * MiB;
    database = await openDatabase(':memory:');
    trim = await startMemoryTrim({
      database,
      targetBytes: 256 * MiB,
      timers: time.timers,
      residentBytes: () => rss,
      intervalMs: 1000,
    });
    const resting = await threshold(database);
    expect(resting).toBe('512.0 MiB');

    rss = 300 * MiB;
    await time.advance(999);
    expect(trim.trimming).toBe(false);
    await time.advance(1);
    await trim.check();
    expect(trim.trimming).toBe(true);
    expect(await threshold(database)).toBe('256.0 KiB');

    rss = 256 * MiB;
    await time.advance(1000);
    await trim.check();
    expect(trim.trimming).toBe(false);
    expect(await threshold(database)).toBe(resting);
  });

  it('stops reading RSS once stopped', async () => {
    const time = createManualTime(new Date('2026-01-01T00:00:00Z'));
    let readings = 0;
    database = await openDatabase(':memory:');
    trim = await startMemoryTrim({
      database,
      targetBytes: 256 * MiB,
      timers: time.timers,
      residentBytes: () => {
        readings++;
        return 0;
      },
    });
    await time.advance(3000);
    const before = readings;
    expect(before).toBeGreaterThanOrEqual(3);
    await trim.stop();
    trim = undefined;
    await time.advance(5000);
    expect(readings).toBe(before);
    expect(time.pending).toBe(0);
  });
});
