import { z } from 'zod';
import { quoteIdent } from '../sql/table-schema.js';

/**
 * A table source's columns, declared as BigQuery declares them: the JSON of
 * `bq show --schema --format=prettyjson` (name, type, mode, fields, precision, scale) is a valid
 * `columns:` list as it is. Each column is stored on DuckDB as a real typed column whose values
 * mean what BigQuery's do; a type DuckDB cannot hold exactly is refused at load, never
 * approximated.
 */
export interface TableColumn {
  readonly name: string;
  /** BigQuery's type name, canonical: INT64 for INTEGER, STRUCT for RECORD, and so on. */
  readonly type: BigQueryColumnType;
  readonly mode: 'NULLABLE' | 'REQUIRED' | 'REPEATED';
  /** STRUCT only: its fields, in order. */
  readonly fields?: readonly TableColumn[] | undefined;
  /** NUMERIC and BIGNUMERIC only, when declared. */
  readonly precision?: number | undefined;
  readonly scale?: number | undefined;
  readonly description?: string | undefined;
}

export type BigQueryColumnType =
  | 'STRING'
  | 'BYTES'
  | 'INT64'
  | 'FLOAT64'
  | 'NUMERIC'
  | 'BIGNUMERIC'
  | 'BOOL'
  | 'TIMESTAMP'
  | 'DATE'
  | 'DATETIME'
  | 'TIME'
  | 'JSON'
  | 'STRUCT';

/** BigQuery's legacy and standard spellings of each type. */
const typeNames: Readonly<Record<string, BigQueryColumnType>> = {
  STRING: 'STRING',
  BYTES: 'BYTES',
  INT64: 'INT64',
  INTEGER: 'INT64',
  FLOAT64: 'FLOAT64',
  FLOAT: 'FLOAT64',
  NUMERIC: 'NUMERIC',
  DECIMAL: 'NUMERIC',
  BIGNUMERIC: 'BIGNUMERIC',
  BIGDECIMAL: 'BIGNUMERIC',
  BOOL: 'BOOL',
  BOOLEAN: 'BOOL',
  TIMESTAMP: 'TIMESTAMP',
  DATE: 'DATE',
  DATETIME: 'DATETIME',
  TIME: 'TIME',
  JSON: 'JSON',
  STRUCT: 'STRUCT',
  RECORD: 'STRUCT',
};

/**
 * BigQuery's scalar types as DuckDB stores them. TIMESTAMP is DuckDB's TIMESTAMP (UTC
 * microseconds, the session zone being UTC); DATETIME is TIMESTAMPTZ, the form the translator
 * gives every BigQuery DATETIME (see sql/rules/time.ts), so stored and computed civil times
 * compare and print alike, and it holds BigQuery's whole range (0001 to 9999; TIMESTAMP_NS, stored
 * before, ends in 2262, short of the `9999-12-31 23:59:59` that closes a slowly changing row). NUMERIC is DECIMAL(38, 9): BigQuery's NUMERIC is exactly that.
 */
const duckdbScalars: Readonly<Record<Exclude<BigQueryColumnType, 'STRUCT'>, string>> = {
  STRING: 'VARCHAR',
  BYTES: 'BLOB',
  INT64: 'BIGINT',
  FLOAT64: 'DOUBLE',
  NUMERIC: 'DECIMAL(38, 9)',
  BIGNUMERIC: 'DECIMAL(38, 9)',
  BOOL: 'BOOLEAN',
  TIMESTAMP: 'TIMESTAMP',
  DATE: 'DATE',
  DATETIME: 'TIMESTAMPTZ',
  TIME: 'TIME',
  JSON: 'JSON',
};

/** DuckDB's DECIMAL holds at most 38 digits. */
const maxDecimalDigits = 38;

// bq writes precision and scale as strings; YAML users write numbers.
const digits = z.union([z.number().int().min(0), z.string().regex(/^\d+$/).transform(Number)]);

interface RawColumn {
  name: string;
  type: string;
  mode?: string | undefined;
  fields?: RawColumn[] | undefined;
  precision?: number | undefined;
  scale?: number | undefined;
  description?: string | undefined;
}

const rawColumnSchema: z.ZodType<RawColumn> = z.lazy(() =>
  z.looseObject({
    name: z
      .string()
      .regex(/^[A-Za-z_][A-Za-z0-9_]{0,299}$/, 'column names are letters, digits and underscores'),
    type: z.string().min(1),
    mode: z.string().optional(),
    fields: z.array(rawColumnSchema).optional(),
    precision: digits.optional(),
    scale: digits.optional(),
    description: z.string().optional(),
  }),
);

