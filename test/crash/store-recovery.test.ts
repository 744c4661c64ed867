import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/paths.js';
import { type ServedChild, serveChild, stopChild } from '../helpers/querygate-child.js';
import { firstColumnText, readStoreFile } from '../helpers/store-file.js';

/**
 * "An invalidated database is never silent and never permanent", on the real server over a real
 * data dir. QUERYGATE_FAULT_INJECTION=checkpoint opens the store with DuckDB's own
 * `debug_checkpoint_abort`, so the first checkpoint (the one after the first schema change) fails
 * with the FATAL error that invalidates the database, exactly as a checkpoint out of memory does
 * (issue 32). Readers and writers keep calling throughout; /health is polled every few ms.
 */

const apiKey = 'querygate-recovery-key-0123456789';
const source = 'cloudflare.logs.prod';

interface Answer {
  readonly at: number;
  readonly status: number;
  readonly retryAfter: string | null;
}

async function call(url: string, init: RequestInit = {}): Promise<Answer> {
  const response = await fetch(url, init);
  await response.arrayBuffer();
  return { at: Date.now(), status: response.status, retryAfter: response.headers.get('retry-after') };
}

function ingest(server: ServedChild, ids: readonly string[], metadata: Record<string, unknown> = {}) {
  return call(`${server.url}/api/logs?source_name=${source}`, {
    method: 'POST',
    headers: { 'x-api-key': apiKey, 'content-type': 'application/json' },
    body: JSON.stringify({ batch: ids.map((id) => ({ id, event_message: 'recovery', metadata })) }),
  });
}

describe('a store DuckDB invalidated by a failed checkpoint', () => {
  let dataDir: string | undefined;
  let server: ServedChild | undefined;

  afterAll(async () => {
    await stopChild(server?.child);
    if (dataDir) await rm(dataDir, { recursive: true, force: true });
  });

  it('fails /health at once, answers 503 with Retry-After (never 502) until it reopens by itself, and keeps every acknowledged record', async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'querygate-recovery-'));
    server = await serveChild({
      queries: join(packageRoot, 'queries'),
      dataDir,
      apiKey,
      env: { QUERYGATE_FAULT_INJECTION: 'checkpoint' },
    });
    const served = server;
    expect((await call(`${served.url}/health`)).status).toBe(200);

    const acknowledged: string[] = [];
    const answers = { reads: [] as Answer[], writes: [] as Answer[], health: [] as Answer[] };
    let stop = false;
    const read = `${served.url}/api/endpoints/logs.all?project=default&project_tier=FREE`;
    const loops = [
      ...[0, 1].map(async () => {
        while (!stop)
          answers.reads.push(
            await call(read, { headers: { 'x-api-key': apiKey, 'cache-control': 'no-cache' } }),
          );
      }),
      ...[0, 1].map(async (writer) => {
        for (let n = 0; !stop; n++) {
          const id = `w${writer}-${n}`;
          const answer = await ingest(served, [id]);
          answers.writes.push(answer);
          if (answer.status === 200) acknowledged.push(id);
        }
      }),
      (async () => {
        while (!stop) {
          answers.health.push(await call(`${served.url}/health`));
          await new Promise((wait) => setTimeout(wait, 5));
        }
      })(),
    ];

    // A new field: the schema change, then the checkpoint after it, which DuckDB fails fatally.
    const trigger = await ingest(served, ['trigger'], { first_new_field: 'x' });
    const failedAt = Date.now();
    expect(trigger.status).toBe(200);
    acknowledged.push('trigger');
    // The trigger's checkpoint failed before it was answered: /health already knows.
    const atOnce = await call(`${served.url}/health`);
    // Recovery: /health answers 200 again, without a restart.
    const deadline = Date.now() + 30_000;
    const recovered = () => answers.health.some((answer) => answer.at > failedAt && answer.status === 200);
    while (Date.now() < deadline && !recovered()) await new Promise((wait) => setTimeout(wait, 20));
    const after = await ingest(served, ['after-recovery'], { second_new_field: 'y' });
    if (after.status === 200) acknowledged.push('after-recovery');
    stop = true;
    await Promise.all(loops);

    expect(served.output()).toMatch(/database has been invalidated|Failed to create checkpoint/);
    expect(served.output()).toMatch(/the store is open again/);
    expect(atOnce.status).toBe(503);
    expect(atOnce.retryAfter).not.toBeNull();
    expect(recovered()).toBe(true);
    expect(after.status).toBe(200);
    const all = [...answers.reads, ...answers.writes, ...answers.health];
    expect(
      all.filter((answer) => answer.status >= 500 && answer.status !== 503).map((a) => a.status),
    ).toEqual([]);
    expect(all.filter((answer) => answer.status === 503 && answer.retryAfter === null)).toEqual([]);
    expect(answers.reads.some((answer) => answer.status === 200 && answer.at > failedAt)).toBe(true);
    expect(answers.writes.some((answer) => answer.status === 200 && answer.at > failedAt)).toBe(true);

    const recoveredAt =
      answers.health.find((answer) => answer.at > failedAt && answer.status === 200)?.at ?? 0;
    console.info(
      `store recovery: /health 503 for ${recoveredAt - failedAt} ms; ` +
        `503s: ${all.filter((answer) => answer.status === 503).length}, ` +
        `reads ${answers.reads.length}, writes ${answers.writes.length}; ` +
        served.output().match(/"downMs":\d+/)?.[0],
    );
    await stopChild(served.child);
    server = undefined;
    // DuckDB alone, no querygate code: every record answered 200 is in the file.
    const stored = await readStoreFile(join(dataDir, 'querygate.duckdb'), (connection) =>
      firstColumnText(connection, `SELECT id FROM "${source}"`),
    );
    expect(acknowledged.filter((id) => !stored.has(id))).toEqual([]);
    expect(acknowledged.length).toBeGreaterThan(2);
  }, 90_000);
});
