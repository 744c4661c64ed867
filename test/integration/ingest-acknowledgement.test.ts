import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { isQuerygateError } from '../../src/errors.js';
import { openDatabase } from '../../src/storage/database.js';
import { createLogWriter } from '../../src/storage/log-writer.js';
import { logSources } from '../helpers/shipped-sources.js';
import { openTempStore, storeEngine, type TempStore } from '../helpers/temp-store.js';

/**
 * A request is acknowledged once the ingest journal holds its records (fsynced), before DuckDB
 * commits them (storage/log-writer.ts): a query asked after the answer waits for that commit, and
 * records DuckDB refuses after their answer stay in the journal until an opening stores them.
 */

const source = 'postgres.logs';
let store: TempStore | undefined;

afterEach(async () => {
  await store?.close();
  store = undefined;
});

const events = (prefix: string, count: number) =>
  Array.from({ length: count }, (_, i) => ({
    id: `${prefix}-${i}`,
    event_message: `${prefix} ${i}`,
    metadata: { host: `h${i % 7}` },
  }));

describe('a request answered before DuckDB commits it', () => {
  it('is in the journal when answered, and a query asked after the answer reads every record of it', async () => {
    store = await openTempStore('querygate-ack-');
    const engine = await storeEngine(store);
    try {
      const sql = `SELECT count(*) AS n FROM \`${source}\` WHERE STARTS_WITH(event_message, 'acked ')`;
      const count = async () =>
        (await engine.run({ id: 'acked', name: 'acked', sql, maxRows: 1 }, {}, { now: new Date() })).rows;
      // The column's type settled and the query planned first, so the big request's commit is
      // still running when it is answered and the query asked.
      await store.writer.write(source, events('warm', 10));
      expect(await count()).toEqual([{ n: 0 }]);
      await store.writer.acknowledge(source, events('acked', 50_000));
      expect(await count()).toEqual([{ n: 50_000 }]);
      const journal = await readFile(`${store.db.path}.journal`, 'utf8');
      expect(journal).toContain('"id":"acked-49999"');
    } finally {
      await engine.close();
    }
  });

  it('keeps records DuckDB refused after their answer in the journal, and the next opening stores them', async () => {
    store = await openTempStore('querygate-ack-refused-');
    const { db, writer, connection } = store;
    await writer.write(source, events('before', 3));
    // The table goes behind the writer's back: its next commit fails, after the answer.
    await connection.run(`DROP TABLE "${source}"`);
    expect(await writer.acknowledge(source, events('refused', 5))).toEqual({ ingested: 5 });
    await writer.committed();
    // A checkpoint would empty the journal: it must keep what DuckDB has not stored.
    await writer.checkpoint();
    expect(await readFile(`${db.path}.journal`, 'utf8')).toContain('"id":"refused-4"');

    // write() answers only once committed: it says where the records are.
    const failure = await writer.write(source, events('written', 1)).catch((error: unknown) => error);
    expect(isQuerygateError(failure) && [failure.code, failure.status]).toEqual(['ENGINE_ERROR', 502]);
    expect((failure as Error).message).toMatch(
      /kept in the ingest journal and stored when the store next opens/,
    );

    await writer.close();
    const reopened = createLogWriter(db, { sources: logSources });
    try {
      await reopened.ready();
      const reader = await connection.runAndReadAll(`SELECT id FROM "${source}" ORDER BY id`);
      // The table is made again, and what the journal held since it was last emptied comes back:
      // the records dropped with the table as well as those DuckDB refused.
      expect(reader.getRowObjectsJS().map((row) => row.id)).toEqual([
        ...['before-0', 'before-1', 'before-2'],
        ...['refused-0', 'refused-1', 'refused-2', 'refused-3', 'refused-4'],
        'written-0',
      ]);
    } finally {
      await reopened.close();
    }
  });
});

describe('an opening that replays records DuckDB refuses', () => {
  it('stores the rest, keeps the refused ones in a file beside the journal, and opens', async () => {
    store = await openTempStore('querygate-replay-refused-');
    const path = join(store.dir, 'replayed.duckdb');
    const record = (id: string, timestamp: string) => ({
      id,
      timestamp,
      event_message: id,
      metadata: { host: 'h' },
      _extra: null,
    });
    // A microsecond count no TIMESTAMP holds: DuckDB refuses that record, and only it.
    const line = {
      source,
      records: [
        record('kept-1', '1700000000000000'),
        record('refused', '99999999999999999999'),
        record('kept-2', '1700000000000001'),
      ],
    };
    await writeFile(`${path}.journal`, `${JSON.stringify(line)}\n`);
    const db = await openDatabase(path);
    const writer = createLogWriter(db, { sources: logSources, log: { error() {}, warn() {} } });
    try {
      await writer.ready();
      const connection = await db.connect();
      const reader = await connection.runAndReadAll(`SELECT id FROM "${source}" ORDER BY id`);
      connection.closeSync();
      expect(reader.getRowObjectsJS().map((row) => row.id)).toEqual(['kept-1', 'kept-2']);
      const refused = (await readFile(`${path}.journal.refused`, 'utf8')).trim().split('\n');
      expect(refused.map((text) => JSON.parse(text) as { source: string; events: { id: string }[] })).toEqual(
        [{ source, events: [expect.objectContaining({ id: 'refused', timestamp: '99999999999999999999' })] }],
      );
    } finally {
      await writer.close();
      db.close();
    }
  });
});
