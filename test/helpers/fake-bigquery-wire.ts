import {
  DuckDBBlobValue,
  DuckDBDateValue,
  DuckDBDecimalValue,
  DuckDBListType,
  DuckDBListValue,
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

/**
 * DuckDB results written the way BigQuery's REST API writes query results: a `schema` of fields
 * (legacy type names, `mode`, nested `fields` for RECORD) and rows of `{f: [{v}]}` where every
 * scalar is a string. Objects are REPEATED RECORDs, as in Logflare's tables: a STRUCT holding an
 * object is a repeated record of one element, a NULL one an empty repeated record.
 *
 * Written independently of src/engines/duckdb-rows.ts and src/engines/bigquery-rows.ts, so the
 * differential test compares two separate decodings of the same DuckDB values.
 */

export interface FakeField {
  name: string;
  type: string;
  mode: 'NULLABLE' | 'REPEATED';
  fields?: FakeField[];
}

/**
 * How a STRUCT is written: `repeated` (Logflare's log tables, where every object is a repeated
 * record) or `objects` (a warehouse table's own STRUCT column: a NULLABLE RECORD, an object or
 * null, as BigQuery writes any STRUCT that is not in an array).
 */
export type StructWire = 'repeated' | 'objects';

export interface FakeCell {
  v: unknown;
}

export interface FakeRow {
  f: FakeCell[];
}

/** How TIMESTAMP cells are written: integer microseconds (`useInt64Timestamp`) or float seconds. */
export type TimestampFormat = 'int64' | 'float';

export function encodeSchema(reader: DuckDBResultReader, structs: StructWire = 'repeated'): FakeField[] {
  const names = reader.columnNames();
  const types = reader.columnTypes();
  return names.map((name, i) => fieldOf(name, types[i] as DuckDBType, structs));
}

/**
 * The field the translation adds as the last of a STRUCT value that is not a stored object: one
 * the query built (STRUCT(...), SELECT AS STRUCT) or an element taken whole
 * (src/sql/built-structs.ts). BigQuery writes such a STRUCT as a NULLABLE RECORD of its other fields.
 */
const builtMark = '$object';

function isBuilt(type: DuckDBStructType): boolean {
  return type.entryNames[type.entryNames.length - 1] === builtMark;
}

function fieldOf(name: string, type: DuckDBType, structs: StructWire): FakeField {
  if (type instanceof DuckDBStructType) {
    const fields: FakeField[] = [];
    type.entryNames.forEach((entry, i) => {
      if (entry !== builtMark) fields.push(fieldOf(entry, type.entryTypes[i] as DuckDBType, structs));
    });
    return {
      name,
      type: 'RECORD',
      mode: structs === 'objects' || isBuilt(type) ? 'NULLABLE' : 'REPEATED',
      fields,
    };
  }
  if (type instanceof DuckDBListType) {
    const element = fieldOf(name, type.valueType, structs);
    return { ...element, mode: 'REPEATED' };
  }
  return { name, type: scalarType(type), mode: 'NULLABLE' };
}

function scalarType(type: DuckDBType): string {
  switch (type.typeId) {
    case DuckDBTypeId.TIMESTAMP:
      return 'TIMESTAMP';
    // The translator's DATETIME and a stored DATETIME column (TIMESTAMPTZ, src/sql/rules/time.ts);
    // TIMESTAMP_NS, a stored DATETIME before querygate's migration at open.
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
      return 'INTEGER';
    case DuckDBTypeId.FLOAT:
    case DuckDBTypeId.DOUBLE:
      return 'FLOAT';
    case DuckDBTypeId.DECIMAL:
      return 'NUMERIC';
    case DuckDBTypeId.BOOLEAN:
      return 'BOOLEAN';
    case DuckDBTypeId.DATE:
      return 'DATE';
    case DuckDBTypeId.TIME:
      return 'TIME';
    case DuckDBTypeId.BLOB:
      return 'BYTES';
    case DuckDBTypeId.VARCHAR:
      // DuckDB's JSON is a VARCHAR with an alias.
      return type.alias === 'JSON' ? 'JSON' : 'STRING';
    default:
      throw new Error(`The fake BigQuery has no wire form for DuckDB ${type.toString()}`);
  }
}

export function encodeRows(
  reader: DuckDBResultReader,
  timestamps: TimestampFormat,
  structs: StructWire = 'repeated',
): FakeRow[] {
  const types = reader.columnTypes();
  const rows: FakeRow[] = [];
  for (let row = 0; row < reader.currentRowCount; row++) {
    const cells: FakeCell[] = [];
    for (let column = 0; column < types.length; column++) {
      cells.push({
        v: encodeValue(reader.value(column, row), types[column] as DuckDBType, timestamps, structs),
      });
    }
    rows.push({ f: cells });
  }
  return rows;
}

function encodeValue(
  value: DuckDBValue,
  type: DuckDBType,
  timestamps: TimestampFormat,
  structs: StructWire,
): unknown {
  if (type instanceof DuckDBStructType) {
    if (structs === 'objects' || isBuilt(type))
      return value === null ? null : encodeRecord(value as DuckDBStructValue, type, timestamps, structs);
    // An object is a repeated record of one; no object, none.
    if (value === null) return [];
    return [{ v: encodeRecord(value as DuckDBStructValue, type, timestamps, structs) }];
  }
  if (type instanceof DuckDBListType) {
    if (value === null) return [];
    return (value as DuckDBListValue).items.map((item) => ({
      v:
        type.valueType instanceof DuckDBStructType
          ? item === null
            ? null
            : encodeRecord(item as DuckDBStructValue, type.valueType, timestamps, structs)
          : encodeValue(item, type.valueType, timestamps, structs),
    }));
  }
  if (value === null) return null;
  if (value instanceof DuckDBTimestampValue) {
    return timestamps === 'int64' ? String(value.micros) : floatSeconds(value.micros);
  }
  if (value instanceof DuckDBTimestampTZValue) return civilTime(value.micros);
  if (value instanceof DuckDBTimestampNanosecondsValue) return civilTime(value.nanos / 1000n);
  // BigQuery writes a NUMERIC's digits without trailing zeros.
  if (value instanceof DuckDBDecimalValue)
    return value
      .toString()
      .replace(/(\.\d*?)0+$/, '$1')
      .replace(/\.$/, '');
  if (value instanceof DuckDBBlobValue) return Buffer.from(value.bytes).toString('base64');
  if (value instanceof DuckDBDateValue) return value.toString();
  if (value instanceof DuckDBListValue || value instanceof DuckDBStructValue) {
    throw new Error('nested value without a nested type');
  }
  return String(value);
}

function encodeRecord(
  value: DuckDBStructValue,
  type: DuckDBStructType,
  timestamps: TimestampFormat,
  structs: StructWire,
): FakeRow {
  const cells: FakeCell[] = [];
  type.entryNames.forEach((name, i) => {
    if (name !== builtMark)
      cells.push({
        v: encodeValue(value.entries[name] ?? null, type.entryTypes[i] as DuckDBType, timestamps, structs),
      });
  });
  return { f: cells };
}

/**
 * Seconds since the epoch in the E notation BigQuery uses when it is not asked for integer
 * microseconds: `1.700000000123456E9`, `1.7E9`, `-1.5E-1`. Built from the digits, exactly.
 */
export function floatSeconds(micros: bigint): string {
  if (micros === 0n) return '0.0';
  const negative = micros < 0n;
  const digits = (negative ? -micros : micros).toString();
  const exponent = digits.length - 1 - 6;
  const mantissa = `${digits[0]}.${digits.slice(1).replace(/0+$/, '') || '0'}`;
  return `${negative ? '-' : ''}${mantissa}E${exponent}`;
}

/** DATETIME as BigQuery writes it: `YYYY-MM-DDTHH:MM:SS`, `.ffffff` when there is a fraction. */
function civilTime(micros: bigint): string {
  const millis = micros / 1000n - (micros % 1000n < 0n ? 1n : 0n);
  const base = new Date(Number(millis)).toISOString().slice(0, 19);
  const fraction = ((micros % 1_000_000n) + 1_000_000n) % 1_000_000n;
  return fraction === 0n ? base : `${base}.${fraction.toString().padStart(6, '0')}`;
}
