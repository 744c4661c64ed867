import { z } from 'zod';
import type { AdmitStoring } from './storing-cost.js';
import { type TableColumn, tableColumnsSchema } from './table-columns.js';

/**
 * A table source: one of the team's own warehouse tables (a GA4 export, an orders table), with
 * its own typed columns rather than the log shape. On DuckDB it is one table named `name`; saved
 * SQL may also name it by its warehouse name, exactly as it runs on BigQuery.
 */
export interface TableSource {
  readonly kind: 'table';
  /** The table's name in the store, in `querygate import --source` and `POST /api/logs?source_name=`. */
  readonly name: string;
  /** A UUID, for `POST /api/logs?source=<id>`; optional for tables. */
  readonly id?: string | undefined;
  readonly description: string;
  /**
   * Its name on BigQuery, `project.dataset.table` or `dataset.table`; a wildcard family ends
   * with `*` (`analytics_123456.events_*`), and then `tableSuffix` says where `_TABLE_SUFFIX` is.
   * On BigQuery the saved SQL runs with this name as written; it is never renamed.
   */
  readonly warehouseName?: string | undefined;
  /** The column holding each row's `_TABLE_SUFFIX` (GA4's `event_date`, `YYYYMMDD`). */
  readonly tableSuffix?: { readonly column: string } | undefined;
  readonly columns: readonly TableColumn[];
}

// Project ids may be domain-scoped (`example.com:proj`); dataset and table ids are word characters
// (table ids also dashes), and a wildcard family ends with `*`.
const warehouseNamePattern =
  /^(?:[a-z0-9][a-z0-9.:-]*[a-z0-9]\.)?[A-Za-z0-9_]+\.[\p{L}\p{M}\p{N}\p{Pc}\p{Pd}]+\*?$/u;

export const tableSourceSchema = z
  .looseObject({
    kind: z.literal('table'),
    name: z
      .string()
      .regex(
        /^[A-Za-z0-9][A-Za-z0-9._-]*$/,
        'source names are letters, digits, dots, dashes and underscores',
      ),
    id: z
      .uuid('must be a UUID, the source token of POST /api/logs?source=')
      .transform((id) => id.toLowerCase())
      .optional(),
    description: z.string().min(1).default('A warehouse table'),
    warehouseName: z
      .string()
      .regex(
        warehouseNamePattern,
        'must be project.dataset.table or dataset.table, or a wildcard family such as analytics_123456.events_*',
      )
      .optional(),
    tableSuffix: z.object({ column: z.string().min(1) }).optional(),
    columns: tableColumnsSchema,
  })
  .superRefine((source, context) => {
    const wildcard = source.warehouseName?.endsWith('*') ?? false;
    if (wildcard && !source.tableSuffix)
      context.addIssue({
        code: 'custom',
        path: ['tableSuffix'],
        message: `${source.warehouseName} is a wildcard family: say which column holds _TABLE_SUFFIX (tableSuffix: { column: event_date })`,
      });
    if (!source.tableSuffix) return;
    if (!wildcard)
      context.addIssue({
        code: 'custom',
        path: ['tableSuffix'],
        message: 'tableSuffix applies only to a wildcard warehouseName (ending with *)',
      });
    const column = source.columns.find(
      (candidate) => candidate.name.toLowerCase() === source.tableSuffix?.column.toLowerCase(),
    );
    if (column?.type !== 'STRING' || column.mode === 'REPEATED')
      context.addIssue({
        code: 'custom',
        path: ['tableSuffix', 'column'],
        message: `${source.tableSuffix.column} must be a declared STRING column (the suffix as BigQuery's table names carry it, e.g. 20240131)`,
      });
  });

/**
 * The names saved SQL may give a table source, lower case: its name, its warehouse name and,
 * for `project.dataset.table`, `dataset.table` (BigQuery's name in the job's own project).
 */
export function tableSourceNames(source: TableSource): string[] {
  const names = [source.name];
  if (source.warehouseName) {
    names.push(source.warehouseName);
    const parts = source.warehouseName.split('.');
    if (parts.length >= 3) names.push(parts.slice(-2).join('.'));
  }
  return [...new Set(names.map((name) => name.toLowerCase()))];
}

/** A table source as the engines see it: its store name, the names SQL may use, its suffix column. */
export function queryableTable(source: TableSource) {
  return {
    name: source.name,
    aliases: tableSourceNames(source).filter((name) => name !== source.name.toLowerCase()),
    kind: 'table' as const,
    tableSuffix: source.tableSuffix,
    warehouseName: source.warehouseName,
  };
}

/** Where rows of table sources posted over HTTP go: stored as sent, checked against the columns. */
export interface TableSink {
  /**
   * Stores the rows, all or none. `replace` puts them in place of the table's rows, or for a
   * wildcard family in place of the day tables (suffixes) they hold, as a load job with
   * WRITE_TRUNCATE does.
   */
  write(sourceName: string, rows: readonly unknown[], options?: TableWriteOptions): Promise<TableWritten>;
  /**
   * Loads whole files (NDJSON, Parquet or CSV as BigQuery exports them) into a table source, all
   * or none, as `querygate import` does on a store it opens itself: for that command while a
   * server holds the store. Only the embedded store has it; the files must be in its staging
   * directory (`server-file.ts`), the one place the locked-down DuckDB may read.
   */
  importFiles?(sourceName: string, files: readonly string[], options?: TableFileLoad): Promise<TableWritten>;
}

export interface TableWriteOptions {
  /** @default false: the rows are appended */
  readonly replace?: boolean | undefined;
  /** Told the rows' storing cost once they are checked; throws to refuse them, nothing stored. */
  readonly admit?: AdmitStoring | undefined;
}

export interface TableFileLoad {
  /** @default from each file's name */
  readonly format?: TableFileFormat | undefined;
  /** @default 'append' (a file whose content was loaded before is skipped) */
  readonly mode?: TableLoadMode | undefined;
}

/** What a write or load did: rows stored, and what a replace or truncate put them in place of. */
export interface TableWritten {
  readonly ingested: number;
  /** Rows a replace or truncate deleted. */
  readonly deleted?: number | undefined;
  /** Files skipped as loaded before (their content is in the store's ledger). */
  readonly skipped?: readonly string[] | undefined;
  /** Of a family replaced day by day: the suffixes (day tables) replaced. */
  readonly replacedSuffixes?: readonly string[] | undefined;
  /** Whether rows were replaced or deleted (so results read from them before are stale). */
  readonly replaced: boolean;
}

/**
 * How files load into a table, as `bq load` does: `append` (idempotent by file content),
 * `replace` (WRITE_TRUNCATE of the table, or of the day tables the input holds), `truncate`.
 */
export type TableLoadMode = 'append' | 'replace' | 'truncate';

/** The file formats a table source loads, as BigQuery exports them. */
export type TableFileFormat = 'ndjson' | 'parquet' | 'csv';
