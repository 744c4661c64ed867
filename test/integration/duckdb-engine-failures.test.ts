import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { generateBenchLogs } from '../../bench/generate-logs.js';
import { createDuckDbEngine } from '../../src/backends/duckdb/engine.js';
import { loadConfig } from '../../src/config.js';
import { loadEndpointRegistry } from '../../src/endpoints/registry.js';
import type { TableSource } from '../../src/endpoints/table-source.js';
import { isQuerygateError } from '../../src/errors.js';
import { packageRoot, queriesDir } from '../../src/paths.js';
import { type Querygate, startQuerygate } from '../../src/server.js';
import { type Database, openDatabase } from '../../src/storage/database.js';
import { createLogWriter } from '../../src/storage/log-writer.js';
import { createTableWriter } from '../../src/storage/table-writer.js';
import { ensureWarehouseTables } from '../../src/storage/warehouse-tables.js';
import { createEndpointEngine, type EndpointEngine, endpointNamed } from '../helpers/endpoint-engine.js';
import { leaksInternals, testApiKey } from '../helpers/querygate-server.js';
import { logSources } from '../helpers/shipped-sources.js';

/**
 * The DuckDB engine's two failures on a real store: a query running past its deadline is
 * interrupted (ENGINE_TIMEOUT, 504), and a query DuckDB refuses fails (ENGINE_ERROR, 502).
 */

const now = new Date('2026-05-15T12:00:00Z');
const timeoutMs = 1;
// 100k edge requests over one day (about 2 s through the bulk path on 2 cores). usage.api-counts
// with a pattern every url matches reads them all through RE2: 30-500 ms here, far beyond the
// 1 ms deadline and the 5 ms at which the engine repeats an interrupt DuckDB dropped.
const edgeRows = 100_000;
// The generator's five projects are project-00 to project-04.
const everyUrl = { project: 'project-0[0-4]', interval: 'daily' };

/** The real server on port 0 over the store in `dir`, with the test key and no demo data. */
function serveStore(
  dir: string,
  env: Readonly<Record<string, string>>,
  options: Parameters<typeof startQuerygate>[1],
): Promise<Querygate> {
  return startQuerygate(
    loadConfig({
      PORT: '0',
      QUERYGATE_DATA_DIR: dir,
      QUERYGATE_DEMO: '0',
      QUERYGATE_API_KEYS: testApiKey,
      ...env,
    }),
    options,
  );
}

async function failureOf(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => expect.fail('expected a rejection'),
    (error: unknown) => error,
  );
}

describe('a query running past its deadline', () => {
  let dir: string;
  let database: Database | undefined;
  let app: Querygate | undefined;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'querygate-deadline-'));
    database = await openDatabase(join(dir, 'querygate.duckdb'));
    const writer = createLogWriter(database, { sources: logSources });
    await generateBenchLogs(writer, { now, edgeRows, relayRows: 0, projects: 5, days: 1 });
    await writer.close();
  });

  afterAll(async () => {
    await app?.close();
    database?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  const engineWith = (options: { timeoutMs: number }) =>
    createDuckDbEngine({
      database: database as Database,
      sources: logSources,
      queries: [],
      queriesDir,
      timeoutMs: options.timeoutMs,
    });

  it('is interrupted and rejects with ENGINE_TIMEOUT (504) naming the endpoint and the deadline', async () => {
    const endpoint = endpointNamed(loadEndpointRegistry(queriesDir), 'usage.api-counts');
    const patient = await engineWith({ timeoutMs: 60_000 });
    const hasty = await engineWith({ timeoutMs });
    try {
      // The control: without a deadline the same call runs to its end, well past the deadline.
      const started = performance.now();
      const { rows } = await patient.run(endpoint, everyUrl, { now });
      const untimedMs = performance.now() - started;
      expect(rows.reduce((sum, row) => sum + Number(row.total_rest_requests), 0)).toBeGreaterThan(0);
      expect(untimedMs).toBeGreaterThan(10 * timeoutMs);

      for (let attempt = 0; attempt < 3; attempt++) {
        const error = await failureOf(hasty.run(endpoint, everyUrl, { now }));
        expect(isQuerygateError(error) && [error.code, error.status]).toEqual(['ENGINE_TIMEOUT', 504]);
        expect((error as Error).message).toBe(`usage.api-counts did not finish within ${timeoutMs} ms`);
      }
    } finally {
      await patient.close();
      await hasty.close();
    }
  });

  it('answers 504 with the error body over REST when QUERYGATE_QUERY_TIMEOUT_MS is 1', async () => {
    database?.close();
    database = undefined;
    app = await serveStore(
      dir,
      { QUERYGATE_QUERY_TIMEOUT_MS: String(timeoutMs), LOG_LEVEL: 'silent' },
      { now: () => now },
    );
    const url = new URL('/api/endpoints/usage.api-counts', app.url);
    for (const [name, value] of Object.entries(everyUrl)) url.searchParams.set(name, value);
    const response = await fetch(url, { headers: { 'x-api-key': testApiKey } });
    const text = await response.text();
    expect(response.status, text).toBe(504);
    expect(response.headers.get('content-type')).toMatch(/^application\/json\b/);
    expect(JSON.parse(text)).toEqual({
      error: { code: 'ENGINE_TIMEOUT', message: `usage.api-counts did not finish within ${timeoutMs} ms` },
    });
    expect(leaksInternals(text)).toBe(false);
  });
});

