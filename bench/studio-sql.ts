import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createDuckDbEngine } from '../src/backends/duckdb/engine.js';
import { generateDemoLogs } from '../src/demo/sampler.js';
import { readSources } from '../src/endpoints/sources.js';
import type { ParameterValues } from '../src/engines/query-engine.js';
import { packageRoot, queriesDir } from '../src/paths.js';
import { sandboxSql } from '../src/sql/sandbox.js';
import { type Database, openDatabase } from '../src/storage/database.js';
import { createLogWriter } from '../src/storage/log-writer.js';
import { createPresentRecords } from '../src/storage/present-records.js';
import { createRollups } from '../src/storage/rollups.js';
import { percentile } from './stats.js';

/**
 * The SQL Studio and Logflare send (the corpus of test/fixtures/bigquery-corpus/, each file
 * naming where it comes from in their sources, and Studio's unified logs page), timed on a store
 * of the demo's traffic scaled up: the "every Studio query within 1 s" claim, measured.
 */

const corpusDir = join(packageRoot, 'test/fixtures/bigquery-corpus');
const unifiedLogsPage = join(packageRoot, 'test/fixtures/studio-sql/unified-logs-page.sql');
const edgeSource = 'cloudflare.logs.prod';
const HOUR = 3_600_000;
const demoSpanDays = 3;
/** How far back the Studio stores reach. */
export const studioSpanMs = demoSpanDays * 24 * HOUR;
/** The sources as `serve --queries supabase` declares them: the store Studio's pages read. */
const studioSources = readSources(join(packageRoot, 'supabase'));

export interface StudioStore {
  readonly database: Database;
  readonly path: string;
  /** Records written, per source. */
  readonly records: Record<string, number>;
  readonly seconds: number;
}

/**
 * Fills `path` with the demo's three days of traffic (the nine sources, three projects), scaled
 * so the edge source holds about `edgeRecords`, written an hour at a time through the log writer.
 */
export async function fillStudioStore(
  path: string,
  { edgeRecords, now, memoryLimit }: { edgeRecords: number; now: Date; memoryLimit?: string },
): Promise<StudioStore> {
  const started = performance.now();
  // The scale that gives `edgeRecords`, from the edge records of one at scale 1.
  const unit = generateDemoLogs({ now, days: demoSpanDays }).get(edgeSource)?.length ?? 1;
  const scale = edgeRecords / unit;
  const database = await openDatabase(path, memoryLimit ? { memoryLimit } : {});
  const writer = createLogWriter(database, {
    sources: studioSources,
    now: () => now,
    rollups: createRollups(studioSources),
  });
  const records: Record<string, number> = {};
  const from = now.getTime() - demoSpanDays * 24 * HOUR;
  for (let after = from; after < now.getTime(); after += HOUR) {
    const slice = generateDemoLogs({
      now,
      days: demoSpanDays,
      scale,
      after: new Date(after),
      until: new Date(Math.min(after + HOUR, now.getTime())),
    });
    for (const [source, events] of slice) {
      for (let start = 0; start < events.length; start += 50_000) {
        await writer.write(source, events.slice(start, start + 50_000));
      }
      records[source] = (records[source] ?? 0) + events.length;
    }
  }
  await writer.close();
  return { database, path, records, seconds: (performance.now() - started) / 1000 };
}

export interface StudioQueryTiming {
  readonly name: string;
  readonly medianMs: number;
  /**
   * The process's CPU time (DuckDB's threads included) during a run, median: on a shared
   * machine, where wall time says as much about the neighbours, the figure to compare.
   */
  readonly medianCpuMs: number;
  /** The bench process's highest RSS (DuckDB's memory included) while the query ran. */
  readonly peakRssBytes: number;
  readonly rows: number;
}

