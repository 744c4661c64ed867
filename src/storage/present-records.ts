import type { DuckDBConnection } from '@duckdb/node-api';
import { isStructType, quoteIdent, type StructType } from '../endpoints/field-type.js';

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
  /** Changes whenever a path leaves a table's set. */
  mark(): number;
}

/** The writer's side: it seeds the sets at open and looks at each batch before committing it. */
export interface PresentRecordsKeeper extends PresentRecords {
  /** Reads a table's sets from DuckDB's statistics: at open, before anything is written to it. */
  seed(connection: DuckDBConnection, table: string, metadata: StructType): Promise<void>;
  /**
   * Takes a batch's records, their `metadata` fitted to `type`, before they are committed: paths a
   * record lacks leave the set. Fields a schema change adds (`changesSchema`) are NULL in the rows
   * stored before, so they join the set only in an empty table.
   */
  beforeCommit(
    table: string,
    type: StructType,
    changesSchema: boolean,
    records: readonly { readonly metadata: Readonly<Record<string, unknown>> | null }[],
  ): void;
}

export function createPresentRecords(): PresentRecordsKeeper {
  const present = new Map<string, Set<string>>();
  const stored = new Map<string, boolean>();
  let mark = 0;
  const none: ReadonlySet<string> = new Set();

  const drop = (paths: Set<string>, path: string) => {
    if (paths.delete(path)) mark++;
  };

  return {
    of: (table) => present.get(table) ?? none,
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
      mark++;
    },

    beforeCommit(table, type, changesSchema, records) {
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
  };
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
