import type { LogSource } from './sources.js';
import type { AdmitStoring } from './storing-cost.js';

/**
 * The shape of a stored log record, declared once for every backend: what `GET /api/sources`
 * lists, the DuckDB table of a source and the BigQuery one are each this list mapped to their
 * own types (`storage/log-tables.ts`, `backends/bigquery/tables.ts`).
 */

/** The column holding values that did not fit their field's type, keyed by path. */
export const extraColumn = '_extra';

/** A record field's type, in BigQuery's names (the ones the saved SQL and the API speak). */
export type LogFieldType = 'STRING' | 'TIMESTAMP' | 'RECORD' | 'JSON';

export interface LogRecordField {
  readonly name: string;
  readonly type: LogFieldType;
  /** Every record has it (a backend may declare it NOT NULL). */
  readonly required: boolean;
  /** Querygate's own bookkeeping (`_extra`), not a field a client sends or is told of. */
  readonly internal: boolean;
}

const field = (name: string, type: LogFieldType, required = false, internal = false): LogRecordField => ({
  name,
  type,
  required,
  internal,
});

/** A source's record fields, in column order: `project` only where the source has one. */
export function logRecordFields(source: Pick<LogSource, 'hasProject'>): readonly LogRecordField[] {
  return [
    field('id', 'STRING'),
    field('timestamp', 'TIMESTAMP', true),
    field('event_message', 'STRING'),
    ...(source.hasProject ? [field('project', 'STRING')] : []),
    field('metadata', 'RECORD'),
    field(extraColumn, 'JSON', false, true),
  ];
}

export interface LogWriteOptions {
  /** Told the request's cost once its records are fitted; throws to refuse it, nothing stored. */
  readonly admit?: AdmitStoring | undefined;
}

/** Where ingestion writes records: the backend's store or warehouse. */
export interface LogSink {
  write(sourceName: string, events: unknown[], options?: LogWriteOptions): Promise<{ ingested: number }>;
  /**
   * Settles once the records acknowledged so far are committed, when some are not yet (the
   * embedded store commits after the acknowledgement, see storage/log-writer.ts).
   */
  committed?(): Promise<void> | undefined;
}
