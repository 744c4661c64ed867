import type { DuckDBConnection } from '@duckdb/node-api';
import type { TableColumn } from '../endpoints/table-columns.js';
import type { TableSource } from '../endpoints/table-source.js';
import { QuerygateError } from '../errors.js';
import { quoteIdent } from '../sql/table-schema.js';
import type { Database } from './database.js';
import { type ImportFormat, importTableFiles } from './table-import.js';
import type { TableMigration } from './table-migration.js';
import { refuseBadRows } from './table-row-check.js';
import { fromWire, wireType } from './table-wire.js';
import { ensureWarehouseTables } from './warehouse-tables.js';

/** Writes rows posted over HTTP into a table source, as they are: no log envelope, no message. */
export interface TableWriter {
  /** Stores every row or none; a bad row is refused (400) naming its index and column. */
  write(sourceName: string, rows: readonly unknown[]): Promise<{ ingested: number }>;
  /** `importTableFiles` of the files into one source, in turn with the writes (see TableSink). */
  importFiles(
    sourceName: string,
    files: readonly string[],
    format?: ImportFormat,
  ): Promise<{ ingested: number }>;
  /**
   * Brings the store's tables to these declarations (see table-migration.ts), in turn with the
   * writes, and writes by them from then on. Throws, changing nothing, when it cannot.
   */
  redeclare(sources: readonly TableSource[]): Promise<TableMigration[]>;
  close(): void;
}

/**
 * Rows are checked against the declared types first (so the 400 names row and column), then
 * inserted in one statement: the batch is bound as one JSON text, turned into typed rows by
 * DuckDB's json_transform, and converted from BigQuery's wire forms as `querygate import` does.
 * Writes run one at a time on one connection.
 */
export async function createTableWriter(
  database: Pick<Database, 'connect'>,
  sources: readonly TableSource[],
): Promise<TableWriter> {
  const connection = await database.connect();
  let declared = sources;
  let statements = new Map(sources.map((source) => [source.name, insertStatement(source)]));
  let queue: Promise<unknown> = Promise.resolve();
  const inTurn = <T>(work: () => Promise<T>): Promise<T> => {
    const run = queue.then(work);
    queue = run.catch(() => {});
    return run;
  };
  const sourceNamed = (sourceName: string) => {
    const source = declared.find((candidate) => candidate.name === sourceName);
    if (!source) throw new QuerygateError('BAD_PARAMETER', `No table source named ${sourceName}`);
    return source;
  };
  return {
    write(sourceName, rows) {
      const source = sourceNamed(sourceName);
      refuseBadRows(source.columns, rows);
      // The statement when its turn comes: a redeclaration queued before it has changed the table.
      return inTurn(() => insert(connection, statements.get(sourceName) as string, rows));
    },
    importFiles(sourceName, files, format) {
      const source = sourceNamed(sourceName);
      return inTurn(async () => ({
        ingested: await importTableFiles(connection, source, files, { format }),
      }));
    },
    redeclare(next) {
      return inTurn(async () => {
        const made = await ensureWarehouseTables(connection, next);
        declared = next;
        statements = new Map(next.map((source) => [source.name, insertStatement(source)]));
        return made;
      });
    },
    close: () => connection.closeSync(),
  };
}

async function insert(connection: DuckDBConnection, sql: string, rows: readonly unknown[]) {
  if (rows.length === 0) return { ingested: 0 };
  const prepared = await connection.prepare(sql);
  try {
    prepared.bindVarchar(1, JSON.stringify(rows));
    const result = await prepared.run();
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
