import { existsSync } from 'node:fs';
import { mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isQuerygateError } from '../../src/errors.js';
import { type Database, openDatabase } from '../../src/storage/database.js';
import { createLogWriter, type LogWriter } from '../../src/storage/log-writer.js';
import { logSources } from '../helpers/shipped-sources.js';

/**
 * "Acknowledged means fsynced": a request is answered only once DuckDB committed its records and
 * the ingest journal holds them on disk. Here the journal is /dev/full, where every write fails
 * (ENOSPC) while DuckDB commits normally, so every request of a group that DuckDB committed
 * together must still be refused, and the group must not be committed again one request at a
 * time (its records are in DuckDB already).
 */
describe.skipIf(!existsSync('/dev/full'))('the log writer when the ingest journal cannot be written', () => {
  let dir: string;
  let db: Database;
  let writer: LogWriter;
  let connection: DuckDBConnection;
  const logged: Array<{ details: object; message: string }> = [];

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'querygate-journal-failure-'));
    const path = join(dir, 'logs.duckdb');
    await symlink('/dev/full', `${path}.journal`);
    db = await openDatabase(path);
    const log = { error: (details: object, message: string) => logged.push({ details, message }), warn() {} };
    writer = createLogWriter(db, { sources: logSources, log });
    await writer.ready();
    connection = await db.connect();
  });

  afterAll(async () => {
    await writer?.close();
    connection?.closeSync();
    db?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('refuses every request of a group DuckDB committed with ENGINE_ERROR (502), and commits none of it twice', async () => {
    const ids = ['a', 'b', 'c'].map((request) => [`${request}-1`, `${request}-2`]);
    // Written in one tick, so the three requests are committed together, then journaled together.
    const outcomes = await Promise.allSettled(
      ids.map((pair) =>
        writer.write(
          'postgres.logs',
          pair.map((id) => ({ id, event_message: `journal failure ${id}` })),
        ),
      ),
    );
    for (const outcome of outcomes) {
      expect(outcome.status).toBe('rejected');
      const error = (outcome as PromiseRejectedResult).reason as Error;
      expect(isQuerygateError(error) && [error.code, error.status]).toEqual(['ENGINE_ERROR', 502]);
      expect(error.message).toMatch(
        /^Storing events in postgres\.logs failed in the store; nothing of this request was acknowledged \(the server log has the details under reference [0-9a-f-]{36}\)$/,
      );
      expect(error.message).not.toContain(dir);
      // The log has the journal's own error under the reference the client got.
      const reference = error.message.match(/reference ([0-9a-f-]{36})/)?.[1];
      const entry = logged.find((line) => (line.details as { reference?: string }).reference === reference);
      expect((entry?.details as { err?: NodeJS.ErrnoException } | undefined)?.err?.code).toBe('ENOSPC');
    }
    // Committed though the journal failed (the commit does not wait for its fsync), but once: a
    // retry one by one would have doubled them. A query waits for the commit; so does this read.
    await writer.committed();
    const reader = await connection.runAndReadAll(
      `SELECT id, count(*)::INTEGER AS copies FROM "postgres.logs" WHERE event_message LIKE 'journal failure %' GROUP BY id ORDER BY id`,
    );
    expect(reader.getRowObjectsJS()).toEqual(ids.flat().map((id) => ({ id, copies: 1 })));
  });
});
