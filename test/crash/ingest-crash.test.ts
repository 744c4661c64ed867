import { copyFile, mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { mulberry32 } from '../../bench/generate-logs.js';
import { queriesDir } from '../../src/paths.js';
import { type ServedChild, serveChild, stopChild } from '../helpers/querygate-child.js';
import { logSources } from '../helpers/shipped-sources.js';
import { firstColumnText, readStoreFile } from '../helpers/store-file.js';

/**
 * The guarantee "an acknowledged record survives kill -9 at any moment; the store always opens",
 * tried on the real server (`querygate serve` as a child process) over a real data dir.
 * Each run starts the server on the dir the last run killed, has concurrent clients ingest into
 * random sources, records the id of every record answered 200, and SIGKILLs the server at a
 * seeded random moment. Even runs send new metadata fields in every batch (top-level, nested,
 * inside lists), so schema changes are in flight when the kill lands. The server must open the
 * store after every kill without setting the WAL aside (the ingest journal is the second line of
 * defence, tried in storage-wal-recovery.test.ts). A record is acknowledged once the ingest
 * journal holds it, before DuckDB commits it, so the last kill may leave acknowledged records in
 * the journal only: the server started once more stores them, and after it stops DuckDB alone,
 * replaying its WAL, must open the file and hold every acknowledged id.
 *
 * CI runs 3 (most of the time is the server starting); `QUERYGATE_CRASH_RUNS=50` runs more,
 * `QUERYGATE_CRASH_SEED` another sequence of kill moments.
 */

const runs = Number(process.env.QUERYGATE_CRASH_RUNS ?? 3);
const seed = Number(process.env.QUERYGATE_CRASH_SEED ?? 20_241_124);
const apiKey = 'querygate-crash-key-0123456789';
const clients = 6;

/** The server on the dir, its pino lines at warn and above in its output. */
const startServer = (dataDir: string) =>
  serveChild({ queries: queriesDir, dataDir, apiKey, env: { LOG_LEVEL: 'warn' } });

/** One client: batches of 1-20 events into random sources until `stop()`; returns the acknowledged ids. */
async function ingestUntilStopped(
  url: string,
  client: number,
  run: number,
  newFields: boolean,
  random: () => number,
  stopped: () => boolean,
  progress: { acknowledged: number; failed: boolean },
): Promise<Map<string, string[]>> {
  const acknowledged = new Map<string, string[]>();
  for (let request = 0; !stopped(); request += 1) {
    const source = logSources[Math.floor(random() * logSources.length)]?.name ?? 'postgres.logs';
    const size = 1 + Math.floor(random() * 20);
    const events = Array.from({ length: size }, (_, i) => {
      const id = `r${run}-c${client}-q${request}-e${i}`;
      const field = `f${run}_${client}_${request % 7}`;
      // Integer text, but for now and then in postgres.logs: the store's copy of its integer-text
      // fields (present-records.ts) changes with some commits the kill may cut.
      const size = source === 'postgres.logs' && random() < 0.2 ? '2.5' : String(i * 7);
      const metadata: Record<string, unknown> = { project: 'crash', host: `h${i}`, size };
      if (newFields) {
        metadata[field] = i;
        metadata.nested = { [`${field}_n`]: `v${i}`, deeper: { [field]: i % 2 === 0 } };
        metadata.spans = [{ [`${field}_s`]: i * 1.5 }];
      }
      return { id, event_message: `crash run ${run}`, project: 'crash', metadata };
    });
    try {
      const response = await fetch(`${url}/api/logs?source_name=${encodeURIComponent(source)}`, {
        method: 'POST',
        headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
        body: JSON.stringify({ batch: events }),
      });
      const text = await response.text();
      if (response.status !== 200) throw new Error(`ingest answered ${response.status}: ${text}`);
      const ids = acknowledged.get(source) ?? [];
      for (const event of events) ids.push(event.id);
      acknowledged.set(source, ids);
      progress.acknowledged += events.length;
    } catch (error) {
      // The kill cuts requests off mid-flight; those were never acknowledged.
      if (stopped()) break;
      progress.failed = true;
      throw error;
    }
  }
  return acknowledged;
}

async function storedIds(file: string): Promise<Map<string, Set<string>>> {
  return readStoreFile(file, async (connection) => {
    const stored = new Map<string, Set<string>>();
    for (const source of logSources) {
      stored.set(source.name, await firstColumnText(connection, `SELECT id FROM "${source.name}"`));
    }
    return stored;
  });
}

/**
 * What is wrong with the store's copy of each log table's integer-text fields (present-records.ts),
 * found by plain DuckDB over a copy of the files (so the server's next opening still replays the
 * WAL itself): a copy that does not count its table's rows, or that names a field some stored
 * value of is not 1-18 ASCII digits. Also how many fields the copies name.
 */
async function integerTextCopyFaults(dataDir: string): Promise<{ faults: string[]; named: number }> {
  const dir = await mkdtemp(join(tmpdir(), 'querygate-crash-copy-'));
  try {
    for (const name of ['querygate.duckdb', 'querygate.duckdb.wal'])
      await copyFile(join(dataDir, name), join(dir, name)).catch(() => undefined);
    return await readStoreFile(join(dir, 'querygate.duckdb'), async (connection) => {
      const faults: string[] = [];
      let named = 0;
      const copies = (
        await connection.runAndReadAll('SELECT source, row_count, fields FROM _querygate_integer_texts')
      ).getRows();
      for (const [source, rowCount, fields] of copies) {
        const table = `"${String(source)}"`;
        const rows = (await connection.runAndReadAll(`SELECT count(*) FROM ${table}`)).getRows()[0]?.[0];
        if (rows !== rowCount) faults.push(`${source}: the copy counts ${rowCount} rows of ${rows}`);
        for (const field of JSON.parse(String(fields)) as string[]) {
          named += 1;
          const path = field
            .split('.')
            .map((part) => `"${part}"`)
            .join('.');
          const other = await firstColumnText(
            connection,
            `SELECT ${path} FROM ${table} WHERE NOT regexp_full_match(${path}, '[0-9]{1,18}') LIMIT 1`,
          );
          if (other.size > 0) faults.push(`${source}: ${field} holds ${[...other].join()}`);
        }
      }
      return { faults, named };
    });
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

describe('kill -9 during ingestion', () => {
  let dataDir: string | undefined;
  let server: ServedChild | undefined;

  afterAll(async () => {
    server?.child.kill('SIGKILL');
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it(
    `keeps every acknowledged record over ${runs} kills at random moments, and the store opens after each`,
    async () => {
      dataDir = await mkdtemp(join(tmpdir(), 'querygate-crash-'));
      const random = mulberry32(seed);
      const acknowledged = new Map<string, string[]>();
      let runsWithNewFields = 0;

      for (let run = 0; run < runs; run += 1) {
        server = await startServer(dataDir);
        const health = await fetch(`${server.url}/health`);
        expect(health.status, `run ${run}: the store did not open`).toBe(200);
        expect(server.output(), `run ${run}: the WAL had to be set aside`).not.toMatch(/set aside/);

        const newFields = run % 2 === 0;
        if (newFields) runsWithNewFields += 1;
        let killed = false;
        const progress = { acknowledged: 0, failed: false };
        const ingesting = Array.from({ length: clients }, (_, client) =>
          ingestUntilStopped(
            server?.url ?? '',
            client,
            run,
            newFields,
            mulberry32(seed + run * 97 + client),
            () => killed,
            progress,
          ),
        );
        // The kill lands at a random moment once ingestion is under way, however slow the machine.
        while (progress.acknowledged === 0 && !progress.failed)
          await new Promise((wait) => setTimeout(wait, 10));
        await new Promise((wait) => setTimeout(wait, random() * 1_200));
        killed = true;
        server.child.kill('SIGKILL');
        await server.exited;
        for (const perClient of await Promise.all(ingesting)) {
          for (const [source, ids] of perClient)
            acknowledged.set(source, [...(acknowledged.get(source) ?? []), ...ids]);
        }
        expect((await integerTextCopyFaults(dataDir)).faults, `run ${run}`).toEqual([]);
      }
      expect(runsWithNewFields).toBeGreaterThanOrEqual(runs / 2);

      // Once more: the records the last kill left in the journal only are stored as it opens.
      server = await startServer(dataDir);
      expect((await fetch(`${server.url}/health`)).status, 'the store did not open').toBe(200);
      expect(server.output(), 'the WAL had to be set aside').not.toMatch(/set aside/);
      await stopChild(server.child);
      server = undefined;
      // Then DuckDB alone, without querygate's recovery.
      const stored = await storedIds(join(dataDir, 'querygate.duckdb'));
      let total = 0;
      const lost: string[] = [];
      for (const [source, ids] of acknowledged) {
        total += ids.length;
        const present = stored.get(source) ?? new Set<string>();
        for (const id of ids) if (!present.has(id)) lost.push(`${source}/${id}`);
      }
      expect(total, 'some run got no acknowledgement').toBeGreaterThanOrEqual(runs);
      expect(lost.slice(0, 20)).toEqual([]);
      expect(lost.length).toBe(0);
      expect((await readdir(dataDir)).filter((name) => name.includes('unreplayable'))).toEqual([]);
      const copies = await integerTextCopyFaults(dataDir);
      expect(copies.faults).toEqual([]);
      // metadata.size at least, in the sources that never got '2.5'.
      expect(copies.named).toBeGreaterThan(0);
      console.info(
        `crash test: ${runs} kills (seed ${seed}), ${total} acknowledged records, ${lost.length} lost`,
      );
    },
    30_000 + runs * 15_000,
  );
});
