import type { DuckDBConnection } from '@duckdb/node-api';
import { jsonNumberFault } from '../sql/json-numbers.js';
import { bigQueryJsonText } from '../sql/json-text.js';
import { raisedError } from '../sql/raised-errors.js';
import { roundRefusal } from '../sql/rules/json.js';
import { jsonNumbersFunction, jsonRoundNumbersFunction, jsonTextFunction } from '../sql/rules/rule.js';
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
 * as it is, or BigQuery's error for its first number no INT64, UINT64 or DOUBLE holds exactly; and
 * `bigquery_json_round_numbers`, the same for wide_number_mode => 'round', refusing such a number.
 */
export function registerJsonExactNumbers(connection: DuckDBConnection): void {
  registerTextFunction(connection, jsonNumbersFunction, (text) => {
    const fault = jsonNumberFault(text);
    if (fault) throw raisedError(fault);
    return text;
  });
  // wide_number_mode => 'round': the same text where no number would be rounded.
  registerTextFunction(connection, jsonRoundNumbersFunction, (text) => {
    if (jsonNumberFault(text)) throw raisedError(roundRefusal);
    return text;
  });
}
