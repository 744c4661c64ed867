import { appendFile, mkdtemp, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/storage/database.js';
import { createLogWriter } from '../../src/storage/log-writer.js';
import { runUntilOkThenKill } from '../helpers/killed-child.js';
import { logSources } from '../helpers/shipped-sources.js';

/**
 * The second line of defence: a write-ahead log DuckDB cannot replay. A child process stores
 * acknowledged batches through the writer, then runs the DDL whose WAL record DuckDB 1.5 cannot
 * replay (a nested ADD COLUMN, which the writer itself never uses) and is killed with SIGKILL.
 * DuckDB alone then refuses the file; querygate sets the WAL aside and restores every
 * acknowledged record from its ingest journal, once, whatever happened to the journal's tail.
 */

const repoRoot = resolve(import.meta.dirname, '../..');
const sources = ['postgres.logs', 'cloudflare.logs.prod'] as const;
const perSource = 150;

function idsOf(source: string): string[] {
  return Array.from({ length: perSource }, (_, i) => `${source}-acked-${i}`);
}

async function countIds(path: string, source: string, prefix: string): Promise<number> {
  const instance = await DuckDBInstance.create(path);
  const connection = await instance.connect();
  try {
    const reader = await connection.runAndReadAll(
      `SELECT count(DISTINCT id)::INTEGER FROM "${source}" WHERE starts_with(id, '${prefix}')`,
    );
    return Number(reader.getRows()[0]?.[0]);
  } finally {
    connection.closeSync();
    instance.closeSync();
  }
}

describe('opening a store whose WAL DuckDB cannot replay', () => {
  let dir: string;
  let path: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'querygate-wal-recovery-'));
    path = join(dir, 'logs.duckdb');
    const script = join(dir, 'child.mts');
    const src = (file: string) => pathToFileURL(join(repoRoot, 'src/storage', file)).href;
    await writeFile(
      script,
      `import { openDatabase } from '${src('database.ts')}';
import { createLogWriter } from '${src('log-writer.ts')}';
import { readSources } from '${src('../endpoints/sources.ts')}';
import { queriesDir } from '${src('../paths.ts')}';
const db = await openDatabase(process.argv[2]);
const writer = createLogWriter(db, { sources: readSources(queriesDir) });
for (const source of ${JSON.stringify(sources)}) {
  for (let batch = 0; batch < 3; batch += 1) {
    const events = Array.from({ length: ${perSource / 3} }, (_, i) => {
      const n = batch * ${perSource / 3} + i;
      // The first batch's new fields are a schema change, which the writer checkpoints at once;
      // the next two batches are then only in the WAL and the journal.
      return { id: source + '-acked-' + n, event_message: 'acked ' + n, metadata: { new_0: n, nested: { deep_0: 'x' } } };
    });
    await writer.write(source, events);
  }
}
const connection = await db.connect();
await connection.run('ALTER TABLE "postgres.logs" ADD COLUMN "metadata"."unreplayable" BIGINT');
process.stdout.write('ok\\n');
setInterval(() => {}, 1000);
`,
    );
    expect(await runUntilOkThenKill(script, [path])).toBe('SIGKILL');
  });

  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('is a WAL that DuckDB alone refuses to replay', async () => {
    await expect(DuckDBInstance.create(path)).rejects.toThrow(/replaying WAL/);
  });

  it('sets the WAL aside, restores every acknowledged record from the journal, and opens cleanly after', async () => {
    // A crash in the middle of an append leaves a torn last line; it was never acknowledged.
    await appendFile(`${path}.journal`, '{"source":"postgres.logs","events":[["torn-');
    const warnings: string[] = [];
    const log = { error() {}, warn: (_details: object, message: string) => warnings.push(message) };
    const db = await openDatabase(path);
    expect(db.walSetAside).toMatch(/logs\.duckdb\.wal\.unreplayable-\d+$/);
    const writer = createLogWriter(db, { sources: logSources, log });
    await writer.ready();
    expect(warnings.join('\n')).toMatch(/set aside/);
    expect(warnings.join('\n')).toMatch(/restored records from the ingest journal/);
    // The store takes new writes, including new fields, after the recovery.
    await writer.write('postgres.logs', [
      { id: 'after-recovery', event_message: 'after', metadata: { fresh: 1 } },
    ]);
    await writer.close();
    db.close();

    for (const source of sources) {
      expect(await countIds(path, source, `${source}-acked-`)).toBe(idsOf(source).length);
    }
    expect(await countIds(path, 'postgres.logs', 'after-recovery')).toBe(1);
    expect(await countIds(path, 'postgres.logs', 'torn-')).toBe(0);
    // The set-aside WAL is kept for inspection; the journal was emptied by the checkpoint.
    expect((await readdir(dir)).filter((name) => name.includes('unreplayable'))).toHaveLength(1);
    expect((await stat(`${path}.journal`)).size).toBe(0);
  });

  it('restores nothing twice when opened again', async () => {
    const db = await openDatabase(path);
    expect(db.walSetAside).toBeUndefined();
    const writer = createLogWriter(db, { sources: logSources });
    await writer.ready();
    await writer.close();
    db.close();
    const instance = await DuckDBInstance.create(path);
    const connection = await instance.connect();
    try {
      const reader = await connection.runAndReadAll(
        `SELECT count(*)::INTEGER, count(DISTINCT id)::INTEGER FROM "postgres.logs"`,
      );
      expect(reader.getRows()[0]).toEqual([perSource + 1, perSource + 1]);
    } finally {
      connection.closeSync();
      instance.closeSync();
    }
  });
});