export interface StudioSqlResult {
  readonly queries: number;
  /** Medians over the queries of each one's median. */
  readonly medianMs: number;
  readonly p90Ms: number;
  /** The five slowest by median, slowest first. */
  readonly slowest: readonly StudioQueryTiming[];
  /** Queries whose median is over a second. */
  readonly overOneSecond: number;
  /** Queries that failed (name and message): each is a defect to look at. */
  readonly failures: readonly { readonly name: string; readonly message: string }[];
  /** Every query's figures, in the corpus's order. */
  readonly timings: readonly StudioQueryTiming[];
  /** The highest RSS over all the queries. */
  readonly peakRssBytes: number;
  /** The same queries through logs.all over the last 24 hours, as Studio sends them: one timed run each. */
  readonly logsAll: {
    readonly queries: number;
    readonly medianMs: number;
    readonly p90Ms: number;
    readonly maxMs: number;
    readonly overOneSecond: number;
    /** The five slowest, slowest first. */
    readonly slowest: readonly { readonly name: string; readonly ms: number }[];
  };
}

interface CorpusQuery {
  readonly name: string;
  readonly sql: string;
  readonly params: ParameterValues;
}

/** The corpus queries that run on the embedded engine (those marked `-- Refused:` do not). */
function readCorpus(): CorpusQuery[] {
  const corpus = readdirSync(corpusDir)
    .filter((file) => file.endsWith('.sql') && !file.endsWith('.expected.sql'))
    .sort()
    .map((file) => ({ name: file.replace(/\.sql$/, ''), sql: readFileSync(join(corpusDir, file), 'utf8') }))
    .filter(({ sql }) => !/^-- Refused:/m.test(sql))
    .map(({ name, sql }) => ({
      name,
      sql,
      params: Object.fromEntries(
        (/^-- Params: (.+)$/m.exec(sql)?.[1] ?? '')
          .split(',')
          .filter((pair) => pair.includes('='))
          .map((pair) => pair.trim().split('=') as [string, string]),
      ),
    }));
  return [...corpus, { name: 'unified-logs-page', sql: readFileSync(unifiedLogsPage, 'utf8'), params: {} }];
}

/** Each corpus query once to warm, then `repeat` times; its median is its figure. */
export async function timeStudioSql(
  database: Database,
  { now, repeat }: { now: Date; repeat: number },
): Promise<StudioSqlResult> {
  // As the server has it: the writer learns which records every row has (present-records.ts)
  // and keeps the sources' rollups (rollups.ts), made at open for a store without them.
  const presentRecords = createPresentRecords();
  const rollups = createRollups(studioSources);
  const writer = createLogWriter(database, { sources: studioSources, presentRecords, rollups });
  await writer.ready();
  const engine = await createDuckDbEngine({
    database,
    sources: studioSources,
    queries: [],
    queriesDir,
    timeoutMs: 600_000,
    connections: 1,
    presentRecords,
    rollups,
  });
  const timings: StudioQueryTiming[] = [];
  const throughLogsAll: { name: string; ms: number }[] = [];
  const failures: { name: string; message: string }[] = [];
  // DuckDB runs on its own threads, so the event loop is free to sample while a query runs.
  let peakRss = 0;
  const sampler = setInterval(() => {
    peakRss = Math.max(peakRss, process.memoryUsage.rss());
  }, 5);
  let overallPeakRss = 0;
  try {
    for (const [i, query] of readCorpus().entries()) {
      const endpoint = { id: `studio-${i}`, name: query.name, sql: query.sql, maxRows: 10_000 };
      peakRss = process.memoryUsage.rss();
      try {
        const { rows } = await engine.run(endpoint, query.params, { now });
        const times: number[] = [];
        const cpuTimes: number[] = [];
        for (let run = 0; run < repeat; run++) {
          const started = performance.now();
          const cpu = process.cpuUsage();
          await engine.run(endpoint, query.params, { now });
          const used = process.cpuUsage(cpu);
          times.push(performance.now() - started);
          cpuTimes.push((used.user + used.system) / 1000);
        }
        timings.push({
          name: query.name,
          medianMs: round(percentile(times, 0.5)),
          medianCpuMs: round(percentile(cpuTimes, 0.5)),
          peakRssBytes: Math.max(peakRss, process.memoryUsage.rss()),
          rows: rows.length,
        });
        overallPeakRss = Math.max(overallPeakRss, peakRss);
      } catch (error) {
        failures.push({ name: query.name, message: (error as Error).message.split('\n')[0] ?? '' });
      }
    }
    // Studio itself sends each report through logs.all, over the range its picker shows.
    for (const [i, query] of readCorpus().entries()) {
      const merged = mergedIntoLogsAll(query.sql);
      if (!merged) continue;
      const endpoint = { id: `studio-logs-all-${i}`, name: query.name, maxRows: 10_000, ...merged };
      const params = {
        ...query.params,
        project: 'default',
        iso_timestamp_start: new Date(now.getTime() - logsAllRangeMs).toISOString(),
        iso_timestamp_end: now.toISOString(),
      };
      try {
        await engine.run(endpoint, params, { now });
        const started = performance.now();
        await engine.run(endpoint, params, { now });
        throughLogsAll.push({ name: query.name, ms: round(performance.now() - started) });
      } catch {
        // A corpus query over a table logs.all has no CTE for: not one Studio sends through it.
      }
    }
  } finally {
    clearInterval(sampler);
    await engine.close();
    await writer.close();
  }
  const medians = timings.map((timing) => timing.medianMs);
  return {
    queries: timings.length,
    medianMs: round(percentile(medians, 0.5)),
    p90Ms: round(percentile(medians, 0.9)),
    slowest: [...timings].sort((a, b) => b.medianMs - a.medianMs).slice(0, 5),
    overOneSecond: medians.filter((ms) => ms > 1000).length,
    failures,
    timings,
    peakRssBytes: overallPeakRss,
    logsAll: logsAllFigures(throughLogsAll),
  };
}

