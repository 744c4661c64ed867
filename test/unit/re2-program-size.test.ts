import { type DuckDBConnection, DuckDBInstance, VARCHAR } from '@duckdb/node-api';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bindParameters } from '../../src/endpoints/bind-parameters.js';
import type { ParameterContract } from '../../src/endpoints/manifest.js';

/**
 * Regex parameters are held to RE2's program size, judged against the RE2 DuckDB bundles: what
 * the check accepts DuckDB compiles, and the patterns DuckDB refuses as too large are refused here
 * with a 400 before any engine sees them.
 */

const contract: ParameterContract[] = [
  { name: 'project', required: true, description: 'p', format: 're2', otherValues: 'reject' },
];
const bind = (pattern: string) => bindParameters(contract, (name) => (name === 'project' ? [pattern] : []));

let instance: DuckDBInstance;
let connection: DuckDBConnection;

beforeAll(async () => {
  instance = await DuckDBInstance.create(':memory:');
  connection = await instance.connect();
});

afterAll(() => {
  connection?.closeSync();
  instance?.closeSync();
});

/** DuckDB's verdict on a bound pattern, as the translated queries use it (regexp_matches). */
async function duckdbCompiles(pattern: string): Promise<true | string> {
  const statement = await connection.prepare("SELECT regexp_matches(x, $p) FROM (VALUES ('a')) t(x)");
  statement.bind({ p: pattern }, { p: VARCHAR });
  try {
    await statement.runAndReadAll();
    return true;
  } catch (error) {
    return (error as Error).message;
  }
}

describe('a regex parameter too large for RE2', () => {
  for (const pattern of ['\\pL{1000}', '(\\pL{30}){30}', '(?i)\\pL{1000}', '(?:.{999})'.repeat(100)]) {
    it(`refuses ${pattern.slice(0, 30)} with BAD_PARAMETER naming the parameter, as DuckDB's RE2 refuses it`, async () => {
      expect(await duckdbCompiles(pattern)).toMatch(/pattern too large/);
      expect(() => bind(pattern)).toThrow(
        expect.objectContaining({ code: 'BAD_PARAMETER', details: { parameter: 'project' } }),
      );
      expect(() => bind(pattern)).toThrow(/^Parameter 'project' is too large for RE2/);
    });
  }
});

describe('a regex parameter within RE2 limits', () => {
  const accepted = [
    'project-0[0-4]',
    '^https://[a-z0-9]+\\.supabase\\.co/rest/v1/.*$',
    '(?i)default|staging',
    '\\pL{40}',
    '(?i)\\pL{40}',
    '.{1000}',
    '\\w{1000}',
    '[^/]{1000}',
    '\\p{Greek}{1000}',
    '\\p{Han}{500}',
    '(a|b|c|d){1000}',
    '日本{1000}',
  ];
  for (const pattern of accepted) {
    it(`accepts ${pattern.slice(0, 40)}, and DuckDB compiles it`, async () => {
      expect(bind(pattern)).toEqual({ project: pattern });
      expect(await duckdbCompiles(pattern)).toBe(true);
    });
  }
});
