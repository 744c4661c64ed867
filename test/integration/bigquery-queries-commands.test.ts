import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runQueriesCheck, runQueriesLock } from '../../src/cli/queries-commands.js';
import { queriesDir as shippedQueriesDir } from '../../src/paths.js';
import { type BigQueryHarness, startBigQueryHarness } from '../helpers/bigquery-harness.js';

// `querygate queries check|lock` with QUERYGATE_ENGINE=bigquery: shapes come from BigQuery dry
// runs (here the fake's), not from an empty DuckDB store.

let harness: BigQueryHarness | undefined;
let dir: string | undefined;

afterEach(async () => {
  await harness?.close();
  harness = undefined;
  if (dir) rmSync(dir, { recursive: true, force: true });
  dir = undefined;
});

/** A copy of the shipped queries directory, to change. */
function copyOfShipped(): string {
  dir = mkdtempSync(join(tmpdir(), 'querygate-bq-queries-'));
  const queries = join(dir, 'queries');
  cpSync(shippedQueriesDir, queries, { recursive: true });
  return queries;
}

async function run(command: 'check' | 'lock', queriesDir: string) {
  harness ??= await startBigQueryHarness();
  const lines: string[] = [];
  const bigquery = { config: harness.config, client: harness.client() };
  const options = { queriesDir, bigquery, print: (line: string) => lines.push(line) };
  const ok = await (command === 'check' ? runQueriesCheck(options) : runQueriesLock(options));
  return { ok, lines, dryRuns: harness.fake.calls('jobs.insert') };
}

const shippedNames = ['functions.invocation-stats', 'logs.all', 'usage.api-counts'];

describe('querygate queries check on BigQuery', () => {
  it('passes the shipped queries, having dry-run each endpoint on BigQuery', async () => {
    const { ok, lines, dryRuns } = await run('check', shippedQueriesDir);
    expect(lines).toEqual([`✓ 3 endpoints in ${resolve(shippedQueriesDir)} pass every check on BigQuery`]);
    expect(ok).toBe(true);
    expect(dryRuns.map((call) => call.body.configuration.dryRun)).toEqual([true, true, true]);
    expect(dryRuns.map((call) => call.body.configuration.labels.querygate_endpoint)).toEqual(
      shippedNames.map((name) => name.replace(/[^a-z0-9_-]/g, '_')),
    );
  });

  it('fails with one line naming the endpoint whose dry run BigQuery rejects', async () => {
    harness = await startBigQueryHarness();
    harness.fake.inject({
      api: 'jobs.insert',
      status: 400,
      reason: 'invalidQuery',
      message: 'Unrecognized name: no_such_column at [3:5]',
    });
    const { ok, lines } = await run('check', shippedQueriesDir);
    expect(ok).toBe(false);
    // One line for the refused endpoint, then the count of those that pass.
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatch(
      /^✗ 2 endpoints in .* pass every check on BigQuery \(1 refused; the server would serve the others\)$/,
    );
    // BigQuery's dry run refuses the SQL: the line names the .sql file.
    expect(lines[0]).toMatch(/^✗ .*functions\.invocation-stats\.sql: .*functions\.invocation-stats/);
    expect(lines[0]).toContain('Unrecognized name: no_such_column');
  });

  it('fails with one line naming the endpoint whose BigQuery schema differs from its lock', async () => {
    const queries = copyOfShipped();
    const lockFile = join(queries, 'usage.api-counts.lock.json');
    const lock = JSON.parse(readFileSync(lockFile, 'utf8')) as {
      columns: Array<{ name: string; type: string }>;
    };
    const changed = lock.columns.find((column) => column.type === 'INT64');
    if (!changed) throw new Error('usage.api-counts locks no INT64 column to change');
    changed.type = 'STRING';
    writeFileSync(lockFile, JSON.stringify(lock, null, 2));
    const { ok, lines } = await run('check', queries);
    expect(ok).toBe(false);
    // One line for the refused endpoint, then the count of those that pass.
    expect(lines).toHaveLength(2);
    expect(lines[1]).toMatch(
      /^✗ 2 endpoints in .* pass every check on BigQuery \(1 refused; the server would serve the others\)$/,
    );
    expect(lines[0]).toMatch(/^✗ .*usage\.api-counts\.lock\.json: the result of usage\.api-counts differs/);
    expect(lines[0]).toContain(changed.name);
  });
});

describe('querygate queries lock on BigQuery', () => {
  it('writes the shapes the dry runs give, which equal the shipped locks', async () => {
    const queries = copyOfShipped();
    for (const name of shippedNames) rmSync(join(queries, `${name}.lock.json`));
    const { ok, dryRuns } = await run('lock', queries);
    expect(ok).toBe(true);
    expect(dryRuns.map((call) => call.body.configuration.dryRun)).toEqual([true, true, true]);
    for (const name of shippedNames) {
      const written = JSON.parse(readFileSync(join(queries, `${name}.lock.json`), 'utf8'));
      const shipped = JSON.parse(readFileSync(join(shippedQueriesDir, `${name}.lock.json`), 'utf8'));
      expect(written, name).toEqual(shipped);
    }
  });
});
