/**
 * The seam between the resolver layer and the engines. Engines run saved BigQuery SQL and
 * return rows in engine-neutral values that already mean what BigQuery's would: a REST or
 * GraphQL face never needs to know which engine answered.
 */

/** What an engine needs to know of a saved query. */
export interface SavedQuery {
  readonly id: string;
  readonly name: string;
  /** The saved BigQuery Standard SQL text, `@name` parameters included. */
  readonly sql: string;
  readonly maxRows: number;
  /** Per-endpoint cap on bytes a BigQuery job may bill; engines without billing ignore it. */
  readonly maximumBytesBilled?: string | undefined;
}

/** Parameter values as they arrive: text, or null when an optional parameter is unset. */
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
  | 'JSON';

export interface ResultColumn {
  readonly name: string;
  readonly type: ColumnType;
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
}

export interface RunOptions {
  /** The instant `CURRENT_TIMESTAMP()` stands for, so one call sees one "now" and tests can fix it. */
  readonly now: Date;
  /** Abandons the run (and cancels the engine's job) when the caller is gone. */
  readonly signal?: AbortSignal | undefined;
}

export interface QueryEngine {
  readonly kind: 'duckdb' | 'bigquery';
  /** Resolves when the engine can answer queries (tables exist, UDFs installed). */
  ready(): Promise<void>;
  run(query: SavedQuery, params: ParameterValues, options: RunOptions): Promise<QueryResult>;
  close(): Promise<void>;
}