function logsAllFigures(timings: readonly { name: string; ms: number }[]): StudioSqlResult['logsAll'] {
  const times = timings.map((timing) => timing.ms);
  return {
    queries: times.length,
    medianMs: round(percentile(times, 0.5)),
    p90Ms: round(percentile(times, 0.9)),
    maxMs: Math.max(0, ...times),
    overOneSecond: times.filter((ms) => ms > 1000).length,
    slowest: [...timings].sort((a, b) => b.ms - a.ms).slice(0, 5),
  };
}

/** The range Studio's logs.all calls cover here: the reports' default, the last 24 hours. */
const logsAllRangeMs = 24 * HOUR;
const logsAllSql = readFileSync(join(packageRoot, 'supabase/logs.all.sql'), 'utf8');

/** A corpus query as Studio sends it: the caller SQL of logs.all (undefined if it does not merge). */
function mergedIntoLogsAll(sql: string): { sql: string; callerLineOffset: number } | undefined {
  try {
    const caller = sql.replace(/^--.*$/gm, '').replace(/;\s*$/, '');
    const merged = sandboxSql(
      logsAllSql,
      caller,
      new Set(['project', 'iso_timestamp_start', 'iso_timestamp_end']),
    );
    return { sql: merged.sql, callerLineOffset: merged.callerLineOffset };
  } catch {
    return undefined;
  }
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}

/** The bench's lines for the section. */
export function describeStudioSql(result: StudioSqlResult, edgeRecords: number): string[] {
  return [
    `Studio/Logflare SQL (${result.queries} queries of test/fixtures/bigquery-corpus and the unified logs page, ${edgeRecords} edge records): median ${result.medianMs} ms, p90 ${result.p90Ms} ms, ${result.overOneSecond} over 1 s; slowest (median ms):`,
    ...result.slowest.map(
      (timing) =>
        `  ${timing.medianMs} ms (CPU ${timing.medianCpuMs} ms, RSS ${mb(timing.peakRssBytes)})  ${timing.name} (${timing.rows} rows)`,
    ),
    `  through logs.all over the last 24 h, as Studio sends them: ${result.logsAll.queries} queries, median ${result.logsAll.medianMs} ms, p90 ${result.logsAll.p90Ms} ms, max ${result.logsAll.maxMs} ms, ${result.logsAll.overOneSecond} over 1 s; slowest ${result.logsAll.slowest.map((timing) => `${timing.ms} ms ${timing.name}`).join(', ')}`,
    ...result.failures.map((failure) => `  FAILED ${failure.name}: ${failure.message}`),
  ];
}

