import type { ChildProcess } from 'node:child_process';
import { rmSync } from 'node:fs';
import { request } from 'node:http';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { serveExamplesCopy, spawnQuerygate, stopChild } from '../helpers/querygate-child.js';

// `querygate serve` stopped as `docker stop` and orchestrators stop it: SIGTERM while a request
// is under way. The real CLI in a child process over a copy of examples/queries.

const apiKey = 'serve-sigterm-test-key-0123456789';
const now = Date.now();
const orders = Array.from({ length: 60 }, (_, n) => ({
  timestamp: new Date(now - (n + 1) * 1_000).toISOString(),
  event_message: `o${n} paid`,
  project: 'sigterm',
  metadata: { order_id: `o${String(n).padStart(2, '0')}`, amount_cents: 100 + n, status: 'paid' },
}));

let dir: string | undefined;
const children: ChildProcess[] = [];

afterAll(async () => {
  for (const child of children) await stopChild(child);
  if (dir) rmSync(dir, { recursive: true, force: true });
});

async function listening(child: ChildProcess, output: () => string): Promise<string> {
  for (let tries = 0; !/listening on http/.test(output()); tries++) {
    if (tries > 600 || child.exitCode !== null) throw new Error(`the server did not start:\n${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return /listening on (http:\/\/[^ \s]+)/.exec(output())?.[1] as string;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

it('on SIGTERM answers and commits the ingest under way, refuses new connections, and exits 0', async () => {
  let output = '';
  const started = serveExamplesCopy({ apiKey, onOutput: (text) => (output += text) });
  dir = started.dir;
  const { child } = started;
  children.push(child);
  const url = await listening(child, () => output);

  // Headers and half the body before the signal, the rest after it.
  const body = JSON.stringify({ batch: orders });
  const answer = new Promise<{ status: number; text: string }>((resolve, reject) => {
    const req = request(new URL('/api/logs?source_name=checkout.events', url), {
      method: 'POST',
      headers: {
        'x-api-key': apiKey,
        'content-type': 'application/json',
        'content-length': Buffer.byteLength(body),
      },
    });
    req.on('response', (response) => {
      let text = '';
      response.on('data', (chunk) => {
        text += chunk;
      });
      response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
    });
    req.on('error', reject);
    req.write(body.slice(0, body.length / 2));
    setTimeout(() => req.end(body.slice(body.length / 2)), 1_000);
  });
  const exited = new Promise<{ code: number | null; signal: string | null; at: number }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal, at: Date.now() })),
  );
  await pause(300);
  const signalledAt = Date.now();
  child.kill('SIGTERM');
  await pause(300);
  // Stopped accepting: a new connection is refused while the request under way goes on.
  await expect(fetch(new URL('/health', url))).rejects.toThrow();

  const answered = await answer;
  expect(answered.status).toBe(200);
  expect(JSON.parse(answered.text)).toEqual({ message: 'Logged!', ingested: orders.length });
  const { code, signal, at } = await exited;
  expect({ code, signal }).toEqual({ code: 0, signal: null });
  expect(at - signalledAt).toBeLessThan(10_000);
  expect(output).toContain('stopping: finishing requests under way, then checkpointing');

  // Started again on the same store: every acknowledged record is there.
  let again = '';
  const restarted = spawnQuerygate({
    apiKey,
    queries: started.queries,
    dataDir: join(started.dir, 'data'),
    onOutput: (text) => (again += text),
  });
  children.push(restarted);
  const url2 = await listening(restarted, () => again);
  const read = await fetch(new URL('/api/endpoints/checkout.orders?project=sigterm', url2), {
    headers: { 'x-api-key': apiKey },
  });
  const rows = ((await read.json()) as { result: Array<{ order_id: string }> }).result;
  expect(rows.map((row) => row.order_id).sort()).toEqual(
    orders.map((order) => order.metadata.order_id).sort(),
  );
}, 120_000);
