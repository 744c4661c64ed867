import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import type { DuckDBConnection } from '@duckdb/node-api';
import type { TableLoadMode, TableSource } from '../endpoints/table-source.js';
import { QuerygateError } from '../errors.js';
import { quoteIdent } from '../sql/table-schema.js';
import { fileFormats, type ImportFormat, insertFile, type TableImportOptions } from './table-import.js';

/**
 * Loading a table source as a warehouse loads one (`bq load`), on the embedded store:
 * - `append` (the default) is idempotent by file content: the store keeps a ledger of the
 *   SHA-256 of each file loaded into each table (`_querygate_loads`), written in the same
 *   transaction as the rows, so a file loaded before is skipped, and an import cut short left
 *   neither its rows nor its ledger lines (a rerun loads it once). Two files with different
 *   bytes are two loads even when their rows are the same.
 * - `replace` is `WRITE_TRUNCATE`: the whole table, or for a wildcard family (`events_*`) only
 *   the day tables the input holds (the values of its suffix column), as GA4's daily re-export
 *   rewrites `events_20240725` and leaves the other days alone.
 * - `truncate` empties the table (and forgets its ledger: the same files may be loaded again).
 * Every mode runs in one transaction: a crash leaves the old rows or the new ones, never a mix.
 */

/** What one load did. */
export interface TableLoad {
  /** Rows inserted. */
  readonly rows: number;
  /** Rows a replace or truncate deleted. */
  readonly deleted: number;
  /** Files not read because the ledger says their content was loaded before (append only). */
  readonly skipped: readonly string[];
  /** For a family replaced day by day: the suffixes (day tables) replaced; otherwise undefined. */
  readonly replacedSuffixes?: readonly string[] | undefined;
}

export interface TableLoadOptions extends TableImportOptions {
  /** @default 'append' */
  readonly mode?: TableLoadMode | undefined;
}

/** The ledger of loaded file contents, one row per (table, content). */
export const loadLedgerTable = '_querygate_loads';

const ledgerStatement = `CREATE TABLE IF NOT EXISTS ${loadLedgerTable} (source VARCHAR NOT NULL, sha256 VARCHAR NOT NULL, file VARCHAR NOT NULL, rows BIGINT NOT NULL, loaded_at TIMESTAMP NOT NULL DEFAULT current_timestamp)`;
const stagingTable = '_querygate_staged_rows';

export async function loadTableFiles(
  connection: DuckDBConnection,
  source: TableSource,
  files: readonly string[],
  options: TableLoadOptions = {},
): Promise<TableLoad> {
  const mode = options.mode ?? 'append';
  if (mode === 'truncate' && files.length > 0)
    throw new QuerygateError(
      'BAD_REQUEST',
      'truncate takes no files (replace loads files in place of the rows)',
    );
  const formats = fileFormats(source, files, options.format);
  const hashes = await Promise.all(files.map(contentHash));
  const byDay = mode === 'replace' ? source.tableSuffix?.column : undefined;
  await connection.run('BEGIN TRANSACTION');
  try {
    await connection.run(ledgerStatement);
    const loaded = mode === 'append' ? await ledgerHashes(connection, source.name) : new Set<string>();
    const deleted =
      mode === 'truncate' || (mode === 'replace' && !byDay) ? await deleteAll(connection, source.name) : 0;
    // A family's files are staged first: only once they are read is it known which days they replace.
    if (byDay)
      await connection.run(`CREATE TEMP TABLE ${stagingTable} AS FROM ${quoteIdent(source.name)} LIMIT 0`);
    const into = byDay ? stagingTable : source.name;
    let rows = 0;
    const skipped: string[] = [];
    for (const [index, file] of files.entries()) {
      const hash = hashes[index] as string;
      if (loaded.has(hash)) {
        skipped.push(file);
        continue;
      }
      loaded.add(hash);
      const format = formats[index] as ImportFormat;
      const count = await insertFile(
        connection,
        source,
        { file, format },
        { into, index, files: files.length, rows, options },
      );
      rows += count;
      await recordLoad(connection, source.name, hash, file, count);
    }
    const replaced = byDay ? await replaceDays(connection, source.name, byDay) : undefined;
    await connection.run('COMMIT');
    return {
      rows,
      deleted: replaced?.deleted ?? deleted,
      skipped,
      replacedSuffixes: replaced?.suffixes,
    };
  } catch (error) {
    await connection.run('ROLLBACK').catch(() => {});
    throw error;
  }
}

