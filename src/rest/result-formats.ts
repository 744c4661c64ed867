import negotiate from '@fastify/accept-negotiator';
import { stringify } from 'csv-stringify/sync';
import type { Endpoint } from '../endpoints/registry.js';
import type { ShapeColumn, Snapshot } from '../endpoints/snapshot.js';
import type { QueryResult, ResultColumn } from '../engines/query-engine.js';
import { toJson } from '../http/respond.js';
import { largestStringBody } from '../http/send-raw.js';
import type { Encoding } from '../resolve/encodings.js';

/** A body as sent, with its byte length, worked out once per result rather than per hit. */
export interface RawResponse {
  readonly body: string | Buffer;
  readonly length: number;
}

/**
 * One way of writing a result: its media type and its encoding. Each encoding is kept with the
 * cached result under its own object (see `Encodings`), so formats never share a stored body
 * while every format of one call shares one cached result, one run and one `Age`.
 */
export interface ResultFormat {
  readonly contentType: string;
  readonly response: Encoding<RawResponse>;
}

/** A body kept as text up to `largestStringBody`, as bytes beyond (see send-raw.ts). */
function rawResponse(text: string): RawResponse {
  const body = text.length <= largestStringBody ? text : Buffer.from(text);
  return { body, length: typeof body === 'string' ? Buffer.byteLength(body) : body.length };
}

function encoding(write: (result: QueryResult) => string): Encoding<RawResponse> {
  return {
    make: (result) => rawResponse(write(result)),
    sizeOf: ({ body }) => (typeof body === 'string' ? 2 * body.length : body.length),
  };
}

/** A column as BigQuery's schema JSON writes a field: name, type, mode, fields. */
function describedColumn(column: ResultColumn | ShapeColumn): Record<string, unknown> {
  return {
    name: column.name,
    type: column.type,
    ...(column.mode ? { mode: column.mode } : {}),
    ...(column.fields ? { fields: column.fields.map(describedColumn) } : {}),
  };
}

/**
 * A CSV cell: the value's text as the JSON answer has it (an INT64 beyond 2^53 with all its
 * digits, a TIMESTAMP's number), an empty cell for null; a record or an array (STRUCT, ARRAY,
 * JSON objects) is its JSON text in one cell, since CSV has no nesting.
 */
const csvCasts = {
  bigint: (value: bigint) => String(value),
  boolean: (value: boolean) => String(value),
  // String, not JSON.stringify: the same digits, and +inf, -inf, NaN as BigQuery's texts (not null).
  number: (value: number) => String(value),
  object: (value: Record<string, unknown>) => toJson(value),
};

/**
 * `.json`: Tinybird's answer (`meta`, `data`, `rows`), with `truncated` saying the rows were cut
 * at the endpoint's `maxRows`. The meta are `shape`'s columns where given (the endpoint's locked
 * shape, as OpenAPI and GraphQL type it), else the result's own.
 */
function jsonFormat(shape: readonly ShapeColumn[] | undefined): ResultFormat {
  return {
    contentType: 'application/json; charset=utf-8',
    response: encoding((result) =>
      toJson({
        meta: (shape ?? result.columns).map(describedColumn),
        data: result.rows,
        rows: result.rows.length,
        truncated: result.truncated === true,
      }),
    ),
  };
}

export const resultFormats = {
  /** `{"result": rows}`: Logflare's answer, the default of every call path. */
  result: {
    contentType: 'application/json; charset=utf-8',
    response: encoding((result) => toJson({ result: result.rows })),
  },
  /** `.json` of a result alone, its columns as the engine reports them (see `jsonFormatOf`). */
  json: jsonFormat(undefined),
  /** RFC 4180: a header row of the column names, CRLF line ends, cells quoted where needed. */
  csv: {
    contentType: 'text/csv; charset=utf-8; header=present',
    response: encoding((result) =>
      stringify(result.rows as Record<string, unknown>[], {
        header: true,
        columns: result.columns.map((column) => column.name),
        record_delimiter: 'windows',
        // A lone \n or \r in a value is quoted too, as RFC 4180 asks of line breaks.
        quote_record_delimiter: true,
        cast: csvCasts,
      }),
    ),
  },
  /** One JSON object per line, each row as the JSON answer writes it. */
  ndjson: {
    contentType: 'application/x-ndjson; charset=utf-8',
    response: encoding((result) => {
      let text = '';
      for (const row of result.rows) text += `${toJson(row)}\n`;
      return text;
    }),
  },
} as const satisfies Record<string, ResultFormat>;

export type ResultFormatName = keyof typeof resultFormats;

/**
 * The format named, for a call of `endpoint` served by `snapshot`: `.json` of an endpoint as
 * saved carries its shape, kept per snapshot so each has one encoding (one stored body per
 * result); a call with its caller's SQL has the result's own columns.
 */
export function resultFormatOf(snapshot: Snapshot, endpoint: Endpoint, name: ResultFormatName): ResultFormat {
  if (name !== 'json' || snapshot.find(endpoint.name) !== endpoint) return resultFormats[name];
  const kept = snapshot.derived(shapedJsonFormats);
  let format = kept.get(endpoint.name);
  if (format === undefined) {
    format = jsonFormat(snapshot.shapes.get(endpoint.name));
    kept.set(endpoint.name, format);
  }
  return format;
}

const shapedJsonFormats = (_snapshot: Snapshot) => new Map<string, ResultFormat>();

/** The path suffixes that choose a format, as Tinybird's endpoints take them. */
const suffixFormats: Readonly<Record<string, ResultFormatName>> = {
  '.json': 'json',
  '.csv': 'csv',
  '.ndjson': 'ndjson',
};

/**
 * An endpoint reference with a format suffix split off (`daily.stats.csv` → `daily.stats`, csv),
 * or undefined when it ends in none. Names are dotted, so the caller tries the whole reference as
 * a name first: an endpoint named `x.csv` keeps its name.
 */
export function splitFormatSuffix(
  ref: string,
): { readonly ref: string; readonly format: ResultFormatName } | undefined {
  const dot = ref.lastIndexOf('.');
  const format = dot > 0 ? suffixFormats[ref.slice(dot)] : undefined;
  return format === undefined ? undefined : { ref: ref.slice(0, dot), format };
}

// What Accept may ask for on a path without a suffix; JSON first, so `*/*` is JSON.
const acceptedTypes = ['application/json', 'text/csv', 'application/x-ndjson', 'application/ndjson'];
const formatOfType: Readonly<Record<string, ResultFormatName>> = {
  'application/json': 'result',
  'text/csv': 'csv',
  'application/x-ndjson': 'ndjson',
  'application/ndjson': 'ndjson',
};

/**
 * The format an `Accept` header asks for on a path without a suffix: CSV or NDJSON where it
 * prefers them, else Logflare's `{"result": ...}` (also for an Accept that names none of ours,
 * as before there were formats: Logflare's clients send various). Most calls name neither, and
 * are answered without parsing the header.
 */
export function formatOfAccept(accept: string | undefined): ResultFormatName {
  if (accept === undefined || (!accept.includes('csv') && !accept.includes('ndjson'))) return 'result';
  const chosen = negotiate(accept, acceptedTypes);
  return chosen === null ? 'result' : (formatOfType[chosen] ?? 'result');
}
