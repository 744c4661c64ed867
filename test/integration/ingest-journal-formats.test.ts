import { mkdtemp, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openDatabase } from '../../src/storage/database.js';
import { createLogWriter } from '../../src/storage/log-writer.js';
import { logSources } from '../helpers/shipped-sources.js';
import { readStoreFile } from '../helpers/store-file.js';

/**
 * The ingest journal holds each batch's records as the NDJSON lines DuckDB read (one
 * serialisation per record); journals written before that hold `events` arrays. A store whose
 * journal holds records its tables lack (a WAL set aside) restores them from either format,
 * conflicts kept in `_extra`. The journal here is written by hand, so what is expected is what
 * the lines say, read back with plain DuckDB.
 */

// 2024-05-01T12:00:00.123456Z and 12:00:01.5Z, in microseconds since the epoch.
const lines = [
  // The first format: [id, timestamp, event_message, project, metadata, extra].
  JSON.stringify({
    source: 'postgres.logs',
    events: [['old-1', '1714564800123456', 'from the old format', 'p1', { host: 'db-1' }, { level: 'info' }]],
  }),
  // Records as recordLine writes them: `metadata.host` conflicted (a number) and went to _extra.
  JSON.stringify({
    source: 'postgres.logs',
    records: [
      {
        id: 'new-1',
        timestamp: '1714564801500000',
        event_message: 'from the record format',
        project: 'p2',
        metadata: { host: null, parsed: { error_severity: 'ERROR' } },
        _extra: { 'metadata.host': 42, level: 'warn' },
      },
      {
        id: 'new-2',
        timestamp: '1714564801500000',
        event_message: 'no extra',
        project: null,
        metadata: null,
        _extra: null,
      },
    ],
  }),
];

describe('replaying an ingest journal of either format into a store that lacks its records', () => {
  let dir: string;
  let path: string;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'querygate-journal-formats-'));
    path = join(dir, 'logs.duckdb');
    await writeFile(`${path}.journal`, `${lines.join('\n')}\n`);
    const db = await openDatabase(path);
    const writer = createLogWriter(db, { sources: logSources });
    await writer.ready();
    await writer.close();
    db.close();
  });

  afterAll(async () => {
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('stores every journaled record with its timestamp, project, metadata and _extra as the lines hold them', async () => {
    const rows = await readStoreFile(path, async (connection) => {
      const reader = await connection.runAndReadAll(
        `SELECT id, strftime("timestamp", '%Y-%m-%dT%H:%M:%S.%fZ') AS ts, event_message, project,
           metadata.host AS host, metadata.parsed.error_severity AS severity, _extra::VARCHAR AS extra
         FROM "postgres.logs" ORDER BY id`,
      );
      return reader.getRowObjectsJS();
    });
    expect(rows).toEqual([
      {
        id: 'new-1',
        ts: '2024-05-01T12:00:01.500000Z',
        event_message: 'from the record format',
        project: 'p2',
        host: null,
        severity: 'ERROR',
        extra: '{"metadata.host":42,"level":"warn"}',
      },
      {
        id: 'new-2',
        ts: '2024-05-01T12:00:01.500000Z',
        event_message: 'no extra',
        project: null,
        host: null,
        severity: null,
        extra: null,
      },
      {
        id: 'old-1',
        ts: '2024-05-01T12:00:00.123456Z',
        event_message: 'from the old format',
        project: 'p1',
        host: 'db-1',
        severity: null,
        extra: '{"level":"info"}',
      },
    ]);
  });

  it('empties the journal once the restored records are checkpointed', async () => {
    expect((await stat(`${path}.journal`)).size).toBe(0);
  });
});
