import { afterEach, describe, expect, it } from 'vitest';
import { createBigQueryEngine } from '../../src/backends/bigquery/engine.js';
import { createDuckDbEngine } from '../../src/backends/duckdb/engine.js';
import type { QueryEngine, SavedQuery } from '../../src/engines/query-engine.js';
import { queriesDir } from '../../src/paths.js';
import { type BigQueryHarness, startBigQueryHarness } from '../helpers/bigquery-harness.js';
import { insertStatement } from '../helpers/log-fixture.js';
import { createScratchEngine, type ScratchEngine } from '../helpers/scratch-engine.js';
import { logSources } from '../helpers/shipped-sources.js';

// After a reload the engines keep the plans of the served texts only: the translations, prepared
// statements and qualified texts of replaced ones go, while a run already holding one finishes.

const first: SavedQuery = {
  id: '0d4c1a52-5d2b-4c3e-9b56-000000000031',
  name: 'test.reloaded',
  hash: 'first',
  sql: 'select id from `cloudflare.logs.prod` order by id',
  maxRows: 10,
};
/** The same endpoint after its SQL file changed. */
const second: SavedQuery = {
  ...first,
  hash: 'second',
  sql: 'select id from `cloudflare.logs.prod` order by id desc',
};
const now = { now: new Date('2026-03-10T12:00:00Z') };
const ids = ['a', 'b', 'c'];
const rowsOf = (order: string[]) => order.map((id) => ({ id }));

let closing: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of closing.reverse()) await close();
  closing = [];
});

/** Three rows, a to c, in the edge logs of a store. */
async function insertRows(store: ScratchEngine): Promise<void> {
  const record = (id: string) => ({
    id,
    timestamp: '2026-03-10 11:00:00',
    event_message: 'm',
    project: 'p',
    metadata: null,
  });
  await store.duckdb(insertStatement('cloudflare.logs.prod', ids.map(record)));
}

async function storeWithRows(): Promise<ScratchEngine> {
  const scratch = await createScratchEngine();
  closing.push(() => scratch.close());
  await insertRows(scratch);
  return scratch;
}

describe('DuckDB engine plans after a reload', () => {
  async function duckdbEngine(): Promise<QueryEngine> {
    const scratch = await storeWithRows();
    const engine = await createDuckDbEngine({
      database: scratch.database,
      sources: logSources,
      queries: [first],
      queriesDir,
      timeoutMs: 10_000,
      connections: 1,
    });
    closing.push(() => engine.close());
    return engine;
  }

  it('drops the translation and prepared statement of a replaced text and keeps the served one', async () => {
    const engine = await duckdbEngine();
    expect((await engine.run(first, {}, now)).rows).toEqual(rowsOf(ids));
    // A reload describes the new text first; until it serves, no plan of it is kept.
    await engine.describe(second);
    expect(engine.plans?.()).toEqual({ texts: 1, statements: 1 });
    engine.retain?.([first, second]);
    expect((await engine.run(second, {}, now)).rows).toEqual(rowsOf([...ids].reverse()));
    expect(engine.plans?.()).toEqual({ texts: 2, statements: 2 });
    engine.retain?.([second]);
    expect(engine.plans?.()).toEqual({ texts: 1, statements: 2 });
    // The connection's next lease destroys the statement no run can be using any more.
    expect((await engine.run(second, {}, now)).rows).toEqual(rowsOf([...ids].reverse()));
    expect(engine.plans?.()).toEqual({ texts: 1, statements: 1 });
  });

  it('finishes a run of the old text under way, and keeps no plan of a late one', async () => {
    const engine = await duckdbEngine();
    const underWay = engine.run(first, {}, now);
    engine.retain?.([second]);
    expect((await underWay).rows).toEqual(rowsOf(ids));
    // A request that began on the old snapshot still answers; its text is planned, not kept.
    expect((await engine.run(first, {}, now)).rows).toEqual(rowsOf(ids));
    expect(engine.plans?.().texts).toBe(0);
    expect((await engine.run(second, {}, now)).rows).toEqual(rowsOf([...ids].reverse()));
    expect(engine.plans?.()).toEqual({ texts: 1, statements: 1 });
  });
});

describe('BigQuery engine qualified texts after a reload', () => {
  let harness: BigQueryHarness;

  async function bigQueryEngine(): Promise<QueryEngine> {
    harness = await startBigQueryHarness();
    closing.push(() => harness.close());
    await insertRows(harness.store);
    const engine = await createBigQueryEngine({
      config: harness.config,
      queries: [first],
      sources: harness.sources,
      queriesDir,
      client: harness.client(),
    });
    closing.push(() => engine.close());
    return engine;
  }

  it('drops the qualified text of a replaced query, and plans a late run of it without keeping it', async () => {
    const engine = await bigQueryEngine();
    await engine.describe(second);
    expect(engine.plans?.().texts).toBe(1);
    engine.retain?.([first, second]);
    expect((await engine.run(second, {}, now)).rows).toEqual(rowsOf([...ids].reverse()));
    expect(engine.plans?.().texts).toBe(2);
    engine.retain?.([second]);
    expect(engine.plans?.().texts).toBe(1);
    expect((await engine.run(first, {}, now)).rows).toEqual(rowsOf(ids));
    expect(engine.plans?.().texts).toBe(1);
  });
});
