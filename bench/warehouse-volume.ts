import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { parse } from 'yaml';
import { packageRoot } from '../src/paths.js';
import { writeGa4Volume } from './generate-ga4.js';
import { residentBytes } from './memory.js';
import { benchApiKey, startServerProcess } from './processes.js';

/**
 * The GA4 export queries of test/fixtures/ga4-queries at a busy site's volume: a month of daily
 * tables of `events` events (generate-ga4.ts, streamed to disk), loaded by `querygate import` as
 * a user loads theirs, then every endpoint asked over HTTP of the built server, for a day, a week
 * and the month where it takes a range. Each (endpoint, range) runs on a server started for it:
 * the first call is cold (DuckDB's buffers empty, the OS's file cache as earlier runs left it),
 * the next `runs` warm; the server's resident memory is read after them, and its peak.
 */
export interface WarehouseQueryTiming {
  readonly endpoint: string;
  readonly range: string;
  readonly params: Record<string, string>;
  readonly coldMs: number;
  /** Median of the warm runs. */
  readonly warmMs: number;
  readonly warmRunsMs: readonly number[];
  readonly responseBytes: number;
  readonly rssBytes: number | undefined;
  readonly peakRssBytes: number | undefined;
  readonly status: number;
}

export interface WarehouseSizeResult {
  readonly events: number;
  readonly generationSeconds: number;
  readonly importSeconds: number;
  readonly storeBytes: number;
  readonly queries: readonly WarehouseQueryTiming[];
}

export const ga4QueriesDir = join(packageRoot, 'test/fixtures/ga4-queries');

interface StoreDescription {
  events: number;
  generationSeconds: number;
  importSeconds: number;
  days: string[];
  busyUser: string;
  busyDay: string;
}

/**
 * The store of `events` events in `dir/<events>`: generated and imported once, kept with a
 * `.json` beside it, so a kept directory (`--warehouse-dir`) is timed again without remaking it.
 */
export function warehouseStore(
  dir: string,
  events: number,
  { dist, log }: { dist: string; log: (line: string) => void },
): { dataDir: string; description: StoreDescription } {
  const dataDir = join(dir, `ga4-${events}`);
  const descriptionFile = join(dataDir, 'store.json');
  if (existsSync(descriptionFile))
    return { dataDir, description: JSON.parse(readFileSync(descriptionFile, 'utf8')) };
  rmSync(dataDir, { recursive: true, force: true });
  const exportDir = join(dataDir, 'export');
  mkdirSync(exportDir, { recursive: true });
  log(`Writing a GA4 export of ${events} events...`);
  const generated = writeGa4Volume(exportDir, { events });
  log(`  ${generated.seconds.toFixed(1)} s; importing it with querygate import...`);
  const started = performance.now();
  execFileSync(
    process.execPath,
    [
      join(dist, 'cli/main.js'),
      'import',
      '--queries',
      ga4QueriesDir,
      '--source',
      'events',
      ...generated.files,
    ],
    {
      env: { ...process.env, QUERYGATE_DATA_DIR: dataDir, LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'ignore', 'inherit'],
    },
  );
  const importSeconds = (performance.now() - started) / 1000;
  // The export is 1.3 KB an event on disk: gone once loaded.
  rmSync(exportDir, { recursive: true, force: true });
  const description: StoreDescription = {
    events: generated.events,
    generationSeconds: generated.seconds,
    importSeconds,
    days: [...generated.days],
    busyUser: generated.busyUser,
    busyDay: generated.busyDay,
  };
  writeFileSync(descriptionFile, JSON.stringify(description));
  return { dataDir, description };
}

/**
 * Each endpoint's calls: one per range for those taking a date range (or a start, or a day),
 * with the other parameters a user would pass; one call for those reading the whole export.
 */
export function warehouseCases(
  description: StoreDescription,
): { endpoint: string; range: string; params: Record<string, string> }[] {
  const days = description.days;
  const middle = Math.floor(days.length / 2);
  const day = description.busyDay;
  const ranges: Record<string, [string, string]> = {
    day: [day, day],
    week: [days[middle] as string, days[Math.min(days.length - 1, middle + 6)] as string],
    month: [days[0] as string, days[days.length - 1] as string],
  };
  const fixed: Record<string, string> = {
    user: description.busyUser,
    event_name: 'purchase',
    time_zone: 'Europe/Copenhagen',
    max_days: '7',
    min_sessions: '2',
    idle_minutes: '30',
    top: '10',
    country: 'Germany',
  };
  const cases: { endpoint: string; range: string; params: Record<string, string> }[] = [];
  for (const file of readdirSync(ga4QueriesDir)
    .filter((name) => name.endsWith('.yaml'))
    .sort()) {
    const contract = parse(readFileSync(join(ga4QueriesDir, file), 'utf8'));
    if (typeof contract?.name !== 'string') continue;
    const names: string[] = (contract.parameters ?? []).map((parameter: { name: string }) => parameter.name);
    const others = Object.fromEntries(
      names.filter((name) => name in fixed).map((name) => [name, fixed[name] as string]),
    );
    const pair = names.includes('start_suffix')
      ? ['start_suffix', 'end_suffix']
      : names.includes('first_day')
        ? ['first_day', 'last_day']
        : undefined;
    if (pair) {
      for (const [range, [first, last]] of Object.entries(ranges)) {
        const params: Record<string, string> = { ...others, [pair[0] as string]: first };
        // A start alone (`_TABLE_SUFFIX >= @start_suffix`) reads from it to the export's end.
        if (names.includes(pair[1] as string)) params[pair[1] as string] = last;
        else
          params[pair[0] as string] = { day: days.at(-1), week: days.at(-7), month: days[0] }[
            range
          ] as string;
        cases.push({ endpoint: contract.name, range, params });
      }
    } else if (names.includes('day'))
      cases.push({ endpoint: contract.name, range: 'day', params: { ...others, day } });
    else cases.push({ endpoint: contract.name, range: 'all', params: others });
  }
  return cases;
}

