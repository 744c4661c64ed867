import type { DuckDBConnection } from '@duckdb/node-api';
import { bigQueryJsonText } from '../sql/json-text.js';
import { jsonTextFunction } from '../sql/rules/rule.js';
import { registerTextFunction } from './text-function.js';

/**
 * Makes `bigquery_json_text(VARCHAR) → VARCHAR` known to the connection's whole DuckDB instance: a
 * JSON value's text as BigQuery's JSON type writes it, members ordered by key and the first of
 * duplicate keys (sql/json-text.ts), for TO_JSON_STRING of a JSON value.
 */
export function registerBigQueryJsonText(connection: DuckDBConnection): void {
  registerTextFunction(connection, jsonTextFunction, bigQueryJsonText);
}
