import type { IncomingMessage } from 'node:http';
import { Transform, type TransformCallback } from 'node:stream';
import { createGunzip } from 'node:zlib';
import { isQuerygateError, QuerygateError } from '../errors.js';

/**
 * The body of Logflare's `POST /api/logs?source_name=...`: one event object, `{"batch": [...]}`
 * (a bare array is taken as a batch too), or NDJSON with `Content-Type: application/x-ndjson`,
 * each optionally `Content-Encoding: gzip`. Only the envelope is checked here; the log writer
 * checks each event and names it by index.
 */

export interface ReadLogEventsOptions {
  /** The most bytes read from the wire and, separately, after decompression (gzip bombs). */
  readonly maxBytes: number;
}

const jsonTypes = new Set(['application/json']);
const ndjsonTypes = new Set(['application/x-ndjson', 'application/ndjson', 'application/jsonl']);

/**
 * Reads the events of one ingest request. Every failure is a QuerygateError: BAD_REQUEST for a
 * malformed, empty or interrupted body, PAYLOAD_TOO_LARGE, UNSUPPORTED_MEDIA_TYPE. A refused
 * body may be left partly unread; Node's server discards the rest after the response.
 */
export async function readLogEvents(req: IncomingMessage, options: ReadLogEventsOptions): Promise<unknown[]> {
  const format = bodyFormat(req.headers['content-type']);
  const gzip = isGzip(req.headers['content-encoding']);
  const declaredLength = Number(req.headers['content-length']);
  if (declaredLength > options.maxBytes) throw tooLarge(options.maxBytes);
  const body = await readBody(req, gzip, options.maxBytes);
  const text = decodeUtf8(body);
  const events = format === 'ndjson' ? parseNdjson(text) : parseJsonBody(text);
  if (events.length === 0) throw new QuerygateError('BAD_REQUEST', 'The request has no log events');
  return events;
}

function bodyFormat(contentType: string | undefined): 'json' | 'ndjson' {
  const [mediaType = '', ...parameters] = (contentType ?? '')
    .split(';')
    .map((part) => part.trim().toLowerCase());
  const charset = parameters
    .find((parameter) => parameter.startsWith('charset='))
    ?.slice('charset='.length)
    .replaceAll('"', '');
  if (charset !== undefined && charset !== 'utf-8' && charset !== 'utf8') {
    throw new QuerygateError('UNSUPPORTED_MEDIA_TYPE', `Unsupported charset '${charset}'; send UTF-8`);
  }
  if (jsonTypes.has(mediaType)) return 'json';
  if (ndjsonTypes.has(mediaType)) return 'ndjson';
  throw new QuerygateError(
    'UNSUPPORTED_MEDIA_TYPE',
    `Unsupported Content-Type '${contentType ?? ''}'; send application/json or application/x-ndjson`,
  );
}

function isGzip(contentEncoding: string | undefined): boolean {
  const encoding = (contentEncoding ?? '').trim().toLowerCase();
  if (encoding === '' || encoding === 'identity') return false;
  if (encoding === 'gzip' || encoding === 'x-gzip') return true;
  throw new QuerygateError(
    'UNSUPPORTED_MEDIA_TYPE',
    `Unsupported Content-Encoding '${contentEncoding}'; send gzip or no encoding`,
  );
}

function tooLarge(maxBytes: number): QuerygateError {
  return new QuerygateError('PAYLOAD_TOO_LARGE', `The request body is larger than ${maxBytes} bytes`, {
    details: { maxBytes },
  });
}

/** Passes bytes through and fails as soon as more than `maxBytes` went by. */
function byteLimit(maxBytes: number): Transform {
  let seen = 0;
  return new Transform({
    transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback) {
      seen += chunk.length;
      callback(seen > maxBytes ? tooLarge(maxBytes) : null, chunk);
    },
  });
}

async function readBody(req: IncomingMessage, gzip: boolean, maxBytes: number): Promise<Buffer> {
  if (req.readableEnded) throw new QuerygateError('BAD_REQUEST', 'The request body was already read');
  // The wire is limited before gunzip and the output after it: a small body may inflate a lot.
  const wireLimit = byteLimit(maxBytes);
  const gunzip = gzip ? createGunzip() : undefined;
  const stages: Transform[] = gunzip ? [wireLimit, gunzip, byteLimit(maxBytes)] : [wireLimit];
  const chunks: Buffer[] = [];
  try {
    await new Promise<void>((resolve, reject) => {
      let source: NodeJS.ReadableStream = req;
      for (const stage of stages) source = source.pipe(stage);
      // pipe() does not pass errors along, so each stream reports its own.
      for (const stage of stages) if (stage !== gunzip) stage.on('error', reject);
      gunzip?.on('error', (error) =>
        reject(new QuerygateError('BAD_REQUEST', 'The request body is not valid gzip', { cause: error })),
      );
      req.on('error', reject);
      req.on('close', () => {
        if (!req.complete) reject(new Error('the client closed the request before its end'));
      });
      const last = stages[stages.length - 1] as Transform;
      last.on('data', (chunk: Buffer) => chunks.push(chunk));
      last.on('end', resolve);
    });
  } catch (error) {
    req.unpipe();
    for (const stage of stages) stage.destroy();
    if (isQuerygateError(error)) throw error;
    throw new QuerygateError('BAD_REQUEST', 'The request body was not received in full', { cause: error });
  }
  return Buffer.concat(chunks);
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function decodeUtf8(body: Buffer): string {
  try {
    return utf8.decode(body);
  } catch (error) {
    throw new QuerygateError('BAD_REQUEST', 'The request body is not valid UTF-8', { cause: error });
  }
}

function parseJsonBody(text: string): unknown[] {
  if (text.trim() === '') throw new QuerygateError('BAD_REQUEST', 'The request body is empty');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    throw new QuerygateError('BAD_REQUEST', `The request body is not valid JSON: ${messageOf(error)}`, {
      cause: error,
    });
  }
  if (Array.isArray(body)) return body;
  if (typeof body !== 'object' || body === null) {
    throw new QuerygateError(
      'BAD_REQUEST',
      'The request body must be a JSON object: one event or {"batch": [...]}',
    );
  }
  if (!Object.hasOwn(body, 'batch')) return [body];
  const batch = (body as { batch: unknown }).batch;
  if (!Array.isArray(batch)) throw new QuerygateError('BAD_REQUEST', '"batch" must be an array of events');
  return batch;
}

function parseNdjson(text: string): unknown[] {
  const events: unknown[] = [];
  const lines = text.split('\n');
  for (const [index, line] of lines.entries()) {
    if (line.trim() === '') continue;
    try {
      events.push(JSON.parse(line));
    } catch (error) {
      throw new QuerygateError(
        'BAD_REQUEST',
        `NDJSON line ${index + 1} is not valid JSON: ${messageOf(error)}`,
        {
          cause: error,
          details: { line: index + 1 },
        },
      );
    }
  }
  return events;
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
