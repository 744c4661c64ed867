import { basename, join } from 'node:path';
import type { Config } from '../config.js';
import { didYouMean } from '../endpoints/likely-meant.js';
import { readSourceDeclarations, sourcesFileName } from '../endpoints/sources.js';
import type { TableLoadMode, TableWritten } from '../endpoints/table-source.js';
import { openDatabase } from '../storage/database.js';
import { importLogFile } from '../storage/log-import.js';
import { createLogWriter } from '../storage/log-writer.js';
import { createPresentRecords } from '../storage/present-records.js';
import { createRollups } from '../storage/rollups.js';
import type { ImportFormat, TableImportProgress } from '../storage/table-import.js';
import { loadTableFiles } from '../storage/table-load.js';
import { ensureWarehouseTables } from '../storage/warehouse-tables.js';
import {
  importTableFilesThroughServer,
  ingestThroughServer,
  isStoreLocked,
  sayThroughServer,
  serverHoldingStore,
} from './through-server.js';

/**
 * `querygate import --source <name> <files...>`: a backfill into the same DuckDB file the server
 * uses, for a source of the served queries directory (`--queries`). A log source takes one NDJSON
 * file through the log writer's bulk path; a table source takes NDJSON, Parquet or CSV files as
 * BigQuery exports them, all in one transaction, in `mode` (see storage/table-load.ts: append,
 * skipping files loaded before; replace; truncate). DuckDB lets one process open a file for
 * writing: while a server holds it, the import goes through that server instead (stderr says so).
 */
export async function runImport(
  config: Config,
  sourceName: string,
  files: readonly string[],
  format?: string,
  mode: TableLoadMode = 'append',
): Promise<void> {
  const declared = readSourceDeclarations(config.queriesDir);
  const known = [...declared.logs, ...declared.tables].map((source) => source.name);
  if (!known.includes(sourceName))
    throw new Error(
      `${sourceName} is no source of ${join(config.queriesDir, sourcesFileName)}${didYouMean(sourceName, known)}`,
    );
  const table = declared.tables.find((source) => source.name === sourceName);
  if (format !== undefined && !['ndjson', 'parquet', 'csv'].includes(format))
    throw new Error(`--format must be ndjson, parquet or csv (got ${format})`);
  if (!table && mode !== 'append')
    throw new Error(
      `${sourceName} is not a table source of ${config.queriesDir}: only a table source is replaced or truncated`,
    );
  if (mode === 'truncate' && files.length > 0)
    throw new Error('--truncate takes no files (--replace loads files in place of the rows)');
  if (mode !== 'truncate' && files.length === 0) throw new Error('name at least one file to import');
  const started = performance.now();
  let database: Awaited<ReturnType<typeof openDatabase>>;
  try {
    database = await openDatabase(join(config.dataDir, 'querygate.duckdb'));
  } catch (error) {
    if (!isStoreLocked(error)) throw error;
    const outcome = await importThroughServer(
      config,
      error,
      { name: sourceName, isTable: table !== undefined },
      files,
      { format, mode },
    );
    reportImported(outcome, table ? 'rows' : 'events', sourceName, started);
    return;
  }
  let outcome: number | TableWritten;
  try {
    if (table) {
      const connection = await database.connect();
      try {
        await ensureWarehouseTables(connection, [table]);
        const load = await loadTableFiles(connection, table, files, {
          format: format as ImportFormat | undefined,
          mode,
          onProgress: process.stderr.isTTY ? progressBar : progressLine,
        });
        outcome = { ingested: load.rows, ...load, replaced: mode !== 'append' };
      } finally {
        if (process.stderr.isTTY) process.stderr.write('\n');
        connection.closeSync();
      }
    } else {
      const [file, ...more] = files;
      if (file === undefined || more.length > 0)
        throw new Error(`${sourceName} is a log source: import one NDJSON file at a time`);
      // With the sources' rollups and the store's copy of their integer-text fields, kept as the
      // server keeps them: its next start has nothing to remake or read again.
      const writer = createLogWriter(database, {
        sources: declared.logs,
        rollups: createRollups(declared.logs),
        presentRecords: createPresentRecords(),
      });
      try {
        outcome = await importLogFile(writer, sourceName, file);
      } finally {
        await writer.close();
      }
    }
  } finally {
    database.close();
  }
  reportImported(outcome, table ? 'rows' : 'events', sourceName, started);
}

