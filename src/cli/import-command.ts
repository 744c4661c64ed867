import { join } from 'node:path';
import type { Config } from '../config.js';
import { readSources } from '../endpoints/sources.js';
import { openDatabase } from '../storage/database.js';
import { importLogFile } from '../storage/log-import.js';
import { createLogWriter } from '../storage/log-writer.js';

/**
 * `querygate import --source <name> <file>`: a backfill through the bulk path into the same
 * DuckDB file the server uses. DuckDB lets one process open a file for writing, so stop the
 * server first (or ingest over HTTP while it runs).
 */
export async function runImport(config: Config, source: string, file: string): Promise<void> {
  const database = await openDatabase(join(config.dataDir, 'querygate.duckdb'));
  // The sources the server would serve (QUERYGATE_QUERIES_DIR), as ingestion over HTTP accepts.
  const writer = createLogWriter(database, { sources: readSources(config.queriesDir) });
  try {
    const started = performance.now();
    const count = await importLogFile(writer, source, file);
    const seconds = (performance.now() - started) / 1000;
    console.log(
      `Imported ${count} events into ${source} in ${seconds.toFixed(1)} s (${Math.round(count / seconds)}/s)`,
    );
  } finally {
    await writer.close();
    database.close();
  }
}
