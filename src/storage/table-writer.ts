import type { DuckDBConnection } from '@duckdb/node-api';
import type { TableColumn } from '../endpoints/table-columns.js';
import type {
  TableFileLoad,
  TableSource,
  TableWriteOptions,
  TableWritten,
} from '../endpoints/table-source.js';
import { QuerygateError } from '../errors.js';
import { quoteIdent } from '../sql/table-schema.js';
import type { Database } from './database.js';
import { stepsInTurn } from './in-turn.js';
import { storingCost } from './storing-cost.js';
import { deleteAll, deleteDays, loadTableFiles } from './table-load.js';
import type { TableMigration } from './table-migration.js';
import { refuseBadRows, refuseRowsWithoutSuffix } from './table-row-check.js';
import { fromWire, wireType } from './table-wire.js';
import { inTransaction } from './transaction.js';
import { ensureWarehouseTables } from './warehouse-tables.js';

/** Writes rows posted over HTTP into a table source, as they are: no log envelope, no message. */
export interface TableWriter {
  /**
   * Stores every row or none; a bad row is refused (400) naming its index and column. `replace`
   * deletes the table's rows (a family's: those of the suffixes the rows hold) in the same
   * transaction.
   */
  write(sourceName: string, rows: readonly unknown[], options?: TableWriteOptions): Promise<TableWritten>;
  /** `loadTableFiles` of the files into one source, in turn with the writes (see TableSink). */
  importFiles(sourceName: string, files: readonly string[], options?: TableFileLoad): Promise<TableWritten>;
  /**
   * Brings the store's tables to these declarations (see table-migration.ts), in turn with the
   * writes, and writes by them from then on. Throws, changing nothing, when it cannot.
   */
  redeclare(sources: readonly TableSource[]): Promise<TableMigration[]>;
  close(): Promise<void>;
}

/** How often an interrupt is given again while the write under way has not ended. */
const interruptRepeatMs = 5;
/** How long closing waits for the write under way to end. */
const closeWaitMs = 2_000;

/**
 * Rows are checked against the declared types first (so the 400 names row and column), then
 * inserted in one statement: the batch is bound as one JSON text, turned into typed rows by
 * DuckDB's json_transform, and converted from BigQuery's wire forms as `querygate import` does.
 * Writes run one at a time on one connection.
 */
export async function createTableWriter(
  database: Pick<Database, 'connect'>,
  sources: readonly TableSource[],
  options: {
    /** Told the source after each write to its table (a failed one too: the mark only costs a prepare). */
    readonly onWritten?: ((sourceName: string) => void) | undefined;
  } = {},
): Promise<TableWriter> {
  const connection = await database.connect();
  let declared = sources;
  let statements = new Map(sources.map((source) => [source.name, insertStatement(source)]));
  const steps = stepsInTurn();
  let closing = false;
  const closed = () =>
    new QuerygateError(
      'NOT_READY',
      'The store closed before the rows were written; nothing was stored, try again',
      {
        details: { retryAfterSeconds: 1 },
      },
    );
  // `sourceName`: the table written, told to onWritten; none for a redeclaration, after which
  // every endpoint is planned again anyway.
  const inTurn = <T>(sourceName: string | undefined, work: () => Promise<T>): Promise<T> =>
    steps(async () => {
      if (closing) throw closed();
      try {
        return await work();
      } catch (error) {
        throw closing ? closed() : error;
      } finally {
        if (sourceName !== undefined) options.onWritten?.(sourceName);
      }
    });
  const sourceNamed = (sourceName: string) => {
    const source = declared.find((candidate) => candidate.name === sourceName);
    if (!source) throw new QuerygateError('BAD_PARAMETER', `No table source named ${sourceName}`);
    return source;
  };
  return {
    write(sourceName, rows, options = {}) {
      const source = sourceNamed(sourceName);
      refuseBadRows(source.columns, rows);
      refuseRowsWithoutSuffix(source, rows);
      options.admit?.(storingCost(rows.length, cellsPerRow(source.columns)));
      // The statement when its turn comes: a redeclaration queued before it has changed the table.
      const sql = () => statements.get(sourceName) as string;
      if (!options.replace)
        return inTurn(sourceName, async () => ({
          ...(await insert(connection, sql(), rows)),
          replaced: false,
        }));
      return inTurn(sourceName, () =>
        inTransaction(connection, () => replaceRows(connection, source, sql(), rows)),
      );
    },
    importFiles(sourceName, files, options = {}) {
      const source = sourceNamed(sourceName);
      return inTurn(sourceName, async () => {
        const load = await loadTableFiles(connection, source, files, options);
        const replaced = options.mode === 'replace' || options.mode === 'truncate';
        return { ingested: load.rows, ...load, replaced };
      });
    },
    redeclare(next) {
      return inTurn(undefined, async () => {
        const made = await ensureWarehouseTables(connection, next);
        declared = next;
        statements = new Map(next.map((source) => [source.name, insertStatement(source)]));
        return made;
      });
    },
    // A statement whose connection is closed under it never settles (@duckdb/node-api), its
    // caller waiting for ever: the write under way is interrupted (its transaction rolls back)
    // and waited for, those queued behind it refused; the connection is left open if it has not
    // ended within the wait.
    close: async () => {
      closing = true;
      connection.interrupt();
      const repeat = setInterval(() => connection.interrupt(), interruptRepeatMs);
      let waited: NodeJS.Timeout | undefined;
      const drained = await Promise.race([
        steps(async () => true),
        new Promise<boolean>((done) => {
          waited = setTimeout(() => done(false), closeWaitMs);
        }),
      ]);
      clearInterval(repeat);
      clearTimeout(waited);
      if (drained) connection.closeSync();
    },
  };
}

