import { createHash } from 'node:crypto';
import type { DuckDBConnection } from '@duckdb/node-api';
import {
  duckdbType,
  type FieldType,
  isStructType,
  quoteIdent,
  type StructType,
} from '../endpoints/field-type.js';
import { logRecordFields } from '../endpoints/log-record.js';
import type { LogSource } from '../endpoints/sources.js';
import { type StoredRecord, withoutLoneSurrogates } from './log-batch.js';

/**
 * Hourly rollups of a log source (its `rollup:` in sources.yaml): the records counted per hour and
 * per value of the declared dimensions, in a table of their own, so a report over a week of edge
 * records reads a hundred thousand rows instead of ten million. Tinybird's materialized views and
 * Cube's pre-aggregations are the model: kept by ingestion, used only where they give the answer
 * the records give (backends/duckdb/rollup-rewrite.ts decides where).
 *
 * Exact at every moment, not within a delay: a batch's counts are inserted in the transaction that
 * inserts the batch, so every snapshot DuckDB gives a query holds both or neither. Rows of one
 * hour and dimension values may repeat (one per batch); queries add them up, and a compaction
 * folds them together now and then. Retention deletes records in several transactions, so the
 * hours it is deleting are read from the records (`rawBefore`), announced before it starts (the
 * mark moves, and a query planned before is planned and run again, as for present-records.ts).
 *
 * The rollup table holds, per row: `timestamp` (the hour), the top-level dimension columns, the
 * `metadata` dimensions as a STRUCT of only those fields (a record NULL in a row is NULL here too,
 * so `IS NULL` tests on records along the way give the same answer), and the counts.
 */
export interface RollupShape {
  /** The source's table. */
  readonly table: string;
  readonly rollupTable: string;
  /** Top-level dimension columns (`project`). */
  readonly columns: readonly string[];
  /** The `metadata` leaves that are dimensions, each as its path below `metadata`. */
  readonly paths: readonly (readonly string[])[];
  /**
   * Microseconds since the epoch: records before this are read from the table, the rollup only
   * from this hour on (retention is deleting the hours before). Undefined: the rollup holds all.
   */
  readonly rawBefore: bigint | undefined;
  /**
   * The relation with the table's dimension columns and the counts, to read instead of the
   * table. With `within`, only the records whose `timestamp` passes it: `within(t)` is SQL true
   * for the instants `t` in one interval (a bound, two bounds, or all or none of them), so an hour
   * whose first and last microsecond pass has every record pass, and is read from the rollup;
   * the records of the other hours that pass are rolled up as they are read.
   */
  relation(within?: (at: string) => string): string;
  /** The table's own columns (a name in a query that is one of these is a column, not an alias). */
  readonly tableColumns: readonly string[];
}

/** Names of the count columns: no source column may be named so (they begin with `_qg_`). */
export const rollupRowsColumn = '_qg_rows';
export const rollupIdsColumn = '_qg_ids';

export interface Rollups {
  /** The rollup of `table` queries may read now, if it has one. */
  of(table: string): RollupShape | undefined;
  /** Changes whenever what `of` answers changes. */
  mark(): number;
}

/** The log writer's side: it keeps the rollups in the transactions that change the records. */
export interface RollupsKeeper extends Rollups {
  /** Creates, checks (rebuilding one that disagrees with the records) and loads each rollup. */
  open(connection: DuckDBConnection, types: ReadonlyMap<string, StructType>): Promise<void>;
  /** What a batch's transaction runs after its INSERT, for the records fitted to `type`. */
  batchRollup(source: LogSource, type: StructType, records: readonly StoredRecord[]): BatchRollup | undefined;
  /**
   * After a batch of `records` committed: folds the rollup's rows together once it has grown by
   * its own size (a batch adds at most a row per record).
   */
  afterCommit(connection: DuckDBConnection, table: string, records: number): Promise<void>;
  /** Before retention deletes the records of `table` before `before` (µs): those hours are read raw. */
  beforeDelete(table: string, before: bigint): void;
  /** After: drops the hours now read from the records. */
  afterDelete(connection: DuckDBConnection, table: string): Promise<void>;
}

/**
 * A batch's counts: rows counted in JavaScript, as the records' own JSON values (so DuckDB's JSON
 * reader, given the same types, makes of them exactly what it makes of the records), to be read
 * with `columns` from a file of `json`; or, when a batch changes a dimension's type, statements
 * that make the rollup again.
 */
