import { copyFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { quoteIdent } from '../src/endpoints/field-type.js';
import { openDatabase } from '../src/storage/database.js';

/**
 * A larger store of the demo's traffic shape, made from a smaller one in DuckDB's own SQL: the
 * demo's generator writes some 15-25k records/s on this machine (10M edge records are 22M
 * records of the nine sources, a quarter of an hour or more), DuckDB copies them at millions a
 * second. Each record is kept once as it is and copied `factor - 1` more times (the last copy for
 * a share of the records when `factor` is not whole) with a fresh id and its timestamp moved by
 * up to 30 s either way, kept inside the store's window; so the rates over time, the mix of
 * paths, statuses, projects and functions, and every field's shape stay the demo's, at `factor`
 * times the volume. Rows are ordered by timestamp, as the log writer appends arriving traffic.
 * The keys one source's records are joined to another's by (`joinKeys`) are made fresh in each
 * copy too, the same way in both sources, so a copy's records meet only their own partners.
 */
export async function scaleStudioStore(
  basePath: string,
  path: string,
  { factor, now, spanMs }: { factor: number; now: Date; spanMs: number },
): Promise<{ seconds: number; records: Record<string, number> }> {
  const started = performance.now();
  copyFileSync(basePath, path);
  // Generation only: the sort of 22M wide rows wants more than the server's 256 MB.
  const database = await openDatabase(path, { memoryLimit: '4GB' });
  const connection = await database.connect();
  const records: Record<string, number> = {};
  try {
    // The records' tables (those with an id): a source's rollup (storage/rollups.ts) is left as
    // copied, and the log writer makes it again from the scaled records at open, its total
    // disagreeing with theirs; so with the copy of the integer-text fields (present-records.ts),
    // whose row count disagrees too, and which is read again from the values once.
    const tables = (
      await connection.runAndReadAll(
        `SELECT table_name FROM duckdb_tables() AS t WHERE schema_name = 'main' AND NOT internal
         AND EXISTS (SELECT 1 FROM duckdb_columns() AS c
           WHERE c.table_oid = t.table_oid AND c.column_name = 'id')`,
      )
    ).getRows();
    const copies = Math.ceil(factor);
    const lastShare = factor - (copies - 1);
    const nowMicros = BigInt(now.getTime()) * 1000n;
    const fromMicros = nowMicros - BigInt(spanMs) * 1000n;
    for (const [name] of tables) {
      const table = quoteIdent(String(name));
      const keys = joinKeys[String(name)];
      const metadata = keys
        ? `CASE WHEN copy = 0 THEN metadata ELSE ${freshKey('metadata', keys)} END AS metadata,`
        : '';
      await connection.run(`
        CREATE TABLE scaled AS
        SELECT * EXCLUDE (copy) REPLACE (
          ${metadata}
          CASE WHEN copy = 0 THEN id ELSE uuid()::VARCHAR END AS id,
          CASE WHEN copy = 0 THEN "timestamp" ELSE make_timestamp(greatest(${fromMicros}, least(${nowMicros},
            epoch_us("timestamp") + (random() * 60e6 - 30e6)::BIGINT))) END AS "timestamp"
        )
        FROM ${table}, range(${copies}) AS copies(copy)
        WHERE copy < ${copies - 1} OR random() < ${lastShare}
        ORDER BY "timestamp"`);
      await connection.run(`DROP TABLE ${table}`);
      await connection.run(`ALTER TABLE scaled RENAME TO ${table}`);
      await connection.run('CHECKPOINT');
      const count = (await connection.runAndReadAll(`SELECT count(*) FROM ${table}`)).getRows()[0]?.[0];
      records[String(name)] = Number(count);
    }
  } finally {
    connection.closeSync();
    database.close();
  }
  return { seconds: (performance.now() - started) / 1000, records };
}

/**
 * The metadata fields Studio's pages join sources on, per source: the unified logs page matches
 * an auth record's `request_id` to an edge record's `cf_ray`, and function logs to function edge
 * logs by `execution_id`. Real traffic never repeats them; copied unchanged, each would meet
 * every copy of its partner, `factor`² rows where the traffic has `factor`.
 */
const joinKeys: Record<string, readonly string[]> = {
  'cloudflare.logs.prod': ['response', 'headers', 'cf_ray'],
  'gotrue.logs.prod': ['request_id'],
  'deno-relay-logs': ['execution_id'],
  'deno-subhosting-events': ['execution_id'],
};

/** `struct` with the string at `path` suffixed by the copy's number (a NULL stays NULL). */
function freshKey(struct: string, [field, ...rest]: readonly string[]): string {
  if (field === undefined) return `${struct} || '-' || copy`;
  const member = `${struct}.${quoteIdent(field)}`;
  return `CASE WHEN ${struct} IS NULL THEN NULL ELSE struct_update(${struct}, ${quoteIdent(field)} := ${freshKey(member, rest)}) END`;
}

/** The base a larger store is copied from: the generator's own records up to this many edge records. */
const largestGeneratedBase = 1_000_000;

export interface StudioStoreFile {
  readonly edgeRecords: number;
  readonly path: string;
  /** The instant the store's traffic leads up to: the `now` its queries are timed at. */
  readonly now: Date;
  readonly records: Record<string, number>;
  readonly generationSeconds: number;
}

/**
 * The store of each size in `dir`, smallest first: the smallest (at most 1M edge records) written
 * through the log writer by the demo's generator (`fill`), every larger one scaled from it. Each
 * file is closed when yielded. A store already in `dir` (with the `.json` written beside it when
 * it was made) is used as it is, so a kept directory (`--studio-dir`) is made once.
 */
export async function* studioStoresBySize(
  dir: string,
  sizes: readonly number[],
  {
    now,
    spanMs,
    fill,
  }: {
    now: Date;
    spanMs: number;
    fill: (
      path: string,
      edgeRecords: number,
      now: Date,
    ) => Promise<{ records: Record<string, number>; seconds: number }>;
  },
): AsyncGenerator<StudioStoreFile> {
  const baseRecords = Math.min(sizes[0] ?? largestGeneratedBase, largestGeneratedBase);
  const base = await madeOnce(join(dir, `studio-${baseRecords}.duckdb`), baseRecords, now, (path) =>
    fill(path, baseRecords, now),
  );
  for (const edgeRecords of sizes) {
    if (edgeRecords === baseRecords) {
      yield base;
      continue;
    }
    yield await madeOnce(join(dir, `studio-${edgeRecords}.duckdb`), edgeRecords, base.now, (path) =>
      scaleStudioStore(base.path, path, { factor: edgeRecords / baseRecords, now: base.now, spanMs }),
    );
  }
}

async function madeOnce(
  path: string,
  edgeRecords: number,
  now: Date,
  make: (path: string) => Promise<{ records: Record<string, number>; seconds: number }>,
): Promise<StudioStoreFile> {
  const description = `${path}.json`;
  if (existsSync(path) && existsSync(description)) {
    const kept = JSON.parse(readFileSync(description, 'utf8'));
    return { ...kept, path, now: new Date(kept.now) };
  }
  const made = await make(path);
  const store = { edgeRecords, path, now, records: made.records, generationSeconds: made.seconds };
  writeFileSync(description, JSON.stringify({ ...store, path: undefined }));
  return store;
}
