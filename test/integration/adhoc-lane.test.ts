import type { ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { residentBytes } from '../../bench/memory.js';
import { packageRoot } from '../../src/paths.js';
import { spawnQuerygate, stopChild } from '../helpers/querygate-child.js';
import { type Bomb, cheapSql, memoryBombs, runawayQueries } from '../helpers/sandbox-attacks.js';

// The ad-hoc lane through the real CLI in a child process serving the Supabase directory (its
// `logs.all` is sandboxed, as Studio's Logs Explorer calls it), every call with one key from one
// address, as Studio makes them. Resident memory is read from the child's /proc.

const studioKey = 'studio-key-for-the-adhoc-lane-0123';
const timeoutMs = 8_000;
const mib = 1024 * 1024;
const records = 200;
let dir: string;
let server: ChildProcess;
let url: string;
let output = '';
/** The highest RSS seen since the last `resetPeak`, sampled every 50 ms. */
let peakBytes = 0;
let sampler: NodeJS.Timeout;
/** RSS at rest once the server has served each kind of call. */
let idle: number;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'querygate-adhoc-lane-'));
  server = spawnQuerygate({
    queries: join(packageRoot, 'supabase'),
    dataDir: join(dir, 'data'),
    apiKey: studioKey,
    env: { QUERYGATE_QUERY_TIMEOUT_MS: String(timeoutMs) },
    onOutput: (text) => {
      output += text;
    },
  });
  while (!/listening on http/.test(output)) await new Promise((resolve) => setTimeout(resolve, 100));
  url = /listening on (http:\/\/\S+)/.exec(output)?.[1] as string;
  const now = Date.now();
  const events = Array.from({ length: records }, (_, i) => ({
    id: `edge-${i}`,
    timestamp: new Date(now - i * 1000).toISOString(),
    event_message: `GET /rest/v1/table-${i} 200`,
    project: 'default',
    metadata: { request: { method: 'GET', path: `/rest/v1/table-${i}` } },
  }));
  const posted = await fetch(`${url}/api/logs?source_name=cloudflare.logs.prod`, {
    method: 'POST',
    headers: { 'x-api-key': studioKey, 'content-type': 'application/json' },
    body: JSON.stringify({ batch: events }),
  });
  expect(posted.status, await posted.text()).toBeLessThan(300);
  // Idle once every path has run (the first calls load and compile what they use, which stays).
  await adhoc(cheapSql);
  await adhoc('select nothing_here from edge_logs');
  await usageCounts();
  idle = await quietRss();
  sampler = setInterval(() => {
    peakBytes = Math.max(peakBytes, residentBytes(server.pid) ?? 0);
  }, 50);
}, 120_000);

afterAll(async () => {
  clearInterval(sampler);
  await stopChild(server);
  rmSync(dir, { recursive: true, force: true });
});

interface Answer {
  readonly status: number;
  readonly ms: number;
  readonly body: string;
  readonly retryAfter: string | null;
}

async function call(path: string, params: Record<string, string>): Promise<Answer> {
  const started = performance.now();
  const response = await fetch(`${url}${path}?${new URLSearchParams(params)}`, {
    headers: { 'x-api-key': studioKey, 'cache-control': 'no-cache' },
  });
  const body = await response.text();
  return {
    status: response.status,
    ms: performance.now() - started,
    body,
    retryAfter: response.headers.get('retry-after'),
  };
}

const adhoc = (sql: string) => call('/api/endpoints/query/logs.all', { project: 'default', sql });
const usageCounts = () => call('/api/endpoints/usage.api-counts', { project: 'default', interval: '1day' });
const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
/** RSS once the process is quiet: the lowest of a few readings a little apart. */
async function quietRss(): Promise<number> {
  const readings: number[] = [];
  for (let i = 0; i < 5; i++) {
    await settle(300);
    readings.push(residentBytes(server.pid) ?? 0);
  }
  return Math.min(...readings);
}

