import { QuerygateError } from '../errors.js';
import { decodedBody, headerText } from '../http/request-body.js';

/**
 * The body of a Logflare ingest request: one event object, `{"batch": [...]}`, a bare array,
 * or NDJSON (`application/x-ndjson`; Cloudflare Logpush sends it as `text/plain`), each
 * optionally compressed (`Content-Encoding`: gzip, deflate or br, see request-body.ts). Fastify has read the bytes within the body limit; only
 * the envelope is checked here, the log writer checks each event and names it by index.
 */

export interface LogEventsBody {
  readonly events: unknown[];
  /** The top-level object of a JSON body (where `source_name` may be), undefined otherwise. */
  readonly envelope: Readonly<Record<string, unknown>> | undefined;
}

export interface ReadLogEventsOptions {
  /** The most bytes after decompression (gzip bombs); the wire is limited by Fastify. */
  readonly maxBytes: number;
  /** Whether `text/plain` is NDJSON, as Cloudflare Logpush sends it. */
  readonly plainTextIsNdjson?: boolean;
  /**
   * Told the body's bytes (decompressed) before they are parsed, the step whose objects cost
   * several times the body; may throw to refuse the request (see ingest-budget.ts).
   */
  readonly admit?: (bytes: number) => void;
}

const jsonTypes = new Set(['application/json']);
const ndjsonTypes = new Set(['application/x-ndjson', 'application/ndjson', 'application/jsonl']);

/**
 * The events of one ingest request. Every failure is a QuerygateError: BAD_REQUEST for a
 * malformed or empty body, PAYLOAD_TOO_LARGE, UNSUPPORTED_MEDIA_TYPE.
 */
export async function readLogEvents(
  headers: { readonly [name: string]: string | string[] | undefined },
  raw: Buffer | undefined,
  options: ReadLogEventsOptions,
): Promise<LogEventsBody> {
  const format = bodyFormat(headerText(headers['content-type']), options.plainTextIsNdjson ?? false);
  const body = await decodedBody(headers, raw ?? Buffer.alloc(0), options.maxBytes);
  options.admit?.(body.length);
  const text = decodeUtf8(body);
  const parsed =
    format === 'ndjson' ? { events: parseNdjson(text), envelope: undefined } : parseJsonBody(text);
  if (parsed.events.length === 0) throw new QuerygateError('BAD_REQUEST', 'The request has no log events');
  return parsed;
}

function bodyFormat(contentType: string | undefined, plainTextIsNdjson: boolean): 'json' | 'ndjson' {
  const mediaType = (contentType ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
  if (jsonTypes.has(mediaType)) return 'json';
  if (ndjsonTypes.has(mediaType) || (plainTextIsNdjson && mediaType === 'text/plain')) return 'ndjson';
  throw new QuerygateError(
    'UNSUPPORTED_MEDIA_TYPE',
    `Unsupported Content-Type '${contentType ?? ''}'; send application/json or application/x-ndjson`,
  );
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function decodeUtf8(body: Buffer): string {
  try {
    return utf8.decode(body);
  } catch (error) {
    throw new QuerygateError('BAD_REQUEST', 'The request body is not valid UTF-8', { cause: error });
  }
}

function parseJsonBody(text: string): LogEventsBody {
  if (text.trim() === '') throw new QuerygateError('BAD_REQUEST', 'The request body is empty');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch (error) {
    throw new QuerygateError('BAD_REQUEST', `The request body is not valid JSON: ${messageOf(error)}`, {
      cause: error,
    });
  }
  if (Array.isArray(body)) return { events: body, envelope: undefined };
  if (typeof body !== 'object' || body === null) {
    throw new QuerygateError(
      'BAD_REQUEST',
      'The request body must be a JSON object: one event or {"batch": [...]}',
    );
  }
  const envelope = body as Record<string, unknown>;
  if (!Object.hasOwn(body, 'batch')) return { events: [body], envelope };
  const batch = envelope.batch;
  if (!Array.isArray(batch)) throw new QuerygateError('BAD_REQUEST', '"batch" must be an array of events');
  return { events: batch, envelope };
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
