import { existsSync, renameSync } from 'node:fs';
import { dirname } from 'node:path';
import { type DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';
import { makeDataDirectory } from '../data-directory.js';
import { registerBigQueryJsonText, registerJsonExactNumbers } from './bigquery-json-text.js';
import { registerEditDistance } from './edit-distance.js';
import { registerFarmFingerprint } from './farm-fingerprint.js';
import { registerJsonEdits } from './json-edits.js';
import { registerJsonKeys } from './json-keys.js';
import { registerRegexpExtractAll } from './regexp-extract-all.js';
import { registerUnicodeText } from './unicode-text.js';

/** An open embedded DuckDB database file with querygate's session rules applied. */
export interface Database {
  readonly path: string;
  readonly instance: DuckDBInstance;
  /**
   * Where the write-ahead log went when DuckDB could not replay it at open: it was set aside
   * there and the file opened without it; the writer then restores the acknowledged records from
   * its ingest journal (see ingest-journal.ts). Undefined after an ordinary open.
   */
  readonly walSetAside: string | undefined;
  /** A new connection; each one runs queries independently of the others. */
  connect(): Promise<DuckDBConnection>;
  close(): void;
}

/** How much of the host DuckDB may take. */
export interface DatabaseOptions {
  /**
   * DuckDB's `memory_limit`, e.g. `128MB` or `1GB`: its buffer pool (cached blocks of the file,
   * data not yet checkpointed, intermediate results) stays within it; operators that support it
   * spill to `<file>.tmp`, others fail with an out-of-memory error rather than grow.
   * @default DuckDB's own (80% of the host's memory)
   */
  readonly memoryLimit?: string;
  /** DuckDB's worker threads. @default DuckDB's own (one per core) */
  readonly threads?: number;
  /**
   * Test-only fault injection: DuckDB's own `debug_checkpoint_abort = 'before_header'`, under
   * which every checkpoint fails with the fatal error that invalidates the database, as a
   * checkpoint that runs out of memory does. Tests of recovery set it. @default off
   */
  readonly failCheckpoints?: boolean;
  /**
   * The file must be there: it is not made, nor its directory. For a reopening, which must open
   * the store it had (a data directory moved away or a volume not mounted would otherwise get a
   * new empty store in its place, and the records stored after it would be lost when the right
   * one comes back). @default false
   */
  readonly existing?: boolean;
}

/**
 * Opens (creating if needed) a DuckDB file. Extensions are never installed or autoloaded (this
 * machine, and many users', has no internet; icu and json are linked into the binary), and the
 * global time zone is UTC so TIMESTAMPTZ conversions and date_trunc mean what BigQuery means.
 *
 * The store always opens: when DuckDB fails while replaying the write-ahead log (a DuckDB bug
 * with some DDL, see changeColumnTypeStatements), the WAL is renamed to
 * `<file>.wal.unreplayable-<ms>` (kept for inspection, never deleted) and the file opens as of its
 * last checkpoint. Any other failure to open (a lock held by another process, say) is thrown.
 */
export async function openDatabase(path: string, options: DatabaseOptions = {}): Promise<Database> {
  if (options.existing) {
    if (!existsSync(path))
      throw new Error(`the store file ${path} is not there; it is not made anew while the server runs`);
  } else if (path !== ':memory:') makeDataDirectory(dirname(path));
  let walSetAside: string | undefined;
  let instance: DuckDBInstance;
  try {
    instance = await createInstance(path, options);
  } catch (error) {
    const wal = `${path}.wal`;
    if (path === ':memory:' || !isWalReplayFailure(error) || !existsSync(wal)) throw error;
    walSetAside = `${wal}.unreplayable-${Date.now()}`;
    renameSync(wal, walSetAside);
    instance = await createInstance(path, options);
  }
  const setup = await instance.connect();
  await setup.run(`SET GLOBAL TimeZone = 'UTC'`);
  // For the instance, so every connection has it: the writer's, the readers', a caller's.
  registerFarmFingerprint(setup);
  registerUnicodeText(setup);
  registerRegexpExtractAll(setup);
  registerEditDistance(setup);
  registerBigQueryJsonText(setup);
  registerJsonExactNumbers(setup);
  registerJsonEdits(setup);
  registerJsonKeys(setup);
  setup.closeSync();
  return {
    path,
    instance,
    walSetAside,
    connect: () => instance.connect(),
    close: () => instance.closeSync(),
  };
}

/**
 * The block size of a new store (one that exists keeps the size it was made with). Appending to
 * a table whose last row group was checkpointed loads the last segment of every column, validity
 * included, into a whole block of memory until the next checkpoint: with DuckDB's default 256 KiB
 * that is 250 MB for one record in a source of 500 typed fields, and 25 MB for the demo's nine
 * sources every time they receive records. 16 KiB blocks hold the same for 15 MB and 1.6 MB.
 */
const newStoreBlockSize = 16 * 1024;

/**
 * DuckDB allocates with its own jemalloc, which returns freed pages to the system only as an
 * arena is next used, or on a bulk free past `allocator_bulk_deallocation_flush_threshold`: after
 * two runaway queries were interrupted, the freed 100-230 MiB stayed resident until some later
 * query, for as long as the server stayed quiet (and the server's instance is locked, so no SET
 * can lower the threshold then). jemalloc's background threads purge freed pages after its decay
 * time (1 s) whether or not anything runs: RSS is back at idle 1-2.5 s after the runaways end.
 */
function createInstance(path: string, options: DatabaseOptions): Promise<DuckDBInstance> {
  return DuckDBInstance.create(path, {
    autoinstall_known_extensions: 'false',
    autoload_known_extensions: 'false',
    default_block_size: String(newStoreBlockSize),
    allocator_background_threads: 'true',
    // The log writer checkpoints as a table's last row group fills (log-writer.ts checkpointDue),
    // some 22 MB of WAL for edge records; DuckDB's own at 16 MB came in between, out of step, and
    // checkpoints half a row group apart cost ingestion a third more. This one stays for other writes.
    checkpoint_threshold: '64MB',
    ...(options.memoryLimit === undefined ? {} : { memory_limit: options.memoryLimit }),
    ...(options.threads === undefined ? {} : { threads: String(options.threads) }),
    ...(options.failCheckpoints ? { debug_checkpoint_abort: 'before_header' } : {}),
  });
}

/**
 * Whether DuckDB said the database is invalidated: a FATAL error (a checkpoint that failed half
 * way, say) after which every statement of every connection fails with "FATAL Error: Failed:
 * database has been invalidated" until the instance is closed and the file opened again. Looks
 * through the causes our errors wrap DuckDB's in. Only DuckDB's own words at the start of a
 * message count: a caller's SQL puts its own text into the middle of one (`CAST('database has
 * been invalidated' AS INT64)`, its ERROR()), and one such call must not close the store.
 */
export function isFatalStoreError(error: unknown): boolean {
  for (let seen = error, depth = 0; seen instanceof Error && depth < 8; depth++) {
    if (
      /^(?:FATAL Error|[A-Za-z ]+ Error: (?:Failed: database|Database "[^"]*") has been invalidated)/.test(
        seen.message,
      )
    )
      return true;
    const wrapped = seen as Error & { originalError?: unknown };
    seen = wrapped.cause ?? wrapped.originalError;
  }
  return false;
}

function isWalReplayFailure(error: unknown): boolean {
  return error instanceof Error && /replaying WAL/i.test(error.message);
}