/**
 * Empties a table source's table and forgets its ledger, within the caller's transaction: what
 * `truncate` and a whole-table `replace` do first. Returns the rows deleted.
 */
export async function deleteAll(connection: DuckDBConnection, sourceName: string): Promise<number> {
  await connection.run(ledgerStatement);
  await forgetLoads(connection, sourceName);
  return Number((await connection.run(`DELETE FROM ${quoteIdent(sourceName)}`)).rowsChanged);
}

/**
 * Deletes the rows of the day tables (suffixes) a family's new rows hold, within the caller's
 * transaction. The ledger keeps the other files of those days: loading one of them again would
 * bring back rows a re-export replaced, so it stays skipped unless replaced again.
 */
export async function deleteDays(
  connection: DuckDBConnection,
  sourceName: string,
  suffixColumn: string,
  suffixes: readonly string[],
): Promise<number> {
  if (suffixes.length === 0) return 0;
  const deleted = await connection.run(
    `DELETE FROM ${quoteIdent(sourceName)} WHERE ${quoteIdent(suffixColumn)} IN (SELECT unnest(json_transform(CAST($1 AS JSON), '["VARCHAR"]')))`,
    [JSON.stringify(suffixes)],
  );
  return Number(deleted.rowsChanged);
}

/** Moves the staged rows of a family into its table in place of the days they hold. */
async function replaceDays(connection: DuckDBConnection, sourceName: string, suffixColumn: string) {
  const column = quoteIdent(suffixColumn);
  const read = await connection.runAndReadAll(
    `SELECT DISTINCT ${column} FROM ${stagingTable} WHERE ${column} IS NOT NULL ORDER BY 1`,
  );
  const suffixes = read.getRows().map(([suffix]) => String(suffix));
  const deleted = await deleteDays(connection, sourceName, suffixColumn, suffixes);
  await connection.run(`INSERT INTO ${quoteIdent(sourceName)} FROM ${stagingTable}`);
  await connection.run(`DROP TABLE ${stagingTable}`);
  return { suffixes, deleted };
}

async function ledgerHashes(connection: DuckDBConnection, sourceName: string): Promise<Set<string>> {
  const read = await connection.runAndReadAll(`SELECT sha256 FROM ${loadLedgerTable} WHERE source = $1`, [
    sourceName,
  ]);
  return new Set(read.getRows().map(([hash]) => String(hash)));
}

async function forgetLoads(connection: DuckDBConnection, sourceName: string): Promise<void> {
  await connection.run(`DELETE FROM ${loadLedgerTable} WHERE source = $1`, [sourceName]);
}

async function recordLoad(
  connection: DuckDBConnection,
  sourceName: string,
  hash: string,
  file: string,
  rows: number,
): Promise<void> {
  // A family's day replace may load a content the ledger holds already: one line per content.
  await connection.run(`DELETE FROM ${loadLedgerTable} WHERE source = $1 AND sha256 = $2`, [
    sourceName,
    hash,
  ]);
  await connection.run(
    `INSERT INTO ${loadLedgerTable} (source, sha256, file, rows) VALUES ($1, $2, $3, $4)`,
    [sourceName, hash, file, BigInt(rows)],
  );
}

/** SHA-256 of a file's bytes as given (a gzipped file's compressed bytes). */
async function contentHash(file: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file)) hash.update(chunk as Buffer);
  return hash.digest('hex');
}
