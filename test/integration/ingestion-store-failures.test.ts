import { existsSync } from 'node:fs';
import { mkdtemp, rename, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { DuckDBConnection } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isQuerygateError } from '../../src/errors.js';
import { type Querygate, startQuerygate } from '../../src/server.js';
import type { LogWriter } from '../../src/storage/log-writer.js';
import { leaksInternals, testApiKey, testConfig } from '../helpers/querygate-server.js';
import { openTempStore, type TempStore } from '../helpers/temp-store.js';

/**
 * Ingestion when the store fails, which is not the client's fault: a request DuckDB's commit
 * fails gets ENGINE_ERROR (502) with a reference to the log entry holding the store's reason
 * (never DuckDB's text or a path); the writer goes on working once the store does. Over HTTP a
 * request is answered once the journal holds it, and the store reopens to store what DuckDB
 * refused after that.
 */

async function failureOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => expect.fail('expected a rejection'),
    (error: unknown) => error,
  );
}

describe('the log writer when DuckDB fails a commit', () => {
  let store: TempStore | undefined;
  let writer: LogWriter;
  let connection: DuckDBConnection;
  const logged: Array<{ details: object; message: string }> = [];

  beforeAll(async () => {
    const log = { error: (details: object, message: string) => logged.push({ details, message }), warn() {} };
    store = await openTempStore('querygate-store-failure-', { log });
    ({ writer, connection } = store);
  });

  afterAll(async () => {
    await store?.close();
  });

  it('rejects every request of the group with ENGINE_ERROR (502) and logs DuckDB’s message under its reference', async () => {
    await connection.run('DROP TABLE "gotrue.logs.prod"');
    // Written in one tick, so the three requests are committed together.
    const failures = await Promise.all(
      [1, 2, 3].map((request) =>
        failureOf(writer.write('gotrue.logs.prod', [{ event_message: `lost ${request}` }])),
      ),
    );
    for (const error of failures) {
      expect(isQuerygateError(error) && [error.code, error.status]).toEqual(['ENGINE_ERROR', 502]);
      const message = (error as Error).message;
      expect(message).toMatch(
        /^Storing events in gotrue\.logs\.prod failed in the store; .* reference [0-9a-f-]{36}\)$/,
      );
      expect(message).not.toMatch(/Catalog Error/);
      const reference = message.match(/reference ([0-9a-f-]{36})/)?.[1];
      const entry = logged.find((line) => (line.details as { reference?: string }).reference === reference);
      expect(String((entry?.details as { err?: Error } | undefined)?.err?.message)).toMatch(/Catalog Error/);
    }
  });

  it('goes on storing into the other sources after a failed commit', async () => {
    expect(await writer.write('postgres.logs', [{ event_message: 'kept' }])).toEqual({ ingested: 1 });
    const reader = await connection.runAndReadAll('SELECT event_message FROM "postgres.logs"');
    expect(reader.getRowObjectsJS()).toEqual([{ event_message: 'kept' }]);
  });
});

describe('POST /api/logs when the store cannot write its batch file', () => {
  let dir: string;
  let app: Querygate;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'querygate-store-failure-rest-'));
    app = await startQuerygate(testConfig(dir));
  });

  afterAll(async () => {
    await app?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const ingest = async (eventMessage: string) => {
    const response = await fetch(new URL('/api/logs?source_name=cloudflare.logs.prod', app.url), {
      method: 'POST',
      headers: { 'x-api-key': testApiKey, 'content-type': 'application/json' },
      body: JSON.stringify({
        // logs.all reads edge records with metadata (CROSS JOIN UNNEST drops those without).
        batch: [
          { event_message: eventMessage, project: 'failure-ref', metadata: { request: { path: '/' } } },
        ],
      }),
    });
    return { status: response.status, text: await response.text() };
  };

  /** Polls /health until it answers `status`, for at most 20 s. */
  const healthTurns = async (status: number) => {
    for (const deadline = Date.now() + 20_000; Date.now() < deadline; ) {
      const response = await fetch(new URL('/health', app.url));
      await response.arrayBuffer();
      if (response.status === status) return;
      await new Promise((retry) => setTimeout(retry, 50));
    }
    expect.fail(`/health never answered ${status}`);
  };

  it('answers once the journal holds the records, reopens the store, and stores them once it can', async () => {
    // The data directory, where the commit writes its batch file, is gone while DuckDB and the
    // journal keep their files open: the requests are journaled (answered), their commit fails.
    await rename(dir, `${dir}.moved`);
    let responses: Array<{ status: number; text: string }>;
    try {
      responses = await Promise.all(['lost a', 'lost b', 'lost c'].map(ingest));
      // The store reopens to store what DuckDB refused, and cannot while the directory is gone.
      await healthTurns(503);
      // Its attempts (at once, then 1 s later) make no new store in the missing one's place,
      // where the records stored next would be lost when the right one comes back.
      await new Promise((attempts) => setTimeout(attempts, 1_500));
      expect(existsSync(dir)).toBe(false);
    } finally {
      await rename(`${dir}.moved`, dir);
    }
    expect(responses).toEqual(Array(3).fill({ status: 200, text: '{"message":"Logged!","ingested":1}' }));
    await healthTurns(200);

    expect(await ingest('stored')).toEqual({ status: 200, text: '{"message":"Logged!","ingested":1}' });
    const listed = await fetch(
      new URL('/api/endpoints/logs.all?project=failure-ref&project_tier=FREE', app.url),
      { headers: { 'x-api-key': testApiKey } },
    );
    const listedText = await listed.text();
    expect(leaksInternals(listedText)).toBe(false);
    const { result } = JSON.parse(listedText) as { result: Array<{ event_message: string }> };
    expect(result.map((row) => row.event_message).sort()).toEqual(['lost a', 'lost b', 'lost c', 'stored']);
  }, 60_000);
});
