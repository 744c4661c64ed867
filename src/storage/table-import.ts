import { createReadStream, existsSync } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { TableFileFormat, TableSource } from '../endpoints/table-source.js';
import { QuerygateError } from '../errors.js';
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
 * against the declared types once DuckDB has refused it). Returns the rows loaded.
 */
export async function importTableFiles(
  connection: DuckDBConnection,
  source: TableSource,
  files: readonly string[],
  options: TableImportOptions = {},
): Promise<number> {
  const formats = files.map((file) => {
    if (!existsSync(file)) throw new QuerygateError('BAD_REQUEST', `${file}: no such file`);
    const format = options.format ?? formatOf(file);
    if (format === 'csv' && source.columns.some((c) => c.type === 'STRUCT' || c.mode === 'REPEATED'))
      throw new QuerygateError(
        'BAD_REQUEST',
        `${file}: ${source.name} has STRUCT or REPEATED columns, which CSV cannot hold (BigQuery exports such tables as NDJSON or Parquet)`,
      );
    return format;
  });
  let loaded = 0;
  await connection.run('BEGIN TRANSACTION');
  try {
    for (const [index, file] of files.entries()) {
      const format = formats[index] as ImportFormat;
      const insert = `INSERT INTO ${quoteIdent(source.name)} ${selectFromWire(
        source.columns,
        reader(source, file, format),
        format === 'parquet' ? 'typed' : 'text',
      )}`;
      try {
        loaded += await withProgress(connection, options, { file, index, files: files.length }, async () =>
          Number((await connection.run(insert)).rowsChanged),
        );
      } catch (error) {
        throw await refusal(source, file, format, error);
      }
    }
    await connection.run('COMMIT');
  } catch (error) {
    await connection.run('ROLLBACK').catch(() => {});
    throw error;
  }
  return loaded;
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

async function withProgress<T>(
  connection: DuckDBConnection,
  options: TableImportOptions,
  at: Omit<TableImportProgress, 'percentage'>,
  run: () => Promise<T>,
): Promise<T> {
  const report = options.onProgress;
  if (!report) return run();
  report({ ...at, percentage: 0 });
  const timer = setInterval(
    () => report({ ...at, percentage: connection.progress.percentage }),
    options.progressIntervalMs ?? 250,
  );
  try {
    const result = await run();
    report({ ...at, percentage: 100 });
    return result;
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
  const message = (error as Error).message.split('\n')[0] ?? 'refused';
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
