import type { FieldType } from '../../src/endpoints/field-type.js';
import { isListType, isStructType, quoteIdent } from '../../src/endpoints/field-type.js';
import { findLogSource, type LogSource } from '../../src/endpoints/sources.js';
import { logSources } from './shipped-sources.js';

/** One log record of a fixture, in the seed shape of its source (missing fields are NULL). */
export interface FixtureRecord {
  readonly id: string;
  /** UTC, `YYYY-MM-DD HH:MM:SS[.ffffff]`. */
  readonly timestamp: string;
  readonly event_message: string;
  readonly project?: string | null;
  readonly metadata: Record<string, unknown> | null;
}

/** Microseconds since the epoch of a fixture timestamp, read independently of the code under test. */
export function fixtureMicros(timestamp: string): number {
  const [whole = '', fraction = ''] = timestamp.split('.');
  return Date.parse(`${whole.replace(' ', 'T')}Z`) * 1000 + Number(fraction.padEnd(6, '0'));
}

/** A plain-DuckDB INSERT of `records` into the table of `sourceName` (seed shape, as scratch-engine makes it). */
export function insertStatement(
  sourceName: string,
  records: readonly FixtureRecord[],
  sources: readonly LogSource[] = logSources,
): string {
  const source = findLogSource(sourceName, sources);
  if (!source) throw new Error(`No source ${sourceName}`);
  const rows = records.map((record) => {
    const values = [
      literal(record.id),
      `TIMESTAMP '${record.timestamp}'`,
      literal(record.event_message),
      ...(source.hasProject ? [literal(record.project ?? null)] : []),
      value(record.metadata, source.metadata),
    ];
    return `(${values.join(', ')})`;
  });
  return `INSERT INTO ${quoteIdent(source.name)} VALUES ${rows.join(',\n')}`;
}

function value(data: unknown, type: FieldType): string {
  if (data === null || data === undefined) return 'NULL';
  if (isStructType(type)) {
    const object = data as Record<string, unknown>;
    const fields = Object.entries(type.struct).map(
      ([name, fieldType]) => `${literal(name)}: ${value(object[name], fieldType)}`,
    );
    return `{${fields.join(', ')}}`;
  }
  if (isListType(type)) return `[${(data as unknown[]).map((item) => value(item, type.list)).join(', ')}]`;
  return literal(data);
}

function literal(data: unknown): string {
  if (data === null || data === undefined) return 'NULL';
  if (typeof data === 'number' || typeof data === 'boolean') return String(data);
  return `'${String(data).replaceAll("'", "''")}'`;
}