export interface BatchRollup {
  readonly json?: Buffer;
  readonly columns?: string;
  /** Given DuckDB's reader of the file of `json`. */
  readonly statements: (rows: string) => string[];
}

const hourMicros = 3_600_000_000n;

/**
 * The records counted per hour and dimension values (the `metadata` dimensions as an object of
 * only those fields, NULL where the record is absent, as a narrower STRUCT reads it). Counting
 * here rather than reading the batch's file a second time: 1-2 µs per record, not 6-8.
 */
function countedRows(tree: Tree, records: readonly StoredRecord[]): Record<string, unknown>[] {
  const counted = new Map<string, { row: Record<string, unknown>; rows: number; ids: number }>();
  for (const { event, metadata } of records) {
    const hour = hourOf(event.timestamp);
    let key = hour;
    for (const column of tree.columns)
      key += `\u0001${valueKey(column === 'event_message' ? event.eventMessage : event.project)}`;
    if (tree.metadata) key += metadataKey(tree.metadata, metadata);
    let kept = counted.get(key);
    if (kept === undefined) {
      const row: Record<string, unknown> = { timestamp: hour };
      for (const column of tree.columns) {
        row[column] = (column === 'event_message' ? event.eventMessage : event.project) ?? null;
      }
      if (tree.metadata) row.metadata = narrowedValue(tree.metadata, metadata);
      kept = { row, rows: 0, ids: 0 };
      counted.set(key, kept);
    }
    kept.rows += 1;
    if (event.id !== null && event.id !== undefined) kept.ids += 1;
  }
  return [...counted.values()].map(({ row, rows, ids }) => ({ ...row, rows, ids }));
}

/**
 * The microseconds of the hour an instant falls in, as text. In a double while exact there (to
 * the year 2255): BigInt arithmetic took most of the counting's time.
 */
function hourOf(micros: bigint): string {
  const number = Number(micros);
  if (Number.isSafeInteger(number))
    return String(number - (((number % hourMicrosNumber) + hourMicrosNumber) % hourMicrosNumber));
  return String(micros - (((micros % hourMicros) + hourMicros) % hourMicros));
}

const hourMicrosNumber = 3_600_000_000;

/** A value as a part of a grouping key: its type and text (so 1 and '1' stay apart). */
function valueKey(value: unknown): string {
  return value === null || value === undefined ? '\u0002' : `${typeof value}:${String(value)}`;
}

/** The dimensions of `value` (a record, or not one: NULL) as a part of a grouping key. */
function metadataKey(node: Node, value: unknown): string {
  if (value === null || typeof value !== 'object') return '\u0003';
  const record = value as Record<string, unknown>;
  let key = '\u0004';
  for (const [name, below] of node) {
    key += below === null ? `\u0001${valueKey(record[name])}` : metadataKey(below, record[name]);
  }
  return `${key}\u0005`;
}

function narrowedValue(node: Node, value: unknown): Record<string, unknown> | null {
  if (value === null || typeof value !== 'object') return null;
  const record = value as Record<string, unknown>;
  const narrowed: Record<string, unknown> = {};
  for (const [name, below] of node) {
    narrowed[name] = below === null ? (record[name] ?? null) : narrowedValue(below, record[name]);
  }
  return narrowed;
}

interface Kept {
  readonly source: LogSource;
  /** The `metadata` type the rollup was made for. */
  type: StructType;
  shape: RollupShape;
  /** The leaf types the rollup was made with, as text: a batch that changes one rebuilds it. */
  leafTypes: string;
  /** Rows inserted since the last compaction, and the size after it. */
  added: number;
  compacted: number;
  /** The batch being committed changes a dimension's type: the rollup made again for this one. */
  remade?: StructType | undefined;
}

