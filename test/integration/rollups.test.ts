import { join } from 'node:path';
import { DuckDBInstance } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readSources } from '../../src/endpoints/sources.js';
import type { QueryEngine } from '../../src/engines/query-engine.js';
import { packageRoot } from '../../src/paths.js';
import { createLogWriter } from '../../src/storage/log-writer.js';
import { createPresentRecords } from '../../src/storage/present-records.js';
import { createRollups, type RollupsKeeper } from '../../src/storage/rollups.js';
import { plainRows } from '../helpers/plain-rows.js';
import { openTempStore, storeEngine, type TempStore } from '../helpers/temp-store.js';

// The edge source's hourly rollup (supabase/sources.yaml declares it; storage/rollups.ts keeps it)
// answers Studio's reports in place of the records. Whatever reads it, the rows must be those the
// records give in BigQuery: expected rows come from plain DuckDB over the same events laid out as
// BigQuery holds them (each record a repeated field, an absent one `[]`), never from the store.
const edge = 'cloudflare.logs.prod';
const now = new Date('2026-03-10T12:00:00Z');
const hourMs = 3_600_000;
const firstHour = Date.parse('2026-03-10T05:00:00Z');

interface Event {
  readonly id: string;
  readonly at: number;
  readonly project: string;
  readonly path: string | undefined;
  readonly method: string | undefined;
  readonly status: number | undefined;
  readonly cache: string | undefined;
}

/** Events over six hours from a fixed seed: records and fields absent now and then. */
function seededEvents(count: number, seed: number): Event[] {
  let state = seed;
  const next = (n: number) => {
    state = (state * 1_103_515_245 + 12_345) % 2 ** 31;
    return state % n;
  };
  const pick = <T>(values: readonly T[]) => values[next(values.length)] as T;
  return Array.from({ length: count }, (_, i) => ({
    id: `e${seed}-${i}`,
    at: firstHour + next(6 * hourMs),
    project: pick(['p1', 'p2']),
    path: pick([
      '/storage/v1/object/a.png',
      '/storage/v1/object/b.png',
      '/rest/v1/todos',
      '/auth/v1/token',
      undefined,
    ]),
    method: pick(['GET', 'GET', 'POST', undefined]),
    status: pick([200, 200, 404, 500, undefined]),
    cache: pick(['HIT', 'MISS', 'EXPIRED', undefined]),
  }));
}

/** The event as Vector sends it: a response record only with a status, headers only with a cache status. */
function edgeEvent(event: Event) {
  const request = {
    ...(event.path === undefined ? {} : { path: event.path }),
    ...(event.method === undefined ? {} : { method: event.method }),
    search: '',
  };
  const response =
    event.status === undefined
      ? {}
      : {
          response: {
            status_code: event.status,
            ...(event.cache === undefined ? {} : { headers: { cf_cache_status: event.cache } }),
          },
        };
  return {
    id: event.id,
    timestamp: new Date(event.at).toISOString(),
    event_message: event.id,
    project: event.project,
    metadata: { request, ...response },
  };
}

const text = (value: string | undefined) => (value === undefined ? 'NULL' : `'${value}'`);

function bigQueryRow(event: Event): string {
  const headers = event.cache === undefined ? '[]' : `[{'cf_cache_status': ${text(event.cache)}}]`;
  const response =
    event.status === undefined ? '[]' : `[{'status_code': ${event.status}, 'headers': ${headers}}]`;
  return (
    `('${event.id}', make_timestamp(${event.at * 1000}), '${event.project}', ` +
    `[{'request': [{'path': ${text(event.path)}, 'method': ${text(event.method)}, 'search': ''}], 'response': ${response}}])`
  );
}

let store: TempStore;
let rollups: RollupsKeeper;
let engine: QueryEngine;
let plain: Awaited<ReturnType<DuckDBInstance['connect']>>;
let calls = 0;

async function ingest(events: Event[], batch: number) {
  for (let start = 0; start < events.length; start += batch) {
    await store.writer.write(edge, events.slice(start, start + batch).map(edgeEvent));
  }
  await plain.run(`INSERT INTO edge_logs VALUES ${events.map(bigQueryRow).join(', ')}`);
}

async function served(sql: string, params: Record<string, string> = {}) {
  calls += 1;
  const endpoint = { id: `rollup-${calls}`, name: `rollup-${calls}`, sql, maxRows: 10_000 };
  return (await engine.run(endpoint, params, { now })).rows;
}

