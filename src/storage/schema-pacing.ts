import type { StructType } from '../endpoints/field-type.js';
import type { LogSource } from '../endpoints/sources.js';
import type { StoredRecord } from './log-batch.js';
import type { LogEvent } from './log-event.js';
import {
  countFields,
  createTypeMemo,
  noExtra,
  reconcileMetadata,
  type SchemaLimits,
  type TypeMemo,
} from './schema-evolution.js';

/**
 * When a source's `metadata` column changes type. Every change copies the whole table with the
 * column cast (schema-change.ts), and DuckDB keeps the old one until the next checkpoint: a
 * client sending a new field with every request would make one rewrite per request (measured,
 * with the ALTER ... TYPE of the time: 1,993 MiB RSS in 20 s on the demo store). So a source
 * changes its schema at most once per interval. A field that arrives before its source may
 * change again is stored in `_extra` under its path (as a field beyond the cap is), and is
 * remembered: the first batch of that source after the interval promotes every field remembered
 * since, in one change. From then on its values are typed; the values stored in between stay in
 * `_extra`, never lost, but the saved SQL reads them as NULL through `metadata` (README "Schema
 * evolution").
 */
export interface SchemaPacing {
  /**
   * Fits a batch to the source's type as of the batches fitted before it: the records to insert
   * and the type to store them under (`stored` itself, or an evolved type the writer must change
   * the column to first). What it decides counts from now: requests are fitted as they arrive,
   * beside the commits of the ones before them (log-writer.ts), and commit in the order fitted.
   */
  fit(source: LogSource, stored: StructType, events: readonly LogEvent[]): FittedBatch;
}

export interface FittedBatch {
  readonly records: StoredRecord[];
  /** The column's type for these records; not `stored` when the batch changes the schema. */
  readonly type: StructType;
  readonly changesSchema: boolean;
}

export interface SchemaPacingOptions {
  readonly limits: SchemaLimits;
  /** Least time between two schema changes of one source; 0 changes at every new field. */
  readonly intervalMs: number;
  readonly now: () => Date;
}

export function createSchemaPacing(options: SchemaPacingOptions): SchemaPacing {
  const { limits, intervalMs, now } = options;
  // Per source: every field seen (the type the column would have unpaced), and the last change.
  const wantedTypes = new Map<string, StructType>();
  const lastChange = new Map<string, number>();
  const memo = createTypeMemo();

  const mayChange = (source: LogSource) => {
    const last = lastChange.get(source.name);
    return intervalMs <= 0 || last === undefined || now().getTime() - last >= intervalMs;
  };

  return {
    fit(source, stored, events) {
      // The one writer makes every change, so the fields seen always include the stored ones.
      const evolved = fitAll(events, wantedTypes.get(source.name) ?? stored, limits, memo);
      if (evolved.type === stored) return { ...evolved, changesSchema: false };
      wantedTypes.set(source.name, evolved.type);
      if (mayChange(source)) {
        lastChange.set(source.name, now().getTime());
        return { ...evolved, changesSchema: true };
      }
      // No room for new fields: each goes to `_extra` whole, under its path.
      const frozen = fitAll(events, stored, { ...limits, maxFields: countFields(stored, memo) }, memo);
      return { records: frozen.records, type: stored, changesSchema: false };
    },
  };
}

function fitAll(
  events: readonly LogEvent[],
  start: StructType,
  limits: SchemaLimits,
  memo: TypeMemo,
): { records: StoredRecord[]; type: StructType } {
  let type = start;
  const records = events.map((event): StoredRecord => {
    const fitted = reconcileMetadata(event.metadata, type, limits, 'metadata', memo);
    type = fitted.type;
    const extra = fitted.extra === noExtra ? event.extra : { ...event.extra, ...fitted.extra };
    return { event, metadata: fitted.value, extra };
  });
  return { records, type };
}
