import { quoteIdent, type StructType } from '../endpoints/field-type.js';
import type { extraColumn } from '../endpoints/log-record.js';
import type { LogSource } from '../endpoints/sources.js';
import type { LogEvent } from './log-event.js';
import { logTableColumns } from './log-tables.js';

/**
 * A batch of records travels to DuckDB as a JSON file read by `read_json` with every column's
 * type spelled out. Measured on 1000-event batches of nested edge-log events (2 cores, file
 * database, commit included) it loads 31-37k records/s; the Node appender managed 2.6-2.8k row by
 * row and 11-24k by data chunk (converting nested STRUCT values to DuckDB values dominates), and
 * `from_json` over one bound string 17-19k.
 */

export interface StoredRecord {
  readonly event: LogEvent;
  /** `metadata` fitted to the table's type (see reconcileMetadata). */
  readonly metadata: Readonly<Record<string, unknown>> | null;
  readonly extra: Readonly<Record<string, unknown>>;
}

/**
 * The batch as one JSON array of records, the bytes DuckDB reads (insertFromJsonStatement) and
 * the ingest journal keeps (ingest-journal.ts), so a record is serialised once. The timestamp
 * goes as its microseconds in decimal text, exact where a JSON number would not be (beyond
 * 2^53); DuckDB reads the text into the file's BIGINT column. The array is stringified in one
 * call over records of one shape: measured 1.5-2x faster than stringifying each record's values
 * and joining the text, which this replaced (it runs for every record ingested).
 */
export function batchJson(records: readonly StoredRecord[], source: LogSource): Buffer {
  // A source without `project` gets it undefined, which JSON.stringify leaves out.
  const rows = records.map(
    ({ event, metadata, extra }): JsonRow => ({
      id: event.id,
      timestamp: String(event.timestamp),
      event_message: event.eventMessage,
      project: source.hasProject ? event.project : undefined,
      metadata,
      _extra: hasFields(extra) ? extra : null,
    }),
  );
  return Buffer.from(withoutLoneSurrogates(JSON.stringify(rows)));
}

/**
 * Arrays written by batchJson as the pieces of one array: the bytes between their brackets
 * (views, not copies), with commas between. The journal writes a group commit's line from them
 * in one copy (ingest-journal.ts).
 */
export function joinedArrayParts(arrays: readonly Uint8Array[]): Uint8Array[] {
  if (arrays.length === 1) return [arrays[0] as Uint8Array];
  const parts: Uint8Array[] = [openBracket];
  for (const array of arrays) {
    // An empty array, "[]", adds nothing.
    if (array.length <= 2) continue;
    if (parts.length > 1) parts.push(comma);
    parts.push(array.subarray(1, array.length - 1));
  }
  parts.push(closeBracket);
  return parts;
}

const openBracket = Buffer.from('[');
const comma = Buffer.from(',');
const closeBracket = Buffer.from(']');

/**
 * A record as batchJson writes it. `_extra` is spelled as a literal (one object shape per source);
 * the type holds it to extraColumn.
 */
type JsonRow = {
  readonly id: string;
  readonly timestamp: string;
  readonly event_message: string;
  readonly project?: string | null | undefined;
  readonly metadata: Readonly<Record<string, unknown>> | null;
} & { readonly [column in typeof extraColumn]: Readonly<Record<string, unknown>> | null };

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

/** DuckDB's default, raised for a larger batch (it refuses longer objects). */
const defaultMaximumObjectSize = 16 * 1024 * 1024;

/**
 * `INSERT ... SELECT ... FROM read_json(file)` into the source's table, columns typed as the
 * table's, for a file of `fileBytes` holding batchJson arrays joined into one.
 */
export function insertFromJsonStatement(
  source: LogSource,
  metadata: StructType,
  file: string,
  fileBytes: number,
): string {
  const columns = logTableColumns(source, metadata).map(([name]) => name);
  const fileTypes = logTableColumns(source, metadata).map(([name, type]) => {
    // The file holds the timestamp as microseconds; make_timestamp turns them into a TIMESTAMP.
    return `${sqlString(name)}: ${sqlString(name === 'timestamp' ? 'BIGINT' : type)}`;
  });
  const selected = columns.map((name) =>
    name === 'timestamp' ? `make_timestamp(${quoteIdent(name)})` : quoteIdent(name),
  );
  return (
    `INSERT INTO ${quoteIdent(source.name)} (${columns.map(quoteIdent).join(', ')}) ` +
    `SELECT ${selected.join(', ')} FROM ${readJsonBatch(file, fileBytes, `{${fileTypes.join(', ')}}`)}`
  );
}

/**
 * DuckDB's reader of a batch file of `fileBytes` holding a JSON array of records, for the given
 * `columns`. One file per commit: `read_json` over several was 15-60 times slower for a wide
 * `metadata` (log-writer.ts insertBatch).
 */
export function readJsonBatch(file: string, fileBytes: number, columns: string): string {
  // No record is longer than its file.
  const maximumObjectSize = Math.max(defaultMaximumObjectSize, fileBytes + 1);
  return `read_json(${sqlString(file)}, format = 'array', columns = ${columns}, maximum_object_size = ${maximumObjectSize})`;
}

/** `text` as an SQL string literal. */
export function sqlString(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}
