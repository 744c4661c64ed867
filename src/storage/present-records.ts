import type { DuckDBConnection } from '@duckdb/node-api';
import { isStructType, quoteIdent, type StructType } from '../endpoints/field-type.js';
import { integerTextDigits, integerTextPattern, integerTextRegExp } from '../sql/string-to-int64.js';
import { sqlString } from './log-batch.js';
import { inTransaction } from './transaction.js';

/**
 * Which records every row of a log table has: the paths (`metadata`, `metadata.request`, ...)
 * that are an object in every stored record, never NULL. BigQuery drops a row whose record is
 * absent from `CROSS JOIN UNNEST(m.request)`, so the translation filters on `... IS NOT NULL`;
 * DuckDB reads every field of a record to test it (10M edge records: 3.3 s of CPU for Studio's
 * total-requests report with the filter, 1.1 s without). For a record every row has, the filter
 * drops nothing and is left out (sql/unnest-sql.ts).
 *
 * Known, never guessed. At open, from DuckDB's statistics of each path, which say "no NULL" only
 * when none was ever stored; then kept by the log writer, which looks at every batch before it
 * commits it. A path some record lacks leaves the set before that record is committed, and the
 * mark changes: a query translated under the old mark is translated and run again (engine.ts),
 * so none answers from a translation that assumed a record its rows lack.
 *
 * The set also names the columns `id` and `timestamp` where no row holds NULL: the record check
 * gives every event both (log-event.ts), so a batch never takes them out, and the translation
 * counts `COUNT(id)` as `COUNT(*)` without reading ten million ids (sql/function-call.ts).
 */
export interface PresentRecords {
  /** The record paths every row of `table` has, now. */
  of(table: string): ReadonlySet<string>;
  /**
   * The STRING fields under `metadata` (`metadata.request.headers.content_length`) whose every
   * stored value is NULL or integer text (at most `integerTextDigits` ASCII digits), now: text
   * BigQuery and DuckDB read as the same INT64, never out of range, so a CAST of it to INT64 needs
   * no check of BigQuery's INT64 text (sql/string-to-int64.ts; Studio's network-traffic report
   * sums two of them over every request).
   */
  integerTexts(table: string): ReadonlySet<string>;
  /** Changes whenever a path leaves a table's set. */
  mark(): number;
}

/** The writer's side: it seeds the sets at open and looks at each batch before committing it. */
export interface PresentRecordsKeeper extends PresentRecords {
  /**
   * Reads a table's sets at open, before anything is written to it: the records from DuckDB's
   * statistics, the integer-text fields from the store's own copy of them (integerTextsTable),
   * or, where it has none that counts the table's rows, from the values.
   */
  seed(connection: DuckDBConnection, table: string, metadata: StructType): Promise<void>;
  /**
   * Takes a batch's records, their `metadata` fitted to `type`, before they are committed: paths a
   * record lacks leave the set. Records a schema change adds (`type` is not `storedType`, the
   * writer's type of the table so far) are NULL in the rows stored before, so they join the set
   * only in an empty table; a STRING field it adds holds no text in them, so it joins the
   * integer-text fields if the batch's values are integer text.
   */
  beforeCommit(
    table: string,
    type: StructType,
    storedType: StructType,
    records: readonly { readonly metadata: Readonly<Record<string, unknown>> | null }[],
  ): void;
  /**
   * The statements that keep the store's copy of `table`'s integer-text fields, to run in the
   * transaction that adds `rows` rows to it (a negative number: deletes them), after beforeCommit:
   * the copy and the rows it describes are then committed together or not at all.
   */
  keptWith(table: string, rows: number): readonly string[];
}

/**
 * The store's copy of each log table's integer-text fields, and of the table's rows as the writer
 * counted them when it wrote the copy: a copy whose count is not the table's was left by something
 * that wrote rows without keeping it (a version before it, `querygate import`'s writer), and the
 * values are read instead. Reading them took 5.5 s of every opening of a store of 10M edge records
 * (five content-length fields integer text throughout, each read whole), and the reopening after a
 * store failure waited for it too; the copy is read in milliseconds. A background read was the
 * other way: answers right away, but it burns those seconds beside the first queries at every
 * opening, and each commit during it must be told apart from the rows it read. The copy costs one
 * UPDATE of a row in each commit's transaction, which already waits for its WAL's fsync.
 * `fields` is a JSON array of the paths (`["metadata.request.headers.content_length"]`).
 */
export const integerTextsTable = '_querygate_integer_texts';

