import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { backendOf, ownSettingsOf } from '../backends/registry.js';
import type { Config } from '../config.js';
import { readSourceDeclarations, type SourceDeclarations, sourcesFileName } from '../endpoints/sources.js';
import type { QueryEngine } from '../engines/query-engine.js';
import { isQuerygateError, QuerygateError } from '../errors.js';
import { toJson } from '../http/respond.js';
import { parseSavedStatements, queryParameters } from '../sql/bigquery-ast.js';
import { isStoreLocked, queryThroughServer, sayThroughServer, serverHoldingStore } from './through-server.js';

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
  /** Whether the rows were cut at `--max-rows` (main.ts says so on stderr). */
  readonly truncated?: boolean;
}

/**
 * `querygate query [--param name=value ...] [--now <iso>] [--explain] <file.sql | ->`: runs one
 * BigQuery-SQL text on the configured engine and store, and answers `{"result": [...]}` as REST
 * does, or the error (a refused construct with its line and column) as `{"error": {...}}`.
 * On DuckDB, while a server holds the store (one process at a time may open the file), the
 * server runs it (`POST /api/store-query`), and `--explain` translates over an empty store of the
 * sources `--queries` declares.
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
    return await onBackend(config, request);
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

/**
 * Runs or explains the request on the configured backend's store; when a running server holds
 * the DuckDB file, the server runs it (and stderr says so).
 */
async function onBackend(config: Config, request: QueryRequest): Promise<QueryCommandOutput> {
  const declared = readSourceDeclarations(config.queriesDir);
  let session: Awaited<ReturnType<ReturnType<typeof backendOf>['querySession']>>;
  try {
    session = await backendOf(config.engine).querySession({
      settings: config,
      own: ownSettingsOf(config),
      // The sources the server would serve (QUERYGATE_QUERIES_DIR), not only the shipped nine.
      sources: declared.logs,
      tables: declared.tables,
    });
  } catch (error) {
    if (!isStoreLocked(error)) throw error;
    if (request.explain) return { ok: true, text: await explainOnEmptyStore(config, declared, request.sql) };
    const target = serverHoldingStore(config, error);
    sayThroughServer('query', target.server, 'ran the query through it');
    return queryThroughServer(target, {
      sql: request.sql,
      params: request.params,
      now: request.now.toISOString(),
      max_rows: request.maxRows,
    });
  }
  try {
    if (request.explain) return { ok: true, text: await session.explain(request.sql) };
    return { ok: true, ...(await runOn(await session.engine(), request)) };
  } finally {
    await session.close();
  }
}

/**
 * `--explain` while a server holds the store: the translation over an empty store of the
 * directory's declared sources (the tables the server's store has, less any metadata field only
 * ingestion added), made in a directory of its own and removed.
 */
async function explainOnEmptyStore(
  config: Config,
  declared: SourceDeclarations,
  sql: string,
): Promise<string> {
  process.stderr.write(
    `querygate query: the store is held by a running server; explaining over the sources ${join(config.queriesDir, sourcesFileName)} declares\n`,
  );
  const dataDir = mkdtempSync(join(tmpdir(), 'querygate-explain-'));
  try {
    const session = await backendOf(config.engine).querySession({
      settings: { ...config, dataDir },
      own: ownSettingsOf(config),
      sources: declared.logs,
      tables: declared.tables,
    });
    try {
      return await session.explain(sql);
    } finally {
      await session.close();
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

async function runOn(
  engine: QueryEngine,
  { sql, params, now, maxRows }: QueryRequest,
): Promise<{ text: string; truncated: boolean }> {
  try {
    await engine.ready();
    const result = await engine.run({ id: 'querygate-query', name: 'query', sql, maxRows }, params, { now });
    return { text: toJson({ result: result.rows }), truncated: result.truncated === true };
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
