import type { BigQuery, Table } from '@google-cloud/bigquery';
import { extraColumn } from '../../endpoints/log-record.js';
import type { LogSource } from '../../endpoints/sources.js';
import { QuerygateError } from '../../errors.js';
import { parseEventTimestamp } from '../../storage/event-timestamp.js';
import { checkLogEvents, type LogEvent } from '../../storage/log-event.js';
import { type BigQueryConfig, bigQueryTables, tableParts } from './config.js';
import { bigQueryStatus, toQuerygateError } from './errors.js';
import type { WireField } from './rows.js';

/**
 * Ingestion on the BigQuery engine: `POST /api/logs` events streamed into the source's mapped
 * table with tabledata.insertAll, in the shape Logflare gives them (every object a repeated
 * record). The table's schema is BigQuery's, read with tables.get, and is never altered here:
 * a field the table lacks, or a value that does not fit its field, goes to the `_extra` JSON
 * column by path (as on the embedded store) when the table has one, and is dropped otherwise.
 */

export interface BigQueryLogSinkOptions {
  readonly config: BigQueryConfig;
  readonly client: BigQuery;
  /** The sources ingestion may write: the served queries directory's. */
  readonly sources: readonly LogSource[];
  /** The clock that stamps events sent without a timestamp. @default () => new Date() */
  readonly now?: () => Date;
  /** How long a table's schema is used before tables.get reads it again. @default 60000 */
  readonly schemaTtlMs?: number;
}

export interface BigQueryLogSink {
  /**
   * Streams one request's events into the source's table. Throws BAD_PARAMETER for an unknown
   * source, BAD_REQUEST naming the first bad event, NOT_FOUND when the table does not exist.
   * insertAll is not transactional: a request of more than one batch may be stored in part.
   */
  write(sourceName: string, events: readonly unknown[]): Promise<{ ingested: number }>;
}

/** Rows per insertAll request; BigQuery recommends at most 500. */
const batchSize = 500;

export function createBigQueryLogSink(options: BigQueryLogSinkOptions): BigQueryLogSink {
  const now = options.now ?? (() => new Date());
  const ttl = options.schemaTtlMs ?? 60_000;
  const tables = bigQueryTables(options.config, options.sources);
  const schemas = new Map<string, { fields: readonly WireField[]; readAt: number }>();

  function tableOf(qualified: string): Table {
    const [project, dataset, table] = tableParts(qualified);
    return options.client.dataset(dataset, { projectId: project }).table(table);
  }

  function missingTable(source: LogSource, qualified: string, cause: unknown): QuerygateError {
    return new QuerygateError(
      'NOT_FOUND',
      `The BigQuery table ${qualified} of source '${source.name}' does not exist. Create the tables ` +
        'with `querygate bigquery setup --tables`, or map the source to an existing table in ' +
        'QUERYGATE_BIGQUERY_TABLES',
      { cause, details: { table: qualified } },
    );
  }

  async function fieldsOf(source: LogSource, qualified: string): Promise<readonly WireField[]> {
    const cached = schemas.get(qualified);
    if (cached && Date.now() - cached.readAt < ttl) return cached.fields;
    try {
      const [metadata] = await tableOf(qualified).getMetadata();
      const fields = (metadata?.schema?.fields ?? []) as WireField[];
      schemas.set(qualified, { fields, readAt: Date.now() });
      return fields;
    } catch (error) {
      if (bigQueryStatus(error) === 404) throw missingTable(source, qualified, error);
      throw toQuerygateError(error, { subject: `Reading the schema of ${qualified}` });
    }
  }

  return {
    async write(sourceName, events) {
      const { source, events: checked } = checkLogEvents(sourceName, events, now(), options.sources);
      if (checked.length === 0) return { ingested: 0 };
      const qualified = tables[source.name] as string;
      const fields = await fieldsOf(source, qualified);
      const rows = checked.map((event) => ({ insertId: event.id, json: toTableRow(event, source, fields) }));
      for (let start = 0; start < rows.length; start += batchSize) {
        const batch = rows.slice(start, start + batchSize);
        try {
          await tableOf(qualified).insert(batch, {
            raw: true,
            partialRetries: 0,
            skipInvalidRows: false,
            ignoreUnknownValues: false,
          });
        } catch (error) {
          if (bigQueryStatus(error) === 404) {
            schemas.delete(qualified);
            throw missingTable(source, qualified, error);
          }
          const refused = firstRefusedRow(error, batch);
          if (refused) {
            // The schema changed under us (or a value is out of range): read it afresh next time.
            schemas.delete(qualified);
            const index = start + refused.index;
            throw new QuerygateError(
              'BAD_REQUEST',
              `event ${index}: BigQuery refused it: ${refused.message}`,
              {
                cause: error,
                details: { index, reason: refused.message },
              },
            );
          }
          throw toQuerygateError(error, { subject: `Inserting into ${qualified}` });
        }
      }
      return { ingested: checked.length };
    },
  };
}

