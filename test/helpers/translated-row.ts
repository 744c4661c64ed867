import type { ParameterValues } from '../../src/engines/query-engine.js';
import type { ScratchEngine } from './scratch-engine.js';

/** The first row of a BigQuery query run through the translator on the scratch engine. */
export async function translatedRow(
  scratch: ScratchEngine,
  sql: string,
  params: ParameterValues = {},
  now = new Date('2026-03-10T12:34:56.789Z'),
): Promise<Record<string, unknown>> {
  const [row] = (await scratch.bigquery(sql, params, now)).rows;
  if (!row) throw new Error(`no row from: ${sql}`);
  return row as Record<string, unknown>;
}

/** A TIMESTAMP as the engines return it: integer microseconds since the epoch. */
export const micros = (iso: string): number => Date.parse(iso) * 1000;
