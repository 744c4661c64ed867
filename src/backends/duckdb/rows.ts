import {
  DuckDBBlobValue,
  DuckDBDecimalValue,
  DuckDBIntervalValue,
  DuckDBListType,
  DuckDBListValue,
  type DuckDBResult,
  type DuckDBResultReader,
  DuckDBStructType,
  DuckDBStructValue,
  DuckDBTimestampNanosecondsValue,
  DuckDBTimestampTZValue,
  DuckDBTimestampValue,
  type DuckDBType,
  DuckDBTypeId,
  type DuckDBValue,
} from '@duckdb/node-api';
import type {
  ColumnType,
  EngineValue,
  QueryResult,
  ResultColumn,
  ResultRow,
} from '../../engines/query-engine.js';
import { objectMark } from '../../sql/built-structs.js';
import { bigQueryJsonText } from '../../sql/json-text.js';

/**
 * DuckDB results in BigQuery's terms. The store keeps objects as STRUCTs, but logically every
 * object is a repeated record, so a STRUCT value becomes a one-element array (an absent one an
 * empty array), as BigQuery and Logflare return it; a STRUCT the query built, or an element taken
 * whole (marked, see sql/built-structs.ts), is one object, or null. TIMESTAMPTZ marks BigQuery
 * DATETIME values (see sql/rules/time.ts), a stored DATETIME column's too; so does TIMESTAMP_NS,
 * which a store's DATETIME column was before the migration at open (storage/table-migration.ts).
 */
export function decodeRows(
  reader: DuckDBResultReader,
  maxRows: number,
  wire: RecordWire = 'repeated',
): QueryResult {
  const names = reader.columnNames();
  const types = reader.columnTypes();
  const kept = resultColumns(names);
  refuseDuplicateNames(kept.map((i) => names[i] as string));
  const columns: ResultColumn[] = kept.map((i) => ({
    name: names[i] as string,
    type: columnType(types[i] as DuckDBType, wire),
  }));
  const count = Math.min(reader.currentRowCount, maxRows);
  const arrays = types.map((type) => type.typeId === DuckDBTypeId.LIST);
  const rows: ResultRow[] = [];
  for (let row = 0; row < count; row++) {
    const decoded: ResultRow = {};
    for (const column of kept) {
      const value = reader.value(column, row);
      if (arrays[column] && value instanceof DuckDBListValue && value.items.includes(null))
        throw new NullArrayElement(names[column] as string);
      decoded[names[column] as string] = decodeValue(value, types[column] as DuckDBType, wire);
    }
    rows.push(decoded);
  }
  return reader.currentRowCount > maxRows ? { columns, rows, truncated: true } : { columns, rows };
}

/**
 * BigQuery fails a query whose result holds an array with a NULL element (ARRAY_AGG without
 * IGNORE NULLS over a NULL, `[1, NULL]`), when it writes the result; inside the query such an
 * array is fine (`ARRAY_LENGTH(ARRAY_AGG(x))`). DuckDB keeps the NULL, so the result's array
 * columns are checked as they are read, with BigQuery's words. Arrays inside a record are not:
 * the log store keeps an element of a conflicting type as NULL in place (schema-evolution.ts),
 * and reading a record must not fail for it.
 */
export class NullArrayElement extends Error {
  constructor(column: string) {
    super(`Array cannot have a null element; error in writing field ${column}`);
  }
}

/**
 * A row is an object keyed by column name, so of two result columns of one name the second would
 * silently replace the first. BigQuery refuses such a result where it must name each column
 * (a destination table) with these words; a saved query is refused at load for it
 * (endpoints/snapshot.ts, shapeOf), and a caller's SQL gets them. Names compare as BigQuery's do,
 * ignoring case.
 */
export class DuplicateColumnNames extends Error {
  constructor(names: readonly string[]) {
    super(`Duplicate column names in the result are not supported. Found duplicate(s): ${names.join(', ')}`);
  }
}

function refuseDuplicateNames(names: readonly string[]): void {
  const seen = new Set<string>();
  const twice = names.filter((name) => seen.has(name.toLowerCase()) || !seen.add(name.toLowerCase()));
  if (twice.length > 0) throw new DuplicateColumnNames([...new Set(twice)]);
}

/**
 * The columns a prepared statement returns, in BigQuery's terms; a STRUCT (or a LIST of them) is
 * a repeated record with its fields. DuckDB cannot say whether a column may be null.
 */
export function describeColumns(result: DuckDBResult, wire: RecordWire = 'repeated'): ResultColumn[] {
  const types = result.columnTypes();
  const names = result.columnNames();
  return resultColumns(names).map((i) => describeColumn(names[i] as string, types[i] as DuckDBType, wire));
}

