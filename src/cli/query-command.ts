import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Config } from '../config.js';
import { readSourceDeclarations } from '../endpoints/sources.js';
import { queryableTable } from '../endpoints/table-source.js';
import { bigQueryNaming, createBigQueryEngine } from '../engines/bigquery-engine.js';
import { createDuckDbEngine } from '../engines/duckdb-engine.js';
import { readTableSchemas } from '../engines/duckdb-schema.js';
import type { QueryEngine } from '../engines/query-engine.js';
import { isQuerygateError, QuerygateError } from '../errors.js';
import { toJson } from '../http/respond.js';
// The UDFs (queries/udf) ship with querygate, whatever queries directory is served.
import { queriesDir } from '../paths.js';
import { parseSavedStatements, queryParameters } from '../sql/bigquery-ast.js';
import { qualifyForBigQuery } from '../sql/qualify-for-bigquery.js';
import { translateToDuckDb } from '../sql/translate.js';
import { openDatabase } from '../storage/database.js';
import { createLogWriter } from '../storage/log-writer.js';
import { ensureWarehouseTables } from '../storage/warehouse-tables.js';

export interface QueryCommandOptions {
  /** `name=value` pairs, one per `--param`. */
  readonly params: readonly string[];
  /** The instant CURRENT_TIMESTAMP() stands for, ISO 8601. @default the current time */
  readonly now?: string | undefined;
  /** Print the SQL the engine would run instead of running it. */
  readonly explain: boolean;
  readonly maxRows: number;
}

/** What the command prints: to stdout on success, to stderr (and exit code 1) on failure. */
export interface QueryCommandOutput {
  readonly ok: boolean;
  readonly text: string;
}

/**
 * `querygate query [--param name=value ...] [--now <iso>] [--explain] <file.sql | ->`: runs one
 * BigQuery-SQL text on the configured engine and store, and answers `{"result": [...]}` as REST
 * does, or the error (a refused construct with its line and column) as `{"error": {...}}`.
 * On DuckDB, stop the server first: one process at a time may write the file.
 */
export async function runQueryCommand(
  config: Config,
  sql: string,
  options: QueryCommandOptions,
): Promise<QueryCommandOutput> {
  try {
    const params = queryParameterValues(sql, options.params);
    const now = options.now === undefined ? new Date() : parseNow(options.now);
    const request: QueryRequest = { sql, params, now, explain: options.explain, maxRows: options.maxRows };
    const text =
      config.engine === 'bigquery' ? await onBigQuery(config, request) : await onDuckDb(config, request);
    return { ok: true, text };
  } catch (error) {
    if (!isQuerygateError(error)) throw error;
    return {
      ok: false,
      text: toJson({ error: { code: error.code, message: error.message, ...error.details } }),
    };
  }
}

/** The SQL text of `<file.sql | ->`. */
export function readQueryText(file: string): string {
  return readFileSync(file === '-' ? 0 : file, 'utf8');
}

/** One run of the command, its input checked. */
interface QueryRequest {
  readonly sql: string;
  readonly params: Record<string, string | null>;
  readonly now: Date;
  readonly explain: boolean;
  readonly maxRows: number;
}

async function onDuckDb(config: Config, request: QueryRequest): Promise<string> {
  // The sources the server would serve (QUERYGATE_QUERIES_DIR), not only the shipped nine.
  const declared = readSourceDeclarations(config.queriesDir);
  const sources = [...declared.logs, ...declared.tables.map(queryableTable)];
  const database = await openDatabase(join(config.dataDir, 'querygate.duckdb'));
  // The writer creates the source tables of a new store, so a query over it binds (to no rows).
  const writer = createLogWriter(database, { sources: declared.logs });
  try {
    await writer.ready();
    const setup = await database.connect();
    try {
      await ensureWarehouseTables(setup, declared.tables);
    } finally {
      setup.closeSync();
    }
    if (request.explain) {
      const connection = await database.connect();
      try {
        const tables = await readTableSchemas(connection, sources);
        return translateToDuckDb(request.sql, { tables }).sql;
      } finally {
        connection.closeSync();
      }
    }
    const engine = await createDuckDbEngine({
      database,
      sources,
      queries: [],
      queriesDir,
      timeoutMs: config.queryTimeoutMs,
    });
    return await runOn(engine, request);
  } finally {
    await writer.close();
    database.close();
  }
}

async function onBigQuery(config: Config, request: QueryRequest): Promise<string> {
  if (!config.bigquery) throw new Error('QUERYGATE_ENGINE=bigquery needs the QUERYGATE_BIGQUERY_* variables');
  const declared = readSourceDeclarations(config.queriesDir);
  const sources = [...declared.logs, ...declared.tables.map(queryableTable)];
  if (request.explain)
    return qualifyForBigQuery(request.sql, bigQueryNaming(config.bigquery, sources, queriesDir)).sql;
  const engine = await createBigQueryEngine({
    config: config.bigquery,
    queries: [],
    sources,
    queriesDir,
  });
  return runOn(engine, request);
}

async function runOn(engine: QueryEngine, { sql, params, now, maxRows }: QueryRequest): Promise<string> {
  try {
    await engine.ready();
    const result = await engine.run({ id: 'querygate-query', name: 'query', sql, maxRows }, params, { now });
    return toJson({ result: result.rows });
  } finally {
    await engine.close();
  }
}

/**
 * The value of every `@parameter` the SQL uses: given ones as text, the others unset (NULL), as
 * an optional REST parameter left out. A `--param` the SQL does not use is refused by name.
 */
function queryParameterValues(sql: string, pairs: readonly string[]): Record<string, string | null> {
  const used = queryParameters(parseSavedStatements(sql));
  const values: Record<string, string | null> = Object.fromEntries([...used].map((name) => [name, null]));
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at < 1) throw new QuerygateError('BAD_PARAMETER', `--param ${pair} is not name=value`);
    const name = pair.slice(0, at).replace(/^@/, '');
    if (!used.has(name))
      throw new QuerygateError('BAD_PARAMETER', `--param ${name}: the query has no @${name}`, {
        details: { parameter: name },
      });
    values[name] = pair.slice(at + 1);
  }
  return values;
}

function parseNow(text: string): Date {
  const now = new Date(text);
  if (!/^\d{4}-\d{2}-\d{2}T/.test(text) || Number.isNaN(now.getTime()))
    throw new QuerygateError('BAD_PARAMETER', `--now ${text} is not an ISO 8601 timestamp`, {
      details: { parameter: 'now' },
    });
  return now;
}
