import {
  duckdbType,
  type FieldType,
  isListType,
  isStructType,
  quoteIdent,
  type StructType,
} from '../endpoints/field-type.js';

/**
 * Schema changes as DuckDB applies them: what an evolved `metadata` type adds to the stored one,
 * and the one DDL statement the store uses to get there (see schema-evolution.ts for how the
 * type evolves, schema-pacing.ts for when a change is made).
 */

/** A field that an evolved type has and the stored one lacks. */
export interface FieldAddition {
  /** Field names from the column down to the new field; `element` steps into a list's elements. */
  readonly path: readonly string[];
  readonly type: FieldType;
}

/** The fields `after` has and `before` lacks, each at the shallowest level it is missing. */
export function fieldAdditions(before: StructType, after: StructType): FieldAddition[] {
  const additions: FieldAddition[] = [];
  collectAdditions(before, after, [], additions);
  return additions;
}

function collectAdditions(before: FieldType, after: FieldType, path: string[], out: FieldAddition[]): void {
  if (isStructType(before) && isStructType(after)) {
    for (const [name, type] of Object.entries(after.struct)) {
      if (Object.hasOwn(before.struct, name))
        collectAdditions(before.struct[name] as FieldType, type, [...path, name], out);
      else out.push({ path: [...path, name], type });
    }
  } else if (isListType(before) && isListType(after)) {
    collectAdditions(before.list, after.list, [...path, 'element'], out);
  }
}

/**
 * `ALTER TABLE "t" ALTER "metadata" TYPE STRUCT(...)`: the whole column to an evolved type, the
 * one form of schema change the writer uses. DuckDB casts STRUCT to STRUCT by field name (inside
 * lists too), so a superset keeps every value; the ALTER rewrites the column (measured ~0.25-0.5 s
 * per million rows, plus the same again at the next checkpoint), which the field cap bounds to a
 * few hundred times per source over its life.
 *
 * Never `ALTER TABLE "t" ADD COLUMN "metadata"."new_field" ...` (or RENAME of a nested field),
 * though it is cheaper: on @duckdb/node-api 1.5.x its write-ahead-log record cannot be replayed.
 * Replay binds the nested-field change through the AlterBinder, whose function lookup asks for a
 * default database that does not exist yet while the WAL is replayed ("Calling
 * DatabaseManager::GetDefaultDatabase with no default database set"), so after a kill -9 before
 * the next checkpoint the file never opens again (duckdb/duckdb#18259, #20543, #22044 are the
 * same failure for other DDL). ALTER ... TYPE replays cleanly; test/crash proves it.
 */
export function changeColumnTypeStatement(table: string, column: string, type: FieldType): string {
  return `ALTER TABLE ${quoteIdent(table)} ALTER ${quoteIdent(column)} TYPE ${duckdbType(type)}`;
}
