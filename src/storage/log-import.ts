import { createReadStream } from 'node:fs';
import { createInterface } from 'node:readline';
import type { Readable } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { isQuerygateError, QuerygateError } from '../errors.js';
import type { LogWriter } from './log-writer.js';

export interface ImportLogFileOptions {
  /** Events per write (one transaction each). @default 10000 */
  readonly batchSize?: number;
}

/**
 * Loads a `.ndjson` or `.ndjson.gz` file of log events (one event per line, blank lines skipped)
 * into a source through the writer's bulk path, streaming so the file may exceed memory.
 *
 * Not all or nothing: batches commit one by one. When line N is bad (not JSON, or an event the
 * writer refuses), every event before line N is stored and none from line N on; the error names
 * line N and how many were stored, so a fixed file can be resumed from that line.
 */
export async function importLogFile(
  writer: LogWriter,
  sourceName: string,
  filePath: string,
  options: ImportLogFileOptions = {},
): Promise<number> {
  const batchSize = options.batchSize ?? 10_000;
  // An empty write refuses an unknown source before any of the file is read.
  await writer.write(sourceName, []);
  const file = createReadStream(filePath);
  const input: Readable = filePath.endsWith('.gz') ? file.pipe(createGunzip()) : file;
  file.on('error', (error) => input.destroy(error));
  const lines = createInterface({ input, crlfDelay: Number.POSITIVE_INFINITY });
  let stored = 0;
  let batch: unknown[] = [];
  let batchLines: number[] = [];

  const flush = async () => {
    if (batch.length === 0) return;
    try {
      stored += (await writer.write(sourceName, batch)).ingested;
    } catch (error) {
      const index = isQuerygateError(error) ? error.details?.index : undefined;
      const line = typeof index === 'number' ? batchLines[index] : undefined;
      if (!isQuerygateError(error) || typeof index !== 'number' || line === undefined) throw error;
      // Store what came before the bad line so the rule "everything before line N" holds.
      if (index > 0) stored += (await writer.write(sourceName, batch.slice(0, index))).ingested;
      throw badLine(filePath, line, String(error.details?.reason ?? error.message), stored, error);
    } finally {
      batch = [];
      batchLines = [];
    }
  };

  let lineNumber = 0;
  try {
    for await (const line of lines) {
      lineNumber += 1;
      if (line.trim() === '') continue;
      let event: unknown;
      try {
        event = JSON.parse(line);
      } catch (error) {
        await flush();
        throw badLine(filePath, lineNumber, `not valid JSON (${(error as Error).message})`, stored, error);
      }
      batch.push(event);
      batchLines.push(lineNumber);
      if (batch.length >= batchSize) await flush();
    }
    await flush();
  } catch (error) {
    if (isZlibError(error)) {
      throw new QuerygateError(
        'BAD_REQUEST',
        `${filePath} is not valid gzip after line ${lineNumber}: ${error.message}`,
        {
          cause: error,
          details: { line: lineNumber, stored },
        },
      );
    }
    throw error;
  } finally {
    lines.close();
    input.destroy();
  }
  return stored;
}

function badLine(
  filePath: string,
  line: number,
  reason: string,
  stored: number,
  cause: unknown,
): QuerygateError {
  return new QuerygateError(
    'BAD_REQUEST',
    `${filePath} line ${line}: ${reason}; the ${stored} events before it are stored, none from it on`,
    { cause, details: { line, stored } },
  );
}

function isZlibError(error: unknown): error is Error & { code: string } {
  const code = error instanceof Error ? (error as Error & { code?: unknown }).code : undefined;
  return typeof code === 'string' && code.startsWith('Z_');
}
