import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { type DuckDBConnection, DuckDBInstance } from '@duckdb/node-api';

/** An open embedded DuckDB database file with querygate's session rules applied. */
export interface Database {
  readonly path: string;
  readonly instance: DuckDBInstance;
  /** A new connection; each one runs queries independently of the others. */
  connect(): Promise<DuckDBConnection>;
  close(): void;
}

/**
 * Opens (creating if needed) a DuckDB file. Extensions are never installed or autoloaded (this
 * machine, and many users', has no internet; icu and json are linked into the binary), and the
 * global time zone is UTC so TIMESTAMPTZ conversions and date_trunc mean what BigQuery means.
 */
export async function openDatabase(path: string): Promise<Database> {
  if (path !== ':memory:') mkdirSync(dirname(path), { recursive: true });
  const instance = await DuckDBInstance.create(path, {
    autoinstall_known_extensions: 'false',
    autoload_known_extensions: 'false',
  });
  const setup = await instance.connect();
  await setup.run(`SET GLOBAL TimeZone = 'UTC'`);
  setup.closeSync();
  return {
    path,
    instance,
    connect: () => instance.connect(),
    close: () => instance.closeSync(),
  };
}
