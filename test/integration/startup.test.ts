import { mkdtemp, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { gzipSync } from 'node:zlib';
import { afterEach, describe, expect, it } from 'vitest';
import { loadConfig } from '../../src/config.js';
import { quoteIdent } from '../../src/endpoints/field-type.js';
import { createLogger } from '../../src/logger.js';
import { startQuerygate } from '../../src/server.js';
import { openDatabase } from '../../src/storage/database.js';
import {
  type EdgeEvent,
  edgeSource,
  fixtureNow,
  HOUR,
  isoAt,
  MINUTE,
  nowMicros,
  toIngestEvent,
} from '../fixtures/spec-fixture.js';
import { runQuerygate } from '../helpers/querygate-child.js';
import { testApiKey, testConfig } from '../helpers/querygate-server.js';
import { logSources } from '../helpers/shipped-sources.js';
import { expectedLogsAll } from '../helpers/spec-expectations.js';
import { readStoreFile } from '../helpers/store-file.js';

/**
 * What a start does to its data directory: the generated API key, demo data or none, and the
 * `import` command loading a file the server then serves.
 */

const dirs: string[] = [];

afterEach(async () => {
  for (const dir of dirs.splice(0)) await rm(dir, { recursive: true, force: true });
});

async function dataDir(): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'querygate-startup-'));
  dirs.push(dir);
  return dir;
}

/** A configuration on `dir` without QUERYGATE_API_KEYS, so a start generates or reads its key. */
function keylessConfig(dir: string, demo: '0' | '1') {
  return loadConfig({ PORT: '0', QUERYGATE_DATA_DIR: dir, QUERYGATE_DEMO: demo, LOG_LEVEL: 'silent' });
}

/** Starts querygate, lets `use` call it, and closes it whatever happens. */
async function whileRunning<T>(
  config: ReturnType<typeof loadConfig>,
  use: (app: Awaited<ReturnType<typeof startQuerygate>>) => Promise<T>,
  logLines?: string[],
): Promise<T> {
  const logger = logLines
    ? createLogger(
        'info',
        new Writable({
          write(chunk: Buffer, _encoding, done) {
            logLines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
            done();
          },
        }),
      )
    : undefined;
  const app = await startQuerygate(config, { now: () => fixtureNow, ...(logger ? { logger } : {}) });
  try {
    return await use(app);
  } finally {
    await app.close();
  }
}

/** Records in the nine source tables of a stopped server's store, counted with plain DuckDB. */
async function storedRecords(dir: string): Promise<number> {
  const database = await openDatabase(join(dir, 'querygate.duckdb'));
  const connection = await database.connect();
  try {
    const counts = logSources.map((source) => `(SELECT count(*) FROM ${quoteIdent(source.name)})`);
    const reader = await connection.runAndReadAll(`SELECT (${counts.join(' + ')})::INTEGER AS n`);
    return Number(reader.getRowObjectsJS()[0]?.n);
  } finally {
    connection.closeSync();
    database.close();
  }
}

async function statusOf(url: string, apiKey: string | undefined): Promise<number> {
  const response = await fetch(new URL('/api/endpoints', url), {
    headers: apiKey === undefined ? {} : { 'x-api-key': apiKey },
  });
  await response.body?.cancel();
  return response.status;
}

