import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDuckDbEngine } from '../../src/backends/duckdb/engine.js';
import type { QueryEngine, SavedQuery } from '../../src/engines/query-engine.js';
import { isQuerygateError } from '../../src/errors.js';
import { queriesDir } from '../../src/paths.js';
import { type Database, openDatabase } from '../../src/storage/database.js';
import { createLogWriter } from '../../src/storage/log-writer.js';
import { logSources } from '../helpers/shipped-sources.js';

/**
 * DuckDB's memory limit is one for the instance: caller SQL holding most of it made a saved
 * endpoint fail with "Out of Memory" (502). A saved query that fails so while caller queries run
 * has them stopped and runs once more. On a real store file with a 64MB limit, a caller's hash
 * join holds some 30 MB of build side while its probe side (1e12 rows) runs on, and the saved
 * query's STRING_AGG needs two 16 MiB blocks. Which of the two DuckDB fails is its choice (in our
 * runs, the caller's): either way the saved one answers its rows.
 */

const now = new Date('2026-05-15T12:00:00Z');
const records = 2000;
const messages = Array.from({ length: records }, (_, i) => `request ${i}`);
const ids = Array.from({ length: records }, (_, i) => `id-${String(i).padStart(6, '0')}`);

const saved: SavedQuery = {
  id: 'wide-aggregate',
  name: 'wide.aggregate',
  sql:
    "SELECT LENGTH(STRING_AGG(CONCAT(t.event_message, a.id), ',')) AS n FROM `cloudflare.logs.prod` AS t " +
    'CROSS JOIN (SELECT id FROM `cloudflare.logs.prod` ORDER BY id LIMIT 200) AS a',
  maxRows: 1,
};
/** Every message joined with each of the 200 first ids, comma-separated: from the fixture. */
const expectedLength =
  messages.reduce((sum, message) => sum + message.length, 0) * 200 +
  ids.slice(0, 200).reduce((sum, id) => sum + id.length, 0) * records +
  (records * 200 - 1);

const holder: SavedQuery = {
  id: 'caller-holder',
  name: 'logs.all',
  sql:
    `SELECT COUNT(*) AS n FROM (SELECT CONCAT(REPEAT(id, 200), CAST(a AS STRING)) AS k FROM \`cloudflare.logs.prod\` ` +
    'CROSS JOIN UNNEST(GENERATE_ARRAY(1, 8)) AS a) AS b ' +
    'JOIN (SELECT CAST(x AS STRING) AS k FROM UNNEST(GENERATE_ARRAY(1, 1000000000000)) AS x) AS p ON b.k = p.k',
  maxRows: 1,
  // Caller SQL: it runs on the ad-hoc connections, watched by the memory ceiling.
  callerLineOffset: 0,
};

let dir: string;
let database: Database;
let engine: QueryEngine;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'querygate-saved-memory-'));
  const path = join(dir, 'querygate.duckdb');
  // Written with the default limit (the writer keeps some 33 MB of its own), read with 64MB.
  const written = await openDatabase(path);
  const writer = createLogWriter(written, { sources: logSources, now: () => now });
  await writer.ready();
  await writer.write(
    'cloudflare.logs.prod',
    messages.map((message, i) => ({
      id: ids[i],
      event_message: message,
      timestamp: now.toISOString(),
      project: 'p1',
    })),
  );
  await writer.close();
  written.close();
  database = await openDatabase(path, { memoryLimit: '64MB', threads: 2 });
  engine = await createDuckDbEngine({
    database,
    sources: logSources,
    queries: [saved],
    queriesDir,
    timeoutMs: 60_000,
    adhocConnections: 2,
    // No RSS ceiling in reach: only DuckDB's own limit is at stake.
    adhocMemoryCeilingBytes: 2 ** 40,
  });
}, 60_000);

afterAll(async () => {
  await engine?.close();
  database?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("a saved query beside caller SQL that holds DuckDB's memory", () => {
  it('answers its rows alone', async () => {
    expect((await engine.run(saved, {}, { now })).rows).toEqual([{ n: expectedLength }]);
  });

  it('answers its rows, and the caller query 400 SANDBOX_TOO_EXPENSIVE', async () => {
    const held = engine.run(holder, {}, { now }).then(
      () => 'answered',
      (error: unknown) => error,
    );
    // The holder's build side is in memory well within this.
    await new Promise((resolve) => setTimeout(resolve, 1_500));
    const result = await engine.run(saved, {}, { now });
    expect(result.rows).toEqual([{ n: expectedLength }]);
    const stopped = await held;
    expect(isQuerygateError(stopped) && stopped.code).toBe('SANDBOX_TOO_EXPENSIVE');
    expect((stopped as Error).message).toMatch(
      /^logs\.all: sql (needs more memory|held memory a saved endpoint needed)/,
    );
  }, 60_000);
});
