import { duckdbColumnType, type TableColumn } from '../endpoints/table-columns.js';
import { raiseSql } from '../sql/raised-errors.js';
import { datetimeOf } from '../sql/rules/time.js';
import { quoteIdent } from '../sql/table-schema.js';
import { civilTextPatterns } from './table-row-check.js';

/**
 * How rows as BigQuery exports them become rows of a table source's DuckDB table, in SQL, so
 * DuckDB's own readers do the work. Text formats (NDJSON, CSV) carry TIMESTAMP as text
 * (`2024-01-31 12:00:00.123456 UTC`), BYTES as base64, NUMERIC as decimal text and INT64 as a
 * number or a string of digits; they are read with the *wire* types below and converted by
 * `fromWire`. Parquet carries real types and is only cast.
 */

export type WireFormat = 'text' | 'typed';

/**
 * The type a text reader is asked for: the stored type where DuckDB's JSON and CSV readers
 * accept BigQuery's text for it (INT64 as `"123"` or `123`), VARCHAR where a conversion follows.
 */
export function wireType(column: TableColumn): string {
  const element = wireElementType(column);
  return column.mode === 'REPEATED' ? `${element}[]` : element;
}

function wireElementType(column: TableColumn): string {
  switch (column.type) {
    case 'STRUCT':
      return `STRUCT(${(column.fields ?? []).map((field) => `${quoteIdent(field.name)} ${wireType(field)}`).join(', ')})`;
    case 'TIMESTAMP':
    case 'BYTES':
    case 'NUMERIC':
    case 'BIGNUMERIC':
    case 'DATE':
    case 'DATETIME':
    case 'TIME':
      return 'VARCHAR';
    default:
      return duckdbColumnType({ ...column, mode: 'NULLABLE' });
  }
}

/**
 * The SQL turning `expression`, a value read from the wire, into the column's stored value. A
 * REPEATED field that is absent or null is an empty array, as BigQuery holds it.
 */
export function fromWire(expression: string, column: TableColumn, format: WireFormat, depth = 0): string {
  if (column.mode === 'REPEATED') {
    const element = { ...column, mode: 'NULLABLE' as const };
    const variable = `x${depth}`;
    const converted = fromWire(variable, element, format, depth + 1);
    const list =
      converted === variable ? expression : `list_transform(${expression}, lambda ${variable}: ${converted})`;
    return `coalesce(${list}, CAST([] AS ${duckdbColumnType(column)}))`;
  }
  const stored = duckdbColumnType(column);
  switch (column.type) {
    case 'STRUCT': {
      const fields = column.fields ?? [];
      const converted = fields.map((field) =>
        fromWire(`${expression}.${quoteIdent(field.name)}`, field, format, depth),
      );
      if (
        format === 'text' &&
        converted.every((sql, i) => sql === `${expression}.${quoteIdent((fields[i] as TableColumn).name)}`)
      )
        return expression;
      const packed = fields.map((field, i) => `${quoteIdent(field.name)} := ${converted[i]}`).join(', ');
      return `CASE WHEN ${expression} IS NULL THEN NULL ELSE struct_pack(${packed}) END`;
    }
    case 'TIMESTAMP':
      // Through TIMESTAMPTZ, so a zone or offset in the text (` UTC`, `Z`, `+02:00`) is honoured;
      // the session zone is UTC, so the stored TIMESTAMP is UTC, as BigQuery's.
      return `CAST(CAST(${expression} AS TIMESTAMPTZ) AS TIMESTAMP)`;
    case 'DATETIME':
      // Read as the civil TIMESTAMP it is (BigQuery's text has no zone; Parquet's is a TIMESTAMP),
      // then made a TIMESTAMPTZ by its microseconds, without ICU's calendar (see datetimeOf).
      return datetimeOf(`CAST(${civilText(expression, column, format)} AS TIMESTAMP)`);
    case 'DATE':
    case 'TIME':
      return `CAST(${civilText(expression, column, format)} AS ${stored})`;
    case 'BYTES':
      return format === 'text' ? `from_base64(${expression})` : `CAST(${expression} AS BLOB)`;
    default:
      return format === 'text' && wireElementType(column) === stored
        ? expression
        : `CAST(${expression} AS ${stored})`;
  }
}

/**
 * A DATE, DATETIME or TIME read as text, refused unless it is BigQuery's text of the type: DuckDB's
 * casts take an offset (`2024-01-31 10:00:00+02:00`, shifted or dropped) or a DATE with a time of
 * day, and would store a value BigQuery's load job refuses. The import's row check then names the
 * line (table-import.ts); a CSV's refusal carries this message.
 */
function civilText(expression: string, column: TableColumn, format: WireFormat): string {
  if (format !== 'text') return expression;
  const type = column.type as keyof typeof civilTextPatterns;
  const refused = `'${column.name.replaceAll("'", "''")}: ' || ${expression} || ' is not BigQuery''s ${type} text'`;
  return `CASE WHEN ${expression} IS NULL OR regexp_full_match(${expression}, '${civilTextPatterns[type].source}') THEN ${expression} ELSE ${raiseSql(refused)} END`;
}

/** `SELECT <converted columns> FROM <from>`: the rows of `from` as the table stores them. */
export function selectFromWire(columns: readonly TableColumn[], from: string, format: WireFormat): string {
  const list = columns.map(
    (column) => `${fromWire(quoteIdent(column.name), column, format)} AS ${quoteIdent(column.name)}`,
  );
  return `SELECT ${list.join(', ')} FROM ${from}`;
}
