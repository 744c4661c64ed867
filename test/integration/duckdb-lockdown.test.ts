import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDuckDbEngine } from '../../src/backends/duckdb/engine.js';
import type { QueryEngine } from '../../src/engines/query-engine.js';
import { queriesDir } from '../../src/paths.js';
import { logSources } from '../helpers/shipped-sources.js';
import { openTempStore, type TempStore } from '../helpers/temp-store.js';

// The wall under the sandbox's checks: once the engine has locked the instance down, DuckDB
// itself refuses files, extensions and settings on every connection, whatever SQL reaches it
// (here plain DuckDB SQL, past the translator and the checks), while the log writer still loads
// its batches from the one directory left open.

let store: TempStore;
let engine: QueryEngine;
let batchDir: string;
let canary: string;
const secret = 'canary-secret-51c2';

beforeAll(async () => {
  batchDir = mkdtempSync(join(tmpdir(), 'querygate-lockdown-batches-'));
  store = await openTempStore('querygate-lockdown-', { tempDir: batchDir });
  canary = join(store.dir, 'canary.csv');
  writeFileSync(canary, `secret\n${secret}\n`);
  engine = await createDuckDbEngine({
    database: store.db,
    sources: logSources,
    queries: [],
    queriesDir,
    timeoutMs: 5_000,
    lockdown: { allowedDirectories: [`${batchDir}/`] },
  });
});

afterAll(async () => {
  await engine?.close();
  await store?.close();
  rmSync(batchDir, { recursive: true, force: true });
});

async function refusal(sql: string): Promise<string> {
  const connection = await store.db.connect();
  try {
    await connection.run(sql);
    return 'ran';
  } catch (error) {
    return (error as Error).message;
  } finally {
    connection.closeSync();
  }
}

describe('a locked-down DuckDB instance', () => {
  it.each([
    ['read_csv of a file', () => `SELECT * FROM read_csv('${canary}')`],
    ['a path as a table', () => `SELECT * FROM '${canary}'`],
    ['read_text of a file', () => `SELECT content FROM read_text('${canary}')`],
    ['glob', () => `SELECT * FROM glob('${store.dir}/*')`],
    ['COPY to a file', () => `COPY (SELECT 1) TO '${join(store.dir, 'copied.csv')}'`],
    ['ATTACH of a file', () => `ATTACH '${join(store.dir, 'other.duckdb')}' AS other`],
    ['INSTALL', () => 'INSTALL httpfs'],
  ])('refuses %s by itself', async (_name, sql) => {
    expect(await refusal(sql())).toMatch(/Permission Error|disabled by configuration/);
  });

  it.each([
    ['turning external access back on', 'SET enable_external_access = true'],
    ['unlocking the configuration', 'SET lock_configuration = false'],
    ['any other setting', "SET memory_limit = '100GB'"],
    ['a global setting', "SET GLOBAL allowed_directories = ['/']"],
  ])('refuses %s', async (_name, sql) => {
    expect(await refusal(sql)).toMatch(/configuration has been locked/);
  });

  // Every setting querygate needs is made before the lock (a SET after it fails): in effect here.
  it('keeps the settings made before the lock: UTC, BigQuery NULL order, jemalloc background threads', async () => {
    const connection = await store.db.connect();
    try {
      const reader = await connection.runAndReadAll(
        `SELECT current_setting('TimeZone') AS tz, lower(current_setting('default_null_order')) AS nulls,
           current_setting('allocator_background_threads')::VARCHAR AS background,
           current_setting('lock_configuration')::VARCHAR AS locked`,
      );
      expect(reader.getRowObjectsJson()).toEqual([
        { tz: 'UTC', nulls: 'nulls_first_on_asc_last_on_desc', background: 'true', locked: 'true' },
      ]);
    } finally {
      connection.closeSync();
    }
  });

  it('wrote no file anywhere it was asked to', () => {
    expect(existsSync(join(store.dir, 'copied.csv'))).toBe(false);
    expect(existsSync(join(store.dir, 'other.duckdb'))).toBe(false);
  });

  it('still lets the log writer load its batches', async () => {
    const result = await store.writer.write('cloudflare.logs.prod', [
      { id: 'locked-1', timestamp: '2026-05-15T12:00:00Z', event_message: 'still writing', project: 'p' },
    ]);
    expect(result.ingested).toBe(1);
    const rows = await engine.run(
      {
        id: 'check',
        name: 'check',
        sql: "select count(*) as n from `cloudflare.logs.prod` where id = 'locked-1'",
        maxRows: 1,
      },
      {},
      { now: new Date() },
    );
    expect(rows.rows).toEqual([{ n: 1 }]);
  });
});
