import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, describe, expect, it } from 'vitest';
import { mulberry32 } from '../../bench/generate-logs.js';
import { outputMatching, spawnQuerygate } from '../helpers/querygate-child.js';
import { readStoreFile } from '../helpers/store-file.js';

/**
 * "A crash mid-migration leaves the old or the new table, never neither": a store holding a
 * table source under its first declaration, a changed declaration (a column added, INT64 widened
 * to NUMERIC, a nested field added inside a REPEATED RECORD, DATETIME columns and fields stored as
 * TIMESTAMP_NS by an older querygate made TIMESTAMPTZ), and the real server started on it
 * and SIGKILLed at seeded random moments while it migrates at start. After each kill, DuckDB
 * alone must open the file and find the table under one of the two schemas with every row and
 * every value. One clean start first measures the window to aim at: from the moment the backend
 * begins opening the store (it makes its ingest-batches directory just before) to the log line
 * saying the migration was committed.
 */

const kills = 3;
const seed = 20_261_128;
const rowCount = 200_000;
const apiKey = 'querygate-migration-crash-key-0123456789';

const oldTypes = [
  'id BIGINT',
  'amount BIGINT',
  'tags STRUCT(n BIGINT, seen TIMESTAMP_NS)[]',
  'seen TIMESTAMP_NS',
];
const newTypes = [
  'id BIGINT',
  'amount DECIMAL(38,9)',
  'tags STRUCT(n BIGINT, seen TIMESTAMP WITH TIME ZONE, k VARCHAR)[]',
  'seen TIMESTAMP WITH TIME ZONE',
  'note VARCHAR',
];

// What the rows hold, from range() itself: each id once, amount = id * 3, tags [{n: id, seen}],
// seen 2024-01-01 00:00:00 UTC plus id microseconds (1704067200000000 + id since the epoch).
const expectedSums = { rows: rowCount, ids: (rowCount * (rowCount - 1)) / 2 };

const dir = mkdtempSync(join(tmpdir(), 'querygate-migration-crash-'));
const queries = join(dir, 'queries');
const pristine = join(dir, 'pristine.duckdb');
const dataDir = join(dir, 'data');
const store = join(dataDir, 'querygate.duckdb');

async function makePristineStore(): Promise<void> {
  const instance = await DuckDBInstance.create(pristine);
  const connection = await instance.connect();
  await connection.run(
    'CREATE TABLE visits (id BIGINT, amount BIGINT, tags STRUCT(n BIGINT, seen TIMESTAMP_NS)[], seen TIMESTAMP_NS)',
  );
  await connection.run(
    `INSERT INTO visits SELECT range, range * 3, [{'n': range, 'seen': make_timestamp_ns((1704067200000000 + range) * 1000)}], make_timestamp_ns((1704067200000000 + range) * 1000) FROM range(${rowCount})`,
  );
  connection.closeSync();
  instance.closeSync();
}

function writeQueries(): void {
  mkdirSync(queries, { recursive: true });
  const columns = [
    { name: 'id', type: 'INTEGER' },
    { name: 'amount', type: 'NUMERIC' },
    {
      name: 'tags',
      type: 'RECORD',
      mode: 'REPEATED',
      fields: [
        { name: 'n', type: 'INTEGER' },
        { name: 'seen', type: 'DATETIME' },
        { name: 'k', type: 'STRING' },
      ],
    },
    { name: 'seen', type: 'DATETIME' },
    { name: 'note', type: 'STRING' },
  ];
  writeFileSync(
    join(queries, 'sources.yaml'),
    `sources:\n  - kind: table\n    name: visits\n    columns: ${JSON.stringify(columns)}\n`,
  );
  writeFileSync(join(queries, 'visits.count.sql'), 'SELECT COUNT(*) AS visits FROM visits\n');
  writeFileSync(
    join(queries, 'visits.count.yaml'),
    'name: visits.count\nid: 0e6a2c4b-1d3f-4a5b-9c7d-8e9f0a1b2c3d\ndescription: Visits.\nmaxRows: 1\ncacheSeconds: 0\nwarmSeconds: null\nsandboxed: false\nparameters: []\ncolumns:\n  visits: { description: How many. }\n',
  );
}