// logs.all's edge_logs (supabase/logs.all.sql): a project's records after one instant and up to another.
const logsAllEdgeLogs = `with edge_logs as (
  select t.timestamp, t.id, t.event_message, t.metadata
  from \`cloudflare.logs.prod\` as t
  cross join unnest(t.metadata) as m
  where t.project = @project
    and case when coalesce(@iso_timestamp_start, '') = '' then true
      else t.timestamp > cast(@iso_timestamp_start as timestamp) end
    and case when coalesce(@iso_timestamp_end, '') = '' then true
      else t.timestamp <= cast(@iso_timestamp_end as timestamp) end
)`;
const cacheStatuses = `select h.cf_cache_status as status, count(*) as n from edge_logs f
  cross join unnest(f.metadata) as m cross join unnest(m.response) as res cross join unnest(res.headers) as h
  group by status order by status`;
const plainCacheStatuses = (
  where: string,
) => `select h.cf_cache_status as status, count(*) as n from edge_logs f,
  unnest(f.metadata) as u(m), unnest(m.response) as w(res), unnest(res.headers) as x(h)
  where ${where} group by status order by status`;

// BigQuery SQL the rollup answers, and the same in DuckDB over the BigQuery layout.
const reports: [string, string, string][] = [
  [
    "Studio's top cache misses",
    `select r.path as path, r.search as search, count(id) as count from edge_logs f
      cross join unnest(f.metadata) as m cross join unnest(m.request) as r
      cross join unnest(m.response) as res cross join unnest(res.headers) as h
      where starts_with(r.path, '/storage/v1/object') and r.method = 'GET'
        and h.cf_cache_status in ('MISS', 'EXPIRED')
      group by path, search order by count desc, path`,
    `select r.path as path, r.search as search, count(id) as count from edge_logs f,
      unnest(f.metadata) as u(m), unnest(m.request) as v(r), unnest(m.response) as w(res), unnest(res.headers) as x(h)
      where starts_with(r.path, '/storage/v1/object') and r.method = 'GET'
        and h.cf_cache_status in ('MISS', 'EXPIRED')
      group by path, search order by count desc, path`,
  ],
  [
    "Studio's cache hit rate by hour",
    `select timestamp_trunc(timestamp, hour) as timestamp,
        countif(h.cf_cache_status = 'HIT') as hit_count, countif(h.cf_cache_status != 'HIT') as miss_count
      from edge_logs f cross join unnest(f.metadata) as m cross join unnest(m.request) as r
        cross join unnest(m.response) as res cross join unnest(res.headers) as h
      where r.method = 'GET' group by timestamp order by timestamp desc`,
    `select epoch_us(date_trunc('hour', timestamp)) as timestamp,
        count(*) filter (where h.cf_cache_status = 'HIT') as hit_count, count(*) filter (where h.cf_cache_status != 'HIT') as miss_count
      from edge_logs f, unnest(f.metadata) as u(m), unnest(m.request) as v(r), unnest(m.response) as w(res), unnest(res.headers) as x(h)
      where r.method = 'GET' group by 1 order by timestamp desc`,
  ],
  [
    'statuses per project, with distinct paths and the first path',
    `select project, r.status_code as status, count(*) as n, count(distinct q.path) as paths, min(q.path) as first_path
      from edge_logs cross join unnest(metadata) as m cross join unnest(m.request) as q cross join unnest(m.response) as r
      group by project, status order by project, status`,
    `select project, r.status_code as status, count(*) as n, count(distinct q.path) as paths, min(q.path) as first_path
      from edge_logs, unnest(metadata) as u(m), unnest(m.request) as v(q), unnest(m.response) as w(r)
      group by project, status order by project, status`,
  ],
  [
    'counts a field only where it is set',
    `select count(q.method) as with_method, count(*) as requests, countif(q.path is null) as no_path
      from edge_logs cross join unnest(metadata) as m cross join unnest(m.request) as q`,
    `select count(q.method) as with_method, count(*) as requests, count(*) filter (where q.path is null) as no_path
      from edge_logs, unnest(metadata) as u(m), unnest(m.request) as v(q)`,
  ],
  [
    'counts 0, not NULL, where no record matches',
    `select count(*) as n, count(id) as ids from edge_logs where project = 'nobody'`,
    `select count(*) as n, count(id) as ids from edge_logs where project = 'nobody'`,
  ],
  [
    'requests per day and method',
    `select timestamp_trunc(timestamp, day) as day, q.method as method, count(*) as n
      from edge_logs cross join unnest(metadata) as m cross join unnest(m.request) as q
      group by day, method order by day, method`,
    `select epoch_us(date_trunc('day', timestamp)) as day, q.method as method, count(*) as n
      from edge_logs, unnest(metadata) as u(m), unnest(m.request) as v(q)
      group by day, method order by day, method`,
  ],
];

