import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

/**
 * `<data dir>/server.json`: where the server holding the store listens, so that `querygate
 * query` and `querygate import`, finding the DuckDB file locked, go through it instead. Written
 * once the server listens, removed as it closes (a crashed server's is found stale by its pid).
 */
export interface ServerFile {
  /** A URL a client on this machine reaches it at (a wildcard host given as the loopback). */
  readonly url: string;
  readonly pid: number;
}

const fileName = 'server.json';

/** Where the DuckDB store stages files it reads (ingest batches): the only place it may read. */
export function batchDir(dataDir: string): string {
  return join(dataDir, 'ingest-batches');
}

/**
 * Where `querygate import` puts copies of the files it hands the server holding the store (a
 * directory of the batch directory, so the locked-down DuckDB may read them).
 */
export function importStagingDir(dataDir: string): string {
  return join(batchDir(dataDir), 'imports');
}

export function writeServerFile(dataDir: string, url: string): void {
  const reachable = url.replace(/^http:\/\/(0\.0\.0\.0|\[::\])(?=:)/, (_, host: string) =>
    host === '[::]' ? '[::1]' : '127.0.0.1',
  );
  writeFileSync(join(dataDir, fileName), `${JSON.stringify({ url: reachable, pid: process.pid })}\n`, {
    mode: 0o600,
  });
}

export function removeServerFile(dataDir: string): void {
  rmSync(join(dataDir, fileName), { force: true });
}

/** The server file of `dataDir`, or undefined when there is none (or it cannot be read). */
export function readServerFile(dataDir: string): ServerFile | undefined {
  try {
    return JSON.parse(readFileSync(join(dataDir, fileName), 'utf8')) as ServerFile;
  } catch {
    return undefined;
  }
}
