import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { z } from 'zod';
import type { ColumnType } from '../engines/query-engine.js';
import { issueLines } from './yaml-file.js';

/**
 * A result column as the faces expose it: the engine's type, except where the contract declares
 * JSON (then nested fields that grow with ingestion never change it), and the contract's
 * nullability (the engines cannot tell).
 */
export interface ShapeColumn {
  readonly name: string;
  readonly type: ColumnType;
  readonly nullable: boolean;
  /** RECORD only: the fields of each record of the repeated record. */
  readonly fields?: readonly ShapeColumn[];
  /** `NULLABLE` on a lone RECORD (a STRUCT), `REPEATED` on an array of scalars: see ResultColumn. */
  readonly mode?: 'NULLABLE' | 'REPEATED';
}

/**
 * The output-shape lock: each endpoint's result shape as the faces expose it (column names,
 * types, nullability, a record's fields), kept in `<name>.lock.json` beside its contract and
 * checked in. A query whose shape drifts from its lock is refused until `querygate queries lock`
 * accepts the new shape, so no client meets a changed field by surprise.
 */
export function lockFileOf(queriesDir: string, name: string): string {
  return join(queriesDir, `${name}.lock.json`);
}

const columnSchema: z.ZodType<ShapeColumn> = z.lazy(() =>
  z.object({
    name: z.string(),
    type: z.enum([
      'TIMESTAMP',
      'DATETIME',
      'INT64',
      'FLOAT64',
      'STRING',
      'BOOL',
      'RECORD',
      'JSON',
      'DATE',
      'TIME',
      'BYTES',
      'NUMERIC',
    ]),
    nullable: z.boolean(),
    fields: z.array(columnSchema).optional(),
    mode: z.enum(['NULLABLE', 'REPEATED']).optional(),
  }),
);
const lockSchema = z.object({ endpoint: z.string(), columns: z.array(columnSchema) });

/** The locked shape, or undefined when the endpoint has no lock file yet. */
export function readLock(queriesDir: string, name: string): readonly ShapeColumn[] | undefined {
  const file = lockFileOf(queriesDir, name);
  if (!existsSync(file)) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(`${file}: is not JSON (${(error as Error).message}); run querygate queries lock`);
  }
  const lock = lockSchema.safeParse(parsed);
  if (!lock.success) throw new Error(issueLines(file, lock.error).join('\n'));
  return lock.data.columns;
}

export function writeLock(queriesDir: string, name: string, columns: readonly ShapeColumn[]): string {
  const file = lockFileOf(queriesDir, name);
  writeFileSync(file, `${JSON.stringify({ endpoint: name, columns }, null, 2)}\n`);
  return file;
}

/** How `derived` differs from `locked`, one line per difference; empty when they are equal. */
export function shapeDifferences(
  locked: readonly ShapeColumn[],
  derived: readonly ShapeColumn[],
  path = '',
): string[] {
  const lines: string[] = [];
  const lockedNames = locked.map((column) => column.name);
  const derivedNames = derived.map((column) => column.name);
  for (const column of locked) {
    if (!derivedNames.includes(column.name)) lines.push(`column ${path}${column.name} is gone`);
  }
  for (const column of derived) {
    const before = locked.find((candidate) => candidate.name === column.name);
    const name = `${path}${column.name}`;
    if (!before) {
      lines.push(`column ${name} (${column.type}) is new`);
      continue;
    }
    if (before.type !== column.type) lines.push(`column ${name} was ${before.type}, is ${column.type}`);
    if (before.nullable !== column.nullable) {
      lines.push(
        `column ${name} was ${before.nullable ? 'nullable' : 'non-null'}, is ${column.nullable ? 'nullable' : 'non-null'}`,
      );
    }
    if (before.mode !== column.mode)
      lines.push(
        `column ${name} was in mode ${before.mode ?? 'default'}, is in mode ${column.mode ?? 'default'}`,
      );
    if (before.type === 'RECORD' && column.type === 'RECORD') {
      lines.push(...shapeDifferences(before.fields ?? [], column.fields ?? [], `${name}.`));
    }
  }
  if (lines.length === 0 && lockedNames.join(',') !== derivedNames.join(',')) {
    lines.push(
      `the columns of ${path || 'the result'} were in the order ${lockedNames.join(', ')}, are ${derivedNames.join(', ')}`,
    );
  }
  return lines;
}
