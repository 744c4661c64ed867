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
 * and the statements the store uses to get there (see schema-evolution.ts for how the
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
 * The statements, to run in one transaction, that give `table`'s `column` an evolved type: the
 * table copied with the column cast (`CREATE TABLE ... AS SELECT`), the old one dropped, the copy
 * renamed. DuckDB casts STRUCT to STRUCT by field name (inside lists too), so a superset keeps
 * every value, and the copy keeps the rows' order, so the timestamp's zone maps still skip.
 *
 * Not `ALTER TABLE "t" ALTER "metadata" TYPE ...`, which did the same cast in place: it holds the
 * rewritten column uncompressed in memory (spilling under the memory limit) until a checkpoint
 * compresses it, and queries read that copy meanwhile. On 10M edge records with one field added
 * (256 MB limit, the 2-core machine): the ALTER took 42-180 s, the checkpoint after it 134-270 s,
 * a scan of one field 1.27 s until then (0.07 s after), peak RSS 0.9-1.4 GiB; the copy takes 39 s,
 * its checkpoint 0.5 s, peak RSS 686 MiB. A store opened after sources.yaml declared new fields
 * ran the ALTER before serving, and Studio's reports ran 5-15 times slower until the next
 * checkpoint, hours later on a quiet source.
 *
 * Never `ALTER TABLE "t" ADD COLUMN "metadata"."new_field" ...` (or RENAME of a nested field):
 * it is no cheaper (38-230 s on the same store) and on @duckdb/node-api 1.5.x its write-ahead-log
 * record cannot be replayed. Replay binds the nested-field change through the AlterBinder, whose
 * function lookup asks for a default database that does not exist yet while the WAL is replayed
 * ("Calling DatabaseManager::GetDefaultDatabase with no default database set"), so after a kill -9
 * before the next checkpoint the file never opens again (duckdb/duckdb#18259, #20543, #22044 are
 * the same failure for other DDL). CREATE TABLE AS, DROP and a table's RENAME replay cleanly;
 * test/crash proves it.
 */
export function changeColumnTypeStatements(
  table: string,
  columns: readonly string[],
  column: string,
  type: FieldType,
): string[] {
  const copy = quoteIdent(rewriteTable);
  const selected = columns.map((name) =>
    name === column
      ? `CAST(${quoteIdent(name)} AS ${duckdbType(type)}) AS ${quoteIdent(name)}`
      : quoteIdent(name),
  );
  return [
    `CREATE TABLE ${copy} AS SELECT ${selected.join(', ')} FROM ${quoteIdent(table)}`,
    `DROP TABLE ${quoteIdent(table)}`,
    `ALTER TABLE ${copy} RENAME TO ${quoteIdent(table)}`,
  ];
}

/** The copy's name while a change runs; never a source's (those begin with a letter or digit). */
const rewriteTable = '_querygate_rewrite';