/** A `columns:` list (or `bq show --schema` JSON) checked and made canonical; see TableColumn. */
export const tableColumnsSchema: z.ZodType<readonly TableColumn[], unknown> = z
  .array(rawColumnSchema)
  .min(1, 'a table has at least one column')
  .transform((columns, context) => canonicalColumns(columns, [], context));

function canonicalColumns(
  columns: readonly RawColumn[],
  path: (string | number)[],
  context: z.RefinementCtx,
): TableColumn[] {
  const seen = new Set<string>();
  return columns.map((raw, i) => {
    const at = [...path, i];
    const issue = (message: string, key: string) =>
      context.addIssue({ code: 'custom', message, path: [...at, key] });
    // BigQuery compares column names without regard to case.
    const lower = raw.name.toLowerCase();
    if (seen.has(lower)) issue(`${raw.name} is declared twice`, 'name');
    seen.add(lower);
    const type = typeNames[raw.type.toUpperCase()];
    if (!type) {
      issue(
        `${raw.type} is not a BigQuery column type querygate stores (STRING, BYTES, INT64, FLOAT64, NUMERIC, BIGNUMERIC, BOOL, TIMESTAMP, DATE, DATETIME, TIME, JSON, STRUCT/RECORD)`,
        'type',
      );
    }
    const mode = (raw.mode ?? 'NULLABLE').toUpperCase();
    if (mode !== 'NULLABLE' && mode !== 'REQUIRED' && mode !== 'REPEATED')
      issue(`${raw.mode} is not a mode: NULLABLE, REQUIRED or REPEATED`, 'mode');
    if (type === 'STRUCT' && !raw.fields?.length) issue(`${raw.name} is a STRUCT without fields`, 'fields');
    if (type !== 'STRUCT' && raw.fields) issue(`${raw.name} is a ${type}, which has no fields`, 'fields');
    if (type === 'BIGNUMERIC' && (raw.precision === undefined || raw.precision > maxDecimalDigits)) {
      issue(
        `${raw.name}: BIGNUMERIC holds up to 76 digits and DuckDB's DECIMAL 38, so it is stored only with a declared precision of at most 38 (e.g. precision: 38, scale: 9)`,
        'precision',
      );
    }
    if ((type === 'NUMERIC' || type === 'BIGNUMERIC') && raw.precision !== undefined) {
      if (raw.precision < 1 || raw.precision > maxDecimalDigits)
        issue('precision must be 1 to 38', 'precision');
      if ((raw.scale ?? 0) > raw.precision) issue('scale must not exceed precision', 'scale');
    }
    return {
      name: raw.name,
      type: type ?? 'STRING',
      mode: mode as TableColumn['mode'],
      ...(raw.fields ? { fields: canonicalColumns(raw.fields, [...at, 'fields'], context) } : {}),
      ...(raw.precision !== undefined ? { precision: raw.precision } : {}),
      ...(raw.scale !== undefined ? { scale: raw.scale } : {}),
      ...(raw.description !== undefined ? { description: raw.description } : {}),
    };
  });
}

/** The DuckDB type of a column's values, mode included: `STRUCT("key" VARCHAR, ...)[]`. */
export function duckdbColumnType(column: TableColumn): string {
  const element = duckdbElementType(column);
  return column.mode === 'REPEATED' ? `${element}[]` : element;
}

function duckdbElementType(column: TableColumn): string {
  if (column.type === 'STRUCT') {
    const fields = (column.fields ?? []).map(
      (field) => `${quoteIdent(field.name)} ${duckdbColumnType(field)}`,
    );
    return `STRUCT(${fields.join(', ')})`;
  }
  if ((column.type === 'NUMERIC' || column.type === 'BIGNUMERIC') && column.precision !== undefined)
    return `DECIMAL(${column.precision}, ${column.scale ?? 0})`;
  return duckdbScalars[column.type];
}

/** BigQuery's spelling of a column's type, as a dry run's schema gives it (`RECORD` for STRUCT). */
export function wireTypeName(column: TableColumn): string {
  if (column.type === 'STRUCT') return 'RECORD';
  if (column.type === 'INT64') return 'INTEGER';
  if (column.type === 'FLOAT64') return 'FLOAT';
  if (column.type === 'BOOL') return 'BOOLEAN';
  return column.type;
}