// A select-list name that is also a column's: HAVING finds the name, WHERE and GROUP BY the column.
reports.push([
  'a HAVING on a select-list name that is also a column',
  `select q.path as project, count(*) as n from edge_logs cross join unnest(metadata) as m cross join unnest(m.request) as q
    group by all having project = '/rest/v1/todos' order by n`,
  `select q.path as project, count(*) as n from edge_logs, unnest(metadata) as u(m), unnest(m.request) as v(q)
    group by all having project = '/rest/v1/todos' order by n`,
]);

// A table column unnamed is named as the table spells it.
reports.push([
  'an unnamed column written in capitals',
  `select PROJECT, count(*) as n from edge_logs group by 1 order by 1`,
  `select PROJECT, count(*) as n from edge_logs group by 1 order by 1`,
]);

// And some it cannot answer, which must read the records and stay right.
const others: [string, string, string][] = [
  [
    'per minute',
    `select timestamp_trunc(timestamp, minute) as minute, count(*) as n from edge_logs group by minute order by minute`,
    `select epoch_us(date_trunc('minute', timestamp)) as minute, count(*) as n from edge_logs group by minute order by minute`,
  ],
  [
    'distinct messages, not a dimension',
    `select project, count(distinct event_message) as messages from edge_logs group by project order by project`,
    `select project, count(distinct id) as messages from edge_logs group by project order by project`,
  ],
  [
    'rows rather than groups',
    `select q.path as path from edge_logs cross join unnest(metadata) as m cross join unnest(m.request) as q
      where q.method = 'POST' order by path limit 5`,
    `select q.path as path from edge_logs, unnest(metadata) as u(m), unnest(m.request) as v(q)
      where q.method = 'POST' order by path limit 5`,
  ],
];

const expected = (sql: string) => plainRows(plain, sql);

beforeAll(async () => {
  // Folded together after every 50 records: the compaction runs many times below.
  const sources = readSources(join(packageRoot, 'supabase'));
  rollups = createRollups(sources, { compactAbove: 50 });
  const presentRecords = createPresentRecords();
  store = await openTempStore('querygate-rollups-', { sources, rollups, presentRecords });
  engine = await storeEngine(store, { sources, rollups, presentRecords });
  plain = await (await DuckDBInstance.create(':memory:')).connect();
  await plain.run(`SET TimeZone = 'UTC'`);
  await plain.run(`CREATE TABLE edge_logs (id VARCHAR, "timestamp" TIMESTAMP, project VARCHAR, metadata STRUCT(
    request STRUCT(path VARCHAR, method VARCHAR, search VARCHAR)[],
    response STRUCT(status_code BIGINT, headers STRUCT(cf_cache_status VARCHAR)[])[])[])`);
  await ingest(seededEvents(600, 7), 37);
});

afterAll(async () => {
  plain?.closeSync();
  await engine?.close();
  await store?.close();
});