const mb = (bytes: number) => `${Math.round(bytes / 2 ** 20)} MiB`;

/** One store per size, its figures: the growth table's input. */
export interface StudioGrowthRow {
  readonly edgeRecords: number;
  readonly records: Record<string, number>;
  readonly generationSeconds: number;
  readonly storeBytes: number;
  readonly result: StudioSqlResult;
}

/**
 * The growth table: each query's median time and peak RSS at every size, then each size's
 * median, p90, max and count over 1 s. `load` is the machine's load average while it ran.
 */
export function describeStudioGrowth(rows: readonly StudioGrowthRow[], load: string): string[] {
  const sizes = rows.map((row) => label(row.edgeRecords));
  const names = rows[0]?.result.timings.map((timing) => timing.name) ?? [];
  const cell = (row: StudioGrowthRow, name: string) => {
    const timing = row.result.timings.find((candidate) => candidate.name === name);
    return timing ? `${timing.medianMs} ms, ${mb(timing.peakRssBytes)}` : 'failed';
  };
  const summary = (pick: (row: StudioGrowthRow) => string) => rows.map(pick).join(' | ');
  return [
    `Studio/Logflare SQL growth (median of runs, and the bench process's peak RSS during the query; load average ${load}):`,
    `| query | ${sizes.join(' | ')} |`,
    `|---|${sizes.map(() => '---|').join('')}`,
    ...names.map((name) => `| ${name} | ${rows.map((row) => cell(row, name)).join(' | ')} |`),
    `| **median** | ${summary((row) => `${row.result.medianMs} ms`)} |`,
    `| **p90** | ${summary((row) => `${row.result.p90Ms} ms`)} |`,
    `| **max** | ${summary((row) => `${row.result.slowest[0]?.medianMs ?? 0} ms`)} |`,
    `| **over 1 s** | ${summary((row) => String(row.result.overOneSecond))} |`,
    `| **peak RSS** | ${summary((row) => mb(row.result.peakRssBytes))} |`,
    `| **through logs.all, last 24 h** (queries: median / p90 / max, over 1 s) | ${summary(
      ({ result: { logsAll } }) =>
        `${logsAll.queries}: ${logsAll.medianMs} / ${logsAll.p90Ms} / ${logsAll.maxMs} ms, ${logsAll.overOneSecond}`,
    )} |`,
    `| store (all sources) | ${summary((row) => `${Object.values(row.records).reduce((a, b) => a + b, 0)} records, ${mb(row.storeBytes)}, made in ${Math.round(row.generationSeconds)} s`)} |`,
    ...rows.flatMap((row) =>
      row.result.failures.map(
        (failure) => `  FAILED at ${label(row.edgeRecords)} ${failure.name}: ${failure.message}`,
      ),
    ),
  ];
}

/** `1M`, `3M`, `10M`, `250k` or the number. */
export function label(records: number): string {
  if (records >= 1e6 && records % 1e5 === 0) return `${records / 1e6}M`;
  if (records >= 1e3 && records % 1e3 === 0) return `${records / 1e3}k`;
  return String(records);
}

/** `1M,3M,10M` (or `250k`, or plain numbers) as record counts, smallest first. */
export function parseSizes(text: string): number[] {
  return text
    .split(',')
    .map((part) => {
      const match = /^\s*(\d+(?:\.\d+)?)\s*([kKmM]?)\s*$/.exec(part);
      if (!match) throw new Error(`sizes are written as 1M,3M,10M, not '${part}'`);
      const unit = { '': 1, k: 1e3, m: 1e6 }[(match[2] ?? '').toLowerCase()] ?? 1;
      return Math.round(Number(match[1]) * unit);
    })
    .sort((a, b) => a - b);
}
