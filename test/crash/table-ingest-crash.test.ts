import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { mulberry32 } from '../../bench/generate-logs.js';
import { packageRoot } from '../../src/paths.js';
import { type ServedChild, serveChild } from '../helpers/querygate-child.js';
import { firstColumnText, readStoreFile } from '../helpers/store-file.js';

/**
 * "An acknowledged record survives kill -9" for rows posted into a table source (the warehouse
 * example's `orders`), which take another path than log events: checked and inserted as they
 * are. Two runs on one data dir: each has clients post orders until the server is SIGKILLed at
 * a seeded random moment; the second must open the store the first left, and after the last kill
 * DuckDB alone must hold every order answered 200.
 */

const runs = 2;
const seed = 20_261_125;
const apiKey = 'querygate-table-crash-key-0123456789';
const clients = 4;

function serve(dataDir: string): Promise<ServedChild> {
  return serveChild({ queries: join(packageRoot, 'examples', 'warehouse'), dataDir, apiKey });
}

/** An order as BigQuery's export writes it: every type of the table, nested and repeated ones too. */
function order(id: string, i: number) {
  return {
    order_id: id,
    customer_id: `c${i % 13}`,
    created_at: '2026-11-25T10:00:00.123456Z',
    order_date: '2026-11-25',
    status: i % 3 === 0 ? 'shipped' : 'placed',
    total: `${i}.25`,
    currency: 'EUR',
    is_gift: i % 2 === 0,
    tags: ['crash', `t${i % 5}`],
    shipping: {
      method: 'post',
      address: { city: 'Lyon', country: 'FR', postal_code: '69001' },
      shipped_at: '2026-11-25T11:00:00',
      window_start: '09:00:00',
    },
    lines: [{ sku: `s${i}`, quantity: String(1 + (i % 4)), unit_price: '3.50' }],
    attributes: JSON.stringify({ run: id }),
    receipt: Buffer.from(id).toString('base64'),
  };
}

async function postUntilStopped(
  url: string,
  prefix: string,
  random: () => number,
  stopped: () => boolean,
  progress: { acknowledged: number; failed: boolean },
): Promise<string[]> {
  const acknowledged: string[] = [];
  for (let request = 0; !stopped(); request += 1) {
    const rows = Array.from({ length: 1 + Math.floor(random() * 20) }, (_, i) =>
      order(`${prefix}-q${request}-o${i}`, request + i),
    );
    try {
      const response = await fetch(`${url}/api/logs?source=orders`, {
        method: 'POST',
        headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
        body: JSON.stringify({ batch: rows }),
      });
      const text = await response.text();
      if (response.status !== 200) throw new Error(`ingest answered ${response.status}: ${text}`);
      acknowledged.push(...rows.map((row) => row.order_id));
      progress.acknowledged += rows.length;
    } catch (error) {
      // The kill cuts requests off mid-flight; those were never acknowledged.
      if (stopped()) break;
      progress.failed = true;
      throw error;
    }
  }
  return acknowledged;
}

function storedOrderIds(file: string): Promise<Set<string>> {
  return readStoreFile(file, (connection) => firstColumnText(connection, 'SELECT order_id FROM orders'));
}

describe('kill -9 during ingestion into a table source', () => {
  let dataDir: string | undefined;
  let served: ServedChild | undefined;

  afterAll(async () => {
    served?.child.kill('SIGKILL');
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('keeps every acknowledged row over kills at random moments, and the store opens after each', async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'querygate-table-crash-'));
    const random = mulberry32(seed);
    const acknowledged: string[] = [];
    for (let run = 0; run < runs; run += 1) {
      served = await serve(dataDir);
      expect((await fetch(`${served.url}/health`)).status, `run ${run}: the store did not open`).toBe(200);
      let killed = false;
      const progress = { acknowledged: 0, failed: false };
      const posting = Array.from({ length: clients }, (_, client) =>
        postUntilStopped(
          served?.url ?? '',
          `r${run}-c${client}`,
          mulberry32(seed + run * 31 + client),
          () => killed,
          progress,
        ),
      );
      while (progress.acknowledged === 0 && !progress.failed)
        await new Promise((wait) => setTimeout(wait, 10));
      await new Promise((wait) => setTimeout(wait, random() * 800));
      killed = true;
      served.child.kill('SIGKILL');
      await served.exited;
      for (const ids of await Promise.all(posting)) acknowledged.push(...ids);
    }
    served = undefined;
    const stored = await storedOrderIds(join(dataDir, 'querygate.duckdb'));
    const lost = acknowledged.filter((id) => !stored.has(id));
    expect(acknowledged.length).toBeGreaterThanOrEqual(runs);
    expect(lost.slice(0, 20)).toEqual([]);
    console.info(
      `table crash test: ${runs} kills, ${acknowledged.length} acknowledged rows, ${lost.length} lost`,
    );
  }, 90_000);
});