export function createRollups(
  sources: readonly LogSource[],
  { compactAbove = 50_000 }: { compactAbove?: number } = {},
): RollupsKeeper {
  const declared = sources.filter((source) => source.rollup !== undefined);
  const kept = new Map<string, Kept>();
  let mark = 0;

  return {
    of: (table) => kept.get(table)?.shape,
    mark: () => mark,

    async open(connection, types) {
      for (const source of declared) {
        const type = types.get(source.name);
        if (!type) continue;
        const shape = shapeOf(source, type, undefined);
        await dropOtherRollups(connection, source.name, shape.rollupTable);
        const exists = await tableExists(connection, shape.rollupTable);
        if (!exists || !(await agrees(connection, shape))) {
          await inTransaction(connection, rebuildStatements(source, type));
        }
        const rows = await countRows(connection, shape.rollupTable);
        kept.set(source.name, {
          source,
          type,
          shape,
          leafTypes: leafTypesOf(source, type),
          added: 0,
          compacted: rows,
        });
        mark++;
      }
    },

    batchRollup(source, type, records) {
      const entry = kept.get(source.name);
      if (!entry) return undefined;
      entry.remade = undefined;
      if (leafTypesOf(source, type) !== entry.leafTypes) {
        // A dimension's type changed with this batch: a rollup made again from the records, the
        // batch's included, under a new name (the old one is dropped at the next open: a query
        // planned on it may still be running). Used once committed.
        entry.remade = type;
        return { statements: () => rebuildStatements(source, type) };
      }
      const tree = dimensionTree(source);
      const columns = [
        `'timestamp': 'BIGINT'`,
        ...tree.columns.map((name) => `${sqlString(name)}: 'VARCHAR'`),
        ...(tree.metadata ? [`'metadata': ${sqlString(narrowType(tree.metadata, type))}`] : []),
        `'rows': 'BIGINT'`,
        `'ids': 'BIGINT'`,
      ];
      const selected = [
        'make_timestamp("timestamp")',
        ...tree.columns.map(quoteIdent),
        ...(tree.metadata ? ['"metadata"'] : []),
        '"rows"',
        '"ids"',
      ];
      return {
        json: Buffer.from(withoutLoneSurrogates(JSON.stringify(countedRows(tree, records)))),
        columns: `{${columns.join(', ')}}`,
        statements: (rows) => [
          `INSERT INTO ${quoteIdent(entry.shape.rollupTable)} SELECT ${selected.join(', ')} FROM ${rows}`,
        ],
      };
    },

    async afterCommit(connection, table, records) {
      const entry = kept.get(table);
      if (!entry) return;
      if (entry.remade) {
        entry.type = entry.remade;
        entry.shape = shapeOf(entry.source, entry.remade, undefined);
        entry.leafTypes = leafTypesOf(entry.source, entry.remade);
        entry.remade = undefined;
        entry.added = 0;
        entry.compacted = await countRows(connection, entry.shape.rollupTable);
        mark++;
        return;
      }
      entry.added += records;
      // Amortised: the rollup is read and written whole once it has grown by its own size (and
      // by `compactAbove` rows, which spares a small one from being folded at every batch).
      if (entry.added < Math.max(compactAbove, entry.compacted)) return;
      await inTransaction(connection, compactStatements(entry.shape));
      entry.compacted = await countRows(connection, entry.shape.rollupTable);
      entry.added = 0;
    },

    beforeDelete(table, before) {
      const entry = kept.get(table);
      if (!entry) return;
      // The hour `before` falls in loses some records only: it and those before are read raw.
      const bound = ((before + hourMicros - 1n) / hourMicros) * hourMicros;
      if (entry.shape.rawBefore !== undefined && entry.shape.rawBefore >= bound) return;
      entry.shape = shapeOf(entry.source, entry.type, bound);
      mark++;
    },

    async afterDelete(connection, table) {
      const shape = kept.get(table)?.shape;
      if (shape?.rawBefore === undefined) return;
      await connection.run(
        `DELETE FROM ${quoteIdent(shape.rollupTable)} WHERE "timestamp" < make_timestamp(${shape.rawBefore})`,
      );
    },
  };
}

/** The dimensions as a tree: top-level columns, and the `metadata` fields below it. */
interface Tree {
  readonly columns: readonly string[];
  readonly metadata: Node | undefined;
}
type Node = Map<string, Node | null>;

function dimensionTree(source: LogSource): Tree {
  const columns: string[] = [];
  let metadata: Node | undefined;
  for (const dimension of source.rollup?.dimensions ?? []) {
    const [head, ...rest] = dimension.split('.');
    if (head !== 'metadata') {
      columns.push(head as string);
      continue;
    }
    metadata ??= new Map();
    let node = metadata;
    rest.forEach((name, i) => {
      if (i === rest.length - 1) node.set(name, null);
      else {
        const next = (node.get(name) as Node | undefined) ?? new Map();
        node.set(name, next);
        node = next;
      }
    });
  }
  return { columns, metadata };
}