/** What the import did, on stdout: rows, what a replace put them in place of, files skipped. */
function reportImported(
  outcome: number | TableWritten,
  what: string,
  sourceName: string,
  started: number,
): void {
  const seconds = (performance.now() - started) / 1000;
  const loaded = typeof outcome === 'number' ? { ingested: outcome, replaced: false } : outcome;
  const count = loaded.ingested;
  const days = loaded.replacedSuffixes;
  const replaced =
    loaded.deleted === undefined || !loaded.replaced
      ? ''
      : days
        ? ` in place of ${loaded.deleted} rows of ${days.length === 1 ? 'day' : 'days'} ${days.join(', ') || '(none)'}`
        : `, ${loaded.deleted} rows deleted`;
  console.log(
    `Imported ${count} ${what} into ${sourceName}${replaced} in ${seconds.toFixed(1)} s (${Math.round(count / seconds)}/s)`,
  );
  for (const file of loaded.skipped ?? [])
    console.log(
      `Skipped ${file}: its content was loaded into ${sourceName} before (import it with --replace to load it again)`,
    );
}

/**
 * The import while a server holds the store. A table source's files are handed to the server,
 * which loads them as this command would (all in one transaction, any format); a log source's
 * NDJSON is posted to its ingest route, each batch stored whole as any shipper's.
 */
async function importThroughServer(
  config: Config,
  lockError: unknown,
  source: { name: string; isTable: boolean },
  files: readonly string[],
  { format, mode }: { format: string | undefined; mode: TableLoadMode },
): Promise<number | TableWritten> {
  const target = serverHoldingStore(config, lockError);
  if (source.isTable) {
    sayThroughServer('import', target.server, 'handed it the files to load (all in one transaction)');
    return importTableFilesThroughServer(target, config.dataDir, {
      source: source.name,
      files,
      format: format as ImportFormat | undefined,
      mode,
    });
  }
  const notNdjson = files.filter((file) =>
    format === undefined ? /\.(parquet|csv)(\.gz)?$/i.test(file) : format !== 'ndjson',
  );
  if (notNdjson.length > 0)
    throw new Error(
      `${source.name} is a log source: it takes NDJSON, and ${notNdjson.join(', ')} is not NDJSON`,
    );
  sayThroughServer(
    'import',
    target.server,
    "sent the records through its ingest route (each batch stored whole, as a shipper's)",
  );
  let count = 0;
  for (const file of files) count += await ingestThroughServer(target, source.name, file);
  return count;
}

/** One line on the terminal, redrawn: rows loaded, DuckDB's estimate of the file, which file. */
function progressBar(progress: TableImportProgress): void {
  const width = 30;
  const percentage = Math.max(0, Math.min(100, progress.percentage));
  const filled = Math.round((percentage / 100) * width);
  process.stderr.write(
    `\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${progress.rows.toLocaleString('en')} rows  ${percentage.toFixed(0).padStart(3)}% of file ${progress.index + 1}/${progress.files} ${basename(progress.file)}`,
  );
}

/**
 * Off a terminal (a log, CI), a line each time a file is read: the rows loaded so far, which
 * is what an operator tails a long load for.
 */
function progressLine(progress: TableImportProgress): void {
  if (progress.percentage < 100) return;
  process.stderr.write(
    `querygate import: ${progress.rows} rows loaded (${progress.index + 1}/${progress.files} files, ${basename(progress.file)})\n`,
  );
}
