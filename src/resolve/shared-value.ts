import { deserialize, serialize } from 'node:v8';
import type { QueryResult, ResultColumn, ResultRow } from '../engines/query-engine.js';
import type { Computed } from './shared-results.js';

// V8's serialisation keeps every engine value as it is (BIGINT as a bigint, nested records), which
// JSON would not, and is several times faster. The value names its format and its own key, so a
// value another program (or another format) left under the key is told apart and read as a miss.
const format = 'querygate-result/1';

/** The bytes stored in the shared cache for `computed`, the result of `key`. */
export function encodeSharedValue(key: string, computed: Computed): Buffer {
  const { result, computedAt } = computed;
  return serialize({ format, key, computedAt, columns: result.columns, rows: result.rows });
}

/**
 * The result stored under `key`, or undefined when the bytes are not one (corrupt, truncated,
 * written by something else or for another key): the caller treats that as a miss.
 */
export function decodeSharedValue(key: string, bytes: Buffer): Computed | undefined {
  let value: unknown;
  try {
    value = deserialize(bytes);
  } catch {
    return undefined;
  }
  if (!isObject(value) || value.format !== format || value.key !== key) return undefined;
  const { computedAt, columns, rows } = value;
  if (typeof computedAt !== 'number' || !Number.isFinite(computedAt)) return undefined;
  if (!Array.isArray(columns) || !columns.every(isColumn)) return undefined;
  if (!Array.isArray(rows) || !rows.every(isObject)) return undefined;
  const result: QueryResult = { columns: columns as ResultColumn[], rows: rows as ResultRow[] };
  return { result, computedAt };
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isColumn(value: unknown): boolean {
  return isObject(value) && typeof value.name === 'string' && typeof value.type === 'string';
}
