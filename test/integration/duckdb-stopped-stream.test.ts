import { cpSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/paths.js';
import { type QuerygateUnderTest, startQuerygateUnderTest } from '../helpers/querygate-server.js';

/**
 * A DuckDB stream that ends before its last row. @duckdb/node-api ends a stream DuckDB stopped
 * (an interrupt, or an error once the first rows are out) as one that ran out of rows: its
 * fetch_chunk answers null for both. So the rows read until then passed for the whole result: a
 * UNION ALL of two rows was answered with one while the ad-hoc lane's memory ceiling was stopping
 * queries. Here each stop lands mid-stream: DuckDB hands over the first rows of 5,000,000 (a cross
 * join of two GENERATE_ARRAYs) within some 5 ms and the rest over 0.5-2 s, while the ceiling
 * (1 MiB, below any process) stops a caller's query at its first reading (25 ms) and the 300 ms
 * deadline stops a saved one; and a CAST fails on row 400,000 of another. Without the engine's
 * checks each answered 200 with some of the rows (0 to 1,808,384 of 5,000,000; 272,384 before
 * the CAST), in every run.
 */

const rowCount = 5_000_000;
const streamedSql = `select x * 5000 + y as a
from unnest(generate_array(0, 999)) as x cross join unnest(generate_array(1, 5000)) as y`;
// The saved one streams four times as many, so that no machine reads them all within the deadline
// (5,000,000 once took under 300 ms on a quiet one, and were rightly answered in full).
const savedRowCount = 4 * rowCount;
const savedSql = `select x * 5000 + y as a
from unnest(generate_array(0, 3999)) as x cross join unnest(generate_array(1, 5000)) as y`;

// The CAST fails on row 400,000 of the stream, once DuckDB has handed over the rows before it.
const failingSql = `select cast(case when n = 400000 then 'x' else '1' end as int64) as a
from unnest(generate_array(1, 1000000)) as n`;

const endpointYaml = (name: string, id: string, sandboxed: boolean, rows = rowCount) => `name: ${name}
id: ${id}
description: Numbered rows, read as a stream.
maxRows: ${2 * rows}
cacheSeconds: 0
warmSeconds: null
sandboxed: ${sandboxed}
parameters:
  - { name: project, required: true, description: Project whose edge records the CTE holds. }
columns:
  a: { description: The number. }
`;

// A caller's SQL replaces the final SELECT; the CTE only gives the endpoints their source.
const withSource = (sql: string) =>
  `with edge as (select t.id from \`cloudflare.logs.prod\` as t where t.project = @project)\n${sql}\n`;

let dir: string;
let service: QuerygateUnderTest;

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'querygate-stopped-stream-'));
  const queries = join(dir, 'queries');
  cpSync(join(packageRoot, 'examples/queries'), queries, { recursive: true });
  writeFileSync(
    join(queries, 'rows.caller.yaml'),
    endpointYaml('rows.caller', '0c7d5f5e-0a1b-4c2d-8e3f-4a5b6c7d8e01', true),
  );
  writeFileSync(join(queries, 'rows.caller.sql'), withSource(streamedSql));
  writeFileSync(
    join(queries, 'rows.saved.yaml'),
    endpointYaml('rows.saved', '0c7d5f5e-0a1b-4c2d-8e3f-4a5b6c7d8e02', false, savedRowCount),
  );
  writeFileSync(join(queries, 'rows.saved.sql'), withSource(savedSql));
  writeFileSync(
    join(queries, 'rows.failing.yaml'),
    endpointYaml('rows.failing', '0c7d5f5e-0a1b-4c2d-8e3f-4a5b6c7d8e03', false),
  );
  writeFileSync(join(queries, 'rows.failing.sql'), withSource(failingSql));
  service = await startQuerygateUnderTest({
    now: new Date('2026-05-15T12:00:00Z'),
    environment: {
      QUERYGATE_QUERIES_DIR: queries,
      QUERYGATE_ADHOC_MEMORY_CEILING: '1MiB',
      QUERYGATE_QUERY_TIMEOUT_MS: '300',
    },
  });
});

afterAll(async () => {
  await service?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

describe('a query whose rows stop streaming before the last', () => {
  it('answers 400 SANDBOX_TOO_EXPENSIVE when the memory ceiling stops a caller query, never 200 with some rows', async () => {
    for (let run = 0; run < 3; run++) {
      // The ceiling stops no second query within 250 ms of a stop; the deadline would come first.
      await new Promise((resolve) => setTimeout(resolve, 300));
      const { status, body } = await service.get('/api/endpoints/query/rows.caller', {
        project: 'shop',
        sql: streamedSql,
      });
      const answer = body as { result?: unknown[]; error?: { code: string; message: string } };
      expect({ status, rows: answer.result?.length }).not.toMatchObject({ status: 200 });
      expect(status).toBe(400);
      expect(answer.error).toMatchObject({
        code: 'SANDBOX_TOO_EXPENSIVE',
        message:
          'rows.caller: sql took the server past 1 MiB of memory and was stopped; narrow it (a time range, a LIMIT, fewer joins)',
      });
    }
  });

  it('answers 504 ENGINE_TIMEOUT when the deadline stops a saved query, never 200 with some rows', async () => {
    for (let run = 0; run < 3; run++) {
      const { status, body } = await service.get('/api/endpoints/query/rows.saved', { project: 'shop' });
      const answer = body as { result?: unknown[]; error?: { code: string; message: string } };
      expect({ status, rows: answer.result?.length }).not.toMatchObject({ status: 200 });
      expect(status, JSON.stringify(body)).toBe(504);
      expect(answer.error).toMatchObject({
        code: 'ENGINE_TIMEOUT',
        message: 'rows.saved did not finish within 300 ms',
      });
    }
  });

  it('answers 502 ENGINE_ERROR when DuckDB fails a query after its first rows, never 200 with the rows before', async () => {
    const { status, body } = await service.get('/api/endpoints/query/rows.failing', { project: 'shop' });
    const answer = body as { result?: unknown[]; error?: { code: string; message: string } };
    expect({ status, rows: answer.result?.length }).not.toMatchObject({ status: 200 });
    expect(status).toBe(502);
    expect(answer.error?.code).toBe('ENGINE_ERROR');
    expect(answer.error?.message).toMatch(
      /^rows\.failing failed on DuckDB: its rows ended early on an error/,
    );
  });
});