/** Times every case against the store of each size, a server started per case. */
export async function measureWarehouseVolume({
  sizes,
  dir,
  dist,
  runs,
  only,
  log,
}: {
  sizes: readonly number[];
  dir: string;
  dist: string;
  runs: number;
  only?: RegExp | undefined;
  log: (line: string) => void;
}): Promise<WarehouseSizeResult[]> {
  const results: WarehouseSizeResult[] = [];
  for (const events of sizes) {
    const { dataDir, description } = warehouseStore(dir, events, { dist, log });
    const queries: WarehouseQueryTiming[] = [];
    log(`Timing the GA4 queries at ${description.events} events...`);
    for (const testCase of warehouseCases(description)) {
      if (only && !only.test(`${testCase.endpoint} ${testCase.range}`)) continue;
      const timing = await timeWarehouseCase(dataDir, dist, runs, testCase);
      queries.push(timing);
      log(warehouseLine(timing));
    }
    results.push({
      events: description.events,
      generationSeconds: description.generationSeconds,
      importSeconds: description.importSeconds,
      storeBytes: statSync(join(dataDir, 'querygate.duckdb')).size,
      queries,
    });
  }
  return results;
}

export async function timeWarehouseCase(
  dataDir: string,
  dist: string,
  runs: number,
  { endpoint, range, params }: { endpoint: string; range: string; params: Record<string, string> },
): Promise<WarehouseQueryTiming> {
  const server = await startServerProcess(dataDir, [], dist, { QUERYGATE_QUERIES_DIR: ga4QueriesDir });
  try {
    const url = `${server.url}/api/endpoints/${endpoint}?${new URLSearchParams(params)}`;
    const call = async () => {
      const started = performance.now();
      const response = await fetch(url, {
        headers: { 'x-api-key': benchApiKey, 'cache-control': 'no-cache' },
      });
      const body = await response.arrayBuffer();
      return { ms: performance.now() - started, status: response.status, bytes: body.byteLength };
    };
    const cold = await call();
    const warm: number[] = [];
    for (let run = 0; run < runs && cold.status === 200; run++) warm.push((await call()).ms);
    return {
      endpoint,
      range,
      params,
      coldMs: cold.ms,
      warmMs:
        warm.length === 0
          ? Number.NaN
          : ([...warm].sort((a, b) => a - b)[Math.floor(warm.length / 2)] as number),
      warmRunsMs: warm,
      responseBytes: cold.bytes,
      rssBytes: residentBytes(server.child.pid),
      peakRssBytes: server.peakRssBytes(),
      status: cold.status,
    };
  } finally {
    await server.stop();
  }
}

const mb = (bytes: number | undefined) => (bytes === undefined ? '?' : `${Math.round(bytes / 2 ** 20)}`);

export function warehouseLine(timing: WarehouseQueryTiming): string {
  const name = `  ${timing.endpoint.padEnd(24)} ${timing.range.padEnd(5)}`;
  // The endpoints the embedded engine refuses at load (an HLL sketch, two columns of one name).
  if (timing.status === 404) return `${name} not served on the embedded engine (HTTP 404)`;
  const warm = Number.isNaN(timing.warmMs) ? '-' : timing.warmMs.toFixed(0);
  const failed = timing.status === 200 ? '' : `  HTTP ${timing.status}`;
  return `${name} cold ${timing.coldMs.toFixed(0).padStart(6)} ms  warm ${warm.padStart(6)} ms  ${mb(timing.responseBytes).padStart(4)} MB out  RSS ${mb(timing.rssBytes)} MB (peak ${mb(timing.peakRssBytes)})${failed}`;
}

/** The table of every size, one line a query. */
export function describeWarehouseVolume(results: readonly WarehouseSizeResult[], load: string): string[] {
  return results.flatMap((result) => [
    `GA4 export of ${result.events} events over ${30} daily tables (store ${mb(result.storeBytes)} MB; written in ${result.generationSeconds.toFixed(0)} s, imported in ${result.importSeconds.toFixed(0)} s), load average ${load}:`,
    ...result.queries.map(warehouseLine),
  ]);
}
