import type { ColumnType, EngineValue, ResultColumn, ResultRow } from '../../engines/query-engine.js';

/**
 * BigQuery's REST results in engine-neutral values, read from the wire format itself (`schema`
 * plus rows of `{f: [{v}]}`, every scalar a string) rather than the client library's parsed rows,
 * which turn TIMESTAMP into objects and refuse INT64 beyond 2^53. The values mean what the DuckDB
 * engine's do (see duckdb-rows.ts), so both engines give byte-identical REST bodies.
 */

/** A field of a BigQuery schema as the REST API sends it. */
export interface WireField {
  readonly name: string;
  readonly type: string;
  readonly mode?: string | null | undefined;
  readonly fields?: readonly WireField[] | null | undefined;
}

export interface WireSchema {
  readonly fields?: readonly WireField[] | null | undefined;
}

/** One cell: `v` is a string, null, a nested row (`{f}`) or a list of cells. */
export interface WireCell {
  readonly v?: unknown;
}

export interface WireRow {
  readonly f?: readonly WireCell[] | null | undefined;
}

export function decodeColumns(schema: WireSchema | undefined, wire: RecordWire = 'repeated'): ResultColumn[] {
  return (schema?.fields ?? []).map((field) => ({ name: field.name, type: columnType(field, wire) }));
}

/** The columns of a dry run's schema, with the fields of records and BigQuery's nullability. */
export function describeWireSchema(
  schema: WireSchema | undefined,
  wire: RecordWire = 'repeated',
): ResultColumn[] {
  return (schema?.fields ?? []).map((field) => describeField(field, wire));
}

function describeField(field: WireField, wire: RecordWire): ResultColumn {
  const record = ['RECORD', 'STRUCT'].includes(field.type.toUpperCase());
  // An array of scalars is a column of the element's type in mode REPEATED.
  if (!record && field.mode === 'REPEATED')
    return {
      name: field.name,
      type: columnType({ ...field, mode: null }, wire),
      mode: 'REPEATED',
      nullable: false,
    };
  return {
    name: field.name,
    // An array of scalars is a RECORD without fields, as the DuckDB engine describes a LIST.
    type: record || field.mode === 'REPEATED' ? 'RECORD' : columnType({ ...field, mode: null }, wire),
    // A lone RECORD is one object (or null), as BigQuery answers it (see decodeCell).
    ...(record && field.mode !== 'REPEATED' ? { mode: 'NULLABLE' as const } : {}),
    ...(record ? { fields: (field.fields ?? []).map((inner) => describeField(inner, wire)) } : {}),
    nullable: field.mode !== 'REQUIRED',
  };
}

/**
 * How a lone RECORD is answered: `repeated` (queries over log sources, Logflare's wire) makes it
 * a repeated record of one, none when NULL; `objects` (queries over the team's own tables) keeps
 * it an object, NULL null, as BigQuery itself answers, and NUMERIC its exact decimal text.
 */
export type RecordWire = 'repeated' | 'objects';

export function decodeWireRows(
  schema: WireSchema | undefined,
  rows: readonly WireRow[],
  wire: RecordWire = 'repeated',
): ResultRow[] {
  const fields = schema?.fields ?? [];
  return rows.map((row) => decodeRecord(fields, row, wire));
}

function columnType(field: WireField, wire: RecordWire): ColumnType {
  if (field.mode === 'REPEATED') return 'RECORD';
  switch (field.type.toUpperCase()) {
    case 'TIMESTAMP':
      return 'TIMESTAMP';
    case 'DATETIME':
      return 'DATETIME';
    case 'INTEGER':
    case 'INT64':
      return 'INT64';
    case 'FLOAT':
    case 'FLOAT64':
      return 'FLOAT64';
    case 'NUMERIC':
    case 'BIGNUMERIC':
      // Exact on the objects wire, as decodeElement keeps it; a number on Logflare's.
      return wire === 'objects' ? 'NUMERIC' : 'FLOAT64';
    case 'BOOLEAN':
    case 'BOOL':
      return 'BOOL';
    case 'RECORD':
    case 'STRUCT':
      return 'RECORD';
    case 'JSON':
      return 'JSON';
    case 'DATE':
      return 'DATE';
    case 'TIME':
      return 'TIME';
    case 'BYTES':
      return 'BYTES';
    default:
      return 'STRING';
  }
}