describe('the API key', () => {
  it('is generated on first start, kept in the data dir for its owner only, and reused on the next start', async () => {
    const dir = await dataDir();
    const first = await whileRunning(keylessConfig(dir, '0'), async (app) => {
      expect(app.apiKeys).toHaveLength(1);
      const [key = ''] = app.apiKeys;
      expect(key.length).toBeGreaterThanOrEqual(16);
      expect(await statusOf(app.url, key)).toBe(200);
      expect(await statusOf(app.url, undefined)).toBe(401);
      return key;
    });
    expect((await readFile(join(dir, 'api-key'), 'utf8')).trim()).toBe(first);
    expect((await stat(join(dir, 'api-key'))).mode & 0o777).toBe(0o600);

    await whileRunning(keylessConfig(dir, '0'), async (app) => {
      expect(app.apiKeys).toEqual([first]);
      expect(await statusOf(app.url, first)).toBe(200);
    });
  });

  it('is not generated when QUERYGATE_API_KEYS is set', async () => {
    const dir = await dataDir();
    await whileRunning(testConfig(dir), async (app) => {
      expect(app.apiKeys).toEqual([testApiKey]);
    });
    await expect(stat(join(dir, 'api-key'))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});

describe('demo data', () => {
  it('is not loaded with QUERYGATE_DEMO=0: the store stays empty', async () => {
    const dir = await dataDir();
    await whileRunning(keylessConfig(dir, '0'), async (app) => {
      expect(app.demoEvents).toBe(0);
    });
    expect(await storedRecords(dir)).toBe(0);
  });

  it('fills an empty store on first start, saying how far it is, and is not loaded again on the next start', async () => {
    const dir = await dataDir();
    const log: string[] = [];
    const seeded = await whileRunning(keylessConfig(dir, '1'), async (app) => app.demoEvents, log);
    expect(seeded).toBeGreaterThan(1000);
    expect(await storedRecords(dir)).toBe(seeded);
    // A line at the start and one per further tenth, the last at all of them.
    const progress = log
      .map((line) => JSON.parse(line) as { msg: string; sent?: number; total?: number })
      .filter((line) => line.msg.startsWith('demo logs: '));
    expect(progress.length).toBeGreaterThanOrEqual(6);
    expect(progress[0]).toMatchObject({ sent: 0, total: seeded });
    expect(progress.at(-1)).toMatchObject({
      sent: seeded,
      total: seeded,
      msg: `demo logs: ${seeded} of ${seeded} events written`,
    });

    await whileRunning(keylessConfig(dir, '1'), async (app) => {
      expect(app.demoEvents).toBe(0);
    });
    expect(await storedRecords(dir)).toBe(seeded);
  });
});

describe('querygate import', () => {
  const project = 'import-ref';
  /** Edge requests of the last hours of the fixture's now, one without metadata. */
  const events: EdgeEvent[] = [0, 1, 2, 3].map((n) => {
    const micros = nowMicros - (n + 1) * HOUR - n * MINUTE;
    const path = `/rest/v1/import-${n}`;
    return {
      source: edgeSource,
      id: `import-${n}`,
      micros,
      timestamp: isoAt(micros, n === 2 ? 120 : 0),
      event_message: `GET ${path}`,
      project,
      ...(n === 3
        ? {}
        : {
            metadata: {
              request: { url: `https://${project}.supabase.co${path}`, path, method: 'GET', host: 'h' },
              response: { status_code: 200 + n, origin_time: n },
            },
          }),
    };
  });

  it('loads an .ndjson.gz file through the CLI into the store the server then answers from', async () => {
    const dir = await dataDir();
    const file = join(dir, 'events.ndjson.gz');
    await writeFile(
      file,
      gzipSync(`${events.map((event) => JSON.stringify(toIngestEvent(event))).join('\n')}\n`),
    );

    const { code, stdout, stderr } = await runQuerygate(['import', '--source', edgeSource, file], {
      QUERYGATE_DATA_DIR: dir,
    });
    expect(code, stderr).toBe(0);
    expect(stdout).toMatch(
      new RegExp(`^Imported ${events.length} events into ${edgeSource.replaceAll('.', '\\.')} `),
    );
    // The store's copy of the integer-text fields counts the rows imported: the start reads it,
    // not every value (present-records.ts).
    const copy = await readStoreFile(join(dir, 'querygate.duckdb'), async (connection) =>
      (
        await connection.runAndReadAll(
          `SELECT row_count = (SELECT count(*) FROM ${quoteIdent(edgeSource)}) FROM _querygate_integer_texts WHERE source = $source`,
          { source: edgeSource },
        )
      ).getRows(),
    );
    expect(copy).toEqual([[true]]);

    const params = { project, project_tier: 'FREE' };
    await whileRunning(testConfig(dir), async (app) => {
      const url = new URL('/api/endpoints/logs.all', app.url);
      for (const [name, value] of Object.entries(params)) url.searchParams.set(name, value);
      const response = await fetch(url, { headers: { 'x-api-key': testApiKey } });
      expect(response.status).toBe(200);
      expect(await response.json()).toEqual({ result: expectedLogsAll(events, params, fixtureNow) });
    });
  });
});
