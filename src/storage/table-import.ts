import { createReadStream, existsSync } from 'node:fs';
import { basename } from 'node:path';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { TableFileFormat, TableSource } from '../endpoints/table-source.js';
import { QuerygateError } from '../errors.js';
import { raisedMessage } from '../sql/raised-errors.js';
import { quoteIdent } from '../sql/table-schema.js';
import { checkTableRow } from './table-row-check.js';
import { selectFromWire, wireType } from './table-wire.js';

export type ImportFormat = TableFileFormat;

export interface TableImportProgress {
  readonly file: string;
  /** 0-based index of the file being read, of `files`. */
  readonly index: number;
  readonly files: number;
  /** DuckDB's estimate for the file being read, 0 to 100; -1 when it has none. */
  readonly percentage: number;
  /** Rows loaded so far by this import: of the files before this one, and of this one once read. */
  readonly rows: number;
}

export interface TableImportOptions {
  /** @default from each file's name (.ndjson/.json/.jsonl, .parquet, .csv; each may end .gz) */
  readonly format?: ImportFormat | undefined;
  readonly onProgress?: ((progress: TableImportProgress) => void) | undefined;
  /** @default 250 */
  readonly progressIntervalMs?: number | undefined;
}

/**
 * Loads files as BigQuery exports them into a table source's table, through DuckDB's own readers
 * (read_json with the declared columns, read_parquet, read_csv), never row by row. All or
 * nothing: every file goes in one transaction, so a refused file leaves the table as it was.
 * A bad row of an NDJSON file is named by file and line (found by checking the file's rows
 * against the declared types once DuckDB has refused it). Returns the rows loaded. The modes
 * (replace, truncate, files loaded before skipped) are `loadTableFiles`'s (table-load.ts).
 */
export async function importTableFiles(
  connection: DuckDBConnection,
  source: TableSource,
  files: readonly string[],
  options: TableImportOptions = {},
): Promise<number> {
  const formats = fileFormats(source, files, options.format);
  let loaded = 0;
  await connection.run('BEGIN TRANSACTION');
  try {
    for (const [index, file] of files.entries())
      loaded += await insertFile(
        connection,
        source,
        { file, format: formats[index] as ImportFormat },
        {
          into: source.name,
          index,
          files: files.length,
          rows: loaded,
          options,
        },
      );
    await connection.run('COMMIT');
  } catch (error) {
    await connection.run('ROLLBACK').catch(() => {});
    throw error;
  }
  return loaded;
}

/** The format of each file, checked before anything is read: a refusal names the file. */
export function fileFormats(
  source: TableSource,
  files: readonly string[],
  format: ImportFormat | undefined,
): ImportFormat[] {
  return files.map((file) => {
    if (!existsSync(file)) throw new QuerygateError('BAD_REQUEST', `${file}: no such file`);
    const chosen = format ?? formatOf(file);
    if (chosen === 'csv' && source.columns.some((c) => c.type === 'STRUCT' || c.mode === 'REPEATED'))
      throw new QuerygateError(
        'BAD_REQUEST',
        `${file}: ${source.name} has STRUCT or REPEATED columns, which CSV cannot hold (BigQuery exports such tables as NDJSON or Parquet)`,
      );
    return chosen;
  });
}

/**
 * Inserts one file's rows into `into` (the source's table, or a staging table of its columns)
 * within the caller's transaction; a refusal names the file (and the line, for NDJSON).
 */
export async function insertFile(
  connection: DuckDBConnection,
  source: TableSource,
  { file, format }: { file: string; format: ImportFormat },
  at: { into: string; index: number; files: number; rows: number; options: TableImportOptions },
): Promise<number> {
  const insert = `INSERT INTO ${quoteIdent(at.into)} ${selectFromWire(
    source.columns,
    withNamedSuffix(source, file, reader(source, file, format)),
    format === 'parquet' ? 'typed' : 'text',
  )}`;
  try {
    return await withProgress(
      connection,
      at.options,
      { file, index: at.index, files: at.files, rows: at.rows },
      async () => Number((await connection.run(insert)).rowsChanged),
    );
  } catch (error) {
    throw await refusal(source, file, format, error);
  }
}

/**
 * A day table's export named as the table (`cloudaudit_googleapis_com_activity_20240301.ndjson`
 * for a family `..._activity_*`) gives the suffix of its rows that hold none. Cloud Logging's
 * date-sharded tables have no column carrying it (GA4's event_date does), so `bq extract`'s rows
 * would otherwise load with a NULL suffix: lost to every `_TABLE_SUFFIX` filter and day table.
 */
