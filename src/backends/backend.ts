import type { Command } from 'commander';
import type { Logger } from 'pino';
import type { z } from 'zod';
import type { DemoSeedOutcome } from '../demo/seed.js';
import type { LogSink } from '../endpoints/log-record.js';
import type { LogSource } from '../endpoints/sources.js';
import type { TableSink, TableSource } from '../endpoints/table-source.js';
import type { QueryEngine, SavedQuery } from '../engines/query-engine.js';
import type { Timers } from '../timers.js';

/**
 * The seam under the server and the CLI: a backend is one folder of `src/backends/` exporting one
 * `Backend`, named once in `registry.ts`. It says which of its own variables it reads, and opens
 * what the rest of querygate runs on: an engine for the saved queries and a sink for ingestion.
 * Nothing above this file knows which backend it holds.
 */
export interface Backend<Own = unknown> {
  /** Its name in prose ("on BigQuery"), for messages. */
  readonly title: string;
  /**
   * The variable (of `config.ts`'s schema) saying how many calls its engine runs at once: the
   * engine's calls, shared fairly between endpoints and clients, default from it.
   */
  readonly engineCallsVariable: string;
  /**
   * Its own environment variables (QUERYGATE_<KIND>_*), parsed by `loadConfig` only when it is
   * the engine chosen; the result is `config[kind]`. Absent: it reads none of its own.
   */
  readonly environment?: z.ZodType<Own>;
  /** Opens the store or warehouse the server serves from. */
  open(context: OpenContext<Own>): Promise<OpenBackend>;
  /**
   * An engine over an empty store holding the sources' tables (or the warehouse, dry runs only):
   * shapes for `queries check|lock` without a server or a data directory. Closing it closes all.
   */
  scratch(context: ScratchContext<Own>): Promise<QueryEngine>;
  /** The configured store for `querygate query`, one SQL text at a time. */
  querySession(context: QuerySessionContext<Own>): Promise<QuerySession>;
  /** Adds its own commands to the CLI (`querygate bigquery setup|check`). */
  commands?(program: Command, context: CommandContext): void;
  /**
   * Where `queries check` says the shapes came from when this backend was asked for them
   * (" on BigQuery"); absent for a local store, which says nothing.
   */
  readonly checkedOn?: string;
}

/** The part of the configuration every backend may read (`Config` has all of it). */
export interface BackendSettings {
  readonly dataDir: string;
  /** The queries directory served. */
  readonly queriesDir: string;
  readonly demo: boolean;
  /** Deadline of an engine call, from asking for a connection to its last row. */
  readonly queryTimeoutMs: number;
  readonly duckdbConnections: number;
  /**
   * The ad-hoc lane's calls at once (on DuckDB, connections of its own beside those), and the
   * resident bytes past which a caller query is stopped.
   */
  readonly adhoc?: { readonly calls: number; readonly memoryCeilingBytes?: number } | undefined;
  /** DuckDB's memory limit, as DuckDB takes it ('1GB') and in bytes. */
  readonly duckdbMemoryLimit: string;
  readonly duckdbMemoryLimitBytes: number;
  /** DuckDB's worker threads; undefined leaves DuckDB's own choice. */
  readonly duckdbThreads?: number | undefined;
  /** Days each source keeps its records unless sources.yaml says otherwise; 0 keeps them for ever. */
  readonly retentionDays: number;
  /** The least time between two schema changes of one source. */
  readonly schemaChangeIntervalMs: number;
  /** Test-only: `checkpoint` makes the store's first opening fail at every checkpoint. @default none */
  readonly faultInjection?: 'checkpoint' | undefined;
  readonly schemaLimits: { readonly maxFields: number; readonly maxDepth: number };
}

export interface OpenContext<Own> {
  readonly settings: BackendSettings;
  /** Its own parsed variables; undefined when they were not given. */
  readonly own: Own | undefined;
  /** The sources of the queries directory served: the tables queries read and ingestion writes. */
  readonly sources: readonly LogSource[];
  /** Its table sources (the team's own warehouse tables), read by their warehouse names. @default none */
  readonly tables?: readonly TableSource[] | undefined;
  /** The saved queries, planned once at open so a query that cannot run stops start-up. */
  readonly queries: readonly SavedQuery[];
  /** The clock of ingestion and demo traffic. */
  readonly now: () => Date;
  /** @default Node's */
  readonly timers?: Timers | undefined;
  readonly logger: Logger;
  /** A client the caller made for this backend (tests point one at a fake). @default its own */
  readonly client?: unknown;
}

/** A backend opened for serving. */
export interface OpenBackend {
  readonly engine: QueryEngine;
  /** Where ingestion writes. */
  readonly logs: LogSink;
  /** Where rows of table sources posted over HTTP go; undefined where the backend takes none. */
  readonly tables?: TableSink | undefined;
  /** The deadline of its engine calls, which fair sharing waits no longer than. */
  readonly timeoutMs: number;
  /** Demo traffic it keeps current; undefined where it keeps none. */
  readonly demo?: DemoHandle | undefined;
  /** Bytes its store takes on disk now, for metrics; absent where it keeps none (a warehouse). */
  storeBytes?(): number;
  /**
   * Whether its store can serve now (`/health` answers 503 when not); absent where it has no
   * store of its own to lose (a warehouse).
   */
  storeState?(): StoreState;
  /**
   * Brings its tables of the table sources to these declarations, as BigQuery's schema updates
   * allow (see storage/table-migration.ts), and holds rows to them from then on; a reload calls
   * it when only columns of table sources changed. Returns what changed, one line each; throws,
   * changing nothing, naming each difference it cannot make. Absent where the tables are not
   * querygate's (a warehouse): there a changed declaration needs a restart.
   */
  migrateTables?(tables: readonly TableSource[]): Promise<string[]>;
  /** Closes what it opened besides the engine (the engine is closed first, on its own). */
  close(): Promise<void>;
}

/** A store serving, or reopening after a fatal error (clients are told to retry after a while). */
export type StoreState =
  | { readonly ok: true }
  | { readonly ok: false; readonly reason: string; readonly retryAfterSeconds: number };

/** Demo traffic as the server sees it (storage/demo-traffic.ts's DemoTraffic). */
export interface DemoHandle {
  readonly atStart: DemoSeedOutcome;
  close(): Promise<void>;
}

export interface ScratchContext<Own> {
  readonly own: Own | undefined;
  readonly sources: readonly LogSource[];
  /** @default none */
  readonly tables?: readonly TableSource[] | undefined;
  /** @default its own, from `own` */
  readonly client?: unknown;
}

export interface QuerySessionContext<Own> {
  readonly settings: BackendSettings;
  readonly own: Own | undefined;
  readonly sources: readonly LogSource[];
  /** @default none */
  readonly tables?: readonly TableSource[] | undefined;
}

export interface QuerySession {
  /** The SQL the engine would run for this text (`--explain`). */
  explain(sql: string): Promise<string>;
  /** An engine over the store; the caller closes it before the session. */
  engine(): Promise<QueryEngine>;
  close(): Promise<void>;
}

export interface CommandContext {
  /** The queries directory a command's `--queries` names, or the configured one. */
  queriesDirOf(dir: string | undefined): string;
}