/** A row's cells: a column each, and each field of a STRUCT (a REPEATED one counted once). */
function cellsPerRow(columns: readonly TableColumn[]): number {
  let cells = 0;
  for (const column of columns) cells += 1 + (column.fields ? cellsPerRow(column.fields) : 0);
  return cells;
}

/** The rows in place of the table's, or of the day tables (suffixes) they hold for a family. */
async function replaceRows(
  connection: DuckDBConnection,
  source: TableSource,
  sql: string,
  rows: readonly unknown[],
): Promise<TableWritten> {
  const suffixColumn = source.tableSuffix?.column;
  const suffixes = suffixColumn ? suffixesOf(rows, suffixColumn) : undefined;
  const deleted =
    suffixColumn && suffixes
      ? await deleteDays(connection, source.name, suffixColumn, suffixes)
      : await deleteAll(connection, source.name);
  const { ingested } = await insert(connection, sql, rows);
  return { ingested, deleted, replacedSuffixes: suffixes, replaced: true };
}

/** The distinct suffix values of rows (column names are case-insensitive, as on BigQuery). */
function suffixesOf(rows: readonly unknown[], column: string): string[] {
  const suffixes = new Set<string>();
  for (const row of rows) {
    const record = row as Record<string, unknown>;
    const key = Object.keys(record).find((name) => name.toLowerCase() === column.toLowerCase());
    const value = key === undefined ? undefined : record[key];
    if (typeof value === 'string') suffixes.add(value);
  }
  return [...suffixes].sort();
}

async function insert(connection: DuckDBConnection, sql: string, rows: readonly unknown[]) {
  if (rows.length === 0) return { ingested: 0 };
  const prepared = await connection.prepare(sql);
  try {
    prepared.bindVarchar(1, JSON.stringify(rows));
    const result = await prepared.run().catch((error: unknown) => {
      // A value the row check let through that DuckDB's cast still refuses (`12345678901e-1`
      // for a NUMERIC(12, 2), an offset it reads as a zone name): the client's row, and the
      // one statement stored nothing.
      const message = error instanceof Error ? error.message : '';
      if (!message.startsWith('Conversion Error')) throw error;
      throw new QuerygateError(
        'BAD_REQUEST',
        `A value of the batch cannot be stored: ${message.split('\n', 1)[0]}; nothing was stored`,
        { cause: error },
      );
    });
    return { ingested: Number(result.rowsChanged) };
  } finally {
    prepared.destroySync();
  }
}

function insertStatement(source: TableSource): string {
  const structure = JSON.stringify([Object.fromEntries(source.columns.map((c) => [c.name, structureOf(c)]))]);
  const columns = source.columns.map(
    (column) => `${fromWire(`r.${quoteIdent(column.name)}`, column, 'text')} AS ${quoteIdent(column.name)}`,
  );
  return `INSERT INTO ${quoteIdent(source.name)} SELECT ${columns.join(', ')} FROM (SELECT unnest(json_transform(CAST($1 AS JSON), '${structure.replaceAll("'", "''")}')) AS r)`;
}

/** json_transform's description of a column's wire type: a type name, an object, or `[element]`. */
function structureOf(column: TableColumn): unknown {
  const element =
    column.type === 'STRUCT'
      ? Object.fromEntries((column.fields ?? []).map((field) => [field.name, structureOf(field)]))
      : wireType({ ...column, mode: 'NULLABLE' });
  return column.mode === 'REPEATED' ? [element] : element;
}
