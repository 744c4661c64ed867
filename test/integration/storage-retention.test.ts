import { existsSync, statSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterEach, describe, expect, it } from 'vitest';
import { findLogSource } from '../../src/endpoints/sources.js';
import { openDatabase } from '../../src/storage/database.js';
import { createLogWriter } from '../../src/storage/log-writer.js';
import { startRetention } from '../../src/storage/retention.js';
import { retentionPolicy } from '../../src/storage/retention-policy.js';
import { runUntilOkThenKill } from '../helpers/killed-child.js';
import { createManualTime } from '../helpers/manual-time.js';
import { logSources } from '../helpers/shipped-sources.js';

/**
 * Retention on a real DuckDB file over simulated weeks: a manual clock drives both the records'
 * timestamps and the retention schedule. What must hold: records older than the source's
 * retention are gone after a pass and every newer one is present; the file stops growing once
 * the retention window is full; and a record retention deleted is not brought back by the
 * ingest journal after a crash.
 */

const repoRoot = resolve(import.meta.dirname, '../..');
const source = 'cloudflare.logs.prod';
const hour = 3_600_000;
const day = 24 * hour;

const dirs: string[] = [];
afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function tempDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'querygate-retention-'));
  dirs.push(dir);
  return dir;
}

/** The store's bytes on disk: its main file and its write-ahead log (records live there until a checkpoint). */
function storeBytes(path: string): number {
  const wal = `${path}.wal`;
  return statSync(path).size + (existsSync(wal) ? statSync(wal).size : 0);
}

/** A record as a client sends it, with enough text that the file's size is the data's. */
function event(id: string, at: number) {
  return {
    id,
    timestamp: new Date(at).toISOString(),
    event_message: `GET /rest/v1/items?select=* 200 ${id} ${'x'.repeat(120)}`,
    metadata: { request: { method: 'GET', path: `/rest/v1/items/${id}` }, response: { status_code: 200 } },
  };
}

describe('retention over 60 simulated days at a steady rate, 7 days kept', () => {
  it('deletes records older than 7 days, keeps every newer one, and the file size levels off', async () => {
    const dir = await tempDir();
    const path = join(dir, 'logs.duckdb');
    const start = new Date('2026-01-01T00:00:00Z');
    const time = createManualTime(start);
    const policy = retentionPolicy(7);
    const db = await openDatabase(path);
    const writer = createLogWriter(db, { now: time.now, retention: policy, sources: logSources });
    await writer.ready();
    const retention = startRetention({
      writer,
      sources: [findLogSource(source, logSources) as NonNullable<ReturnType<typeof findLogSource>>],
      policy,
      now: time.now,
      timers: time.timers,
      intervalMs: 6 * hour,
      firstPassMs: 6 * hour,
      // Small batches, so a pass takes several transactions as it would on a busy store.
      batchRows: 500,
    });
    // Each pass finishes at the instant it was due, before the clock moves on.
    time.settleWith(() => retention.idle());

    const written: { id: string; at: number }[] = [];
    const sizeAtDayEnd: number[] = [];
    const perTwoHours = 100;
    for (let d = 0; d < 60; d++) {
      for (let slot = 0; slot < 12; slot++) {
        const slotStart = time.now().getTime();
        const events = Array.from({ length: perTwoHours }, (_, i) => {
          const at = slotStart + Math.floor((i * 2 * hour) / perTwoHours);
          const id = `d${d}-s${slot}-${i}`;
          written.push({ id, at });
          return event(id, at);
        });
        await writer.write(source, events);
        await time.advance(2 * hour);
      }
      sizeAtDayEnd.push(storeBytes(path));
    }
    await retention.runPass();
    await retention.stop();

    const cutoff = time.now().getTime() - 7 * day;
    const expectedIds = written
      .filter((record) => record.at >= cutoff)
      .map((record) => record.id)
      .sort();
    const connection = await db.connect();
    const rows = await connection.runAndReadAll(
      `SELECT id, epoch_ms("timestamp")::DOUBLE FROM "${source}" ORDER BY id`,
    );
    connection.closeSync();
    await writer.close();
    db.close();

    const stored = rows.getRows().map(([id, at]) => ({ id: String(id), at: Number(at) }));
    expect(stored.filter((record) => record.at < cutoff)).toEqual([]);
    expect(stored.map((record) => record.id).sort()).toEqual(expectedIds);
    // 7 of 60 days are kept: far fewer rows than were written.
    expect(stored.length).toBeLessThan(written.length / 5);

    // The window is full after 7 days and freed blocks are reused from the next checkpoints on:
    // from day 20 to day 60 the store never outgrows what it reached in days 8 to 20, give or
    // take one 256 KiB block (measured: 1.5-2.1 MB from day 15 on, while 60 days of records
    // would take some 15 MB).
    const block = 256 * 1024;
    const plateau = Math.max(...sizeAtDayEnd.slice(7, 20));
    const last = sizeAtDayEnd.slice(20);
    expect(Math.max(...last), `sizes by day: ${sizeAtDayEnd.join(', ')}`).toBeLessThanOrEqual(
      plateau + block,
    );
    // Growth never resumed: the last ten days stay within a quarter of the ten before them (the
    // size moves by a block or two, 256 KiB each, as blocks are freed and taken again).
    const lastTen = Math.max(...sizeAtDayEnd.slice(50));
    const tenBefore = Math.max(...sizeAtDayEnd.slice(40, 50));
    expect(lastTen, `sizes by day: ${sizeAtDayEnd.join(', ')}`).toBeLessThanOrEqual(tenBefore + block);
  }, 240_000);
});