/** The first row insertAll refused for itself (the others of the batch are only `stopped`). */
export function firstRefusedRow(
  error: unknown,
  batch: readonly unknown[],
): { index: number; message: string } | undefined {
  if ((error as { name?: unknown })?.name !== 'PartialFailureError') return undefined;
  const failures = (
    error as { errors?: Array<{ row?: unknown; errors?: Array<{ reason?: string; message?: string }> }> }
  ).errors;
  for (const failure of failures ?? []) {
    const own = failure.errors?.find((item) => item.reason !== 'stopped');
    if (own)
      return {
        index: Math.max(0, batch.indexOf(failure.row)),
        message: own.message || own.reason || 'invalid row',
      };
  }
  return undefined;
}

/** A JSON value held in `_extra`, keyed by its path. */
type Extra = Map<string, unknown>;

/** One event as an insertAll row of a table with `fields`. */
export function toTableRow(
  event: LogEvent,
  source: LogSource,
  fields: readonly WireField[],
): Record<string, unknown> {
  const extra: Extra = new Map(Object.entries(event.extra));
  const row: Record<string, unknown> = {
    id: event.id,
    timestamp: isoMicros(event.timestamp),
    event_message: event.eventMessage,
  };
  if (source.hasProject && event.project !== null) row.project = event.project;
  const metadataField = findField(fields, 'metadata');
  if (event.metadata !== null) {
    if (metadataField) {
      const fitted = fitValue(event.metadata, metadataField, 'metadata', extra);
      if (fitted !== undefined) row.metadata = fitted;
    } else {
      extra.set('metadata', event.metadata);
    }
  }
  const extraField = findField(fields, extraColumn);
  if (extraField && extra.size > 0) row[extraField.name] = JSON.stringify(Object.fromEntries(extra));
  return row;
}

/** BigQuery field names are case-insensitive, as DuckDB's are. */
function findField(fields: readonly WireField[], name: string): WireField | undefined {
  const lower = name.toLowerCase();
  return fields.find((field) => field.name.toLowerCase() === lower);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function isRecordField(field: WireField): boolean {
  return field.type === 'RECORD' || field.type === 'STRUCT';
}

/** `value` fitted to `field`, or undefined when nothing of it can be stored there (it went to `extra`). */
function fitValue(value: unknown, field: WireField, path: string, extra: Extra): unknown {
  if (value === null || value === undefined) return undefined;
  if (field.mode === 'REPEATED') {
    // An object is a repeated record of one; an array holds one element per item. BigQuery
    // arrays hold no NULLs, so an item that does not fit leaves the array for `extra`.
    const items =
      isPlainObject(value) && isRecordField(field) ? [value] : Array.isArray(value) ? value : undefined;
    if (!items) {
      extra.set(path, value);
      return undefined;
    }
    const single = !Array.isArray(value);
    const fitted: unknown[] = [];
    items.forEach((item, index) => {
      const itemPath = single ? path : `${path}[${index}]`;
      const element = fitElement(item, field, itemPath, extra);
      if (element !== undefined) fitted.push(element);
    });
    return fitted;
  }
  return fitElement(value, field, path, extra);
}

function fitElement(value: unknown, field: WireField, path: string, extra: Extra): unknown {
  if (value === null || value === undefined) return undefined;
  if (isRecordField(field)) {
    if (!isPlainObject(value)) {
      extra.set(path, value);
      return undefined;
    }
    const record: Record<string, unknown> = {};
    for (const [key, child] of Object.entries(value)) {
      const childField = findField(field.fields ?? [], key);
      const childPath = `${path}.${key}`;
      if (!childField || childField.name in record) {
        extra.set(childPath, child);
        continue;
      }
      const fitted = fitValue(child, childField, childPath, extra);
      if (fitted !== undefined) record[childField.name] = fitted;
    }
    return record;
  }
  const scalar = fitScalar(value, field.type);
  if (scalar === undefined) extra.set(path, value);
  return scalar;
}

function fitScalar(value: unknown, type: string): unknown {
  switch (type.toUpperCase()) {
    case 'STRING':
      return typeof value === 'string' ? value : undefined;
    case 'INTEGER':
    case 'INT64':
      return typeof value === 'number' && Number.isInteger(value) && Math.abs(value) < 2 ** 63
        ? value
        : undefined;
    case 'FLOAT':
    case 'FLOAT64':
    case 'NUMERIC':
    case 'BIGNUMERIC':
      return typeof value === 'number' && Number.isFinite(value) ? value : undefined;
    case 'BOOLEAN':
    case 'BOOL':
      return typeof value === 'boolean' ? value : undefined;
    case 'TIMESTAMP': {
      const micros =
        typeof value === 'string' || typeof value === 'number' ? parseEventTimestamp(value) : undefined;
      return micros === undefined ? undefined : isoMicros(micros);
    }
    case 'JSON':
      return JSON.stringify(value);
    default:
      // DATE, DATETIME, TIME, GEOGRAPHY, BYTES: BigQuery reads them from their text forms.
      return typeof value === 'string' ? value : undefined;
  }
}

/** `2024-05-01T12:00:00.123456Z`: a TIMESTAMP in BigQuery's canonical text, to the microsecond. */
export function isoMicros(micros: bigint): string {
  const fraction = ((micros % 1_000_000n) + 1_000_000n) % 1_000_000n;
  const seconds = (micros - fraction) / 1_000_000n;
  const base = new Date(Number(seconds) * 1000).toISOString().slice(0, 19);
  return `${base}.${fraction.toString().padStart(6, '0')}Z`;
}
