import { randomUUID } from 'node:crypto';
import { type ErrorCode, isQuerygateError, QuerygateError } from '../errors.js';

// A marker no client string can contain: it starts with NUL and carries a per-process secret.
const bigintMarker = `\u0000bigint-${randomUUID()}:`;
const bigintPattern = new RegExp(
  `"${JSON.stringify(bigintMarker).slice(1, -1).replaceAll('\\', '\\\\')}(-?\\d+)"`,
  'g',
);

/**
 * JSON with bigint written as its digits: INT64 values beyond 2^53 keep every digit. A FLOAT64
 * +inf, -inf or NaN, which JSON has no number for (JSON.stringify writes null, which means NULL),
 * is the text BigQuery's REST API sends for it: "Infinity", "-Infinity", "NaN".
 */
export function toJson(body: unknown): string {
  let sawBigint = false;
  const json = JSON.stringify(body, (_key, value) => {
    if (typeof value === 'number') return Number.isFinite(value) ? value : String(value);
    if (typeof value !== 'bigint') return value;
    sawBigint = true;
    return `${bigintMarker}${value}`;
  });
  return sawBigint ? json.replace(bigintPattern, '$1') : json;
}

/** The body of every error: `{"error": {code, message}}`. */
export function errorBody(error: QuerygateError): string {
  return toJson({ error: { code: error.code, message: error.message } });
}

// What Fastify's own client errors (body limits, content types, malformed bodies) are in our codes.
const codeOfStatus: Readonly<Record<number, ErrorCode>> = {
  400: 'BAD_REQUEST',
  404: 'NOT_FOUND',
  405: 'METHOD_NOT_ALLOWED',
  408: 'BAD_REQUEST',
  413: 'PAYLOAD_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
};

/**
 * Any error as the QuerygateError a client sees: ours as they are; Fastify's 4xx (a body too
 * large, a content type it cannot read) under our code for its status and its own message, which
 * names only the request; anything else masked as INTERNAL (the caller logs the original).
 */
export function toQuerygateError(error: unknown): QuerygateError {
  if (isQuerygateError(error)) return error;
  const status = (error as { statusCode?: unknown } | null)?.statusCode;
  const code = typeof status === 'number' ? codeOfStatus[status] : undefined;
  if (code && error instanceof Error) return new QuerygateError(code, error.message, { cause: error });
  return new QuerygateError('INTERNAL', 'Internal error; the server log has the details', { cause: error });
}