describe('the hourly rollup of edge records', () => {
  it.each(reports)('answers %s as the records do', async (_name, bigQuery, duckDb) => {
    expect(await served(bigQuery)).toEqual(await expected(duckDb));
  });

  it.each(others)('answers a query it cannot (%s) from the records', async (_name, bigQuery, duckDb) => {
    expect(await served(bigQuery)).toEqual(await expected(duckDb));
  });

  it.each([
    ['between two instants inside hours', '2026-03-10T05:20:00.5Z', '2026-03-10T09:45:00Z'],
    ['up to an instant on the hour', '2026-03-10T06:00:00Z', '2026-03-10T08:00:00Z'],
    ['with no start', '', '2026-03-10T07:30:00Z'],
    ['with neither bound', '', ''],
  ])("answers a report over logs.all's edge_logs %s as the records do", async (_name, start, end) => {
    const bounds = [
      ...(start ? [`timestamp > TIMESTAMP '${start.slice(0, -1)}'`] : []),
      ...(end ? [`timestamp <= TIMESTAMP '${end.slice(0, -1)}'`] : []),
    ];
    expect(
      await served(`${logsAllEdgeLogs} ${cacheStatuses}`, {
        project: 'p2',
        iso_timestamp_start: start,
        iso_timestamp_end: end,
      }),
    ).toEqual(await expected(plainCacheStatuses(["project = 'p2'", ...bounds].join(' AND '))));
  });

  it('answers a report bounded in time in its own WHERE as the records do', async () => {
    expect(
      await served(`select h.cf_cache_status as status, count(*) as n from edge_logs f
        cross join unnest(f.metadata) as m cross join unnest(m.response) as res cross join unnest(res.headers) as h
        where f.timestamp between timestamp '2026-03-10 06:59:59.999999' and timestamp '2026-03-10 09:00:00'
        group by status order by status`),
    ).toEqual(
      await expected(
        plainCacheStatuses(
          `timestamp between TIMESTAMP '2026-03-10 06:59:59.999999' AND TIMESTAMP '2026-03-10 09:00:00'`,
        ),
      ),
    );
  });

  it("answers a range that ends in DuckDB's last hour (year 294247) as the records do", async () => {
    // DuckDB rewrites a comparison of an hour with such a bound into one with the next hour, out of range.
    const end = '294247-01-10 04:00:54';
    expect(
      await served(`${logsAllEdgeLogs} ${cacheStatuses}`, {
        project: 'p2',
        iso_timestamp_start: '2026-03-10T06:30:00Z',
        iso_timestamp_end: `${end.replace(' ', 'T')}Z`,
      }),
    ).toEqual(
      await expected(
        plainCacheStatuses(
          `project = 'p2' AND timestamp > TIMESTAMP '2026-03-10 06:30:00' AND timestamp <= TIMESTAMP '${end}'`,
        ),
      ),
    );
    expect(
      await served(
        `select count(*) as n from edge_logs where timestamp between timestamp '2026-03-10 07:15:00' and timestamp '${end}'`,
      ),
    ).toEqual(
      await expected(
        `select count(*) as n from edge_logs where timestamp between TIMESTAMP '2026-03-10 07:15:00' and TIMESTAMP '${end}'`,
      ),
    );
  });

  it('answers a report whose time bound DuckDB cannot work out, where no record reaches the bound, as the records do', async () => {
    // A bound DuckDB could not evaluate when a DATETIME was a TIMESTAMP_NS, which ends in 2262
    // (the records' query met it only for records its other terms keep, none): the rollup's hours
    // must answer as the records do whichever way the bound is worked out.
    expect(
      await served(`select count(*) as n from edge_logs cross join unnest(metadata) as m cross join unnest(m.request) as q
        where q.method = 'DELETE' and timestamp <= datetime '9999-12-31 23:59:59'`),
    ).toEqual(
      await expected(`select count(*) as n from edge_logs, unnest(metadata) as u(m), unnest(m.request) as v(q)
        where q.method = 'DELETE' and timestamp <= TIMESTAMP '9999-12-31 23:59:59'`),
    );
    // The upper bound of a BETWEEN too, which DuckDB does not evaluate where the lower one fails.
    expect(
      await served(`select count(*) as n from edge_logs cross join unnest(metadata) as m cross join unnest(m.request) as q
        where q.method = 'DELETE' and timestamp between timestamp '2020-01-01' and datetime '9999-12-31 23:59:59'`),
    ).toEqual(
      await expected(`select count(*) as n from edge_logs, unnest(metadata) as u(m), unnest(m.request) as v(q)
        where q.method = 'DELETE' and timestamp between TIMESTAMP '2020-01-01' and TIMESTAMP '9999-12-31 23:59:59'`),
    );
  });

  it('answers a filter on time that is not one interval from the records', async () => {
    expect(
      await served(`select count(*) as n from edge_logs where timestamp != timestamp '2026-03-10 07:00:00'
        and extract(minute from timestamp) < 30`),
    ).toEqual(
      await expected(
        `select count(*) as n from edge_logs where timestamp != TIMESTAMP '2026-03-10 07:00:00' and minute(timestamp) < 30`,
      ),
    );
  });

  it('reads the rollup for a report it answers, and the records for one it cannot', async () => {
    // A row only the rollup holds (an hour with no record) shows where the rollup is read.
    const table = rollups.of(edge)?.rollupTable as string;
    await store.connection.run(
      `INSERT INTO "${table}" ("timestamp", project, _qg_rows, _qg_ids) VALUES (TIMESTAMP '2026-03-09 00:00:00', 'ghost', 3, 3)`,
    );
    try {
      expect(await served(`select count(*) as n from edge_logs where project = 'ghost'`)).toEqual([{ n: 3 }]);
      expect(
        await served(`select count(distinct event_message) as n from edge_logs where project = 'ghost'`),
      ).toEqual([{ n: 0 }]);
      // GROUP BY ALL with a HAVING on a column outside the select list groups by more.
      expect(
        await served(`select q.method as method, count(*) as n from edge_logs cross join unnest(metadata) as m
          cross join unnest(m.request) as q where project = 'ghost' group by all having q.path is null`),
      ).toEqual([]);
      // A CAST in a filter may fail on values the records' query meets and the rollup's does not.
      expect(
        await served(
          `select count(*) as n from edge_logs where project = 'ghost' and cast(length(project) as int64) > 0`,
        ),
      ).toEqual([{ n: 0 }]);
    } finally {
      await store.connection.run(`DELETE FROM "${table}" WHERE project = 'ghost'`);
    }
  });

  it('keeps answering as the records do while retention deletes part of an hour', async () => {
    // Half way through the second hour, in batches of 20 as retention deletes.
    const before = firstHour + 1.5 * hourMs;
    while ((await store.writer.deleteBefore(edge, BigInt(before) * 1000n, 20)) > 0) {
      // each batch its own transaction
    }
    await plain.run(`DELETE FROM edge_logs WHERE "timestamp" < make_timestamp(${before * 1000})`);
    for (const [, bigQuery, duckDb] of [...reports, ...others]) {
      expect(await served(bigQuery)).toEqual(await expected(duckDb));
    }
    // The rollup counts every record the table kept: the next start has nothing to make again.
    const table = rollups.of(edge)?.rollupTable as string;
    const [kept] = await plainRows(plain, 'select count(*) as n from edge_logs');
    expect(
      await plainRows(
        store.connection,
        `select (select sum(_qg_rows)::BIGINT from "${table}") as rolled, (select count(*) from "${edge}") as stored`,
      ),
    ).toEqual([{ rolled: kept?.n, stored: kept?.n }]);
    // A range that starts in the hours being deleted and ends inside an hour.
    expect(
      await served(`${logsAllEdgeLogs} ${cacheStatuses}`, {
        project: 'p1',
        iso_timestamp_start: '2026-03-10T05:10:00Z',
        iso_timestamp_end: '2026-03-10T08:30:00Z',
      }),
    ).toEqual(
      await expected(
        plainCacheStatuses(
          `project = 'p1' AND timestamp > TIMESTAMP '2026-03-10 05:10:00' AND timestamp <= TIMESTAMP '2026-03-10 08:30:00'`,
        ),
      ),
    );
  });

  it('takes in records that arrive later, for hours it already holds', async () => {
    await ingest(
      seededEvents(120, 11).filter((event) => event.at >= firstHour + 2 * hourMs),
      13,
    );
    for (const [, bigQuery, duckDb] of reports) {
      expect(await served(bigQuery)).toEqual(await expected(duckDb));
    }
  });
});

