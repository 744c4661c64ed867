import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadEndpointRegistry } from '../../src/endpoints/registry.js';
import { queriesDir } from '../../src/paths.js';
import { translateToDuckDb } from '../../src/sql/translate.js';
import { seedTableSchema } from '../../src/storage/log-tables.js';
import { logSources } from '../helpers/shipped-sources.js';

const seedTables = logSources.map(seedTableSchema);

// The DuckDB SQL of every saved query is checked in, so a change to the translator shows up as a
// reviewable diff. After an intended change: UPDATE_GOLDEN=1 npx vitest run test/unit/translate-golden.test.ts
const goldenDir = join(__dirname, '../golden');

describe('translated SQL of the saved queries', () => {
  for (const endpoint of loadEndpointRegistry(queriesDir).endpoints) {
    it(`matches test/golden/${endpoint.name}.duckdb.sql`, () => {
      const file = join(goldenDir, `${endpoint.name}.duckdb.sql`);
      const { sql } = translateToDuckDb(endpoint.sql, { tables: seedTables });
      if (process.env.UPDATE_GOLDEN === '1') writeFileSync(file, `${sql}\n`);
      expect(`${sql}\n`).toBe(readFileSync(file, 'utf8'));
    });
  }
});
