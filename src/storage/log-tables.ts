import { type DuckDBConnection, type DuckDBType, DuckDBTypeId } from '@duckdb/node-api';
import {
  duckdbType,
  type FieldType,
  isStructType,
  quoteIdent,
  type StructType,
} from '../endpoints/field-type.js';
import { type LogFieldType, logRecordFields } from '../endpoints/log-record.js';
import type { LogSource } from '../endpoints/sources.js';
import { changeColumnTypeStatements, fieldAdditions } from './schema-change.js';
import { withMissingFields } from './schema-evolution.js';
import { runInTransaction } from './transaction.js';

/**
 * The embedded log store: one table per source, named exactly as the source (so the saved SQL's
 * `cloudflare.logs.prod` is the table `"cloudflare.logs.prod"`). `timestamp` is a plain
 * TIMESTAMP holding UTC with microseconds, like BigQuery's TIMESTAMP; `_extra` keeps, as JSON
 * keyed by path, the values that conflicted with their column's type, so nothing sent is lost.
 */

/** The columns of a source's table, in order, with their DuckDB types. */
export function logTableColumns(
  source: LogSource,
  metadata: StructType = source.metadata,
): [string, string][] {
  const types: Record<LogFieldType, string> = {
    STRING: 'VARCHAR',
    TIMESTAMP: 'TIMESTAMP',
    RECORD: duckdbType(metadata),
    JSON: 'JSON',
  };
  return logRecordFields(source).map((field) => [field.name, types[field.type]]);
}

/**
 * A source's table as the translator sees it before the store exists: its names and its seed
 * columns. The engine reads the store's real columns instead when it loads endpoints.
 */
export function seedTableSchema(source: LogSource): {
  name: string;
  aliases: readonly string[];
  columns: Record<string, FieldType | string>;
} {
  const columns = Object.fromEntries(
    logTableColumns(source).map(([name, type]) => [name, name === 'metadata' ? source.metadata : type]),
  );
  return { name: source.name, aliases: source.aliases, columns };
}

export function createLogTableStatement(source: LogSource): string {
  const columns = logTableColumns(source).map(([name, type]) => `${quoteIdent(name)} ${type}`);
  return `CREATE TABLE IF NOT EXISTS ${quoteIdent(source.name)} (${columns.join(', ')})`;
}

/**
 * Creates the table of every source that lacks one, adds seed fields a table made by an older
 * version lacks, and returns each table's current `metadata` type as read back from DuckDB, so
 * evolution continues from what earlier runs added. Throws if a table's columns are not ours.
 */
export async function ensureLogTables(
  connection: DuckDBConnection,
  sources: readonly LogSource[],
  log?: { info?(details: object, message: string): void },
): Promise<Map<string, StructType>> {
  const types = new Map<string, StructType>();
  for (const source of sources) {
    await connection.run(createLogTableStatement(source));
    const stored = await readMetadataType(connection, source);
    const wanted = withMissingFields(stored, source.metadata);
    if (wanted !== stored) {
      // A copy of the table (schema-change.ts), some 4 s per million rows before the store serves:
      // logged, so a slow first start after an upgrade is explained. Fields are named as the SQL
      // names them, a list's records without a step of their own.
      const fields = fieldAdditions(stored, wanted).map((addition) =>
        ['metadata', ...addition.path.filter((step) => step !== 'element')].join('.'),
      );
      log?.info?.(
        { source: source.name, fields },
        'sources.yaml declares fields the stored table lacks; adding them',
      );
      const started = performance.now();
      await runInTransaction(connection, metadataTypeChange(source, wanted));
      log?.info?.(
        { source: source.name, ms: Math.round(performance.now() - started) },
        'declared fields added to the stored table',
      );
    }
    types.set(source.name, wanted);
  }
  return types;
}

/** The statements that give `source`'s table the `metadata` type `type` (see schema-change.ts). */
export function metadataTypeChange(source: LogSource, type: StructType): string[] {
  const columns = logTableColumns(source).map(([name]) => name);
  return changeColumnTypeStatements(source.name, columns, 'metadata', type);
}

async function readMetadataType(connection: DuckDBConnection, source: LogSource): Promise<StructType> {
  const result = await connection.run(`SELECT * FROM ${quoteIdent(source.name)} LIMIT 0`);
  const names = result.columnNames();
  const expected = logTableColumns(source).map(([name]) => name);
  if (names.join(',') !== expected.join(',')) {
    throw new Error(
      `Table ${quoteIdent(source.name)} has columns (${names.join(', ')}); querygate expects (${expected.join(', ')})`,
    );
  }
  const metadata = toFieldType(result.columnType(names.indexOf('metadata')), 'metadata', source);
  if (!isStructType(metadata))
    throw new Error(`Column metadata of ${quoteIdent(source.name)} is not a STRUCT`);
  return metadata;
}

/** The FieldType of a DuckDB type, for the types schema evolution creates; anything else is refused. */
export function toFieldType(type: DuckDBType, path: string, source: LogSource): FieldType {
  switch (type.typeId) {
    case DuckDBTypeId.VARCHAR:
      return 'VARCHAR';
    case DuckDBTypeId.BIGINT:
      return 'BIGINT';
    case DuckDBTypeId.DOUBLE:
      return 'DOUBLE';
    case DuckDBTypeId.BOOLEAN:
      return 'BOOLEAN';
    case DuckDBTypeId.LIST:
      return { list: toFieldType(type.valueType, `${path}[]`, source) };
    case DuckDBTypeId.STRUCT:
      return {
        struct: Object.fromEntries(
          type.entryNames.map((name, i) => [
            name,
            toFieldType(type.entryTypes[i] as DuckDBType, `${path}.${name}`, source),
          ]),
        ),
      };
    default:
      throw new Error(
        `Field ${path} of ${quoteIdent(source.name)} has type ${type.toString()}, which querygate does not write`,
      );
  }
}