describe('a query DuckDB refuses', () => {
  let store: EndpointEngine;

  beforeAll(async () => {
    store = await createEndpointEngine();
  });

  afterAll(async () => {
    await store?.close();
  });

  it('rejects with ENGINE_ERROR (502) when its source table was dropped after it last ran', async () => {
    const endpoint = endpointNamed(store.registry, 'usage.api-counts');
    const params = { project: 'any', interval: 'daily' };
    expect((await store.engine.run(endpoint, params, { now })).rows).toEqual([]);
    await store.scratch.duckdb('DROP TABLE "cloudflare.logs.prod"');
    const error = await failureOf(store.engine.run(endpoint, params, { now }));
    expect(isQuerygateError(error) && [error.code, error.status]).toEqual(['ENGINE_ERROR', 502]);
    expect((error as Error).message).toMatch(/^usage\.api-counts failed on DuckDB: .*cloudflare\.logs\.prod/);
  });

  it('rejects with ENGINE_ERROR (502) when a column it reads was renamed underneath', async () => {
    const endpoint = endpointNamed(store.registry, 'functions.invocation-stats');
    await store.scratch.duckdb('ALTER TABLE "deno-relay-logs" RENAME COLUMN metadata TO meta');
    const error = await failureOf(store.engine.run(endpoint, { project: 'any', interval: '1hr' }, { now }));
    expect(isQuerygateError(error) && [error.code, error.status]).toEqual(['ENGINE_ERROR', 502]);
    expect((error as Error).message).toMatch(/^functions\.invocation-stats failed on DuckDB: .*metadata/);
  });
});

describe('a query that fails in the store rather than for its SQL', () => {
  // Supabase's sandboxed logs.all, whose caller SQL can be made to sort more than DuckDB's 32 MB:
  // the sort spills to `<store>.tmp/`, which is here a file, so DuckDB fails with an IO Error
  // naming the server's data directory. That path is the operator's, never the caller's.
  let dir: string;
  let app: Querygate | undefined;
  const logged: Array<Record<string, unknown>> = [];
  const call = async (sql: string) => {
    const url = new URL('/api/endpoints/query/logs.all', app?.url);
    url.searchParams.set('project', 'default');
    url.searchParams.set('sql', sql);
    const response = await fetch(url, { headers: { 'x-api-key': testApiKey } });
    return { status: response.status, text: await response.text() };
  };
  // Two million rows of a 32-character text to sort: far past 32 MB, so the sort must spill.
  const spilling = (rows: number) =>
    `select count(*) as n from (select to_hex(md5(cast(a * 1000 + b as string))) as h from unnest(generate_array(1, ${rows / 1000})) as a, unnest(generate_array(1, 1000)) as b order by h limit ${rows - 1})`;

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'querygate-store-fault-'));
    const logger = pino({ level: 'error' }, { write: (line: string) => logged.push(JSON.parse(line)) });
    app = await serveStore(
      dir,
      { QUERYGATE_QUERIES_DIR: join(packageRoot, 'supabase'), QUERYGATE_DUCKDB_MEMORY_LIMIT: '32MB' },
      { logger },
    );
    await rm(join(dir, 'querygate.duckdb.tmp'), { recursive: true, force: true });
    await writeFile(join(dir, 'querygate.duckdb.tmp'), 'not a directory');
  });

  afterAll(async () => {
    await app?.close();
    if (dir) await rm(dir, { recursive: true, force: true });
  });

  it('answers 502 ENGINE_ERROR with a reference, and logs DuckDB’s message naming the file under it', async () => {
    // The control: the same SQL over a thousand rows sorts in memory and answers.
    const small = await call(spilling(1000));
    expect(small.status, small.text).toBe(200);
    expect(JSON.parse(small.text)).toEqual({ result: [{ n: 999 }] });

    const failed = await call(spilling(2_000_000));
    expect(failed.status, failed.text).toBe(502);
    const { error } = JSON.parse(failed.text) as { error: { code: string; message: string } };
    expect(error.code).toBe('ENGINE_ERROR');
    expect(error.message).toMatch(
      /^logs\.all failed in the store, not for its SQL or values \(the server log has the details under reference [0-9a-f-]{36}\)$/,
    );
    expect(failed.text).not.toContain(dir);
    expect(leaksInternals(failed.text)).toBe(false);
    const reference = /reference ([0-9a-f-]{36})/.exec(error.message)?.[1];
    const entry = logged.find((line) => line.reference === reference);
    expect((entry?.err as { message?: string } | undefined)?.message).toMatch(
      new RegExp(`^IO Error: .*${join(dir, 'querygate.duckdb.tmp').replaceAll('/', '\\/')}`),
    );
  });
});

