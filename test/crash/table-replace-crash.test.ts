import { readFileSync, writeFileSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeWarehouse } from '../../examples/warehouse/generate.js';
import { runUntilOkThenKill } from '../helpers/killed-child.js';
import { readStoreFile } from '../helpers/store-file.js';

/**
 * kill -9 in the middle of a day's replace (GA4's re-export of events_20201201) and of an
 * append, the new rows read into the open transaction, and right after a commit (before any
 * checkpoint): the store, opened by DuckDB alone afterwards, holds the old rows or the new ones,
 * never a mix and never none; and an interrupted append run again loads each row once.
 */

const child = join(import.meta.dirname, 'table-load-child.ts');
let dir: string;
let store: string;
let oldFiles: string[];
let reexport: string;
let newDay: string;

const lineCount = (file: string) => readFileSync(file, 'utf8').split('\n').filter(Boolean).length;
const dayOf = (file: string) => /events_(\d{8})/.exec(file)?.[1] as string;

function perDay(): Promise<Record<string, number>> {
  return readStoreFile(store, async (connection) => {
    const reader = await connection.runAndReadAll(
      'SELECT event_date, count(*)::INTEGER FROM ga4_events GROUP BY 1 ORDER BY 1',
    );
    return Object.fromEntries(reader.getRows().map(([day, n]) => [String(day), Number(n)]));
  });
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'querygate-replace-crash-'));
  store = join(dir, 'querygate.duckdb');
  oldFiles = writeWarehouse(join(dir, 'old'), { events: 1500, orders: 1, days: 3, seed: 19 }).events;
  // The re-export of the first day, large enough that the kill lands while it loads.
  const again = writeWarehouse(join(dir, 'reexport'), { events: 6000, orders: 1, days: 1, seed: 23 });
  reexport = again.events[0] as string;
  newDay = join(dir, 'events_20201204.ndjson');
  // A day the store lacks: the re-export's rows, dated the 4th.
  writeFileSync(
    newDay,
    readFileSync(reexport, 'utf8').replaceAll('"event_date":"20201201"', '"event_date":"20201204"'),
  );
  await runUntilOkThenKill(child, [store, 'ga4_events', 'append', 'end', ...oldFiles]);
});

afterAll(async () => {
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe('kill -9 while a table is replaced or appended to', () => {
  it('leaves the old day when killed before the replace commits, and the new one when killed after', async () => {
    const old = Object.fromEntries(oldFiles.map((file) => [dayOf(file), lineCount(file)]));
    expect(await perDay()).toEqual(old);
    const replaced = { ...old, [dayOf(reexport)]: lineCount(reexport) };
    // Killed once the re-export is read into the open transaction, before it commits.
    await runUntilOkThenKill(child, [store, 'ga4_events', 'replace', 'mid', reexport, oldFiles[1] as string]);
    const afterKill = await perDay();
    expect(afterKill).toEqual(old);
    await runUntilOkThenKill(child, [store, 'ga4_events', 'replace', 'end', reexport]);
    expect(await perDay()).toEqual(replaced);
  }, 120_000);

  it('loads each row once when an append killed midway is run again', async () => {
    const before = await perDay();
    await runUntilOkThenKill(child, [store, 'ga4_events', 'append', 'mid', newDay, oldFiles[0] as string]);
    // Killed with the new day read but not committed: none of it, and no ledger line either.
    expect(await perDay()).toEqual(before);
    // The old file is skipped (loaded before), the new day loads once.
    await runUntilOkThenKill(child, [store, 'ga4_events', 'append', 'end', newDay, oldFiles[0] as string]);
    expect(await perDay()).toEqual({ ...before, '20201204': lineCount(newDay) });
  }, 120_000);
});
