import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { createDuckDbEngine } from '../../src/backends/duckdb/engine.js';
import { type DemoLogEvent, generateDemoLogs } from '../../src/demo/sampler.js';
import { demoMarkerTable, seedDemoLogs } from '../../src/demo/seed.js';
import { startDemoTraffic } from '../../src/demo/traffic.js';
import { quoteIdent } from '../../src/endpoints/field-type.js';
import { queriesDir } from '../../src/paths.js';
import { type Database, openDatabase } from '../../src/storage/database.js';
import { createLogWriter, type LogWriter } from '../../src/storage/log-writer.js';
import { createManualTime } from '../helpers/manual-time.js';
import { logSources } from '../helpers/shipped-sources.js';

const seededAt = new Date('2026-05-15T12:34:56.789Z');
// One project at full volume where density matters, a tenth of it where only counts do: fast.
const oneProject = { projects: ['default'] };
const small = { projects: ['default'], scale: 0.1 };
const MINUTE_MS = 60_000;
const HOUR_MS = 60 * MINUTE_MS;

interface Store {
  readonly database: Database;
  readonly writer: LogWriter;
}

const opened: Store[] = [];

async function openStore(): Promise<Store> {
  const database = await openDatabase(':memory:');
  const writer = createLogWriter(database, { sources: logSources });
  await writer.ready();
  const store = { database, writer };
  opened.push(store);
  return store;
}

afterEach(async () => {
  for (const { database, writer } of opened.splice(0)) {
    await writer.close();
    database.close();
  }
});

async function query(database: Database, sql: string): Promise<unknown[][]> {
  const connection = await database.connect();
  try {
    return (await connection.runAndReadAll(sql)).getRows();
  } finally {
    connection.closeSync();
  }
}

async function recordCount(database: Database): Promise<number> {
  const counts = logSources.map((source) => `(SELECT count(*) FROM ${quoteIdent(source.name)})`);
  return Number((await query(database, `SELECT ${counts.join(' + ')}`))[0]?.[0]);
}

const eventCount = (logs: Map<string, DemoLogEvent[]>) => [...logs.values()].flat().length;

// Independently of the saved SQL: usage.api-counts minutely for `default`, from the events sent.
function expectedMinutelyCounts(events: readonly DemoLogEvent[], now: Date) {
  const buckets = new Map<string, Record<string, number | string>>();
  const since = now.getTime() - 60 * MINUTE_MS;
  for (const event of events) {
    const request = (event.metadata as { request: { url: string; path: string } }).request;
    // Comparing whole milliseconds is exact: the window starts on a whole millisecond.
    if (!request.url.includes('default') || Date.parse(event.timestamp) < since) continue;
    const minute = `${event.timestamp.slice(0, 16)}:00`;
    const row = buckets.get(minute) ?? {
      timestamp: minute,
      total_rest_requests: 0,
      total_storage_requests: 0,
      total_auth_requests: 0,
      total_realtime_requests: 0,
    };
    for (const area of ['rest', 'storage', 'auth', 'realtime']) {
      if (request.path.includes(`/${area}`))
        row[`total_${area}_requests`] = Number(row[`total_${area}_requests`]) + 1;
    }
    buckets.set(minute, row);
  }
  return [...buckets.values()].sort((x, y) => String(x.timestamp).localeCompare(String(y.timestamp)));
}

