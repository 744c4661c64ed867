import { basename, join } from 'node:path';
import type { Config } from '../config.js';
import { didYouMean } from '../endpoints/likely-meant.js';
import { readSourceDeclarations, sourcesFileName } from '../endpoints/sources.js';
import { openDatabase } from '../storage/database.js';
import { importLogFile } from '../storage/log-import.js';
import { createLogWriter } from '../storage/log-writer.js';
import { type ImportFormat, importTableFiles, type TableImportProgress } from '../storage/table-import.js';
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
 * BigQuery exports them, all in one transaction. DuckDB lets one process open a file for writing:
 * while a server holds it, the import goes through that server instead (stderr says so).
 */
export async function runImport(
  config: Config,
  sourceName: string,
  files: readonly string[],
  format?: string,
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
  const started = performance.now();
  let database: Awaited<ReturnType<typeof openDatabase>>;
  try {
    database = await openDatabase(join(config.dataDir, 'querygate.duckdb'));
  } catch (error) {
    if (!isStoreLocked(error)) throw error;
    const count = await importThroughServer(
      config,
      error,
      { name: sourceName, isTable: table !== undefined },
      files,
      format,
    );
    reportImported(count, table ? 'rows' : 'events', sourceName, started);
    return;
  }
  let count: number;
  try {
    if (table) {
      const connection = await database.connect();
      try {
        await ensureWarehouseTables(connection, [table]);
        count = await importTableFiles(connection, table, files, {
          format: format as ImportFormat | undefined,
          onProgress: process.stderr.isTTY ? progressBar : undefined,
        });
      } finally {
        if (process.stderr.isTTY) process.stderr.write('\n');
        connection.closeSync();
      }
    } else {
      const [file, ...more] = files;
      if (file === undefined || more.length > 0)
        throw new Error(`${sourceName} is a log source: import one NDJSON file at a time`);
      const writer = createLogWriter(database, { sources: declared.logs });
      try {
        count = await importLogFile(writer, sourceName, file);
      } finally {
        await writer.close();
      }
    }
  } finally {
    database.close();
  }
  reportImported(count, table ? 'rows' : 'events', sourceName, started);
}

function reportImported(count: number, what: string, sourceName: string, started: number): void {
  const seconds = (performance.now() - started) / 1000;
  console.log(
    `Imported ${count} ${what} into ${sourceName} in ${seconds.toFixed(1)} s (${Math.round(count / seconds)}/s)`,
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
  format: string | undefined,
): Promise<number> {
  const target = serverHoldingStore(config, lockError);
  if (source.isTable) {
    sayThroughServer('import', target.server, 'handed it the files to load (all in one transaction)');
    return importTableFilesThroughServer(target, config.dataDir, {
      source: source.name,
      files,
      format: format as ImportFormat | undefined,
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

/** One line on the terminal, redrawn: the file, which of how many, and DuckDB's estimate. */
function progressBar(progress: TableImportProgress): void {
  const width = 30;
  const percentage = Math.max(0, Math.min(100, progress.percentage));
  const filled = Math.round((percentage / 100) * width);
  process.stderr.write(
    `\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${percentage.toFixed(0).padStart(3)}%  file ${progress.index + 1}/${progress.files} ${basename(progress.file)}`,
  );
}