/**
 * The indexes of the columns BigQuery's result has: a built STRUCT's fields spread into columns
 * (`SELECT s.*`) bring its mark (sql/built-structs.ts) along, which is no column of BigQuery's.
 */
function resultColumns(names: readonly string[]): number[] {
  return names.flatMap((name, i) => (name === objectMark ? [] : [i]));
}

function describeColumn(name: string, type: DuckDBType, wire: RecordWire): ResultColumn {
  // An array of scalars is a column of the element's type in mode REPEATED, as BigQuery has it.
  if (type instanceof DuckDBListType && !(type.valueType instanceof DuckDBStructType)) {
    if (type.valueType instanceof DuckDBListType) return { name, type: 'JSON' };
    return { name, type: columnType(type.valueType, wire), mode: 'REPEATED' };
  }
  const record = type instanceof DuckDBListType ? type.valueType : type;
  if (record instanceof DuckDBStructType) {
    const fields = record.entryNames.flatMap((entry, i) =>
      entry === objectMark ? [] : [describeColumn(entry, record.entryTypes[i] as DuckDBType, wire)],
    );
    // On the objects wire a lone STRUCT is one object (or null), as BigQuery answers it; so is
    // a marked one (a STRUCT the query built, an element taken whole) on either wire.
    const lone = record === type && (wire === 'objects' || isMarkedObject(record));
    return { name, type: 'RECORD', ...(lone ? { mode: 'NULLABLE' as const } : {}), fields };
  }
  return { name, type: columnType(type, wire) };
}

function columnType(type: DuckDBType, wire: RecordWire): ColumnType {
  // DuckDB's JSON is VARCHAR under an alias: a table source's JSON column (Log Analytics'
  // json_payload) or JSON_QUERY's result is JSON on BigQuery, and the faces type it so.
  if (type.alias === 'JSON') return 'JSON';
  switch (type.typeId) {
    case DuckDBTypeId.TIMESTAMP:
    case DuckDBTypeId.TIMESTAMP_MS:
    case DuckDBTypeId.TIMESTAMP_S:
      return 'TIMESTAMP';
    case DuckDBTypeId.TIMESTAMP_TZ:
    case DuckDBTypeId.TIMESTAMP_NS:
      return 'DATETIME';
    case DuckDBTypeId.TINYINT:
    case DuckDBTypeId.SMALLINT:
    case DuckDBTypeId.INTEGER:
    case DuckDBTypeId.BIGINT:
    case DuckDBTypeId.HUGEINT:
    case DuckDBTypeId.UTINYINT:
    case DuckDBTypeId.USMALLINT:
    case DuckDBTypeId.UINTEGER:
    case DuckDBTypeId.UBIGINT:
      return 'INT64';
    case DuckDBTypeId.FLOAT:
    case DuckDBTypeId.DOUBLE:
      return 'FLOAT64';
    case DuckDBTypeId.DECIMAL:
      // Exact on the objects wire, as its value is (see decodeValue); a number on Logflare's.
      return wire === 'objects' ? 'NUMERIC' : 'FLOAT64';
    case DuckDBTypeId.BOOLEAN:
      return 'BOOL';
    case DuckDBTypeId.DATE:
      return 'DATE';
    case DuckDBTypeId.TIME:
      return 'TIME';
    case DuckDBTypeId.BLOB:
      return 'BYTES';
    case DuckDBTypeId.STRUCT:
    case DuckDBTypeId.LIST:
      return 'RECORD';
    default:
      return 'STRING';
  }
}

/**
 * How STRUCTs are answered: `repeated` (the log sources, Logflare's wire) makes each a repeated
 * record of one (none when NULL); `objects` (queries over table sources only, as BigQuery answers
 * a STRUCT column) makes each an object and NULL null, and NUMERIC its exact decimal text.
 */
export type RecordWire = 'repeated' | 'objects';

