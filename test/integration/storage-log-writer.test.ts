import { readdir, stat, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type { DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isQuerygateError } from '../../src/errors.js';
import { openDatabase } from '../../src/storage/database.js';
import { ensureLogTables } from '../../src/storage/log-tables.js';
import { createLogWriter, type LogWriter } from '../../src/storage/log-writer.js';
import { runUntilOkThenKill } from '../helpers/killed-child.js';
import { logSources } from '../helpers/shipped-sources.js';
import { openTempStore, type TempStore } from '../helpers/temp-store.js';

const source = 'cloudflare.logs.prod';
const fixedNow = new Date(Date.UTC(2024, 4, 1, 9, 0, 0, 250));
const repoRoot = fileURLToPath(new URL('../..', import.meta.url));

let store: TempStore | undefined;
let dir: string;
let writer: LogWriter;
let connection: DuckDBConnection;

beforeAll(async () => {
  store = await openTempStore('querygate-writer-', { now: () => fixedNow });
  ({ dir, writer, connection } = store);
});

afterAll(async () => {
  await store?.close();
});

/** Rows of the source whose event_message starts with `marker`, values as JSON-friendly text. */
async function rowsOf(marker: string, table = source): Promise<Record<string, unknown>[]> {
  const reader = await connection.runAndReadAll(
    `SELECT id, epoch_us("timestamp")::VARCHAR AS micros, event_message, ${table === source ? 'project' : 'NULL AS project'},
       to_json(metadata)::VARCHAR AS metadata, _extra::VARCHAR AS extra
     FROM "${table}" WHERE starts_with(event_message, $marker) ORDER BY event_message`,
    { marker },
  );
  return reader.getRowObjectsJS().map((row) => ({
    ...row,
    metadata: row.metadata === null ? null : JSON.parse(String(row.metadata)),
    extra: row.extra === null ? null : JSON.parse(String(row.extra)),
  }));
}

async function failureOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => expect.fail('expected a rejection'),
    (error: unknown) => error,
  );
}