export function createPresentRecords(): PresentRecordsKeeper {
  const present = new Map<string, Set<string>>();
  const integers = new Map<string, Set<string>>();
  const stored = new Map<string, boolean>();
  let mark = 0;
  const none: ReadonlySet<string> = new Set();

  const drop = (paths: Set<string>, path: string) => {
    if (paths.delete(path)) mark++;
  };

  return {
    of: (table) => present.get(table) ?? none,
    integerTexts: (table) => integers.get(table) ?? none,
    mark: () => mark,

    async seed(connection, table, metadata) {
      const paths = [...recordPaths(metadata), ...givenColumns];
      const stats = paths.map((path) => `stats(${path.split('.').map(quoteIdent).join('.')})`);
      const rows = (
        await connection.runAndReadAll(`SELECT ${stats.join(', ')} FROM ${quoteIdent(table)} LIMIT 1`)
      ).getRows();
      const row = rows[0];
      stored.set(table, row !== undefined);
      // An empty table: every record is in all of its (no) rows.
      const noNull = paths.map((_, i) => row === undefined || hasNoNull(row[i]));
      // A path is never NULL when it and every record above it never is.
      present.set(
        table,
        new Set(
          paths.filter(
            (path, i) => noNull[i] && paths.every((above, j) => noNull[j] || !path.startsWith(`${above}.`)),
          ),
        ),
      );
      integers.set(table, await seedIntegerTexts(connection, table, metadata));
      mark++;
    },

    beforeCommit(table, type, storedType, records) {
      const changesSchema = type !== storedType;
      // A field some value is not integer text in leaves the set before the record is
      // committed. A STRING field a schema change adds is NULL in every row stored before (as
      // every field in an empty table), so the batch's values alone decide whether it joins.
      const texts = integers.get(table);
      if (texts) {
        if (changesSchema) {
          const known = stored.get(table) ? new Set(fieldPaths(storedType)) : new Set<string>();
          for (const path of textPaths(type)) if (!known.has(path)) texts.add(path);
        }
        for (const path of texts) {
          const keys = path.split('.').slice(1);
          if (!records.every((record) => isIntegerTextAt(record.metadata, keys))) drop(texts, path);
        }
      }
      // A table not seeded keeps an empty set: every filter stays.
      const paths = present.get(table);
      if (!paths) return;
      if (changesSchema && !stored.get(table)) for (const path of recordPaths(type)) paths.add(path);
      for (const path of paths) {
        if (givenColumns.includes(path)) continue;
        const keys = path.split('.').slice(1);
        if (!records.every((record) => isObjectAt(record.metadata, keys))) drop(paths, path);
      }
      if (records.length > 0) stored.set(table, true);
    },

    keptWith(table, rows) {
      const texts = integers.get(table);
      if (!texts) return [];
      return [
        `UPDATE ${integerTextsTable} SET row_count = row_count + ${rows}, fields = ${sqlString(JSON.stringify([...texts].sort()))} WHERE source = ${sqlString(table)}`,
      ];
    },
  };
}

/** `integerTextPattern` for DuckDB's `regexp_full_match`, which anchors it at both ends. */
const integerTextSql = `'${integerTextPattern}'`;

/**
 * The STRING fields under `metadata` whose every stored value is integer text (or NULL), read
 * with the store's copy of them (integerTextsTable) where it counts the table's rows, from the
 * values where it does not, and the copy then written.
 */
async function seedIntegerTexts(
  connection: DuckDBConnection,
  table: string,
  metadata: StructType,
): Promise<Set<string>> {
  await connection.run(
    `CREATE TABLE IF NOT EXISTS ${integerTextsTable} (source VARCHAR NOT NULL, row_count BIGINT NOT NULL, fields VARCHAR NOT NULL)`,
  );
  // The copy, the count and the values in one snapshot: nothing else writes at open, and the copy
  // written must describe the very rows it was read from.
  return inTransaction(connection, async () => {
    const [kept] = (
      await connection.runAndReadAll(
        `SELECT row_count = (SELECT count(*) FROM ${quoteIdent(table)}), fields FROM ${integerTextsTable} WHERE source = $source`,
        { source: table },
      )
    ).getRows();
    const copy = kept?.[0] === true ? new Set(keptFields(kept[1])) : undefined;
    const integers = await readIntegerTexts(connection, table, textPaths(metadata), copy);
    if (copy === undefined) {
      await connection.run(`DELETE FROM ${integerTextsTable} WHERE source = $source`, { source: table });
      await connection.run(
        `INSERT INTO ${integerTextsTable} SELECT $source, count(*), $fields FROM ${quoteIdent(table)}`,
        { source: table, fields: JSON.stringify([...integers].sort()) },
      );
    }
    return integers;
  });
}

/** The paths of a copy's `fields` (none where it is not the JSON array of strings written). */
function keptFields(fields: unknown): string[] {
  try {
    const parsed: unknown = JSON.parse(String(fields));
    return Array.isArray(parsed) ? parsed.filter((path): path is string => typeof path === 'string') : [];
  } catch {
    return [];
  }
}

/**
 * Which of `paths` hold only integer text (or NULL) in `table`: only those DuckDB's statistics
 * leave possible (a minimum that begins with a digit, or no text at all; at most
 * `integerTextDigits` characters, none beyond ASCII); of those holding text, the ones `copy`
 * names, or without a copy each read up to its first value that is not (so an IP address costs
 * one row, a content length every row). A field the copy does not name but the statistics say
 * holds no text (one added since, NULL in every row) is one.
 */
