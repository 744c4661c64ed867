/**
 * The seam between the resolver layer and the engines. Engines run saved BigQuery SQL and
 * return rows in engine-neutral values that already mean what BigQuery's would: a REST or
 * GraphQL face never needs to know which engine answered.
 */

import type { Timers } from '../timers.js';

/** What every engine is created with, beside its own options. */
export interface EngineOptions {
  /** The saved queries, planned once here so a query that cannot run stops start-up. */
  readonly queries: readonly SavedQuery[];
  /** Where `udf/` lives: the UDFs (DuckDB macros, BigQuery routines) the saved queries call. */
  readonly queriesDir: string;
  /** The timers deadlines are kept with; tests pass manual ones. @default Node's */
  readonly timers?: Timers;
}

/** What an engine needs to know of a saved query. */
export interface SavedQuery {
  readonly id: string;
  readonly name: string;
  /** The saved BigQuery Standard SQL text, `@name` parameters included. */
  readonly sql: string;
  readonly maxRows: number;
  /** Per-endpoint cap on bytes a BigQuery job may bill; engines without billing ignore it. */
  readonly maximumBytesBilled?: string | undefined;
  /** The type each parameter is bound with; a parameter not named here is a STRING. */
  readonly parameterTypes?: Readonly<Record<string, ParameterType>> | undefined;
  /**
   * Identifies this text of the query: engines key translations and prepared statements by it,
   * so a changed query never runs under its old plan. @default the id
   */
  readonly hash?: string | undefined;
  /**
   * Set when `sql` holds a caller's SQL: a sandboxed call (see `sql/sandbox.ts`), this many lines
   * of `sql` before the caller's first. The engine places what it refuses in the caller's text,
   * answers SQL the caller got wrong with a 400 rather than as its own failure, and keeps no plan
   * of it beyond the run.
   */
  readonly callerLineOffset?: number | undefined;
}

/** BigQuery's types of a named parameter. */
export type ParameterType = 'STRING' | 'INT64' | 'FLOAT64' | 'BOOL' | 'TIMESTAMP';

/**
 * Parameter values as they arrive: the canonical text of a value of the parameter's type (an
 * integer's digits, `true`/`false`, ISO 8601 for a TIMESTAMP), or null when it is unset.
 */
export type ParameterValues = Readonly<Record<string, string | null>>;

/**
 * BigQuery's logical column types. TIMESTAMP values are integer microseconds since the epoch,
 * DATETIME values `YYYY-MM-DDTHH:MM:SS[.ffffff]` strings, INT64 numbers (bigint beyond 2^53),
 * RECORD values arrays of objects (every object is a repeated record, as Logflare stores it).
 */
export type ColumnType =
  | 'TIMESTAMP'
  | 'DATETIME'
  | 'INT64'
  | 'FLOAT64'
  | 'STRING'
  | 'BOOL'
  | 'RECORD'
  | 'JSON'
  /** `YYYY-MM-DD`, as BigQuery's JSON writes a DATE. */
  | 'DATE'
  /** `HH:MM:SS[.ffffff]`, as BigQuery's JSON writes a TIME. */
  | 'TIME'
  /** Base64 text, as BigQuery's JSON writes BYTES. */
  | 'BYTES'
  /**
   * An exact decimal (BigQuery NUMERIC or BIGNUMERIC, DuckDB DECIMAL) as its decimal text
   * (`12.5`), as BigQuery's REST API writes it. Only queries over table sources answer it; on
   * Logflare's wire (queries over log sources) a decimal stays a FLOAT64 number, as it always was.
   */
  | 'NUMERIC';

export interface ResultColumn {
  readonly name: string;
  readonly type: ColumnType;
  /** RECORD only, where the engine knows them: the fields of each record of the repeated record. */
  readonly fields?: readonly ResultColumn[] | undefined;
  /**
   * On a RECORD, `NULLABLE` marks a lone record (a STRUCT column of a table source), which the
   * engine answers as one object or null, as BigQuery does; a RECORD without a mode is a repeated
   * record, the shape Logflare gives every object of a log source. On any other type, `REPEATED`
   * marks an array of that type (an ARRAY<STRING> is a STRING column in mode REPEATED, as in
   * BigQuery's schemas).
   */
  readonly mode?: 'NULLABLE' | 'REPEATED' | undefined;
  /** Whether the engine says it may be null; undefined where it cannot say. */
  readonly nullable?: boolean | undefined;
}

export type EngineValue =
  | null
  | string
  | number
  | bigint
  | boolean
  | EngineValue[]
  | { [key: string]: EngineValue };
export type ResultRow = Record<string, EngineValue>;

export interface QueryResult {
  readonly columns: readonly ResultColumn[];
  readonly rows: readonly ResultRow[];
  /**
   * True when the query had more rows than the saved query's `maxRows` and `rows` are the first
   * `maxRows` of them (engines read one row past the bound to know). Absent: not cut.
   */
  readonly truncated?: boolean | undefined;
}

export interface RunOptions {
  /** The instant `CURRENT_TIMESTAMP()` stands for, so one call sees one "now" and tests can fix it. */
  readonly now: Date;
  /** Abandons the run (and cancels the engine's job) when the caller is gone. */
  readonly signal?: AbortSignal | undefined;
  /**
   * Milliseconds the call already waited before it reached the engine (a client's turn, see
   * `resolve/client-admission.ts`): the engine's timeout counts them, so one call never takes
   * longer than the query timeout in all. @default 0
   */
  readonly waitedMs?: number | undefined;
}

export interface PlanCounts {
  /** Query texts made ready to run: DuckDB translations, BigQuery qualified texts. */
  readonly texts: number;
  /** Prepared statements, over every connection (DuckDB). */
  readonly statements: number;
}

export interface QueryEngine {
  /** The backend it belongs to, as QUERYGATE_ENGINE names it (`GET /health` reports it). */
  readonly kind: string;
  /** Resolves when the engine can answer queries (tables exist, UDFs installed). */
  ready(): Promise<void>;
  run(query: SavedQuery, params: ParameterValues, options: RunOptions): Promise<QueryResult>;
  /**
   * The columns a query returns, without running it: DuckDB prepares the translated statement,
   * BigQuery dry-runs the job. Throws (ENGINE_ERROR) when the query does not prepare.
   */
  describe(query: SavedQuery): Promise<readonly ResultColumn[]>;
  /**
   * Keeps the plans (translations, prepared statements, qualified texts) of these queries only,
   * after a reload replaced the others: an engine otherwise keeps one per text it ever ran. A run
   * under way keeps the plan it holds; a later run of a query not retained plans it again and
   * does not keep it.
   */
  retain?(queries: readonly SavedQuery[]): void;
  /** How many plans the engine keeps, for metrics (and tests of retain). */
  plans?(): PlanCounts;
  close(): Promise<void>;
}

/** What is left of a call's timeout once the time it waited before the engine is taken off. */
export function remainingMs(timeoutMs: number, options: RunOptions): number {
  return Math.max(0, timeoutMs - (options.waitedMs ?? 0));
}

/** What an engine keeps a query's plan under: its id and, once loaded from files, its content hash. */
export function planKey(query: SavedQuery): string {
  return query.hash === undefined ? query.id : `${query.id}:${query.hash}`;
}