describe('log writer', () => {
  it('stores nested events and reads them back unchanged, quotes and newlines included', async () => {
    const tricky = 'say "hi"\n\ttab \\ back\u2028line \u{1F600} \'single\' \u0000nul';
    await writer.write(source, [
      {
        id: 'round-1',
        event_message: `round a ${tricky}`,
        timestamp: '2024-05-01T12:34:56.789012Z',
        project: 'proj-a',
        metadata: {
          request: {
            url: `https://x.test/?q=${tricky}`,
            path: '/rest/v1/items',
            method: 'GET',
            host: 'x.test',
          },
          response: { status_code: 200, origin_time: 17 },
        },
      },
      { id: 'round-2', message: 'round b via message', timestamp: '2024-05-01T12:34:57Z' },
    ]);
    const rows = await rowsOf('round ');
    expect(rows).toEqual([
      {
        id: 'round-1',
        micros: String(Date.UTC(2024, 4, 1, 12, 34, 56) * 1000 + 789012),
        event_message: `round a ${tricky}`,
        project: 'proj-a',
        metadata: {
          request: {
            url: `https://x.test/?q=${tricky}`,
            path: '/rest/v1/items',
            method: 'GET',
            host: 'x.test',
          },
          response: { status_code: 200, origin_time: 17 },
        },
        extra: null,
      },
      {
        id: 'round-2',
        micros: String(Date.UTC(2024, 4, 1, 12, 34, 57) * 1000),
        event_message: 'round b via message',
        project: null,
        metadata: null,
        extra: null,
      },
    ]);
  });

  it('gives an event without an id a fresh UUID', async () => {
    await writer.write(source, [{ event_message: 'uuid a' }, { event_message: 'uuid b' }]);
    const [a, b] = await rowsOf('uuid ');
    expect(a?.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
    expect(a?.id).not.toBe(b?.id);
  });

  it('stores every timestamp form as UTC microseconds in a TIMESTAMP column', async () => {
    const ms = Date.UTC(2024, 4, 1, 10, 0, 0);
    const cases: [string, unknown, bigint][] = [
      ['ts 1 zulu', '2024-05-01T10:00:00.000001Z', BigInt(ms) * 1000n + 1n],
      ['ts 2 plus two', '2024-05-01T12:00:00.123456+02:00', BigInt(ms) * 1000n + 123456n],
      ['ts 3 minus five thirty', '2024-05-01T04:30:00-05:30', BigInt(ms) * 1000n],
      ['ts 4 seconds', ms / 1000, BigInt(ms) * 1000n],
      ['ts 5 milliseconds', ms + 7, BigInt(ms + 7) * 1000n],
      ['ts 6 microseconds', ms * 1000 + 654321, BigInt(ms) * 1000n + 654321n],
      ['ts 7 absent', undefined, BigInt(fixedNow.getTime()) * 1000n],
    ];
    await writer.write(
      source,
      cases.map(([message, timestamp]) => ({ event_message: message, timestamp })),
    );
    const rows = await rowsOf('ts ');
    expect(rows.map((row) => [row.event_message, row.micros])).toEqual(
      cases.map(([message, , expected]) => [message, String(expected)]),
    );
    const types = await connection.runAndReadAll(
      `SELECT data_type FROM duckdb_columns() WHERE table_name = '${source}' AND column_name = 'timestamp'`,
    );
    expect(types.getRowObjectsJS()).toEqual([{ data_type: 'TIMESTAMP' }]);
  });

  it('adds a new nested field to the table and the next query can select it', async () => {
    await writer.write(source, [
      {
        event_message: 'evolve a',
        metadata: { request: { url: '/a', referer: 'https://ref.test' }, cache: { hit: true, age: 12 } },
      },
    ]);
    const reader = await connection.runAndReadAll(
      `SELECT metadata.request.referer AS referer, metadata.cache.hit AS hit, metadata.cache.age AS age
       FROM "${source}" WHERE event_message = 'evolve a'`,
    );
    expect(reader.getRowObjectsJS()).toEqual([{ referer: 'https://ref.test', hit: true, age: 12n }]);
  });

  it('keeps earlier rows intact when a batch adds several fields at once', async () => {
    const before = await rowsOf('round ');
    await writer.write(source, [
      { event_message: 'several a', metadata: { geo: { country: 'DE' }, tier: 'pro', edge: 2 } },
    ]);
    const after = await rowsOf('round ');
    expect(after.map((row) => (row.metadata as { request?: unknown } | null)?.request)).toEqual(
      before.map((row) => (row.metadata as { request?: unknown } | null)?.request),
    );
    const [row] = await rowsOf('several ');
    expect(row?.metadata).toMatchObject({ geo: { country: 'DE' }, tier: 'pro', edge: 2 });
  });

  it('adds a field to the structs inside a list and keeps the list elements already stored', async () => {
    await writer.write(source, [
      { event_message: 'list a', metadata: { timings: [{ name: 'db', ms: 1.5 }] } },
    ]);
    await writer.write(source, [
      { event_message: 'list b', metadata: { timings: [{ name: 'db', ms: 2, rows: 3 }] } },
    ]);
    const rows = await rowsOf('list ');
    expect(rows.map((row) => (row.metadata as { timings: unknown }).timings)).toEqual([
      [{ name: 'db', ms: 1.5, rows: null }],
      [{ name: 'db', ms: 2, rows: 3 }],
    ]);
  });

  it('adds fields whose names hold quotes, dots, spaces and non-ASCII letters', async () => {
    const metadata = { 'say "hi"': 'a', "it's": 'b', 'a.b c': { 'ü ñ': 1 } };
    await writer.write(source, [{ event_message: 'names a', metadata }]);
    const [row] = await rowsOf('names ');
    expect(row?.metadata).toMatchObject(metadata);
  });

  it('keeps a value that conflicts with its column type in _extra under its path', async () => {
    await writer.write(source, [
      {
        event_message: 'conflict a',
        metadata: { response: { status_code: 'abc', origin_time: 3 } },
        level: 'warn',
      },
    ]);
    const [row] = await rowsOf('conflict ');
    expect(row?.metadata).toMatchObject({ response: { status_code: null, origin_time: 3 } });
    expect(row?.extra).toEqual({ 'metadata.response.status_code': 'abc', level: 'warn' });
  });

  it('replaces a lone UTF-16 surrogate with U+FFFD instead of failing the batch', async () => {
    await writer.write(source, [
      { event_message: 'surrogate a\uD800b', metadata: { request: { url: '\uDC00' } } },
    ]);
    const [row] = await rowsOf('surrogate ');
    expect(row?.event_message).toBe('surrogate a\uFFFDb');
    expect(row?.metadata).toMatchObject({ request: { url: '\uFFFD' } });
  });

  it('stores nothing of a batch whose third event has a malformed timestamp', async () => {
    const events = [
      { event_message: 'atomic a', metadata: { brand_new_field: 1 } },
      { event_message: 'atomic b' },
      { event_message: 'atomic c', timestamp: '2024-13-45T99:00:00Z' },
      { event_message: 'atomic d' },
    ];
    const error = await failureOf(writer.write(source, events));
    expect(isQuerygateError(error) && error.code).toBe('BAD_REQUEST');
    expect(isQuerygateError(error) && error.details).toMatchObject({ index: 2 });
    expect((error as Error).message).toMatch(/^event 2: timestamp /);
    expect(await rowsOf('atomic ')).toEqual([]);
    const columns = await connection.runAndReadAll(
      `SELECT data_type FROM duckdb_columns() WHERE table_name = '${source}' AND column_name = 'metadata'`,
    );
    expect(String(columns.getRowObjectsJS()[0]?.data_type)).not.toContain('brand_new_field');
  });

  it('refuses an event without event_message, naming its index and the field', async () => {
    const error = await failureOf(writer.write(source, [{ event_message: 'x' }, { metadata: {} }]));
    expect((error as Error).message).toMatch(/^event 1: event_message is required/);
  });

  it('refuses an unknown source naming source_name and listing the valid sources', async () => {
    const error = await failureOf(writer.write('nope.logs', [{ event_message: 'x' }]));
    expect(isQuerygateError(error) && error.code).toBe('BAD_PARAMETER');
    expect((error as Error).message).toContain('source_name');
    expect((error as Error).message).toContain('cloudflare.logs.prod');
  });

  it('keeps project in _extra for a source without a project column', async () => {
    await writer.write('deno-relay-logs', [{ event_message: 'noproject a', project: 'p1' }]);
    const [row] = await rowsOf('noproject ', 'deno-relay-logs');
    expect(row?.extra).toEqual({ project: 'p1' });
  });

  it('serialises concurrent writes that evolve the same table', async () => {
    await Promise.all(
      Array.from({ length: 8 }, (_, i) =>
        writer.write(source, [{ event_message: `concurrent ${i}`, metadata: { [`field_${i}`]: i } }]),
      ),
    );
    const reader = await connection.runAndReadAll(
      `SELECT count(*)::INTEGER AS n, sum(metadata.field_7)::INTEGER AS f7 FROM "${source}" WHERE starts_with(event_message, 'concurrent ')`,
    );
    expect(reader.getRowObjectsJS()).toEqual([{ n: 8, f7: 7 }]);
  });

  it('commits concurrent requests together, each answered with its own count, a bad one alone refused', async () => {
    const sizes = [3, 50, 1, 20, 7];
    const good = sizes.map((size, request) =>
      writer.write(
        source,
        Array.from({ length: size }, (_, i) => ({
          event_message: `grouped ${request}-${i}`,
          metadata: { seq: i },
        })),
      ),
    );
    const bad = failureOf(writer.write(source, [{ event_message: 'grouped bad-0' }, { event_message: 42 }]));
    expect(await Promise.all(good)).toEqual(sizes.map((size) => ({ ingested: size })));
    expect(isQuerygateError(await bad)).toBe(true);
    const reader = await connection.runAndReadAll(
      `SELECT count(*)::INTEGER AS n, count(*) FILTER (WHERE starts_with(event_message, 'grouped bad'))::INTEGER AS bad FROM "${source}" WHERE starts_with(event_message, 'grouped ')`,
    );
    expect(reader.getRowObjectsJS()).toEqual([{ n: sizes.reduce((sum, size) => sum + size, 0), bad: 0 }]);
  });

  it('leaves no batch files behind', async () => {
    const names = await readdir(dir);
    expect(names.filter((name) => name.endsWith('.ndjson'))).toEqual([]);
  });
});

describe('log tables across a restart', () => {
  it('reads the evolved metadata type back from the catalogue when reopened', async () => {
    const path = join(dir, 'reopen.duckdb');
    const first = await openDatabase(path);
    const firstWriter = createLogWriter(first, { sources: logSources });
    await firstWriter.write('postgres.logs', [
      { event_message: 'x', metadata: { parsed: { sql_state_code: '42P01' } } },
    ]);
    await firstWriter.close();
    first.close();

    const second = await openDatabase(path);
    const secondConnection = await second.connect();
    try {
      const types = await ensureLogTables(secondConnection, logSources);
      expect(types.get('postgres.logs')).toEqual({
        struct: {
          host: 'VARCHAR',
          parsed: { struct: { error_severity: 'VARCHAR', sql_state_code: 'VARCHAR' } },
        },
      });
    } finally {
      secondConnection.closeSync();
      second.close();
    }
  });
});

describe('durability', () => {
  it('keeps a written batch after the writing process is killed with SIGKILL', async () => {
    const path = join(dir, 'durable.duckdb');
    const script = join(dir, 'durable-child.mts');
    const src = (file: string) => pathToFileURL(join(repoRoot, 'src/storage', file)).href;
    await writeFile(
      script,
      `import { openDatabase } from '${src('database.ts')}';
import { createLogWriter } from '${src('log-writer.ts')}';
import { readSources } from '${src('../endpoints/sources.ts')}';
import { queriesDir } from '${src('../paths.ts')}';
const db = await openDatabase(process.argv[2]);
const writer = createLogWriter(db, { sources: readSources(queriesDir) });
const events = Array.from({ length: 500 }, (_, i) => ({ id: 'durable-' + i, event_message: 'durable ' + i, metadata: { response: { status_code: i } } }));
await writer.write('cloudflare.logs.prod', events);
process.stdout.write('ok\\n');
setInterval(() => {}, 1000);
`,
    );
    expect(await runUntilOkThenKill(script, [path])).toBe('SIGKILL');

    const reopened = await openDatabase(path);
    const reader = await reopened.connect();
    try {
      const result = await reader.runAndReadAll(
        `SELECT count(*)::INTEGER AS n, sum(metadata.response.status_code)::INTEGER AS total FROM "${source}"`,
      );
      expect(result.getRowObjectsJS()).toEqual([{ n: 500, total: (499 * 500) / 2 }]);
    } finally {
      reader.closeSync();
      reopened.close();
    }
  }, 30_000);
});

describe('checkpoints', () => {
  // DuckDB's rows per row group: a checkpoint writes every row group appended to since the last,
  // a partly filled one again at the next.
  const rowGroup = 122_880;
  // Some 200 bytes of DuckDB's WAL a record: 120,000 records pass DuckDB's own 16 MB threshold.
  const events = (from: number, count: number) =>
    Array.from({ length: count }, (_, i) => ({
      id: `cp-${from + i}`,
      event_message: `checkpoint record ${from + i} ${'x'.repeat(160)}`,
    }));
  const sizeOf = (path: string) =>
    stat(path).then(
      (found) => found.size,
      () => 0,
    );

  it('come as the last row group fills: not before, whatever DuckDB WAL holds, and soon after', async () => {
    // A journal bound far above what these records fill: the row count alone decides.
    const cp = await openTempStore('querygate-checkpoints-', { journalCheckpointBytes: 2 ** 40 });
    const journal = join(cp.dir, 'logs.duckdb.journal');
    const wal = join(cp.dir, 'logs.duckdb.wal');
    try {
      const below = rowGroup - 2_880;
      for (let from = 0; from < below; from += 20_000)
        await cp.writer.write(source, events(from, Math.min(20_000, below - from)));
      // Every record is still in the journal and in DuckDB's WAL: no checkpoint came in between.
      expect(await sizeOf(wal)).toBeGreaterThan(16 * 1024 * 1024);
      const journaled = await sizeOf(journal);
      expect(journaled).toBeGreaterThan(below * 160);

      // Past a row group, the next request finds the checkpoint due: the journal then holds it alone.
      await cp.writer.write(source, events(below, 3_000));
      await cp.writer.write(source, events(below + 3_000, 1));
      expect(await sizeOf(journal)).toBeLessThan(2_000);
      expect(await sizeOf(wal)).toBeLessThan(1024 * 1024);
      const reader = await cp.connection.runAndReadAll(
        `SELECT count(*)::INTEGER AS n FROM "${source}" WHERE starts_with(id, 'cp-')`,
      );
      expect(reader.getRowObjectsJS()).toEqual([{ n: below + 3_001 }]);
    } finally {
      await cp.close();
    }
  }, 60_000);

  it('count the rows a table held when the writer opened: the last row group fills sooner', async () => {
    const cp = await openTempStore('querygate-checkpoints-', { journalCheckpointBytes: 2 ** 40 });
    const journal = join(cp.dir, 'logs.duckdb.journal');
    try {
      await cp.writer.write(source, events(0, 100_000));
      await cp.writer.close();
      // A writer opened on a table of 100,000 rows: 22,880 more fill its row group.
      const writer = createLogWriter(cp.db, { sources: logSources, journalCheckpointBytes: 2 ** 40 });
      await writer.ready();
      await writer.write(source, events(100_000, 20_000));
      expect(await sizeOf(journal)).toBeGreaterThan(20_000 * 160);
      await writer.write(source, events(120_000, 3_000));
      await writer.write(source, events(123_000, 1));
      expect(await sizeOf(journal)).toBeLessThan(2_000);
      await writer.close();
    } finally {
      await cp.close().catch(() => undefined);
    }
  }, 60_000);
});
