import { quoteIdent, type StructType } from '../endpoints/field-type.js';
import { extraColumn } from '../endpoints/log-record.js';
import type { LogSource } from '../endpoints/sources.js';
import type { LogEvent } from './log-event.js';
import { logTableColumns } from './log-tables.js';

/**
 * A batch of records travels to DuckDB as a newline-delimited JSON file read by `read_json`
 * with every column's type spelled out. Measured on 1000-event batches of nested edge-log
 * events (2 cores, file database, commit included) it loads 31-37k records/s; the Node appender
 * managed 2.6-2.8k row by row and 11-24k by data chunk (converting nested STRUCT values to
 * DuckDB values dominates), and `from_json` over one bound string 17-19k.
 */

export interface StoredRecord {
  readonly event: LogEvent;
  /** `metadata` fitted to the table's type (see reconcileMetadata). */
  readonly metadata: Record<string, unknown> | null;
  readonly extra: Readonly<Record<string, unknown>>;
}

/**
 * One NDJSON line. The timestamp goes as its microseconds in decimal text, exact where a JSON
 * number would not be (beyond 2^53); DuckDB reads the text into the file's BIGINT column. Built
 * as text around each value's JSON (the same bytes as stringifying one object of these fields, in
 * this order) without copying the record into an object first: it runs for every record ingested.
 * The same line goes to DuckDB's batch file and to the ingest journal (ingest-journal.ts).
 */
export function recordLine(record: StoredRecord, source: LogSource): string {
  const { event, metadata, extra } = record;
  const project = source.hasProject ? `,"project":${JSON.stringify(event.project)}` : '';
  const line =
    `{"id":${JSON.stringify(event.id)},"timestamp":"${event.timestamp}",` +
    `"event_message":${JSON.stringify(event.eventMessage)}${project},` +
    `"metadata":${JSON.stringify(metadata)},${extraKey}:${hasFields(extra) ? JSON.stringify(extra) : 'null'}}`;
  return withoutLoneSurrogates(line);
}

const extraKey = JSON.stringify(extraColumn);

function hasFields(record: Readonly<Record<string, unknown>>): boolean {
  for (const key in record) if (Object.hasOwn(record, key)) return true;
  return false;
}

/**
 * JSON.stringify writes a lone UTF-16 surrogate as a `\udXXX` escape, which DuckDB's JSON reader
 * refuses ("no low surrogate in string") and UTF-8 cannot hold: it becomes U+FFFD, the character
 * any UTF-8 decoder would give. Escaped backslashes are matched first so `\\ud800` (the six
 * characters of text) is left alone; paired surrogates are written raw, never escaped.
 */
export function withoutLoneSurrogates(json: string): string {
  if (!json.includes('\\ud')) return json;
  return json.replace(/\\\\|\\ud[89a-f][0-9a-f]{2}/g, (match) => (match === '\\\\' ? match : '\\ufffd'));
}

/** DuckDB's default, raised when a batch holds a longer line (it refuses longer objects). */
const defaultMaximumObjectSize = 16 * 1024 * 1024;

/** `INSERT ... SELECT ... FROM read_json(file)` into the source's table, columns typed as the table's. */
export function insertFromNdjsonStatement(
  source: LogSource,
  metadata: StructType,
  file: string,
  longestLineBytes: number,
): string {
  const columns = logTableColumns(source, metadata).map(([name]) => name);
  const fileTypes = logTableColumns(source, metadata).map(([name, type]) => {
    // The file holds the timestamp as microseconds; make_timestamp turns them into a TIMESTAMP.
    return `${sqlString(name)}: ${sqlString(name === 'timestamp' ? 'BIGINT' : type)}`;
  });
  const selected = columns.map((name) =>
    name === 'timestamp' ? `make_timestamp(${quoteIdent(name)})` : quoteIdent(name),
  );
  const maximumObjectSize = Math.max(defaultMaximumObjectSize, longestLineBytes + 1);
  return (
    `INSERT INTO ${quoteIdent(source.name)} (${columns.map(quoteIdent).join(', ')}) ` +
    `SELECT ${selected.join(', ')} FROM read_json(${sqlString(file)}, format = 'newline_delimited', ` +
    `columns = {${fileTypes.join(', ')}}, maximum_object_size = ${maximumObjectSize})`
  );
}

function sqlString(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}
