import { type DuckDBConnection, type DuckDBType, DuckDBTypeId } from '@duckdb/node-api';
import { duckdbColumnType, type TableColumn } from '../endpoints/table-columns.js';
import type { TableSource } from '../endpoints/table-source.js';
import { QuerygateError } from '../errors.js';
import { quoteIdent } from '../sql/table-schema.js';

/**
 * Schema changes of a table source as BigQuery makes them on a table that has rows
 * (`ALLOW_FIELD_ADDITION`, `ALLOW_FIELD_RELAXATION`, `ALTER COLUMN ... SET DATA TYPE`):
 * - a column or a nested field is added at the end of its table or RECORD, NULLABLE or REPEATED
 *   (a REQUIRED field only inside a RECORD that is itself new);
 * - a type is widened: INT64 to NUMERIC, BIGNUMERIC or FLOAT64; NUMERIC or BIGNUMERIC to FLOAT64
 *   or to a decimal with as many integer digits and as many fraction digits or more;
 * - a DATETIME stored as TIMESTAMP_NS (as querygate stored it before; it ends in 2262) becomes
 *   the TIMESTAMPTZ it is stored as now (table-columns.ts), every value kept: no change of
 *   BigQuery's type, only of how the store holds it;
 * - REQUIRED is relaxed to NULLABLE: the store holds no mode (the declaration is checked on
 *   every row written), so nothing in the store changes.
 * Anything else (a column dropped, renamed, moved, narrowed, made REPEATED or not) is refused,
 * one line per column with its declared and stored type, before anything is changed.
 */
export interface TableMigration {
  readonly table: string;
  /** What changes, one line each (`event_params.value.int_value: INT64 to NUMERIC`). */
  readonly changes: readonly string[];
  /** The DuckDB statements making them, in order. */
  readonly statements: readonly string[];
}

interface Difference {
  readonly path: string;
  readonly declared: string;
  readonly stored: string;
  readonly why: string;
}

interface StoredColumn {
  readonly name: string;
  readonly type: DuckDBType;
}

/**
 * Brings the store's table of each source (which must exist) to its declaration: makes the changes above in one transaction, so a crash leaves every table as it was or as
 * declared, never between. Throws (nothing changed) naming every difference it cannot make and
 * the command that resolves it. Returns the migrations made.
 */
export async function migrateWarehouseTables(
  connection: DuckDBConnection,
  sources: readonly TableSource[],
): Promise<TableMigration[]> {
  const planned: TableMigration[] = [];
  const refused: string[] = [];
  for (const source of sources) {
    const stored = await storedColumns(connection, source.name);
    const declared = await declaredTypes(connection, source.columns);
    const differences: Difference[] = [];
    const changes: string[] = [];
    compareFields(source.columns, declared, stored, '', differences, changes, true);
    if (differences.length > 0) refused.push(refusal(source.name, differences));
    else if (changes.length > 0) planned.push(migrationOf(source, declared, stored, changes));
  }
  if (refused.length > 0) throw new QuerygateError('BAD_PARAMETER', refused.join('\n'));
  if (planned.length === 0) return [];
  await connection.run('BEGIN TRANSACTION');
  try {
    for (const statement of planned.flatMap((migration) => migration.statements))
      await connection.run(statement);
    await connection.run('COMMIT');
  } catch (error) {
    await connection.run('ROLLBACK');
    throw new Error(
      `Migrating ${planned.map((m) => m.table).join(', ')} failed, nothing changed: ${(error as Error).message}`,
      { cause: error },
    );
  }
  return planned;
}

/** The table's columns as DuckDB holds them. */
async function storedColumns(connection: DuckDBConnection, table: string): Promise<StoredColumn[]> {
  const result = await connection.run(`SELECT * FROM ${quoteIdent(table)} LIMIT 0`);
  return result.columnNames().map((name, i) => ({ name, type: result.columnType(i) }));
}

/** The declared columns' DuckDB types, as DuckDB itself spells and nests them. */
async function declaredTypes(
  connection: DuckDBConnection,
  columns: readonly TableColumn[],
): Promise<StoredColumn[]> {
  const probe = await connection.run(
    `SELECT ${columns.map((column) => `CAST(NULL AS ${duckdbColumnType(column)}) AS ${quoteIdent(column.name)}`).join(', ')} LIMIT 0`,
  );
  return probe.columnNames().map((name, i) => ({ name, type: probe.columnType(i) }));
}

/**
 * The fields of one level (the table's columns, or a RECORD's fields) compared by name: each
 * stored one still declared, in its place; new ones after them. `top`: the table's own columns.
 */
