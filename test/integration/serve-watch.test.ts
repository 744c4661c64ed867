import type { ChildProcess } from 'node:child_process';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { serveExamplesCopy, stopChild } from '../helpers/querygate-child.js';

// `querygate serve --watch` as a developer runs it: the real CLI in a child process over a copy of
// examples/queries; a saved file is served without SIGHUP (none is ever sent here).

const apiKey = 'serve-watch-test-key-0123456789';
let dir: string;
let queries: string;
let server: ChildProcess;
let output = '';
let url: string;

const now = Date.now();
const orders = [
  { order_id: 'w1', amount_cents: 100, minutesAgo: 3 },
  { order_id: 'w2', amount_cents: 200, minutesAgo: 4 },
  { order_id: 'w3', amount_cents: 300, minutesAgo: 5 },
  { order_id: 'w4', amount_cents: 400, minutesAgo: 6 },
];
/** checkout.orders lists the newest first: the fixture's order ids by age. */
const newestFirst = [...orders].sort((a, b) => a.minutesAgo - b.minutesAgo).map((order) => order.order_id);

async function orderIds(): Promise<string[]> {
  const target = new URL('/api/endpoints/checkout.orders', url);
  target.searchParams.set('project', 'watch');
  const response = await fetch(target, { headers: { 'x-api-key': apiKey } });
  expect(response.status).toBe(200);
  const body = (await response.json()) as { result: Array<{ order_id: string }> };
  return body.result.map((row) => row.order_id);
}

beforeAll(async () => {
  const collect = (text: string) => {
    output += text;
  };
  const started = serveExamplesCopy({ apiKey, args: ['--watch'], onOutput: collect });
  dir = started.dir;
  queries = started.queries;
  server = started.child;
  for (let tries = 0; !/listening on http/.test(output); tries++) {
    if (tries > 400 || server.exitCode !== null) throw new Error(`the server did not start:\n${output}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  url = /listening on (http:\/\/[^ \s]+)/.exec(output)?.[1] as string;
  const ingested = await fetch(new URL('/api/logs?source_name=checkout.events', url), {
    method: 'POST',
    headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
    body: JSON.stringify({
      batch: orders.map((order) => ({
        timestamp: new Date(now - order.minutesAgo * 60_000).toISOString(),
        event_message: `${order.order_id} paid`,
        project: 'watch',
        metadata: { order_id: order.order_id, amount_cents: order.amount_cents, status: 'paid' },
      })),
    }),
  });
  expect(ingested.status).toBe(200);
});

afterAll(async () => {
  await stopChild(server);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

it('serves an edited SQL file without SIGHUP when started with --watch', async () => {
  expect(await orderIds()).toEqual(newestFirst);
  const sqlFile = join(queries, 'checkout.orders.sql');
  const sql = readFileSync(sqlFile, 'utf8');
  expect(sql).toMatch(/\nlimit 100\s*$/);
  writeFileSync(sqlFile, sql.replace(/\nlimit 100(\s*)$/, '\nlimit 2$1'));
  // The watcher's reload lands some time after the write: poll, a bounded number of times.
  let served: string[] = [];
  for (let tries = 0; tries < 200; tries++) {
    served = await orderIds();
    if (served.length !== orders.length) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  expect(served).toEqual(newestFirst.slice(0, 2));
  expect(output).toMatch(/"msg":"reloaded [^"]*: now serving version 2"/);
  expect(output).toContain('"changed":["checkout.orders"]');
});
