import { type FieldType, isListType, isStructType } from '../../endpoints/field-type.js';
import { logRecordFields } from '../../endpoints/log-record.js';
import type { LogSource } from '../../endpoints/sources.js';

/**
 * The BigQuery table of a log source as `querygate bigquery setup --tables` creates it: the
 * columns of the embedded store, every object a REPEATED RECORD (Logflare's layout), `_extra`
 * as JSON, partitioned by day on `timestamp`.
 */

/** The schema of a source's table, as tables.insert takes it. */
export function sourceTableSchema(source: LogSource): SchemaField[] {
  return logRecordFields(source).map((field) =>
    field.type === 'RECORD'
      ? metadataField(field.name, source.metadata)
      : { name: field.name, type: field.type, mode: field.required ? 'REQUIRED' : 'NULLABLE' },
  );
}

/** A field of a table's schema as tables.insert takes it. */
export interface SchemaField {
  name: string;
  type: string;
  mode: 'NULLABLE' | 'REQUIRED' | 'REPEATED';
  fields?: SchemaField[];
}

function metadataField(name: string, type: FieldType): SchemaField {
  if (isStructType(type)) {
    return {
      name,
      type: 'RECORD',
      mode: 'REPEATED',
      fields: Object.entries(type.struct).map(([child, childType]) => metadataField(child, childType)),
    };
  }
  if (isListType(type)) {
    if (isListType(type.list)) throw new Error(`${name}: BigQuery has no arrays of arrays`);
    return { ...metadataField(name, type.list), mode: 'REPEATED' };
  }
  const scalar = { VARCHAR: 'STRING', BIGINT: 'INTEGER', DOUBLE: 'FLOAT', BOOLEAN: 'BOOLEAN' }[type];
  return { name, type: scalar, mode: 'NULLABLE' } as const;
}

/** The GoogleSQL DDL equivalent of the table setup creates, for `querygate bigquery setup --print`. */
export function sourceTableDdl(source: LogSource, qualified: string): string {
  const columns = sourceTableSchema(source).map(
    (field) => `  ${field.name} ${ddlType(field)}${field.mode === 'REQUIRED' ? ' NOT NULL' : ''}`,
  );
  return (
    `CREATE TABLE IF NOT EXISTS \`${qualified}\` (\n${columns.join(',\n')}\n)\n` +
    `PARTITION BY TIMESTAMP_TRUNC(timestamp, DAY)\n` +
    `OPTIONS (description = ${JSON.stringify(sourceTableDescription(source))});`
  );
}

/** The description a source's table carries, naming the source. */
export function sourceTableDescription(source: LogSource): string {
  return `querygate log source ${source.name}: ${source.description}`;
}

function ddlType(field: SchemaField): string {
  const legacy: Record<string, string> = { INTEGER: 'INT64', FLOAT: 'FLOAT64', BOOLEAN: 'BOOL' };
  const element = ['RECORD', 'STRUCT'].includes(field.type)
    ? `STRUCT<${(field.fields ?? []).map((child) => `${child.name} ${ddlType(child)}`).join(', ')}>`
    : (legacy[field.type] ?? field.type);
  return field.mode === 'REPEATED' ? `ARRAY<${element}>` : element;
}
