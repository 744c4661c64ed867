import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createDuckDbEngine } from '../../src/backends/duckdb/engine.js';
import type { QueryEngine, SavedQuery } from '../../src/engines/query-engine.js';
import { queriesDir } from '../../src/paths.js';
import { sandboxSql } from '../../src/sql/sandbox.js';
import { insertStatement } from '../helpers/log-fixture.js';
import { createScratchEngine, type ScratchEngine } from '../helpers/scratch-engine.js';
import { logSources } from '../helpers/shipped-sources.js';

// Every caller's SQL is a text of its own: the engine must not keep a plan per text, or distinct
// callers' queries would grow its memory without bound.

const saved: SavedQuery = {
  id: '0d4c1a52-5d2b-4c3e-9b56-000000000077',
  name: 'test.sandboxed',
  hash: 'saved',
  sql: 'with e as (select id from `cloudflare.logs.prod`) select id from e order by id',
  maxRows: 10,
};

function callerQuery(n: number): SavedQuery {
  const merged = sandboxSql(saved.sql, `select count(*) as n from e where id != 'x${n}'`, new Set());
  return { ...saved, hash: `saved.sql-${n}`, sql: merged.sql, callerLineOffset: merged.callerLineOffset };
}

let scratch: ScratchEngine;
let engine: QueryEngine;
const connections = 2;

beforeAll(async () => {
  scratch = await createScratchEngine();
  const record = (id: string) => ({
    id,
    timestamp: '2026-03-10 11:00:00',
    event_message: 'm',
    project: 'p',
    metadata: null,
  });
  await scratch.duckdb(insertStatement('cloudflare.logs.prod', ['a', 'b', 'c'].map(record)));
  engine = await createDuckDbEngine({
    database: scratch.database,
    sources: logSources,
    queries: [saved],
    queriesDir,
    timeoutMs: 10_000,
    connections,
  });
});

afterAll(async () => {
  await engine?.close();
  await scratch?.close();
});

describe("the DuckDB engine and callers' SQL", () => {
  it('answers each caller text and keeps no more plans than the saved one and a statement per connection', async () => {
    for (let n = 0; n < 25; n++) {
      expect((await engine.run(callerQuery(n), {}, { now: new Date() })).rows).toEqual([{ n: 3 }]);
    }
    const plans = engine.plans?.();
    expect(plans?.texts).toBe(1);
    expect(plans?.statements).toBeLessThanOrEqual(connections + 1);
  });
});