function leafPaths(node: Node, above: readonly string[] = []): string[][] {
  return [...node].flatMap(([name, below]) =>
    below === null ? [[...above, name]] : leafPaths(below, [...above, name]),
  );
}

function fieldAt(type: StructType, path: readonly string[]): FieldType {
  let field: FieldType = type;
  for (const name of path) {
    if (!isStructType(field) || !(name in field.struct))
      throw new Error(`rollup dimension metadata.${path.join('.')} is not a field`);
    field = field.struct[name] as FieldType;
  }
  return field;
}

/** The DuckDB type of the `metadata` dimensions: `type` narrowed to the tree's fields. */
function narrowType(node: Node, type: StructType, above: readonly string[] = []): string {
  const fields = [...node].map(([name, below]) => {
    const path = [...above, name];
    return `${quoteIdent(name)} ${below === null ? duckdbType(fieldAt(type, path)) : narrowType(below, type, path)}`;
  });
  return `STRUCT(${fields.join(', ')})`;
}

/** The same narrowing as an expression over a row's `metadata`, NULL where the record is. */
function narrowed(node: Node, at: string): string {
  const fields = [...node].map(
    ([name, below]) =>
      `${quoteIdent(name)} := ${below === null ? `${at}.${quoteIdent(name)}` : narrowed(below, `${at}.${quoteIdent(name)}`)}`,
  );
  return `CASE WHEN ${at} IS NULL THEN NULL ELSE struct_pack(${fields.join(', ')}) END`;
}

function leafTypesOf(source: LogSource, type: StructType): string {
  const { metadata } = dimensionTree(source);
  return metadata ? narrowType(metadata, type) : '';
}

function rollupTableName(source: LogSource, type: StructType): string {
  const definition = `${(source.rollup?.dimensions ?? []).join(',')}|${leafTypesOf(source, type)}`;
  return `${source.name}::rollup-${createHash('sha256').update(definition).digest('hex').slice(0, 12)}`;
}

/** The select list that rolls up rows of `from` (the source's columns) by hour and dimension. */
function rollupSelect(source: LogSource, from: string): string {
  const tree = dimensionTree(source);
  const columns = [
    `date_trunc('hour', "timestamp") AS "timestamp"`,
    ...tree.columns.map(quoteIdent),
    ...(tree.metadata ? [`${narrowed(tree.metadata, '"metadata"')} AS "metadata"`] : []),
  ];
  return `SELECT ${columns.join(', ')}, count(*) AS ${rollupRowsColumn}, count("id") AS ${rollupIdsColumn} FROM ${from} GROUP BY ALL`;
}

function rebuildStatements(source: LogSource, type: StructType): string[] {
  const table = quoteIdent(rollupTableName(source, type));
  const tree = dimensionTree(source);
  const columns = [
    `"timestamp" TIMESTAMP`,
    ...tree.columns.map((name) => `${quoteIdent(name)} VARCHAR`),
    ...(tree.metadata ? [`"metadata" ${narrowType(tree.metadata, type)}`] : []),
    `${rollupRowsColumn} BIGINT NOT NULL`,
    `${rollupIdsColumn} BIGINT NOT NULL`,
  ];
  return [
    `DROP TABLE IF EXISTS ${table}`,
    `CREATE TABLE ${table} (${columns.join(', ')})`,
    `INSERT INTO ${table} ${rollupSelect(source, quoteIdent(source.name))}`,
  ];
}

function compactStatements(shape: RollupShape): string[] {
  const table = quoteIdent(shape.rollupTable);
  const folded = quoteIdent(`${shape.rollupTable}::folding`);
  const keys = [
    '"timestamp"',
    ...shape.columns.map(quoteIdent),
    ...(shape.paths.length > 0 ? ['"metadata"'] : []),
  ];
  return [
    `CREATE TEMP TABLE ${folded} AS SELECT ${keys.join(', ')}, sum(${rollupRowsColumn})::BIGINT, sum(${rollupIdsColumn})::BIGINT FROM ${table} GROUP BY ALL`,
    `DELETE FROM ${table}`,
    `INSERT INTO ${table} SELECT * FROM ${folded}`,
    `DROP TABLE ${folded}`,
  ];
}

