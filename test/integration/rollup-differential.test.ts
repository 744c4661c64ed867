import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  callerQuery,
  type DifferentialStore,
  openDifferentialStore,
  seededRandom,
} from '../helpers/rollup-differential.js';

// A differential check of the rollup rewrite (backends/duckdb/rollup-rewrite.ts): seeded caller
// SQL, as Studio's Logs Explorer users write it over logs.all and over the edge table, run over
// one store by an engine given the edge source's rollup and by one that reads the records only.
// Same columns, same rows (in order where the query orders them), same failures: a wrong answer
// from the rollup is silent, so any difference fails. Locally, more queries or another seed:
// QUERYGATE_TEST_ROLLUP_QUERIES=5000 QUERYGATE_TEST_ROLLUP_SEED=7 npx vitest run <this file>, and
// with QUERYGATE_TEST_ROLLUP_REOPENED=1 over the store as a restart leaves it.
const queries = Number(process.env.QUERYGATE_TEST_ROLLUP_QUERIES ?? 250);
const seed = Number(process.env.QUERYGATE_TEST_ROLLUP_SEED ?? 20_260_308);
const reopened = process.env.QUERYGATE_TEST_ROLLUP_REOPENED === '1';

let store: DifferentialStore;

beforeAll(async () => {
  store = await openDifferentialStore(seed, { reopened });
});

afterAll(async () => {
  await store?.close();
});

describe('the rollup rewrite, on seeded caller SQL', () => {
  it(`answers ${queries} generated queries as the records do, failing where they fail`, async () => {
    const random = seededRandom(seed + 1);
    const differences: string[] = [];
    let readRollup = 0;
    for (let n = 0; n < queries; n++) {
      const query = callerQuery(random);
      // Ordered where the query orders its result (always by every column, so ties cannot differ).
      const ordered = /\border by\b/i.test(query.sql) && !/^select \* from \(/i.test(query.sql);
      const compared = await store.compare(query, ordered);
      if (!compared) continue;
      if (compared.readRollup) readRollup += 1;
      const records = JSON.stringify(compared.records);
      const rollup = JSON.stringify(compared.rollup);
      if (records !== rollup) {
        differences.push(
          `#${n} ${JSON.stringify(query.params)}\n${query.sql}\nrecords: ${records.slice(0, 600)}\nrollup:  ${rollup.slice(0, 600)}`,
        );
      }
    }
    expect(differences.slice(0, 5).join('\n\n')).toBe('');
    // The check reaches the rollup: one the rewrite refused every query of would prove nothing.
    expect(readRollup).toBeGreaterThan(queries / 5);
  }, 600_000);
});
