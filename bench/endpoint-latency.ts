import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { type DuckDBConnection, DuckDBTimestampValue, TIMESTAMP, VARCHAR } from '@duckdb/node-api';
import { decodeRows } from '../src/backends/duckdb/rows.js';
import type { Endpoint } from '../src/endpoints/registry.js';
import type { ParameterValues, QueryEngine } from '../src/engines/query-engine.js';
import { packageRoot } from '../src/paths.js';
import { type Timing, timeInTurn, timeRuns } from './stats.js';

/** One endpoint call the benchmark measures: which endpoint, for which project, with what. */
export interface EndpointCase {
  readonly label: string;
  readonly endpoint: Endpoint;
  readonly params: ParameterValues;
}

const referenceDir = join(packageRoot, 'test/fixtures/reference-sql');

/**
 * The hand-written DuckDB query for an endpoint (test/fixtures/reference-sql), the physical-limit
 * reference: run on the same connection pool size, with the same parameters and the same "now".
 */
export async function runReference(
  connection: DuckDBConnection,
  endpoint: Endpoint,
  params: ParameterValues,
  now: Date,
) {
  const prepared = await connection.prepare(
    readFileSync(join(referenceDir, `${endpoint.name}.duckdb.sql`), 'utf8'),
  );
  const values: Record<string, string | null | DuckDBTimestampValue> = { ...params };
  const types: Record<string, typeof VARCHAR | typeof TIMESTAMP> = Object.fromEntries(
    Object.keys(params).map((key) => [key, VARCHAR]),
  );
  values.__now = new DuckDBTimestampValue(BigInt(now.getTime()) * 1000n);
  types.__now = TIMESTAMP;
  prepared.bind(values, types);
  return decodeRows(await prepared.runAndReadAll(), endpoint.maxRows).rows;
}

export interface InProcessTiming {
  readonly translated: Timing;
  readonly handWritten: Timing;
  /** Whether both returned the same rows (they must; a false here makes the ratio meaningless). */
  readonly sameRows: boolean;
  readonly rows: number;
}

/** The translated saved query through the engine, and the hand-written one, side by side. */
export async function timeInProcess(
  engine: QueryEngine,
  connection: DuckDBConnection,
  testCase: EndpointCase,
  now: Date,
  repeat: number,
): Promise<InProcessTiming> {
  const translatedRows = (await engine.run(testCase.endpoint, testCase.params, { now })).rows;
  const referenceRows = await runReference(connection, testCase.endpoint, testCase.params, now);
  const { translated, handWritten } = await timeInTurn(2, repeat, {
    translated: () => engine.run(testCase.endpoint, testCase.params, { now }),
    handWritten: () => runReference(connection, testCase.endpoint, testCase.params, now),
  });
  return {
    translated,
    handWritten,
    sameRows: isDeepStrictEqual(translatedRows, referenceRows),
    rows: translatedRows.length,
  };
}

/** The same call through REST, bypassing the cache so every call reaches the engine. */
export async function timeOverHttp(baseUrl: string, apiKey: string, testCase: EndpointCase, repeat: number) {
  const query = new URLSearchParams(
    Object.entries(testCase.params).filter((entry): entry is [string, string] => entry[1] !== null),
  );
  const url = `${baseUrl}/api/endpoints/${testCase.endpoint.name}?${query}`;
  const call = async () => {
    const response = await fetch(url, { headers: { 'x-api-key': apiKey, 'cache-control': 'no-cache' } });
    if (response.status !== 200) throw new Error(`${url} answered ${response.status}`);
    await response.arrayBuffer();
  };
  return timeRuns(2, repeat, call);
}
