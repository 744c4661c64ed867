import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import type { DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isQuerygateError } from '../../src/errors.js';
import { importLogFile } from '../../src/storage/log-import.js';
import type { LogWriter } from '../../src/storage/log-writer.js';
import { openTempStore, type TempStore } from '../helpers/temp-store.js';

const source = 'gotrue.logs.prod';

let store: TempStore | undefined;
let dir: string;
let writer: LogWriter;
let connection: DuckDBConnection;

beforeAll(async () => {
  store = await openTempStore('querygate-import-');
  ({ dir, writer, connection } = store);
});

afterAll(async () => {
  await store?.close();
});

function events(prefix: string, count: number): string[] {
  return Array.from({ length: count }, (_, i) =>
    JSON.stringify({ event_message: `${prefix} ${i}`, metadata: { status: 200 + i, level: 'info' } }),
  );
}

async function stored(prefix: string): Promise<{ n: number; statuses: number }> {
  const reader = await connection.runAndReadAll(
    `SELECT count(*)::INTEGER AS n, coalesce(sum(metadata.status), 0)::INTEGER AS statuses
     FROM "${source}" WHERE starts_with(event_message, $prefix)`,
    { prefix: `${prefix} ` },
  );
  return reader.getRowObjectsJS()[0] as { n: number; statuses: number };
}

describe('importLogFile', () => {
  it('imports an NDJSON file in batches, skipping blank lines', async () => {
    const file = join(dir, 'plain.ndjson');
    const lines = events('plain', 25);
    await writeFile(file, `${lines.slice(0, 10).join('\n')}\n\n${lines.slice(10).join('\r\n')}\n`);
    expect(await importLogFile(writer, source, file, { batchSize: 7 })).toBe(25);
    expect(await stored('plain')).toEqual({ n: 25, statuses: 25 * 200 + (24 * 25) / 2 });
  });

  it('imports a gzip-compressed NDJSON file', async () => {
    const file = join(dir, 'packed.ndjson.gz');
    await writeFile(file, gzipSync(`${events('packed', 12).join('\n')}\n`));
    expect(await importLogFile(writer, source, file)).toBe(12);
    expect((await stored('packed')).n).toBe(12);
  });

  it('names the line of malformed JSON and stores every event before it', async () => {
    const file = join(dir, 'broken.ndjson');
    const lines = events('broken', 6);
    lines.splice(4, 0, '{"event_message": "broken 4", oops}');
    await writeFile(file, lines.join('\n'));
    const error = await importLogFile(writer, source, file, { batchSize: 3 }).catch((e: unknown) => e);
    expect(isQuerygateError(error) && error.code).toBe('BAD_REQUEST');
    expect((error as Error).message).toContain('line 5: not valid JSON');
    expect((await stored('broken')).n).toBe(4);
  });

  it('names the line of an event the writer refuses and stores every event before it', async () => {
    const file = join(dir, 'refused.ndjson');
    const lines = events('refused', 6);
    lines.splice(4, 0, JSON.stringify({ event_message: 'refused x', timestamp: 'not a time' }));
    await writeFile(file, lines.join('\n'));
    const error = await importLogFile(writer, source, file, { batchSize: 3 }).catch((e: unknown) => e);
    expect((error as Error).message).toMatch(/line 5: timestamp "not a time" is neither/);
    expect((error as Error).message).toContain('the 4 events before it are stored');
    expect((await stored('refused')).n).toBe(4);
  });
});