/**
 * RSS once what the bombs freed has had time to go back (DuckDB's allocator purges freed pages
 * after a second): the lowest reading within 5 s, early once within `bound`.
 */
async function settledRss(bound: number): Promise<number> {
  let lowest = Number.POSITIVE_INFINITY;
  for (let waited = 0; waited < 5_000 && lowest >= bound; waited += 250) {
    await settle(250);
    lowest = Math.min(lowest, residentBytes(server.pid) ?? 0);
  }
  return lowest;
}

describe('the ad-hoc lane', () => {
  it('answers cheap SQL of the same key and a saved endpoint within 3 s while two runaways run, cuts the runaways off at the timeout, and comes back within 100 MiB of idle RSS', async () => {
    peakBytes = 0;
    const bombs = runawayQueries.map((bomb: Bomb) => adhoc(bomb.sql));
    // Both bombs are past the lane's short time (3 s by default): long, holding their turns.
    await settle(3_500);
    const cheap = await adhoc(cheapSql);
    const saved = await usageCounts();
    expect(cheap.status, cheap.body).toBe(200);
    expect(cheap.ms).toBeLessThan(3_000);
    // The five newest of the records posted, newest first.
    expect((JSON.parse(cheap.body) as { result: Array<{ id: string }> }).result.map((row) => row.id)).toEqual(
      ['edge-0', 'edge-1', 'edge-2', 'edge-3', 'edge-4'],
    );
    expect(saved.status, saved.body).toBe(200);
    expect(saved.ms).toBeLessThan(3_000);
    const answered = await Promise.all(bombs);
    expect(answered.map((answer) => answer.status)).toEqual([504, 504]);
    for (const answer of answered) expect(answer.ms).toBeLessThan(timeoutMs + 3_000);
    expect(peakBytes).toBeLessThan(640 * mib);
    // Back near idle: what the runaways freed is returned to the system, not kept resident.
    expect(await settledRss(idle + 100 * mib), `idle ${Math.round(idle / mib)} MiB`).toBeLessThan(
      idle + 100 * mib,
    );
  }, 60_000);

  it('cancels a third long query with 503 ENGINE_BUSY and a Retry-After while two long ones run', async () => {
    // Runaways of time only (the generated arrays): no memory ceiling stops any of them first.
    const [arrays] = runawayQueries;
    const bombs = ['a > 1', 'a > 2'].map((filter) => adhoc(`${arrays?.sql} where ${filter}`));
    await settle(3_500);
    const third = await adhoc(`${arrays?.sql} where a > 3`);
    expect(third.status, third.body).toBe(503);
    expect(JSON.parse(third.body).error.code).toBe('ENGINE_BUSY');
    expect(Number(third.retryAfter)).toBeGreaterThanOrEqual(1);
    // Turned long at about 3 s and found no long turn: stopped then, not at the timeout.
    expect(third.ms).toBeLessThan(timeoutMs - 2_000);
    await Promise.all(bombs);
  }, 60_000);

  it('stays under 640 MiB with two memory bombs at once, each refused or stopped, and comes back within 100 MiB of idle RSS', async () => {
    peakBytes = 0;
    for (let i = 0; i < memoryBombs.length; i++) {
      const pair = [memoryBombs[i], memoryBombs[(i + 1) % memoryBombs.length]] as Bomb[];
      const answers = await Promise.all(pair.map((bomb) => adhoc(bomb.sql)));
      // Refused by the checks (400), stopped past the memory ceiling or DuckDB's limit (400), or
      // at the timeout (504); never a 5xx of the server's own.
      for (const answer of answers) expect([200, 400, 503, 504], answer.body).toContain(answer.status);
    }
    expect(peakBytes).toBeLessThan(640 * mib);
    // Back near idle too: what the aggregates freed is returned.
    expect(await settledRss(idle + 100 * mib), `idle ${Math.round(idle / mib)} MiB`).toBeLessThan(
      idle + 100 * mib,
    );
  }, 120_000);
});
