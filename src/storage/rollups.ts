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
import { type StoredRecord, sqlString, withoutLoneSurrogates } from './log-batch.js';
import { runInTransaction } from './transaction.js';

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
 * The rollup table is flat, so that a filter on a dimension is one on a column of the records'
 * table too (the records of partial hours are read with it, and DuckDB reads one field of a
 * STRUCT column only when the filter names the field, not a STRUCT built per row). Per row:
 * `timestamp` (the hour), one column per dimension named by its path (`metadata.request.path`),
 * one per record declared under `metadata` (`metadata.request`: true, or NULL where the record
 * is, so `IS NULL` tests on records give the records' answers), and the counts.
 */
export interface RollupShape {
  /** The source's table. */
  readonly table: string;
  readonly rollupTable: string;
  /** Its columns besides the hour and the counts: the dimensions, then the records' presence. */
  readonly parts: readonly RollupPart[];
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
  relation(range?: TimeRange, used?: ReadonlySet<string>): string;
  /** The table's own columns (a name in a query that is one of these is a column, not an alias). */
  readonly tableColumns: readonly string[];
}

/** A column of a rollup: a dimension's value or a record's presence, by its path in a record. */
export interface RollupPart {
  /** From the row: `['project']`, `['metadata', 'request', 'path']`. */
  readonly path: readonly string[];
  /** The column: the path joined by dots. */
  readonly name: string;
  /** Its DuckDB type: the field's, or BOOLEAN for a record's presence. */
  readonly type: string;
  readonly record: boolean;
}

/** Names of the count columns: no source column may be named so (they begin with `_qg_`). */
export const rollupRowsColumn = '_qg_rows';
export const rollupIdsColumn = '_qg_ids';

/** The instants a query keeps (see RollupShape.relation). */
export interface TimeRange {
  /** SQL true for the instants `at` (an SQL expression) in one interval. */
  within(at: string): string;
  /**
   * SQL of the interval's bounds, fixed for the query (NULL where it has none on that side), when
   * `within` is exactly the instants between them: the records outside the whole hours are then
   * looked for only before the first whole hour and from the end of the last (a range DuckDB
   * skips row groups by), not in every hour the range covers.
   */
  readonly bounds?: { readonly lower: string; readonly upper: string };
}

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
  /**
   * After a batch of retention's deletes: drops the hours now read from the records, and once
   * retention is `done`, counts the hour it stopped inside again from the records it kept.
   */
  afterDelete(connection: DuckDBConnection, table: string, done: boolean): Promise<void>;
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
 * The records counted per hour and values of the parts (NULL where a record is absent, as DuckDB
 * reads a field under it). Counting here rather than reading the batch's file a second time:
 * 1.5-2.5 µs of CPU per record, not 6-8.
 */
function countedRows(
  parts: readonly RollupPart[],
  records: readonly StoredRecord[],
): Record<string, unknown>[] {
  const counted = new Map<string, { values: unknown[]; hour: string; rows: number; ids: number }>();
  for (const { event, metadata } of records) {
    const hour = hourOf(event.timestamp);
    const values = parts.map((part) => partValue(part, event, metadata));
    let key = hour;
    for (const value of values) key += `\u0001${valueKey(value)}`;
    let kept = counted.get(key);
    if (kept === undefined) {
      kept = { values, hour, rows: 0, ids: 0 };
      counted.set(key, kept);
    }
    kept.rows += 1;
    if (event.id !== null && event.id !== undefined) kept.ids += 1;
  }
  return [...counted.values()].map(({ values, hour, rows, ids }) => {
    const row: Record<string, unknown> = { timestamp: hour, rows, ids };
    parts.forEach((part, i) => {
      row[part.name] = values[i];
    });
    return row;
  });
}

/** A part's value in a record as it arrived (fitted), as the batch's JSON holds it. */
function partValue(part: RollupPart, event: StoredRecord['event'], metadata: unknown): unknown {
  const [column, ...below] = part.path;
  let value: unknown =
    column === 'metadata' ? metadata : column === 'project' ? event.project : event.eventMessage;
  for (const name of below) {
    value =
      value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[name] : undefined;
  }
  if (part.record) return value !== null && typeof value === 'object' ? true : null;
  return value ?? null;
}

/**
 * The microseconds of the hour an instant falls in, as text. In a double while exact there (to
 * the year 2255): BigInt arithmetic took most of the counting's time.
 */
function hourOf(micros: bigint): string {
  const number = Number(micros);
  if (Number.isSafeInteger(number)) {
    return String(number - (((number % hourMicrosNumber) + hourMicrosNumber) % hourMicrosNumber));
  }
  return String(micros - (((micros % hourMicros) + hourMicros) % hourMicros));
}

const hourMicrosNumber = 3_600_000_000;

/** A value as a part of a grouping key: its type and text (so 1 and '1' stay apart). */
function valueKey(value: unknown): string {
  return value === null || value === undefined ? '\u0002' : `${typeof value}:${String(value)}`;
}

interface Kept {
  readonly source: LogSource;
  /** The `metadata` type the rollup was made for. */
  type: StructType;
  shape: RollupShape;
  /** The parts the rollup was made with, as text: a batch that changes one makes it again. */
  signature: string;
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
          await runInTransaction(connection, rebuildStatements(source, type));
        }
        const rows = await countRows(connection, shape.rollupTable);
        kept.set(source.name, {
          source,
          type,
          shape,
          signature: signatureOf(partsOf(source, type)),
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
      // The batch's type is the last one's unless the batch changes the schema: looked at then only.
      if (type !== entry.type) {
        if (signatureOf(partsOf(source, type)) !== entry.signature) {
          // A dimension's type changed with this batch: a rollup made again from the records, the
          // batch's included, under a new name (the old one is dropped at the next open: a query
          // planned on it may still be running). Used once committed.
          entry.remade = type;
          return { statements: () => rebuildStatements(source, type) };
        }
        // Fields the rollup does not hold were added: its parts are the same under the new type.
        entry.type = type;
      }
      const parts = entry.shape.parts;
      const columns = [
        `'timestamp': 'BIGINT'`,
        ...parts.map((part) => `${sqlString(part.name)}: ${sqlString(part.type)}`),
        `'rows': 'BIGINT'`,
        `'ids': 'BIGINT'`,
      ];
      const selected = [
        'make_timestamp("timestamp")',
        ...parts.map((part) => quoteIdent(part.name)),
        '"rows"',
        '"ids"',
      ];
      return {
        json: Buffer.from(withoutLoneSurrogates(JSON.stringify(countedRows(parts, records)))),
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
        // Before any await: a query planned from now on reads the rollup made with the batch.
        entry.type = entry.remade;
        entry.shape = shapeOf(entry.source, entry.remade, undefined);
        entry.signature = signatureOf(entry.shape.parts);
        entry.remade = undefined;
        entry.added = 0;
        mark++;
        entry.compacted = await countRows(connection, entry.shape.rollupTable);
        return;
      }
      entry.added += records;
      // Amortised: the rollup is read and written whole once it has grown by its own size (and
      // by `compactAbove` rows, which spares a small one from being folded at every batch).
      if (entry.added < Math.max(compactAbove, entry.compacted)) return;
      await runInTransaction(connection, compactStatements(entry.shape));
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

    async afterDelete(connection, table, done) {
      const shape = kept.get(table)?.shape;
      if (shape?.rawBefore === undefined) return;
      const bound = `make_timestamp(${shape.rawBefore})`;
      const rollup = quoteIdent(shape.rollupTable);
      const statements = [`DELETE FROM ${rollup} WHERE "timestamp" < ${bound}`];
      if (done) {
        // The hour retention stopped inside, counted again from the records it kept: the rollup
        // then counts the table's records again, and the next start has nothing to make again.
        const partial = `${quoteIdent(table)} WHERE "timestamp" >= ${bound} - INTERVAL 1 HOUR AND "timestamp" < ${bound}`;
        statements.push(`INSERT INTO ${rollup} ${rollupSelect(shape.parts, partial)}`);
      }
      await runInTransaction(connection, statements);
    },
  };
}

/**
 * The parts of a source's rollup, with the types the table has now: its dimensions as declared,
 * then every record declared under `metadata` (declared, so a record ingestion adds later does
 * not make the rollup again).
 */
function partsOf(source: LogSource, type: StructType): RollupPart[] {
  const dimensions = (source.rollup?.dimensions ?? []).map((dimension): RollupPart => {
    const path = dimension.split('.');
    const leaf = path[0] === 'metadata' ? duckdbType(fieldAt(type, path.slice(1))) : 'VARCHAR';
    return { path, name: dimension, type: leaf, record: false };
  });
  const records = recordPaths(source.metadata, ['metadata']).map(
    (path): RollupPart => ({ path, name: path.join('.'), type: 'BOOLEAN', record: true }),
  );
  return [...dimensions, ...records];
}

function recordPaths(type: StructType, above: readonly string[]): string[][] {
  return [
    [...above],
    ...Object.entries(type.struct).flatMap(([name, field]) =>
      isStructType(field) ? recordPaths(field, [...above, name]) : [],
    ),
  ];
}

function fieldAt(type: StructType, path: readonly string[]): FieldType {
  let field: FieldType = type;
  for (const name of path) {
    if (!isStructType(field) || !(name in field.struct)) {
      throw new Error(`rollup dimension metadata.${path.join('.')} is not a field`);
    }
    field = field.struct[name] as FieldType;
  }
  return field;
}

/** The parts' names and types: a batch that changes one makes the rollup again. */
function signatureOf(parts: readonly RollupPart[]): string {
  return parts.map((part) => `${part.name} ${part.type}`).join(', ');
}

function rollupTableName(source: LogSource, parts: readonly RollupPart[]): string {
  const hash = createHash('sha256').update(signatureOf(parts)).digest('hex').slice(0, 12);
  return `${source.name}::rollup-${hash}`;
}

/** A part as an expression over a row of the source's table. */
function partExpression(part: RollupPart): string {
  const value = part.path.map(quoteIdent).join('.');
  return part.record ? `CASE WHEN ${value} IS NULL THEN NULL ELSE true END` : value;
}

/**
 * The select list that rolls up rows of `from` (the source's table) by hour and part; with
 * `used`, the other parts NULL (a record's presence is tested by reading all its fields).
 */
function rollupSelect(parts: readonly RollupPart[], from: string, used?: ReadonlySet<string>): string {
  const columns = [
    `date_trunc('hour', "timestamp") AS "timestamp"`,
    ...parts.map(
      (part) =>
        `${used && !used.has(part.name) ? `CAST(NULL AS ${part.type})` : partExpression(part)} AS ${quoteIdent(part.name)}`,
    ),
  ];
  return `SELECT ${columns.join(', ')}, count(*) AS ${rollupRowsColumn}, count("id") AS ${rollupIdsColumn} FROM ${from} GROUP BY ALL`;
}

function rebuildStatements(source: LogSource, type: StructType): string[] {
  const parts = partsOf(source, type);
  const table = quoteIdent(rollupTableName(source, parts));
  const columns = [
    `"timestamp" TIMESTAMP`,
    ...parts.map((part) => `${quoteIdent(part.name)} ${part.type}`),
    `${rollupRowsColumn} BIGINT NOT NULL`,
    `${rollupIdsColumn} BIGINT NOT NULL`,
  ];
  return [
    `DROP TABLE IF EXISTS ${table}`,
    `CREATE TABLE ${table} (${columns.join(', ')})`,
    `INSERT INTO ${table} ${rollupSelect(parts, quoteIdent(source.name))}`,
  ];
}

function compactStatements(shape: RollupShape): string[] {
  const table = quoteIdent(shape.rollupTable);
  const folded = quoteIdent(`${shape.rollupTable}::folding`);
  const keys = ['"timestamp"', ...shape.parts.map((part) => quoteIdent(part.name))];
  return [
    `CREATE TEMP TABLE ${folded} AS SELECT ${keys.join(', ')}, sum(${rollupRowsColumn})::BIGINT, sum(${rollupIdsColumn})::BIGINT FROM ${table} GROUP BY ALL`,
    `DELETE FROM ${table}`,
    `INSERT INTO ${table} SELECT * FROM ${folded}`,
    `DROP TABLE ${folded}`,
  ];
}

function shapeOf(source: LogSource, type: StructType, rawBefore: bigint | undefined): RollupShape {
  const parts = partsOf(source, type);
  const rollupTable = rollupTableName(source, parts);
  return {
    table: source.name,
    rollupTable,
    parts,
    tableColumns: logRecordFields(source).map((field) => field.name),
    rawBefore,
    relation: (range, used) => relationOf(source.name, rollupTable, parts, rawBefore, range, used),
  };
}

/**
 * What a query reads instead of the table (see RollupShape.relation): the rollup's hours that are
 * whole (at or after `rawBefore`) and pass `within` at both ends, and the records of every other
 * hour that pass `within`, rolled up as they are read (few: the ends of a range, and the hours
 * retention is deleting).
 */
function relationOf(
  table: string,
  rollupTable: string,
  parts: readonly RollupPart[],
  rawBefore: bigint | undefined,
  range: TimeRange | undefined,
  used: ReadonlySet<string> | undefined,
): string {
  const rollup = quoteIdent(rollupTable);
  if (rawBefore === undefined && range === undefined) return rollup;
  const retained = rawBefore === undefined ? undefined : `make_timestamp(${rawBefore})`;
  const whole = (hour: string) =>
    [
      ...(retained === undefined ? [] : [`${hour} >= ${retained}`]),
      ...(range
        ? [
            `(${range.within(hour)})`,
            `(${range.within(`(${hour} + INTERVAL 1 HOUR - INTERVAL 1 MICROSECOND)`)})`,
          ]
        : []),
    ].join(' AND ');
  const others = [
    ...(range ? [`(${range.within('"timestamp"')})`] : []),
    // The record's hour as time_bucket, not date_trunc: DuckDB turns `date_trunc('hour', t) <= x`
    // into `t < date_trunc('hour', x) + INTERVAL 1 HOUR`, which fails for an x in its last hour
    // (year 294247) where the records' own filter `t <= x` answers.
    `NOT coalesce(${whole(`time_bucket(INTERVAL 1 HOUR, "timestamp")`)}, false)`,
  ];
  if (range?.bounds) {
    // Every hour from the first after the lower bound's to the upper bound's is whole. A bound
    // whose hour cannot be worked out (the hour after DuckDB's last) bounds nothing here: the
    // records of every hour not whole are then looked for, which is slower, never wrong.
    const { lower, upper } = range.bounds;
    const first = `CASE WHEN (${lower}) IS NULL THEN TIMESTAMP '-infinity' ELSE coalesce(try(date_trunc('hour', CAST((${lower}) AS TIMESTAMP)) + INTERVAL 1 HOUR), TIMESTAMP 'infinity') END`;
    const last = `CASE WHEN (${upper}) IS NULL THEN TIMESTAMP 'infinity' ELSE coalesce(try(date_trunc('hour', CAST((${upper}) AS TIMESTAMP))), TIMESTAMP '-infinity') END`;
    others.push(
      `("timestamp" < ${retained === undefined ? first : `greatest(${first}, ${retained})`} OR "timestamp" >= ${last})`,
    );
  }
  return (
    `(SELECT * FROM ${rollup} WHERE ${whole('"timestamp"')} UNION ALL ` +
    `${rollupSelect(parts, `${quoteIdent(table)} WHERE ${others.join(' AND ')}`, used)})`
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
