import type { DuckDBConnection } from '@duckdb/node-api';
import { jsonNumberFault } from '../sql/json-numbers.js';
import { bigQueryJsonText } from '../sql/json-text.js';
import { jsonNumbersFunction, jsonTextFunction } from '../sql/rules/rule.js';
import { registerTextFunction } from './text-function.js';

/**
 * Makes `bigquery_json_text(VARCHAR) → VARCHAR` known to the connection's whole DuckDB instance: a
 * JSON value's text as BigQuery's JSON type writes it, members ordered by key and the first of
 * duplicate keys (sql/json-text.ts), for TO_JSON_STRING of a JSON value.
 */
export function registerBigQueryJsonText(connection: DuckDBConnection): void {
  registerTextFunction(connection, jsonTextFunction, bigQueryJsonText);
}

/**
 * Makes `bigquery_json_exact_numbers(VARCHAR) → VARCHAR` known to the instance: PARSE_JSON's text
 * as it is, or BigQuery's error for its first number no INT64, UINT64 or DOUBLE holds exactly.
 */
export function registerJsonExactNumbers(connection: DuckDBConnection): void {
  registerTextFunction(connection, jsonNumbersFunction, (text) => {
    const fault = jsonNumberFault(text);
    if (fault) throw new Error(fault);
    return text;
  });
}