/** Resolves (with the moment) once the server's backend begins opening the store. */
async function storeOpening(): Promise<number> {
  while (!existsSync(join(dataDir, 'ingest-batches'))) await new Promise((wait) => setTimeout(wait, 5));
  return performance.now();
}

function resetStore(): void {
  rmSync(dataDir, { recursive: true, force: true });
  mkdirSync(dataDir, { recursive: true });
  copyFileSync(pristine, store);
}

/** The table as DuckDB alone finds it: its column types, and sums over every row and value. */
function storedTable() {
  return readStoreFile(store, async (connection) => {
    const types = (
      await connection.runAndReadAll(
        `SELECT column_name || ' ' || data_type FROM information_schema.columns WHERE table_name = 'visits' ORDER BY ordinal_position`,
      )
    )
      .getRows()
      .map(([line]) => String(line));
    const [sums] = (
      await connection.runAndReadAll(
        `SELECT count(*), sum(id), count(*) FILTER (WHERE amount = id * 3), count(*) FILTER (WHERE tags[1].n = id AND len(tags) = 1), count(*) FILTER (WHERE epoch_us(seen) = 1704067200000000 + id AND epoch_us(tags[1].seen) = 1704067200000000 + id) FROM visits`,
      )
    ).getRows();
    const [rows, ids, amounts, tags, seen] = (sums ?? []).map(Number);
    return { types, rows, ids, amounts, tags, seen };
  });
}

function expectOldOrNew(table: Awaited<ReturnType<typeof storedTable>>, context: string): 'old' | 'new' {
  expect([oldTypes, newTypes], `${context}: the table has neither schema`).toContainEqual(table.types);
  expect({ rows: table.rows, ids: table.ids }, context).toEqual(expectedSums);
  expect({ amounts: table.amounts, tags: table.tags, seen: table.seen }, context).toEqual({
    amounts: rowCount,
    tags: rowCount,
    seen: rowCount,
  });
  return table.types.length === oldTypes.length ? 'old' : 'new';
}

describe('kill -9 while a table source is migrated at start', () => {
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('leaves the table under the old or the new schema with every row, whenever the process dies', async () => {
    await makePristineStore();
    writeQueries();
    resetStore();
    // A clean start: the migration runs to the end. The kills aim at the time it took from the
    // store's opening to the log line saying the table was migrated, and a little past it.
    let output = '';
    const clean = spawnQuerygate({ queries, dataDir, apiKey, onOutput: (text) => (output += text) });
    const cleanExit = new Promise((done) => clean.once('exit', done));
    const opened = await storeOpening();
    await outputMatching(clean, () => output, /table visits migrated to its declaration/);
    const windowMs = (performance.now() - opened) * 1.25;
    await outputMatching(clean, () => output, /listening on/);
    clean.kill('SIGKILL');
    await cleanExit;
    expect(expectOldOrNew(await storedTable(), 'after a clean start')).toBe('new');

    const random = mulberry32(seed);
    const outcomes: string[] = [];
    for (let kill = 0; kill < kills; kill += 1) {
      resetStore();
      const delayMs = Math.round(random() * windowMs);
      const child = spawnQuerygate({ queries, dataDir, apiKey, onOutput: () => {} });
      const exited = new Promise((done) => child.once('exit', done));
      await storeOpening();
      await new Promise((wait) => setTimeout(wait, delayMs));
      // Killed whether or not it listens yet: the moment is what the seed picked.
      child.kill('SIGKILL');
      await exited;
      outcomes.push(`${delayMs} ms: ${expectOldOrNew(await storedTable(), `killed after ${delayMs} ms`)}`);
    }
    console.info(
      `migration crash test: kills within ${Math.round(windowMs)} ms of the store opening, after ${outcomes.join(', ')}`,
    );
  }, 300_000);
});