function decodeValue(value: DuckDBValue, type: DuckDBType, wire: RecordWire): EngineValue {
  // An absent array is an empty repeated field, as BigQuery returns it; so is an absent object
  // of a log source.
  if (value === null)
    return type.typeId === DuckDBTypeId.LIST ||
      (type instanceof DuckDBStructType && wire === 'repeated' && !isMarkedObject(type))
      ? []
      : null;
  // A JSON value is answered as BigQuery's JSON type writes it: members ordered by key, the first
  // of duplicate keys (sql/json-text.ts).
  if (typeof value === 'string') return type.alias === 'JSON' ? bigQueryJsonText(value) : value;
  if (typeof value === 'boolean' || typeof value === 'number') return value;
  if (typeof value === 'bigint') return exactInteger(value);
  // Microseconds since the epoch, Logflare's form: a number up to 2^53 µs (the year 2255), exact
  // digits past it (years to 9999), as INT64 is.
  if (value instanceof DuckDBTimestampValue) return exactInteger(value.micros);
  if (value instanceof DuckDBTimestampTZValue) return civilTime(value.micros);
  if (value instanceof DuckDBTimestampNanosecondsValue) return civilTime(value.nanos / 1000n);
  if (value instanceof DuckDBStructValue && type instanceof DuckDBStructType)
    return wire === 'objects' || isMarkedObject(type)
      ? decodeObject(value, type, wire)
      : [decodeObject(value, type, wire)];
  if (value instanceof DuckDBListValue && type instanceof DuckDBListType) {
    // An array of objects is itself the repeated record: its elements are objects, not arrays.
    const element = type.valueType;
    return value.items.map((item) =>
      item instanceof DuckDBStructValue && element instanceof DuckDBStructType
        ? decodeObject(item, element, wire)
        : decodeValue(item, element, wire),
    );
  }
  if (value instanceof DuckDBDecimalValue)
    // The number its exact decimal text reads as: dividing the unscaled integer by 10^scale rounds
    // twice (1234500000000 came out 1234499999999.9998).
    return wire === 'objects' ? decimalText(value.toString()) : Number(value.toString());
  // BYTES are base64 in BigQuery's JSON, as Logflare passes them on.
  if (value instanceof DuckDBBlobValue) return Buffer.from(value.bytes).toString('base64');
  if (value instanceof DuckDBIntervalValue) return intervalText(value);
  return String(value);
}

/** A JS number while it holds the integer exactly, else the bigint, which the faces write whole. */
function exactInteger(value: bigint): number | bigint {
  const number = Number(value);
  return Number.isSafeInteger(number) ? number : value;
}

/** A STRUCT the query built or an element taken whole: one object on every wire (see built-structs.ts). */
function isMarkedObject(type: DuckDBStructType): boolean {
  return type.entryNames.at(-1) === objectMark;
}

function decodeObject(
  value: DuckDBStructValue,
  type: DuckDBStructType,
  wire: RecordWire,
): { [key: string]: EngineValue } {
  const object: { [key: string]: EngineValue } = {};
  type.entryNames.forEach((name, i) => {
    if (name !== objectMark)
      object[name] = decodeValue(value.entries[name] ?? null, type.entryTypes[i] as DuckDBType, wire);
  });
  return object;
}

/**
 * BigQuery's canonical text of an INTERVAL, `[sign]Y-M [sign]D [sign]H:M:S[.F]` (data types),
 * its three parts kept apart as both engines keep them (INTERVAL 25 HOUR is `0-0 0 25:0:0`, not a
 * day and an hour); a fraction in milliseconds or microseconds as the docs print them
 * (`0-0 0 36:34:56.789`).
 */
function intervalText({ months, days, micros }: DuckDBIntervalValue): string {
  const yearMonth = `${months < 0 ? '-' : ''}${Math.trunc(Math.abs(months) / 12)}-${Math.abs(months) % 12}`;
  const size = micros < 0n ? -micros : micros;
  const seconds = size / 1_000_000n;
  const fraction = size % 1_000_000n;
  const digits =
    fraction === 0n
      ? ''
      : fraction % 1000n === 0n
        ? `.${String(fraction / 1000n).padStart(3, '0')}`
        : `.${String(fraction).padStart(6, '0')}`;
  const time = `${micros < 0n ? '-' : ''}${seconds / 3600n}:${(seconds / 60n) % 60n}:${seconds % 60n}${digits}`;
  return `${yearMonth} ${days} ${time}`;
}

/** BigQuery's JSON form of a DATETIME: `YYYY-MM-DDTHH:MM:SS`, with `.ffffff` only when non-zero. */
function civilTime(micros: bigint): string {
  // The whole seconds below the value (toward the past, so 1969-12-31T23:59:59.999999 keeps its
  // second), then the microseconds past them; Date reaches years 0001 to 9999.
  const fraction = ((micros % 1_000_000n) + 1_000_000n) % 1_000_000n;
  const iso = new Date(Number((micros - fraction) / 1000n)).toISOString().slice(0, 19);
  return fraction === 0n ? iso : `${iso}.${String(fraction).padStart(6, '0')}`;
}

/** A NUMERIC as BigQuery's JSON writes it: exact, without trailing zeros (`1.500000000` → `1.5`). */
function decimalText(text: string): string {
  return text.includes('.') ? text.replace(/0+$/, '').replace(/\.$/, '') : text;
}