describe('a rollup left behind by its records', () => {
  it('is made again when the store opens, and answers as the records do', async () => {
    const sources = readSources(join(packageRoot, 'supabase'));
    const first = createRollups(sources);
    const own = await openTempStore('querygate-rollups-reopen-', { sources, rollups: first });
    try {
      await own.writer.write(edge, seededEvents(200, 3).map(edgeEvent));
      await own.writer.close();
      // Records stored past the rollup, as a version that did not keep it would have stored them.
      await own.connection.run(
        `INSERT INTO "${edge}" (id, "timestamp", event_message, project, metadata)
         SELECT 'extra-' || i, TIMESTAMP '2026-03-10 06:30:00', 'extra', 'p1', NULL FROM range(7) AS r(i)`,
      );
      const again = createRollups(sources);
      const writer = createLogWriter(own.db, { sources, rollups: again });
      await writer.ready();
      const reopened = await storeEngine(own, { sources, rollups: again });
      try {
        const endpoint = {
          id: 'reopened',
          name: 'reopened',
          sql: `select project, count(*) as n from edge_logs group by project order by project`,
          maxRows: 100,
        };
        const rows = (await reopened.run(endpoint, {}, { now })).rows;
        expect(rows).toEqual(
          await plainRows(
            own.connection,
            `select project, count(*) as n from "${edge}" group by project order by project`,
          ),
        );
        expect(rows.find((row) => row.project === 'p1')?.n).toBeGreaterThan(7);
      } finally {
        await reopened.close();
        await writer.close();
      }
    } finally {
      await own.close();
    }
  });
});
