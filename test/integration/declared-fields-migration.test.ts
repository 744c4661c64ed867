import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { StructType } from '../../src/endpoints/field-type.js';
import type { LogSource } from '../../src/endpoints/sources.js';
import { openDatabase } from '../../src/storage/database.js';
import { createLogWriter } from '../../src/storage/log-writer.js';
import { runUntilOkThenKill } from '../helpers/killed-child.js';
import { logSources } from '../helpers/shipped-sources.js';

/**
 * A store opened after its sources.yaml declares fields its tables lack (an upgrade of the shipped
 * declarations, or a user's own): the table's `metadata` gains them before the store serves. The
 * process is killed with SIGKILL right after, before any checkpoint, so DuckDB must replay the
 * change from its write-ahead log; the rows, their order and their values are then checked against
 * the formula they were inserted from, in plain DuckDB.
 */

const repoRoot = resolve(import.meta.dirname, '../..');
const table = 'cloudflare.logs.prod';
// More than one row group (122,880 rows), so the copy writes row groups of its own.
const rows = 130_000;

const before: StructType = {
  struct: {
    request: { struct: { url: 'VARCHAR', method: 'VARCHAR' } },
    tags: { list: { struct: { k: 'VARCHAR' } } },
  },
};
// A field inside a record, one inside a list's records, and a new record.
const declared: StructType = {
  struct: {
    request: { struct: { url: 'VARCHAR', method: 'VARCHAR', path: 'VARCHAR' } },
    tags: { list: { struct: { k: 'VARCHAR', v: 'BIGINT' } } },
    response: { struct: { status_code: 'BIGINT' } },
  },
};

function withMetadata(metadata: StructType): LogSource[] {
  return logSources.map((source) => (source.name === table ? { ...source, metadata } : source));
}