async function readIntegerTexts(
  connection: DuckDBConnection,
  table: string,
  paths: readonly string[],
  copy: ReadonlySet<string> | undefined,
): Promise<Set<string>> {
  if (paths.length === 0) return new Set();
  const sqlPath = (path: string) => path.split('.').map(quoteIdent).join('.');
  const stats = (
    await connection.runAndReadAll(
      `SELECT ${paths.map((path) => `stats(${sqlPath(path)})`).join(', ')} FROM ${quoteIdent(table)} LIMIT 1`,
    )
  ).getRows()[0];
  // No row: no field holds any text.
  if (stats === undefined) return new Set(paths);
  const integers = new Set<string>();
  for (const [i, path] of paths.entries()) {
    if (!mayBeIntegerTexts(stats[i])) continue;
    if (onlyNull(stats[i])) {
      integers.add(path);
      continue;
    }
    if (copy !== undefined) {
      if (copy.has(path)) integers.add(path);
      continue;
    }
    const offending = await connection.runAndReadAll(
      `SELECT 1 FROM ${quoteIdent(table)} WHERE ${sqlPath(path)} IS NOT NULL AND NOT regexp_full_match(${sqlPath(path)}, ${integerTextSql}) LIMIT 1`,
    );
    if (offending.getRows().length === 0) integers.add(path);
  }
  return integers;
}

/** The paths of every field of `metadata` and its records, whatever its type. */
function fieldPaths(type: StructType, at = 'metadata'): string[] {
  return Object.entries(type.struct).flatMap(([name, field]) => [
    `${at}.${name}`,
    ...(isStructType(field) ? fieldPaths(field, `${at}.${name}`) : []),
  ]);
}

/** The paths of the STRING fields of `metadata` and its records (not of lists' elements). */
function textPaths(type: StructType, at = 'metadata'): string[] {
  return Object.entries(type.struct).flatMap(([name, field]) =>
    isStructType(field) ? textPaths(field, `${at}.${name}`) : field === 'VARCHAR' ? [`${at}.${name}`] : [],
  );
}

/**
 * Whether DuckDB's `stats()` of a VARCHAR (`[Min: 0, Max: 999, Has Unicode: false, Max String
 * Length: 4][Has Null: ...]`) leaves room for every value being integer text. The minimum is
 * DuckDB's first eight bytes of the smallest value, at the start; the flags are at the end.
 * Only a filter before the values are read: any text not recognised is left to them.
 */
function mayBeIntegerTexts(stats: unknown): boolean {
  if (typeof stats !== 'string') return true;
  const flags = /, Has Unicode: (true|false), Max String Length: (\d+)\]\[Has Null/.exec(stats);
  if (!flags) return true;
  const length = Number(flags[2]);
  return length === 0 || (flags[1] === 'false' && length <= integerTextDigits && /^\[Min: [0-9]/.test(stats));
}

/** Whether DuckDB's `stats()` say no value but NULL was ever stored (`Has No Null: false`). */
function onlyNull(stats: unknown): boolean {
  return (
    typeof stats === 'string' &&
    /\]\[Has Null: true, Has No Null: false\](\[Approx Unique: \d+\])?$/.test(stats)
  );
}

/** Whether `value` has integer text, NULL or nothing at `keys` (no record on the way is NULL too). */
function isIntegerTextAt(value: unknown, keys: readonly string[]): boolean {
  let at = value;
  for (const key of keys) {
    if (at === null || at === undefined) return true;
    if (!isObject(at)) return false;
    at = at[key];
  }
  return at === null || at === undefined || (typeof at === 'string' && integerTextRegExp.test(at));
}

/** The columns every stored event has a value in (log-event.ts gives one to an event sent without). */
const givenColumns = ['id', 'timestamp'];

/** `metadata` and the path of every record under it (STRUCT fields; lists are arrays, not records). */
function recordPaths(metadata: StructType, at = 'metadata'): string[] {
  const paths = [at];
  for (const [name, type] of Object.entries(metadata.struct))
    if (isStructType(type)) paths.push(...recordPaths(type, `${at}.${name}`));
  return paths;
}

/** Whether `value` has an object (a record, not NULL, not an array) at `keys`. */
function isObjectAt(value: unknown, keys: readonly string[]): boolean {
  let at = value;
  for (const key of keys) {
    if (!isObject(at)) return false;
    at = at[key];
  }
  return isObject(at);
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * DuckDB's `stats()` of a STRUCT ends with its own validity after its fields':
 * ` {a: [...][Has Null: true, ...], ...}[Has Null: false, Has No Null: true]`; a scalar's with its
 * validity and then its distinct count: `[Min: a, Max: b, ...][Has Null: false, Has No Null:
 * true][Approx Unique: 3]` (the values come first, so the end is DuckDB's own text). Anything
 * else (a text this does not recognise) is taken as "may be NULL".
 */
function hasNoNull(stats: unknown): boolean {
  return (
    typeof stats === 'string' &&
    /[}\]]\[Has Null: false, Has No Null: (true|false)\](\[Approx Unique: \d+\])?$/.test(stats)
  );
}