describe('a retention pass', () => {
  it('keeps the records of a source whose own retentionDays is longer than the default', async () => {
    const dir = await tempDir();
    const now = new Date('2026-03-01T00:00:00Z');
    const time = createManualTime(now);
    const edge = findLogSource(source, logSources) as NonNullable<ReturnType<typeof findLogSource>>;
    const postgres = findLogSource('postgres.logs', logSources) as NonNullable<
      ReturnType<typeof findLogSource>
    >;
    const sources = [{ ...edge, retentionDays: 30 }, postgres];
    const policy = retentionPolicy(3);
    const db = await openDatabase(join(dir, 'logs.duckdb'));
    const writer = createLogWriter(db, { now: time.now, sources });
    const tenDaysAgo = now.getTime() - 10 * day;
    await writer.write(source, [event('edge-old', tenDaysAgo), event('edge-new', now.getTime())]);
    await writer.write('postgres.logs', [event('pg-old', tenDaysAgo), event('pg-new', now.getTime())]);
    const retention = startRetention({ writer, sources, policy, now: time.now, timers: time.timers });
    const pass = await retention.runPass();
    await retention.stop();
    const connection = await db.connect();
    const ids = async (table: string) =>
      (await connection.runAndReadAll(`SELECT id FROM "${table}" ORDER BY id`)).getRows().flat().map(String);
    expect(await ids(source)).toEqual(['edge-new', 'edge-old']);
    expect(await ids('postgres.logs')).toEqual(['pg-new']);
    expect(pass.deleted).toEqual({ 'postgres.logs': 1 });
    connection.closeSync();
    await writer.close();
    db.close();
  });

  it('deletes nothing when retention is 0 (kept for ever)', async () => {
    const policy = retentionPolicy(0);
    expect(
      policy.days(findLogSource(source, logSources) as NonNullable<ReturnType<typeof findLogSource>>),
    ).toBe(undefined);
  });
});

describe('after a crash whose WAL DuckDB cannot replay', () => {
  it('does not bring back from the ingest journal a record that retention had deleted', async () => {
    const dir = await tempDir();
    const path = join(dir, 'logs.duckdb');
    const script = join(dir, 'child.mts');
    const src = (file: string) => pathToFileURL(join(repoRoot, 'src/storage', file)).href;
    const now = Date.parse('2026-03-01T00:00:00Z');
    // The child journals an expired and a fresh record, retention deletes the expired one (no
    // checkpoint yet: the journal still holds it), then a WAL record DuckDB cannot replay is
    // written and the process is killed.
    await writeFile(
      script,
      `import { openDatabase } from '${src('database.ts')}';
import { createLogWriter } from '${src('log-writer.ts')}';
import { readSources } from '${src('../endpoints/sources.ts')}';
import { queriesDir } from '${src('../paths.ts')}';
const db = await openDatabase(process.argv[2]);
const writer = createLogWriter(db, { now: () => new Date(${now}), sources: readSources(queriesDir) });
await writer.write('${source}', ${JSON.stringify([event('expired', now - 10 * day), event('fresh', now - hour)])});
const deleted = await writer.deleteBefore('${source}', ${BigInt(now - 7 * day) * 1000n}n, 100);
if (deleted !== 1) throw new Error('expected one expired record deleted, got ' + deleted);
const connection = await db.connect();
await connection.run('ALTER TABLE "postgres.logs" ADD COLUMN "metadata"."unreplayable" BIGINT');
process.stdout.write('ok\\n');
setInterval(() => {}, 1000);
`,
    );
    expect(await runUntilOkThenKill(script, [path])).toBe('SIGKILL');
    await expect(DuckDBInstance.create(path)).rejects.toThrow(/replaying WAL/);

    const db = await openDatabase(path);
    expect(db.walSetAside).toBeDefined();
    const writer = createLogWriter(db, {
      now: () => new Date(now),
      retention: retentionPolicy(7),
      sources: logSources,
    });
    await writer.ready();
    const connection = await db.connect();
    const rows = await connection.runAndReadAll(`SELECT id FROM "${source}" ORDER BY id`);
    expect(rows.getRows().flat().map(String)).toEqual(['fresh']);
    connection.closeSync();
    await writer.close();
    db.close();
  });
});
