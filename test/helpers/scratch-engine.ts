import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { createDuckDbEngine } from '../../src/backends/duckdb/engine.js';
import { duckdbType, quoteIdent } from '../../src/endpoints/field-type.js';
import type { LogSource } from '../../src/endpoints/sources.js';
import type { ParameterValues, QueryEngine, QueryResult } from '../../src/engines/query-engine.js';
import { queriesDir } from '../../src/paths.js';
import { type Database, openDatabase } from '../../src/storage/database.js';
import { logSources } from './shipped-sources.js';

/**
 * An in-memory DuckDB with the nine source tables in their seed shape and the UDF macros: enough
 * to run translated BigQuery on rows a test inserts with plain DuckDB SQL.
 */
export interface ScratchEngine {
  readonly database: Database;
  /** Plain DuckDB SQL, for setting up rows and for hand-written reference queries. */
  duckdb(sql: string): Promise<Record<string, unknown>[]>;
  /** Runs BigQuery SQL through the translator and the engine, as an endpoint would be run. */
  bigquery(sql: string, params?: ParameterValues, now?: Date): Promise<QueryResult>;
  close(): Promise<void>;
}

/** `sources`: the tables to make. @default the nine shipped sources */
export async function createScratchEngine(
  sources: readonly LogSource[] = logSources,
): Promise<ScratchEngine> {
  const database = await openDatabase(':memory:');
  const connection = await database.connect();
  for (const source of sources) {
    await connection.run(
      `CREATE TABLE ${quoteIdent(source.name)} (id VARCHAR, timestamp TIMESTAMP, event_message VARCHAR, ${
        source.hasProject ? 'project VARCHAR, ' : ''
      }metadata ${duckdbType(source.metadata)})`,
    );
  }
  let engine: QueryEngine | undefined;
  let counter = 0;
  const macro = readFileSync(join(queriesDir, 'udf', 'generate_timestamp_trunc_array.duckdb.sql'), 'utf8');
  await connection.run(macro);
  return {
    database,
    async duckdb(sql) {
      const reader = await connection.runAndReadAll(sql);
      return reader.getRowObjectsJS() as Record<string, unknown>[];
    },
    async bigquery(sql, params = {}, now = new Date()) {
      engine ??= await createDuckDbEngine({
        database,
        sources,
        queries: [],
        queriesDir,
        timeoutMs: 10_000,
      });
      counter += 1;
      return engine.run(
        { id: `scratch-${counter}`, name: `scratch-${counter}`, sql, maxRows: 10_000 },
        params,
        { now },
      );
    },
    async close() {
      await engine?.close();
      connection.closeSync();
      database.close();
    },
  };
}