describe('seedDemoLogs', () => {
  it('tops up a store seeded at T when started at T+2h, so the minutely usage window has rows', async () => {
    const { database, writer } = await openStore();
    const later = new Date(seededAt.getTime() + 2 * HOUR_MS);
    const seed = generateDemoLogs({ ...oneProject, now: seededAt });
    const topUp = generateDemoLogs({ ...oneProject, now: later, after: seededAt });

    expect(await seedDemoLogs(database, writer, seededAt, oneProject)).toEqual({
      kind: 'seeded',
      written: eventCount(seed),
      until: seededAt,
    });
    expect(await seedDemoLogs(database, writer, later, oneProject)).toEqual({
      kind: 'topped-up',
      written: eventCount(topUp),
      since: seededAt,
      until: later,
    });
    expect(await recordCount(database)).toBe(eventCount(seed) + eventCount(topUp));

    const edge = [...(seed.get('cloudflare.logs.prod') ?? []), ...(topUp.get('cloudflare.logs.prod') ?? [])];
    const expected = expectedMinutelyCounts(edge, later);
    // Without the top-up the window would be empty: the seed ends two hours before it.
    expect(expectedMinutelyCounts(seed.get('cloudflare.logs.prod') ?? [], later)).toEqual([]);
    expect(expected.length).toBeGreaterThanOrEqual(55);

    const engine = await createDuckDbEngine({
      database,
      sources: logSources,
      queries: [],
      queriesDir,
      timeoutMs: 10_000,
    });
    try {
      const sql = readFileSync(join(queriesDir, 'usage.api-counts.sql'), 'utf8');
      const result = await engine.run(
        { id: 'usage.api-counts', name: 'usage.api-counts', sql, maxRows: 1000 },
        { project: 'default', interval: 'minutely' },
        { now: later },
      );
      expect(result.rows).toEqual(expected);
    } finally {
      await engine.close();
    }
  });

  it('tops up only the last days of a store last seeded longer ago than that', async () => {
    const { database, writer } = await openStore();
    await seedDemoLogs(database, writer, seededAt, small);
    const muchLater = new Date(seededAt.getTime() + 10 * 24 * HOUR_MS);
    const outcome = await seedDemoLogs(database, writer, muchLater, small);
    expect(outcome).toMatchObject({
      kind: 'topped-up',
      written: eventCount(generateDemoLogs({ ...small, now: muchLater })),
    });
  });

  it('leaves a store holding its own logs and no demo marker untouched', async () => {
    const { database, writer } = await openStore();
    const own = {
      event_message: 'GET /rest/v1/t',
      timestamp: '2026-05-15T10:00:00Z',
      project: 'mine',
      metadata: { request: { url: 'https://mine.supabase.co/rest/v1/t', path: '/rest/v1/t' } },
    };
    await writer.write('cloudflare.logs.prod', [own]);

    expect(await seedDemoLogs(database, writer, seededAt)).toEqual({ kind: 'not-demo' });
    expect(await recordCount(database)).toBe(1);
    const markers = await query(
      database,
      `SELECT count(*) FROM duckdb_tables() WHERE table_name = '${demoMarkerTable}'`,
    );
    expect(Number(markers[0]?.[0])).toBe(0);
  });
});

describe('startDemoTraffic', () => {
  it('adds the traffic since the last top-up every interval, and stops on close', async () => {
    const { database, writer } = await openStore();
    const time = createManualTime(seededAt);
    const traffic = await startDemoTraffic({
      database,
      writer,
      now: time.now,
      timers: time.timers,
      intervalMs: 30_000,
      shape: small,
    });
    time.settleWith(() => traffic.idle());
    const seeded = eventCount(generateDemoLogs({ ...small, now: seededAt }));
    expect(traffic.atStart).toMatchObject({ kind: 'seeded', written: seeded });
    let expected = seeded;

    for (let step = 1; step <= 2; step++) {
      await time.advance(30_000);
      const [from, to] = [seededAt.getTime() + (step - 1) * 30_000, seededAt.getTime() + step * 30_000];
      expected += eventCount(generateDemoLogs({ ...small, now: new Date(to), after: new Date(from) }));
      expect(await recordCount(database), `step ${step}`).toBe(expected);
    }
    const marker = await query(database, `SELECT epoch_ms(seeded_until) FROM ${demoMarkerTable}`);
    expect(Number(marker[0]?.[0])).toBe(seededAt.getTime() + 60_000);

    expect(expected).toBeGreaterThan(seeded);

    expect(time.pending).toBe(1);
    await traffic.close();
    expect(time.pending).toBe(0);
    await time.advance(5 * MINUTE_MS);
    expect(await recordCount(database)).toBe(expected);
  });

  it('never schedules a top-up for a store holding its own logs', async () => {
    const { database, writer } = await openStore();
    await writer.write('postgres.logs', [{ event_message: 'mine', timestamp: '2026-05-15T10:00:00Z' }]);
    const time = createManualTime(seededAt);
    const traffic = await startDemoTraffic({ database, writer, now: time.now, timers: time.timers });
    expect(traffic.atStart).toEqual({ kind: 'not-demo' });
    expect(time.pending).toBe(0);
    await traffic.close();
  });
});
