import { logRecordFields } from '../endpoints/log-record.js';
import type { LogSource } from '../endpoints/sources.js';
import type { TableColumn } from '../endpoints/table-columns.js';
import type { TableSource } from '../endpoints/table-source.js';

/**
 * The entries of `GET /api/sources`: each log source as Logflare lists one (its UUID as `id` and
 * `token`, the log record's columns), then each table source with `kind: table`, its warehouse
 * name, where `_TABLE_SUFFIX` comes from, whether HTTP ingestion takes its rows, and its columns
 * as BigQuery's schema JSON writes them (the form `sources.yaml` declares them in). Retention
 * applies to log sources only: a team's own table is never pruned, so a table entry has none.
 */
export function sourceList(
  logs: readonly LogSource[],
  tables: readonly TableSource[],
  tablesTakeRows: boolean,
): unknown[] {
  return [...logs.map(logEntry), ...tables.map((table) => tableEntry(table, tablesTakeRows))];
}

const logEntry = (source: LogSource) => ({
  id: source.id,
  token: source.id,
  name: source.name,
  description: source.description,
  columns: logRecordFields(source)
    .filter((field) => !field.internal)
    .map(({ name, type }) =>
      type === 'RECORD' ? { name, type, fields: source.metadata.struct } : { name, type },
    ),
});

const tableEntry = (source: TableSource, takesRows: boolean) => ({
  kind: 'table',
  ...(source.id ? { id: source.id, token: source.id } : {}),
  name: source.name,
  description: source.description,
  warehouseName: source.warehouseName ?? null,
  ...(source.tableSuffix ? { tableSuffix: source.tableSuffix } : {}),
  // Whether POST /api/logs?source_name=<name> stores rows on this backend.
  ingest: takesRows,
  columns: source.columns.map(schemaField),
});

/** A declared column as a field of BigQuery's schema JSON (a STRUCT is a RECORD with fields). */
function schemaField(column: TableColumn): Record<string, unknown> {
  return {
    name: column.name,
    type: column.type === 'STRUCT' ? 'RECORD' : column.type,
    mode: column.mode,
    ...(column.fields ? { fields: column.fields.map(schemaField) } : {}),
    ...(column.precision !== undefined ? { precision: column.precision } : {}),
    ...(column.scale !== undefined ? { scale: column.scale } : {}),
    ...(column.description ? { description: column.description } : {}),
  };
}
