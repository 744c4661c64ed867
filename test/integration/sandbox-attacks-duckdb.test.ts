import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { fixtureEvents, fixtureNow } from '../fixtures/spec-fixture.js';
import { expectNoServerErrors, serveDuringFile } from '../helpers/querygate-server.js';
import { sandboxAttacks } from '../helpers/sandbox-attacks.js';
import {
  alpha,
  edgeRecords,
  newestIds,
  sandboxedPath,
  sandboxedQueriesDir,
} from '../helpers/sandboxed-queries.js';

// The attack corpus against a sandboxed endpoint on the embedded engine: every text is refused
// (4xx) or bounded (504 within the query timeout), no answer holds the canary file's secret, no
// file appears where one was asked for, and the store's tables are all still there afterwards.

const timeoutMs = 2_000;
const queries = sandboxedQueriesDir();
const scratch = mkdtempSync(join(tmpdir(), 'querygate-sandbox-attacks-'));
const secret = 'canary-secret-7f3a9c';
const canary = join(scratch, 'canary.csv');
writeFileSync(canary, `secret\n${secret}\n`);
const target = join(scratch, 'written-by-an-attack');
afterAll(() => {
  rmSync(queries, { recursive: true, force: true });
  rmSync(scratch, { recursive: true, force: true });
});
const service = serveDuringFile({
  now: fixtureNow,
  events: fixtureEvents,
  environment: { QUERYGATE_QUERIES_DIR: queries, QUERYGATE_QUERY_TIMEOUT_MS: String(timeoutMs) },
});

describe('the sandbox attack corpus on DuckDB', () => {
  it.each(sandboxAttacks(canary, target).map((attack) => [attack.name, attack] as const))(
    'refuses or bounds %s',
    async (_name, attack) => {
      const started = Date.now();
      // In a JSON body, as Logflare's clients may send it: some texts are too long for a URL.
      const response = await service().request('POST', sandboxedPath, {
        body: JSON.stringify({ project: alpha, sql: attack.sql }),
      });
      const allowed = attack.harmless ? [200, 400, 413, 504] : [400, 413, 504];
      expect(allowed, response.text).toContain(response.status);
      expect(response.text).not.toContain(secret);
      expect(Date.now() - started).toBeLessThan(timeoutMs + 3_000);
    },
  );

  it('read no record of a source the endpoint has no CTE of', () => {
    // The database, auth and storage records are there (ingested at start): none may show.
    const unreachable = fixtureEvents
      .filter((event) => event.source !== 'cloudflare.logs.prod' && event.source !== 'deno-relay-logs')
      .map((event) => event.id);
    expect(unreachable.length).toBeGreaterThan(0);
    const leaked = service().responses.filter((response) =>
      unreachable.some((id) => response.text.includes(`"${id}"`)),
    );
    expect(leaked.map((response) => response.text.slice(0, 200))).toEqual([]);
  });

  it('wrote nothing, dropped nothing and still answers the saved query', async () => {
    expect(existsSync(target)).toBe(false);
    const saved = await service().get(sandboxedPath, { project: alpha });
    expect(saved.status).toBe(200);
    expect((saved.body as { result: Array<{ id: string }> }).result.map((row) => row.id)).toEqual(
      newestIds(edgeRecords(alpha), 10),
    );
    const shipped = await service().get('/api/endpoints/logs.all', { project: alpha, project_tier: 'PRO' });
    expect(shipped.status).toBe(200);
  });

  it('answered no attack with a 5xx other than a timeout, nor leaked a stack or path', () => {
    const service5xx = service().responses.filter(
      (response) => response.status >= 500 && response.status !== 504,
    );
    expect(service5xx.map((response) => response.text)).toEqual([]);
    expectNoServerErrors({
      ...service(),
      responses: service().responses.filter((response) => response.status !== 504),
    });
  });
});