function compareFields(
  declared: readonly TableColumn[],
  declaredTypes: readonly StoredColumn[],
  stored: readonly StoredColumn[],
  prefix: string,
  differences: Difference[],
  changes: string[],
  top: boolean,
): void {
  const key = (name: string) => name.toLowerCase();
  const storedNames = new Map(stored.map((column, i) => [key(column.name), i]));
  const declaredNames = new Map(declared.map((column, i) => [key(column.name), i]));
  for (const column of stored) {
    if (!declaredNames.has(key(column.name)))
      differences.push({
        path: `${prefix}${column.name}`,
        declared: '(not declared)',
        stored: bigQueryTypeOf(column.type),
        why: 'a schema update never drops a column or field, nor renames one',
      });
  }
  let lastKept = -1;
  declared.forEach((column, i) => {
    const path = `${prefix}${column.name}`;
    const at = storedNames.get(key(column.name));
    const declaredType = declaredTypes[i]?.type as DuckDBType;
    if (at === undefined) {
      if (column.mode === 'REQUIRED')
        differences.push({
          path,
          declared: `${declaredTypeName(column)} REQUIRED`,
          stored: '(not stored)',
          why: 'a new column or field must be NULLABLE or REPEATED; REQUIRED only inside a new RECORD',
        });
      changes.push(`${path}: added, ${declaredTypeName(column)}`);
      return;
    }
    const storedColumn = stored[at] as StoredColumn;
    if (at < lastKept) {
      differences.push({
        path,
        declared: `${declaredTypeName(column)} at position ${i + 1}`,
        stored: `${bigQueryTypeOf(storedColumn.type)} at position ${at + 1}`,
        why: `a schema update keeps each ${top ? 'column' : 'field'} in its place and adds new ones at the end`,
      });
    }
    lastKept = Math.max(lastKept, at);
    compareColumn(column, declaredType, storedColumn.type, path, differences, changes);
  });
  // A new field declared before a stored one would be stored after it: BigQuery appends.
  declared.forEach((column, i) => {
    if (storedNames.has(key(column.name))) return;
    const later = declared.slice(i + 1).find((other) => storedNames.has(key(other.name)));
    if (later)
      differences.push({
        path: `${prefix}${column.name}`,
        declared: `${declaredTypeName(column)} before ${later.name}`,
        stored: '(not stored)',
        why: `new ${top ? 'columns' : 'fields'} go at the end, after every stored one, as BigQuery adds them`,
      });
  });
}

function compareColumn(
  column: TableColumn,
  declared: DuckDBType,
  stored: DuckDBType,
  path: string,
  differences: Difference[],
  changes: string[],
): void {
  if (declared.toString() === stored.toString()) return;
  const differ = (why: string): void => {
    differences.push({ path, declared: declaredTypeName(column), stored: bigQueryTypeOf(stored), why });
  };
  const repeated = column.mode === 'REPEATED';
  if (repeated !== (stored.typeId === DuckDBTypeId.LIST)) {
    differ('a schema update never makes a column REPEATED or takes REPEATED away');
    return;
  }
  const declaredElement = repeated && declared.typeId === DuckDBTypeId.LIST ? declared.valueType : declared;
  const storedElement = repeated && stored.typeId === DuckDBTypeId.LIST ? stored.valueType : stored;
  if (column.type === 'STRUCT') {
    if (storedElement.typeId !== DuckDBTypeId.STRUCT || declaredElement.typeId !== DuckDBTypeId.STRUCT) {
      differ('a schema update never changes a RECORD into another type, nor another type into a RECORD');
      return;
    }
    const fields = (type: typeof storedElement & { typeId: DuckDBTypeId.STRUCT }) =>
      type.entryNames.map((name, i) => ({ name, type: type.entryTypes[i] as DuckDBType }));
    compareFields(
      column.fields ?? [],
      fields(declaredElement),
      fields(storedElement),
      `${path}.`,
      differences,
      changes,
      false,
    );
    return;
  }
  if (!widens(storedElement, declaredElement)) {
    differ(
      'a schema update changes a type only by widening it: INT64 to NUMERIC, BIGNUMERIC or FLOAT64; NUMERIC or BIGNUMERIC to FLOAT64 or to more digits',
    );
    return;
  }
  changes.push(
    storedElement.typeId === DuckDBTypeId.TIMESTAMP_NS
      ? `${path}: DATETIME stored as TIMESTAMP_NS (to 2262) to TIMESTAMPTZ (to 9999)`
      : `${path}: ${bigQueryTypeOf(stored)} to ${declaredTypeName(column)}`,
  );
}

