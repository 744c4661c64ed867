import type { TableColumn } from '../endpoints/table-columns.js';
import type { TableSource } from '../endpoints/table-source.js';
import { QuerygateError } from '../errors.js';

/**
 * Checks one row, as BigQuery's JSON exports and its JSON load jobs write it, against a table
 * source's declared columns. Returns undefined for a good row, or the first problem as
 * `{ column, reason }` with the column's dotted path (`items[2].quantity`). Used to say which
 * line of a file DuckDB's reader refused, and to refuse a bad ingested row with a 400.
 */
export interface RowProblem {
  readonly column: string;
  readonly reason: string;
}

const int64Min = -(2n ** 63n);
const int64Max = 2n ** 63n - 1n;
/**
 * BigQuery's text of its civil types, as its exports write them and its load jobs take them: no
 * zone or offset (a DATETIME is no instant). Also checked in SQL as files are read (table-wire.ts),
 * where DuckDB's casts would take more (an offset, or a time after a DATE) and store another value.
 */
export const civilTextPatterns = {
  DATE: /^\d{4}-\d{1,2}-\d{1,2}$/,
  DATETIME: /^\d{4}-\d{1,2}-\d{1,2}(?:[T ]\d{1,2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?)?$/,
  TIME: /^\d{1,2}:\d{2}:\d{2}(?:\.\d{1,9})?$/,
} as const;
const { DATE: datePattern, DATETIME: dateTimePattern, TIME: timePattern } = civilTextPatterns;
// A TIMESTAMP in text: a civil date-time, then optionally a zone (` UTC`, `Z`, `+02:00`).
const timestampPattern =
  /^\d{4}-\d{1,2}-\d{1,2}(?:[T ]\d{1,2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?)?(?:\s*(?:Z|UTC|[+-]\d{2}(?::?\d{2})?))?$/i;
const base64Pattern = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;

/**
 * Refuses a batch posted to a wildcard family (400) at its first row without a day-table suffix,
 * as the BigQuery backend refuses it (it names the day table a row goes to): on the embedded
 * engine such a row would be stored with a NULL suffix, outside every `_TABLE_SUFFIX` filter and
 * day table, and silently missing from the answers BigQuery gives.
 */
export function refuseRowsWithoutSuffix(source: TableSource, rows: readonly unknown[]): void {
  const column = source.tableSuffix?.column;
  if (column === undefined || !source.warehouseName?.endsWith('*')) return;
  for (const [index, row] of rows.entries()) {
    const record = row as Record<string, unknown>;
    const key = Object.keys(record).find((name) => name.toLowerCase() === column.toLowerCase());
    const suffix = key === undefined ? undefined : record[key];
    if (typeof suffix !== 'string' || !/^[A-Za-z0-9_]+$/.test(suffix))
      throw new QuerygateError(
        'BAD_REQUEST',
        `Row ${index}, column ${column}: names the day table of ${source.warehouseName} (its _TABLE_SUFFIX), so it must be letters, digits or _, got ${JSON.stringify(suffix ?? null)}; nothing was stored`,
        { details: { index, column } },
      );
  }
}

/**
 * Refuses a batch posted to a table source (400) at its first bad row, naming the row and the
 * column, before anything is stored: every backend says it in the same words.
 */
export function refuseBadRows(columns: readonly TableColumn[], rows: readonly unknown[]): void {
  for (const [index, row] of rows.entries()) {
    const problem = checkTableRow(columns, row);
    if (problem)
      throw new QuerygateError(
        'BAD_REQUEST',
        `Row ${index}${problem.column ? `, column ${problem.column}` : ''}: ${problem.reason}; nothing was stored`,
        { details: { index, column: problem.column, reason: problem.reason } },
      );
  }
}

export function checkTableRow(columns: readonly TableColumn[], row: unknown): RowProblem | undefined {
  if (typeof row !== 'object' || row === null || Array.isArray(row))
    return { column: '', reason: 'a row must be a JSON object of its columns' };
  return checkFields(columns, row as Record<string, unknown>, '');
}

function checkFields(
  columns: readonly TableColumn[],
  record: Record<string, unknown>,
  prefix: string,
): RowProblem | undefined {
  const known = new Set(columns.map((column) => column.name.toLowerCase()));
  for (const key of Object.keys(record)) {
    if (!known.has(key.toLowerCase()))
      return { column: `${prefix}${key}`, reason: 'is not a declared column of the table' };
  }
  const byLower = new Map(Object.entries(record).map(([key, value]) => [key.toLowerCase(), value]));
  for (const column of columns) {
    const path = `${prefix}${column.name}`;
    const problem = checkValue(column, byLower.get(column.name.toLowerCase()), path);
    if (problem) return problem;
  }
  return undefined;
}

function checkValue(column: TableColumn, value: unknown, path: string): RowProblem | undefined {
  if (value === undefined || value === null) {
    return column.mode === 'REQUIRED'
      ? { column: path, reason: 'is REQUIRED but missing or null' }
      : undefined;
  }
  if (column.mode === 'REPEATED') {
    if (!Array.isArray(value))
      return { column: path, reason: `is REPEATED: expected an array, got ${describe(value)}` };
    const elementColumn = { ...column, mode: 'NULLABLE' as const };
    for (const [i, element] of value.entries()) {
      if (element === null)
        return { column: `${path}[${i}]`, reason: 'an array may not hold null (BigQuery refuses it)' };
      const problem = checkValue(elementColumn, element, `${path}[${i}]`);
      if (problem) return problem;
    }
    return undefined;
  }
  const reason = scalarProblem(column, value);
  if (reason) return { column: path, reason };
  if (column.type === 'STRUCT')
    return checkFields(column.fields ?? [], value as Record<string, unknown>, `${path}.`);
  return undefined;
}

function scalarProblem(column: TableColumn, value: unknown): string | undefined {
  const expected = (what: string) => `expected ${what}, got ${describe(value)}`;
  switch (column.type) {
    case 'STRING':
      return typeof value === 'string' ? undefined : expected('a string');
    case 'BYTES':
      return typeof value === 'string' && base64Pattern.test(value)
        ? undefined
        : expected('base64 text (BYTES)');
    case 'INT64': {
      const text = typeof value === 'number' ? String(value) : value;
      if (typeof text !== 'string' || !/^[+-]?\d+$/.test(text.trim()))
        return expected('an INT64 (a whole number, or its digits in a string)');
      const integer = BigInt(text.trim());
      if (typeof value === 'number' && !Number.isSafeInteger(value))
        return 'an INT64 beyond 2^53 must be sent as a string of digits, or it loses its last digits';
      return integer < int64Min || integer > int64Max ? 'is out of INT64 range' : undefined;
    }
    case 'FLOAT64':
      return typeof value === 'number' ||
        (typeof value === 'string' && (/^(?:NaN|[+-]?(?:Infinity|inf))$/i.test(value) || isNumeric(value)))
        ? undefined
        : expected('a FLOAT64');
    case 'NUMERIC':
    case 'BIGNUMERIC': {
      const text = typeof value === 'number' ? String(value) : value;
      if (typeof text !== 'string' || !isNumeric(text))
        return expected(`a ${column.type} (a decimal number)`);
      const scale = column.scale ?? (column.precision === undefined ? 9 : 0);
      const precision = column.precision ?? 38;
      const { whole, fraction } = decimalDigits(text);
      if (fraction > scale) return `has more than ${scale} digits after the point`;
      return whole > precision - scale
        ? `has more than ${precision - scale} digits before the point`
        : undefined;
    }
    case 'BOOL':
      return typeof value === 'boolean' || (typeof value === 'string' && /^(?:true|false)$/i.test(value))
        ? undefined
        : expected('true or false');
    case 'TIMESTAMP':
      return typeof value === 'string' && timestampPattern.test(value.trim())
        ? calendarProblem(value.trim())
        : expected('a TIMESTAMP as text, e.g. 2024-01-31 12:00:00.123456 UTC');
    case 'DATE':
      return typeof value === 'string' && datePattern.test(value)
        ? calendarProblem(value)
        : expected('a DATE, YYYY-MM-DD');
    case 'DATETIME':
      return typeof value === 'string' && dateTimePattern.test(value)
        ? calendarProblem(value)
        : expected('a DATETIME, YYYY-MM-DDTHH:MM:SS[.ffffff]');
    case 'TIME':
      return typeof value === 'string' && timePattern.test(value)
        ? undefined
        : expected('a TIME, HH:MM:SS[.ffffff]');
    case 'JSON':
      return undefined;
    case 'STRUCT':
      return typeof value === 'object' && !Array.isArray(value) ? undefined : expected('an object (STRUCT)');
  }
}

const civilParts = /^(\d{4})-(\d{1,2})-(\d{1,2})(?:[T ](\d{1,2}):(\d{2})(?::(\d{2}))?)?/i;

/**
 * Why a DATE, DATETIME or TIMESTAMP its pattern has matched is still no value, or undefined: a
 * day the calendar does not have, a time of day past 23:59:59, or a year outside BigQuery's
 * 0001 to 9999 (https://cloud.google.com/bigquery/docs/reference/standard-sql/data-types).
 * DuckDB's cast would refuse the first two, after the check, as a failure of the whole write.
 */
function calendarProblem(text: string): string | undefined {
  const [, year = '', month = '', day = '', hour = '0', minute = '0', second = '0'] =
    civilParts.exec(text) ?? [];
  const date = new Date(0);
  date.setUTCFullYear(Number(year), Number(month) - 1, Number(day));
  const real =
    Number(year) >= 1 &&
    date.getUTCFullYear() === Number(year) &&
    date.getUTCMonth() === Number(month) - 1 &&
    date.getUTCDate() === Number(day) &&
    Number(hour) < 24 &&
    Number(minute) < 60 &&
    Number(second) < 60;
  return real ? undefined : `"${text.slice(0, 40)}" is no day and time of day from 0001-01-01 to 9999-12-31`;
}

/**
 * How many digits a decimal number has before and after its point once any exponent is applied
 * (`1.5e3`: 4 and 0), leading and trailing zeros aside; never spelt out, so `1e999999` costs nothing.
 */
function decimalDigits(text: string): { whole: number; fraction: number } {
  const [mantissa = '', exponent = '0'] = text.trim().replace(/^[+-]/, '').split(/[eE]/);
  const [before = '', after = ''] = mantissa.split('.');
  let digits = before + after;
  let point = before.length + Number(exponent);
  const leading = digits.length - digits.replace(/^0+/, '').length;
  digits = digits.slice(leading).replace(/0+$/, '');
  point -= leading;
  if (digits === '') return { whole: 0, fraction: 0 };
  return { whole: Math.max(0, point), fraction: Math.max(0, digits.length - point) };
}

function isNumeric(text: string): boolean {
  return /^[+-]?(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?$/.test(text.trim());
}

function describe(value: unknown): string {
  if (Array.isArray(value)) return 'an array';
  if (typeof value === 'string') return `"${value.length > 40 ? `${value.slice(0, 40)}...` : value}"`;
  if (typeof value === 'object') return 'an object';
  return String(value);
}
