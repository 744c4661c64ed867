import { copyFileSync, createReadStream, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { basename, join } from 'node:path';
import { createInterface } from 'node:readline';
import { createGunzip } from 'node:zlib';
import type { Config } from '../config.js';
import type { TableWritten } from '../endpoints/table-source.js';
import { truncatedHeader } from '../http/truncated-header.js';
import { type StoreImportRequest, storeImportPath } from '../rest/store-import-route.js';
import { type StoreQueryRequest, storeQueryPath } from '../rest/store-query-route.js';
import { importStagingDir, readServerFile, type ServerFile } from '../server-file.js';

/**
 * Whether `error` is DuckDB refusing to open the store because another process holds its lock
 * (`IO Error: Could not set lock on file "...": Conflicting lock is held in ... (PID n)`): DuckDB
 * lets one process open a file for writing, and a running server is that process.
 */
export function isStoreLocked(error: unknown): boolean {
  return (
    error instanceof Error && /Could not set lock on file .*Conflicting lock is held in/s.test(error.message)
  );
}

/** The server holding the store of `config`, and the key the command calls it with. */
export function serverHoldingStore(config: Config, lockError: unknown): { server: ServerFile; key: string } {
  const server = readServerFile(config.dataDir);
  if (!server) {
    throw new Error(
      `${(lockError as Error).message}\nNo querygate server of ${config.dataDir} was found to go through (no server.json there): stop the process that holds the store and run the command again`,
    );
  }
  const key = config.apiKeys?.[0] ?? readFileSync(join(config.dataDir, 'api-key'), 'utf8').trim();
  return { server, key };
}

/** Says on stderr which way the command went: through the running server, not the file. */
export function sayThroughServer(command: string, server: ServerFile, how: string): void {
  process.stderr.write(
    `querygate ${command}: the store is held by the server at ${server.url} (pid ${server.pid}); ${how}\n`,
  );
}

/** `querygate query`'s request run by the server: the text of its answer, and whether it is a result. */
export async function queryThroughServer(
  target: { server: ServerFile; key: string },
  request: StoreQueryRequest,
): Promise<{ ok: boolean; text: string; truncated: boolean }> {
  const response = await fetch(new URL(storeQueryPath, target.server.url), {
    method: 'POST',
    headers: { 'x-api-key': target.key, 'content-type': 'application/json' },
    body: JSON.stringify(request),
  });
  return {
    ok: response.ok,
    text: await response.text(),
    truncated: response.headers.get(truncatedHeader) === 'true',
  };
}

/** Bytes of one request's events: well within the server's body limit (10 MiB by default). */
const batchBytes = 4 * 1024 * 1024;

/**
 * Posts an NDJSON file (gzipped when its name ends in .gz) to the server's ingest route in
 * batches, as a log shipper does; each batch is stored whole or not at all. Returns the records
 * the server says it stored.
 */
export async function ingestThroughServer(
  target: { server: ServerFile; key: string },
  source: string,
  file: string,
): Promise<number> {
  const stream = createReadStream(file);
  const lines = createInterface({ input: file.endsWith('.gz') ? stream.pipe(createGunzip()) : stream });
  let batch: string[] = [];
  let bytes = 0;
  let ingested = 0;
  const send = async () => {
    if (batch.length === 0) return;
    const url = new URL('/api/logs', target.server.url);
    url.searchParams.set('source_name', source);
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'x-api-key': target.key, 'content-type': 'application/json' },
      body: `{"batch":[${batch.join(',')}]}`,
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`the server refused a batch of ${file} (${response.status}): ${text}`);
    ingested += (JSON.parse(text) as { ingested: number }).ingested;
    batch = [];
    bytes = 0;
  };
  for await (const line of lines) {
    if (line.trim() === '') continue;
    batch.push(line);
    bytes += line.length + 1;
    if (bytes >= batchBytes) await send();
  }
  await send();
  return ingested;
}

/**
 * A table source's files loaded by the server holding the store, all in one transaction and in
 * the same mode as the command loads them itself: copied into the server's staging directory (the one place its
 * locked-down DuckDB reads), handed over by name, and removed once it has answered. Returns what
 * the server says it did.
 */
export async function importTableFilesThroughServer(
  target: { server: ServerFile; key: string },
  dataDir: string,
  request: {
    source: string;
    files: readonly string[];
    format?: StoreImportRequest['format'];
    mode?: StoreImportRequest['mode'];
  },
): Promise<TableWritten> {
  const stagingDir = importStagingDir(dataDir);
  mkdirSync(stagingDir, { recursive: true });
  // The name keeps the file's own (its extension says its format), made safe to pass by name.
  const staged = request.files.map(
    (file, index) => `${process.pid}-${index}-${basename(file).replace(/[^\w.-]/g, '_')}`,
  );
  try {
    for (const [index, file] of request.files.entries())
      copyFileSync(file, join(stagingDir, staged[index] as string));
    const body: StoreImportRequest = {
      source: request.source,
      files: staged,
      format: request.format,
      mode: request.mode,
    };
    const response = await fetch(new URL(storeImportPath, target.server.url), {
      method: 'POST',
      headers: { 'x-api-key': target.key, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`the server refused the import (${response.status}): ${text}`);
    const loaded = JSON.parse(text) as Omit<TableWritten, 'skipped'> & { skipped: number[] };
    // The server names skipped files by their index in the request: the caller's own names.
    return { ...loaded, skipped: loaded.skipped.map((index) => request.files[index] as string) };
  } finally {
    for (const name of staged) rmSync(join(stagingDir, name), { force: true });
  }
}
