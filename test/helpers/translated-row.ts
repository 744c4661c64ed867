import { afterAll, beforeAll } from 'vitest';
import type { ParameterValues } from '../../src/engines/query-engine.js';
import { type Translation, translateToDuckDb } from '../../src/sql/translate.js';
import { seedTableSchema } from '../../src/storage/log-tables.js';
import { createScratchEngine, type ScratchEngine } from './scratch-engine.js';
import { logSources } from './shipped-sources.js';

/** The clock the translator's rule tests run at. */
export const testNow = new Date('2026-03-10T12:34:56.789Z');

/**
 * A scratch engine for one test file (opened before its tests, closed after), and ways to run
 * BigQuery SQL on it through the translator.
 */
export function useTranslatedQueries(): {
  /** The first row of the query's result. */
  row(sql: string, params?: ParameterValues): Promise<Record<string, unknown>>;
  rows(sql: string, params?: ParameterValues): Promise<Record<string, unknown>[]>;
  scratch(): ScratchEngine;
} {
  let scratch: ScratchEngine | undefined;
  beforeAll(async () => {
    scratch = await createScratchEngine();
  });
  afterAll(async () => {
    await scratch?.close();
  });
  const rows = async (sql: string, params: ParameterValues = {}) => {
    if (!scratch) throw new Error('the scratch engine is not open');
    return (await scratch.bigquery(sql, params, testNow)).rows as Record<string, unknown>[];
  };
  return {
    rows,
    async row(sql, params) {
      const [first] = await rows(sql, params);
      if (!first) throw new Error(`no row from: ${sql}`);
      return first;
    },
    scratch: () => {
      if (!scratch) throw new Error('the scratch engine is not open');
      return scratch;
    },
  };
}

/** A TIMESTAMP as the engines return it: integer microseconds since the epoch. */
export const micros = (iso: string): number => Date.parse(iso) * 1000;

/** The translation of a query over the log sources in their seed shape (for refusals, which happen before any run). */
export function translationOf(sql: string): Translation {
  return translateToDuckDb(sql, { tables: logSources.map(seedTableSchema) });
}