describe('work running when its part of the store closes', () => {
  // The store closes its engine at shutdown and when it reopens after a fatal error, each after
  // waiting a while for the calls under way. DuckDB's client leaves the promise of a query whose
  // connection is closed under it pending for ever (its caller hung and held its slot).
  it('a query on the engine is stopped and rejects with NOT_READY (503), and a later call does too', async () => {
    const database = await openDatabase(':memory:');
    const engine = await createDuckDbEngine({
      database,
      sources: logSources,
      queries: [],
      queriesDir,
      timeoutMs: 60_000,
    });
    // A trillion-row cross join: minutes of work, stopped only by an interrupt.
    const endless = {
      id: 'endless',
      name: 'endless',
      sql: 'SELECT COUNT(*) AS n FROM UNNEST(GENERATE_ARRAY(1, 1000000)) AS a CROSS JOIN UNNEST(GENERATE_ARRAY(1, 1000000)) AS b',
      maxRows: 1,
    };
    try {
      // Warmed first (the SQL parser loads on the first translation), so it is running at 300 ms.
      await engine.run({ id: 'warm', name: 'warm', sql: 'SELECT 1 AS n', maxRows: 1 }, {}, { now });
      const running = failureOf(engine.run(endless, {}, { now }));
      await new Promise((resolve) => setTimeout(resolve, 300));
      const started = performance.now();
      await engine.close();
      const error = await running;
      expect(isQuerygateError(error) && [error.code, error.status]).toEqual(['NOT_READY', 503]);
      expect(performance.now() - started).toBeLessThan(2_000);
      const later = await failureOf(engine.run(endless, {}, { now }));
      expect(isQuerygateError(later) && later.code).toBe('NOT_READY');
    } finally {
      database.close();
    }
  });

  it('a table write under way settles (stored, or 503 NOT_READY), and later writes answer 503', async () => {
    const database = await openDatabase(':memory:');
    const source: TableSource = {
      kind: 'table',
      name: 'closing_rows',
      description: '',
      columns: [
        { name: 'a', type: 'INT64', mode: 'NULLABLE' },
        { name: 'b', type: 'STRING', mode: 'NULLABLE' },
      ],
    };
    const setup = await database.connect();
    await ensureWarehouseTables(setup, [source]);
    setup.closeSync();
    const writer = await createTableWriter(database, [source]);
    try {
      const rows = Array.from({ length: 20_000 }, (_, a) => ({ a, b: `row ${a}` }));
      const writing = writer.write(source.name, rows).then(
        () => 'stored',
        (error: unknown) => (isQuerygateError(error) ? error.code : String(error)),
      );
      // Its turn has begun: DuckDB holds the statement.
      await new Promise((resolve) => setImmediate(resolve));
      await writer.close();
      expect(['stored', 'NOT_READY']).toContain(await writing);
      const later = await failureOf(writer.write(source.name, rows.slice(0, 1)));
      expect(isQuerygateError(later) && [later.code, later.status]).toEqual(['NOT_READY', 503]);
    } finally {
      database.close();
    }
  });
});
