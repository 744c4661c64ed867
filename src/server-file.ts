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