function shapeOf(source: LogSource, type: StructType, rawBefore: bigint | undefined): RollupShape {
  const tree = dimensionTree(source);
  const base = {
    table: source.name,
    rollupTable: rollupTableName(source, type),
    columns: tree.columns,
    paths: tree.metadata ? leafPaths(tree.metadata) : [],
    tableColumns: logRecordFields(source).map((field) => field.name),
  };
  return {
    ...base,
    rawBefore,
    relation: (within) => relationOf(source, base.rollupTable, rawBefore, within),
  };
}

/**
 * What a query reads instead of the table (see RollupShape.relation): the rollup's hours that are
 * whole (at or after `rawBefore`) and pass `within` at both ends, and the records of every other
 * hour that pass `within`, rolled up as they are read (few: the ends of a range, and the hours
 * retention is deleting).
 */
function relationOf(
  source: LogSource,
  rollupTable: string,
  rawBefore: bigint | undefined,
  within: ((at: string) => string) | undefined,
): string {
  const rollup = quoteIdent(rollupTable);
  if (rawBefore === undefined && within === undefined) return rollup;
  const whole = (hour: string) =>
    [
      ...(rawBefore === undefined ? [] : [`${hour} >= make_timestamp(${rawBefore})`]),
      ...(within
        ? [`(${within(hour)})`, `(${within(`(${hour} + INTERVAL 1 HOUR - INTERVAL 1 MICROSECOND)`)})`]
        : []),
    ].join(' AND ');
  const others = [
    ...(within ? [`(${within('"timestamp"')})`] : []),
    `NOT coalesce(${whole(`date_trunc('hour', "timestamp")`)}, false)`,
  ].join(' AND ');
  return (
    `(SELECT * FROM ${rollup} WHERE ${whole('"timestamp"')} UNION ALL ` +
    `${rollupSelect(source, `${quoteIdent(source.name)} WHERE ${others}`)})`
  );
}

/**
 * Whether the rollup counts the records the table holds: a rollup left by a crash in the middle
 * of retention, or by a version that did not keep it, is made again. The totals, not hour by
 * hour: 10M records' hours took 1.5 s of every start, and a rollup kept as above can only lose
 * or miss records, never trade some for as many others.
 */
async function agrees(connection: DuckDBConnection, shape: RollupShape): Promise<boolean> {
  const reader = await connection.runAndReadAll(
    `SELECT (SELECT coalesce(sum(${rollupRowsColumn}), 0) FROM ${quoteIdent(shape.rollupTable)}) = (SELECT count(*) FROM ${quoteIdent(shape.table)})`,
  );
  return reader.getRows()[0]?.[0] === true;
}

async function dropOtherRollups(connection: DuckDBConnection, table: string, keep: string): Promise<void> {
  const reader = await connection.runAndReadAll(
    `SELECT table_name FROM duckdb_tables() WHERE starts_with(table_name, $prefix) AND table_name <> $keep`,
    { prefix: `${table}::rollup-`, keep },
  );
  for (const [name] of reader.getRows()) await connection.run(`DROP TABLE ${quoteIdent(String(name))}`);
}

async function tableExists(connection: DuckDBConnection, table: string): Promise<boolean> {
  const reader = await connection.runAndReadAll(
    `SELECT count(*) FROM duckdb_tables() WHERE table_name = $table`,
    {
      table,
    },
  );
  return Number(reader.getRows()[0]?.[0]) > 0;
}

async function countRows(connection: DuckDBConnection, table: string): Promise<number> {
  const reader = await connection.runAndReadAll(`SELECT count(*) FROM ${quoteIdent(table)}`);
  return Number(reader.getRows()[0]?.[0] ?? 0);
}

async function inTransaction(connection: DuckDBConnection, statements: readonly string[]): Promise<void> {
  await connection.run('BEGIN TRANSACTION');
  try {
    for (const statement of statements) await connection.run(statement);
    await connection.run('COMMIT');
  } catch (error) {
    await connection.run('ROLLBACK').catch(() => undefined);
    throw error;
  }
}

function sqlString(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}