describe('opening a store whose sources declare fields its table lacks', () => {
  let dir: string;
  let path: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'querygate-declared-fields-'));
    path = join(dir, 'logs.duckdb');
    // The store as an earlier declaration left it, closed cleanly.
    const db = await openDatabase(path);
    const writer = createLogWriter(db, { sources: withMetadata(before) });
    await writer.ready();
    const connection = await db.connect();
    await connection.run(
      `INSERT INTO "${table}" BY NAME
       SELECT 'r' || i AS id, TIMESTAMP '2026-11-01' + to_seconds(i) AS timestamp, 'e' || i AS event_message,
              {'request': {'url': '/u/' || (i % 97), 'method': CASE WHEN i % 2 = 0 THEN 'GET' ELSE 'POST' END},
               'tags': [{'k': 'a' || (i % 3)}]} AS metadata
       FROM range(${rows}) AS t(i)`,
    );
    connection.closeSync();
    await writer.close();
    db.close();

    // Opened with the new declaration, then killed before anything checkpoints the change.
    const script = join(dir, 'child.mts');
    const src = (file: string) => pathToFileURL(join(repoRoot, 'src', file)).href;
    await writeFile(
      script,
      `import { openDatabase } from '${src('storage/database.ts')}';
import { createLogWriter } from '${src('storage/log-writer.ts')}';
import { readSources } from '${src('endpoints/sources.ts')}';
import { queriesDir } from '${src('paths.ts')}';
const metadata = JSON.parse(process.argv[3]);
const sources = readSources(queriesDir).map((s) => (s.name === ${JSON.stringify(table)} ? { ...s, metadata } : s));
const db = await openDatabase(process.argv[2]);
await createLogWriter(db, { sources }).ready();
process.stdout.write('ok\\n');
setInterval(() => {}, 1000);
`,
    );
    expect(await runUntilOkThenKill(script, [path, JSON.stringify(declared)])).toBe('SIGKILL');
  }, 120_000);

  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('left the change in the write-ahead log only, so opening must replay it', async () => {
    expect((await stat(`${path}.wal`)).size).toBeGreaterThan(0);
  });

  it('replays the change in plain DuckDB and keeps every row, in order, with its values; the new fields NULL', async () => {
    const instance = await DuckDBInstance.create(path);
    const connection = await instance.connect();
    try {
      const type = (
        await connection.runAndReadAll(
          `SELECT data_type FROM duckdb_columns() WHERE table_name = '${table}' AND column_name = 'metadata'`,
        )
      ).getRows();
      expect(type).toEqual([
        [
          'STRUCT(request STRUCT(url VARCHAR, "method" VARCHAR, path VARCHAR), tags STRUCT(k VARCHAR, v BIGINT)[], response STRUCT(status_code BIGINT))',
        ],
      ]);
      // Every row against the formula it was inserted from, in the order it was inserted.
      const mismatches = (
        await connection.runAndReadAll(
          `WITH stored AS (SELECT row_number() OVER () - 1 AS i, * FROM "${table}")
           SELECT count(*) FILTER (WHERE id IS DISTINCT FROM 'r' || i
               OR timestamp IS DISTINCT FROM TIMESTAMP '2026-11-01' + to_seconds(i)
               OR event_message IS DISTINCT FROM 'e' || i
               OR metadata.request.url IS DISTINCT FROM '/u/' || (i % 97)
               OR metadata.request.method IS DISTINCT FROM CASE WHEN i % 2 = 0 THEN 'GET' ELSE 'POST' END
               OR metadata.request.path IS NOT NULL
               OR len(metadata.tags) <> 1
               OR metadata.tags[1].k IS DISTINCT FROM 'a' || (i % 3)
               OR metadata.tags[1].v IS NOT NULL
               OR metadata.response IS NOT NULL)::INTEGER,
             count(*)::INTEGER
           FROM stored`,
        )
      ).getRows();
      expect(mismatches).toEqual([[0, rows]]);
      const leftovers = await connection.runAndReadAll(
        `SELECT table_name FROM duckdb_tables() WHERE table_name LIKE '%rewrite%'`,
      );
      expect(leftovers.getRows()).toEqual([]);
    } finally {
      connection.closeSync();
      instance.closeSync();
    }
  });

  it('says at open which declared fields it adds to which table, before and after the copy', async () => {
    const other = join(dir, 'logged.duckdb');
    for (const metadata of [before, declared]) {
      const lines: { details: object; message: string }[] = [];
      const log = {
        error() {},
        warn() {},
        info: (details: object, message: string) => lines.push({ details, message }),
      };
      const db = await openDatabase(other);
      const writer = createLogWriter(db, { sources: withMetadata(metadata), log });
      await writer.ready();
      await writer.close();
      db.close();
      if (metadata === before) expect(lines).toEqual([]);
      else {
        expect(lines.map((line) => line.message)).toEqual([
          'sources.yaml declares fields the stored table lacks; adding them',
          'declared fields added to the stored table',
        ]);
        expect(lines[0]?.details).toEqual({
          source: table,
          fields: ['metadata.request.path', 'metadata.tags.v', 'metadata.response'],
        });
        expect(lines[1]?.details).toMatchObject({ source: table, ms: expect.any(Number) });
      }
    }
  });

  it('opens through querygate without setting the WAL aside, and takes records with the new fields', async () => {
    const db = await openDatabase(path);
    expect(db.walSetAside).toBeUndefined();
    const writer = createLogWriter(db, { sources: withMetadata(declared) });
    await writer.ready();
    await writer.write(table, [
      {
        id: 'after',
        event_message: 'after',
        metadata: { request: { path: '/p' }, tags: [{ k: 'b', v: 7 }] },
      },
    ]);
    const connection = await db.connect();
    const reader = await connection.runAndReadAll(
      `SELECT count(*)::INTEGER, max(metadata.request.path), max(metadata.tags[1].v)::INTEGER FROM "${table}"`,
    );
    expect(reader.getRows()).toEqual([[rows + 1, '/p', 7]]);
    connection.closeSync();
    await writer.close();
    db.close();
  });
});