function withNamedSuffix(source: TableSource, file: string, from: string): string {
  const column = source.tableSuffix?.column;
  const table = source.warehouseName?.split('.').at(-1) ?? '';
  if (column === undefined || !table.endsWith('*')) return from;
  const prefix = table.slice(0, -1).toLowerCase();
  const name = basename(file)
    .toLowerCase()
    .replace(/\.(ndjson|jsonl|json|parquet|csv)(\.gz)?$/, '');
  const suffix = name.startsWith(prefix) ? name.slice(prefix.length) : '';
  if (!/^[a-z0-9_]+$/.test(suffix)) return from;
  const quoted = quoteIdent(column);
  return `(SELECT * REPLACE (coalesce(${quoted}, '${suffix}') AS ${quoted}) FROM ${from})`;
}

function formatOf(file: string): ImportFormat {
  const name = file.toLowerCase().replace(/\.gz$/, '');
  if (name.endsWith('.parquet')) return 'parquet';
  if (name.endsWith('.csv')) return 'csv';
  if (name.endsWith('.ndjson') || name.endsWith('.json') || name.endsWith('.jsonl')) return 'ndjson';
  throw new QuerygateError(
    'BAD_REQUEST',
    `${file}: cannot tell its format from its name (.ndjson, .json, .jsonl, .parquet or .csv, optionally .gz); pass --format`,
  );
}

function reader(source: TableSource, file: string, format: ImportFormat): string {
  const path = `'${file.replaceAll("'", "''")}'`;
  if (format === 'parquet') return `read_parquet(${path})`;
  const columns = source.columns.map(
    (column) => `${quoteIdent(column.name)}: '${wireType(column).replaceAll("'", "''")}'`,
  );
  if (format === 'csv')
    return `read_csv(${path}, header = true, auto_detect = false, columns = {${columns.join(', ')}})`;
  return `read_json(${path}, format = 'newline_delimited', records = true, columns = {${columns.join(', ')}})`;
}

async function withProgress(
  connection: DuckDBConnection,
  options: TableImportOptions,
  at: Omit<TableImportProgress, 'percentage'>,
  run: () => Promise<number>,
): Promise<number> {
  const report = options.onProgress;
  if (!report) return run();
  report({ ...at, percentage: 0 });
  const timer = setInterval(
    () => report({ ...at, percentage: connection.progress.percentage }),
    options.progressIntervalMs ?? 250,
  );
  try {
    const rows = await run();
    report({ ...at, percentage: 100, rows: at.rows + rows });
    return rows;
  } finally {
    clearInterval(timer);
  }
}

/** The error a refused file is reported with: its bad line where one can be found. */
async function refusal(
  source: TableSource,
  file: string,
  format: ImportFormat,
  error: unknown,
): Promise<QuerygateError> {
  // A value the reader's SQL refused in BigQuery's words (table-wire.ts) is told in them alone.
  const message = (raisedMessage(error) ?? (error as Error).message).split('\n')[0] ?? 'refused';
  if (format === 'ndjson') {
    const bad = await firstBadLine(source, file).catch(() => undefined);
    if (bad)
      return new QuerygateError(
        'BAD_REQUEST',
        `${file} line ${bad.line}: ${bad.column ? `${bad.column} ` : ''}${bad.reason}; nothing was imported`,
        { cause: error, details: { file, line: bad.line, column: bad.column } },
      );
  }
  return new QuerygateError('BAD_REQUEST', `${file}: ${message}; nothing was imported`, {
    cause: error,
    details: { file },
  });
}

/** The first line of an NDJSON file that is not JSON or whose row does not fit the columns. */
async function firstBadLine(
  source: TableSource,
  file: string,
): Promise<{ line: number; column: string; reason: string } | undefined> {
  const stream = createReadStream(file);
  const input: Readable = file.endsWith('.gz') ? stream.pipe(createGunzip()) : stream;
  const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
  let line = 0;
  try {
    for await (const text of lines) {
      line += 1;
      if (text.trim() === '') continue;
      let row: unknown;
      try {
        row = JSON.parse(text);
      } catch (error) {
        return { line, column: '', reason: `is not valid JSON (${(error as Error).message})` };
      }
      const problem = checkTableRow(source.columns, row);
      if (problem) return { line, ...problem };
    }
  } finally {
    lines.close();
    input.destroy();
  }
  return undefined;
}
