import type { EngineValue, QueryResult } from '../engines/query-engine.js';

// Rough V8 costs: what matters is that a result's size grows with what it holds, so the LRU's
// byte bound tracks memory within a small factor; exactness would cost more than it saves.
const slotBytes = 8;
const headerBytes = 16;

/** The approximate bytes a result occupies in memory, for the cache's size bound. */
export function approximateResultSize(result: QueryResult): number {
  let bytes = headerBytes;
  for (const column of result.columns) bytes += headerBytes + 2 * column.name.length;
  for (const row of result.rows) bytes += approximateValueSize(row);
  return bytes;
}

/** The approximate bytes of one value (rows, or what a face mapped them to). */
export function approximateValueSize(value: EngineValue): number {
  if (value === null || typeof value === 'boolean' || typeof value === 'number') return slotBytes;
  if (typeof value === 'string') return headerBytes + 2 * value.length;
  if (typeof value === 'bigint') return headerBytes + slotBytes;
  let bytes = headerBytes;
  if (Array.isArray(value)) {
    for (const item of value) bytes += slotBytes + approximateValueSize(item);
    return bytes;
  }
  // Property names are shared between rows of the same shape (hidden classes), so only the slot counts.
  for (const key in value) bytes += slotBytes + approximateValueSize(value[key] as EngineValue);
  return bytes;
}