/** Whether every value of `from` is a value of `to`, as BigQuery's coercions widen. */
function widens(from: DuckDBType, to: DuckDBType): boolean {
  const integerDigits = (type: DuckDBType) =>
    type.typeId === DuckDBTypeId.DECIMAL ? type.width - type.scale : undefined;
  if (from.typeId === DuckDBTypeId.BIGINT) {
    // BIGINT's range needs 19 integer digits.
    return to.typeId === DuckDBTypeId.DOUBLE || (integerDigits(to) ?? 0) >= 19;
  }
  // A stored DATETIME of the old form: the session zone is UTC, so the cast keeps the civil time.
  // Replayed from the write-ahead log after a crash, the ALTER casts in UTC too, whatever the
  // process's TZ (seen on DuckDB 1.5: replayed under TZ=Asia/Tokyo, 2024-01-01 00:00 stayed
  // 1704067200 s); a `USING make_timestamptz(epoch_us(x))` would not replay at all (internal error).
  if (from.typeId === DuckDBTypeId.TIMESTAMP_NS) return to.typeId === DuckDBTypeId.TIMESTAMP_TZ;
  if (from.typeId === DuckDBTypeId.DECIMAL) {
    if (to.typeId === DuckDBTypeId.DOUBLE) return true;
    return (
      to.typeId === DuckDBTypeId.DECIMAL &&
      to.scale >= from.scale &&
      (integerDigits(to) ?? 0) >= (integerDigits(from) ?? 0)
    );
  }
  return false;
}

/**
 * One statement per top-level column: ADD COLUMN for a new one, ALTER ... TYPE for one whose
 * type changed inside (DuckDB casts STRUCT to STRUCT by field name, inside lists too, so added
 * fields are NULL and every value is kept). Never `ADD COLUMN "s"."field"`: its write-ahead-log
 * record cannot be replayed on DuckDB 1.5 (see changeColumnTypeStatements in schema-change.ts).
 */
function migrationOf(
  source: TableSource,
  declared: readonly StoredColumn[],
  stored: readonly StoredColumn[],
  changes: readonly string[],
): TableMigration {
  const table = quoteIdent(source.name);
  const storedTypes = new Map(stored.map((column) => [column.name.toLowerCase(), column.type.toString()]));
  const statements = source.columns.flatMap((column, i) => {
    const type = duckdbColumnType(column);
    const before = storedTypes.get(column.name.toLowerCase());
    if (before === undefined) return [`ALTER TABLE ${table} ADD COLUMN ${quoteIdent(column.name)} ${type}`];
    // Only changes compareFields allowed are left: a column whose type reads otherwise widened.
    if (before !== declared[i]?.type.toString())
      return [`ALTER TABLE ${table} ALTER ${quoteIdent(column.name)} TYPE ${type}`];
    return [];
  });
  return { table: source.name, changes, statements };
}

function refusal(table: string, differences: readonly Difference[]): string {
  return [
    `Table ${table} in the store differs from its declaration in sources.yaml in ways a schema update cannot make:`,
    ...differences.map(
      (difference) =>
        `  ${table}.${difference.path}: declared ${difference.declared}, stored ${difference.stored}: ${difference.why}`,
    ),
    `Declare those columns as the store has them, or load ${table} anew under the new declaration: querygate sources drop-table ${table} (its rows go), then querygate import --source ${table} <files>.`,
  ].join('\n');
}

/** A declared column's type in BigQuery's words: `NUMERIC(10, 2)`, `ARRAY<STRUCT<key STRING>>`. */
function declaredTypeName(column: TableColumn): string {
  const element =
    column.type === 'STRUCT'
      ? `STRUCT<${(column.fields ?? []).map((field) => `${field.name} ${declaredTypeName(field)}`).join(', ')}>`
      : column.precision !== undefined
        ? `${column.type}(${column.precision}, ${column.scale ?? 0})`
        : column.type;
  return column.mode === 'REPEATED' ? `ARRAY<${element}>` : element;
}

/** A stored DuckDB type in BigQuery's words (see table-columns.ts for the map it reverses). */
function bigQueryTypeOf(type: DuckDBType): string {
  switch (type.typeId) {
    case DuckDBTypeId.LIST:
      return `ARRAY<${bigQueryTypeOf(type.valueType)}>`;
    case DuckDBTypeId.STRUCT:
      return `STRUCT<${type.entryNames.map((name, i) => `${name} ${bigQueryTypeOf(type.entryTypes[i] as DuckDBType)}`).join(', ')}>`;
    case DuckDBTypeId.DECIMAL:
      return type.width === 38 && type.scale === 9 ? 'NUMERIC' : `NUMERIC(${type.width}, ${type.scale})`;
    default:
      return storedNames[type.toString()] ?? type.toString();
  }
}

const storedNames: Readonly<Record<string, string>> = {
  VARCHAR: 'STRING',
  BLOB: 'BYTES',
  BIGINT: 'INT64',
  DOUBLE: 'FLOAT64',
  BOOLEAN: 'BOOL',
  TIMESTAMP: 'TIMESTAMP',
  DATE: 'DATE',
  TIMESTAMP_NS: 'DATETIME',
  'TIMESTAMP WITH TIME ZONE': 'DATETIME',
  TIME: 'TIME',
  JSON: 'JSON',
};