function decodeRecord(
  fields: readonly WireField[],
  row: WireRow | null | undefined,
  wire: RecordWire,
): ResultRow {
  const cells = row?.f ?? [];
  const record: ResultRow = {};
  fields.forEach((field, i) => {
    record[field.name] = decodeCell(field, cells[i]?.v, wire);
  });
  return record;
}

function decodeCell(field: WireField, value: unknown, wire: RecordWire): EngineValue {
  if (field.mode === 'REPEATED') {
    // An empty repeated field may come as [] or, from some paths, as null.
    if (!Array.isArray(value)) return [];
    return value.map((cell: WireCell) => decodeElement(field, cell?.v, wire));
  }
  // A lone RECORD is one STRUCT value, an object (null when NULL), as BigQuery and Logflare's
  // endpoints answer it: a log table holds every object as a REPEATED RECORD (Logflare's
  // layout), so a lone one is a value the query built or an element taken whole.
  return decodeElement(field, value, wire);
}

function isRecord(field: WireField): boolean {
  const type = field.type.toUpperCase();
  return type === 'RECORD' || type === 'STRUCT';
}

function decodeElement(field: WireField, value: unknown, wire: RecordWire): EngineValue {
  if (value === null || value === undefined) return null;
  if (isRecord(field)) return decodeRecord(field.fields ?? [], value as WireRow, wire);
  if (typeof value !== 'string') throw new Error(`BigQuery sent a ${typeof value} for ${field.name}`);
  switch (field.type.toUpperCase()) {
    case 'TIMESTAMP':
      return timestampMicros(value);
    case 'DATETIME':
      return civilDateTime(value);
    case 'INTEGER':
    case 'INT64':
      return integer(value);
    case 'NUMERIC':
    case 'BIGNUMERIC':
      // BigQuery's REST API itself sends NUMERIC and BIGNUMERIC as strings, so no digit is lost
      // to a double; queries over table sources pass that text on as it came.
      return wire === 'objects' ? value : Number(value);
    case 'FLOAT':
    case 'FLOAT64':
      return Number(value);
    case 'BOOLEAN':
    case 'BOOL':
      return value.toLowerCase() === 'true';
    default:
      return value;
  }
}

function integer(text: string): number | bigint {
  const number = Number(text);
  return Number.isSafeInteger(number) ? number : BigInt(text);
}

/**
 * Integer microseconds of a TIMESTAMP cell. With `formatOptions.useInt64Timestamp` (the client
 * library asks for it) the cell already holds them; otherwise it holds seconds as a decimal
 * float, often in E notation (`1.700000000123456E9`). That text is read digit by digit, not
 * through a double, which would lose the last microseconds of present-day times. A number while
 * it holds them exactly (to 2^53, the year 2255), a bigint past it, as the DuckDB engine answers.
 */
export function timestampMicros(text: string): number | bigint {
  if (/^-?\d+$/.test(text)) return integer(text);
  const match = /^(-?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/.exec(text);
  if (!match) throw new Error(`Not a BigQuery TIMESTAMP value: ${text}`);
  const [, sign, whole = '', fraction = '', exponent = '0'] = match;
  // Shift the decimal point by the exponent plus six places (seconds → microseconds).
  const digits = `${whole}${fraction}`;
  const point = whole.length + Number(exponent) + 6;
  const padded = point >= digits.length ? digits.padEnd(point, '0') : digits;
  const integral = point <= 0 ? '0' : padded.slice(0, point);
  const rest = point <= 0 ? digits : padded.slice(point);
  let micros = BigInt(integral === '' ? '0' : integral);
  // BigQuery keeps microseconds; a longer fraction would only come from float noise: round it.
  if (rest !== '' && Number(rest[0]) >= 5) micros += 1n;
  return integer(String(sign === '-' ? -micros : micros));
}

/** BigQuery's DATETIME as `YYYY-MM-DDTHH:MM:SS`, with `.ffffff` only when the fraction is not zero. */
export function civilDateTime(text: string): string {
  const match = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?$/.exec(text);
  if (!match) return text;
  const [, date, time, fraction = ''] = match;
  const micros = fraction.padEnd(6, '0').slice(0, 6);
  return /^0+$/.test(micros) ? `${date}T${time}` : `${date}T${time}.${micros}`;
}
