import type { ColumnType, EngineValue, QueryResult, ResultRow } from '../engines/query-engine.js';
import { QuerygateError } from '../errors.js';
import type { Encoding } from '../resolve/encodings.js';
import { approximateValueSize } from '../resolve/result-size.js';

/** A result row with its column types at hand. */
export interface TypedRow {
  readonly row: ResultRow;
  readonly typeOf: (column: string) => ColumnType | undefined;
}

/**
 * Maps a result's rows to a field's shape once per result: a cached result is shared by every
 * call that hits it, so the mapping is kept with it (and counted in the cache's bound).
 */
export function createRowMapper<T>(map: (row: TypedRow) => T): Encoding<readonly T[]> {
  return {
    make(result: QueryResult) {
      const types = new Map(result.columns.map((column) => [column.name, column.type]));
      const typeOf = (column: string) => types.get(column);
      return result.rows.map((row) => map({ row, typeOf }));
    },
    sizeOf: (rows) => approximateValueSize(rows as unknown as EngineValue),
  };
}

/** INT64 as a GraphQL number; counts and milliseconds stay far below 2^53. */
export function numberValue(value: EngineValue | undefined): number | null {
  if (typeof value === 'number') return value;
  if (typeof value === 'bigint') return Number(value);
  // A NUMERIC of a table source arrives as its exact decimal text (see RecordWire).
  if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value)))
    return Number(value);
  return null;
}

/**
 * An INT64 for a field declared `Int`: the contract says its values fit 32 bits, so one that does
 * not is that field's error (an Error value, which graphql-js reports for the field), never a 500.
 */
export function int32Value(value: EngineValue | undefined, column: string): number | QuerygateError | null {
  const number = numberValue(value);
  if (number === null || (Number.isInteger(number) && number >= -(2 ** 31) && number < 2 ** 31))
    return number;
  return new QuerygateError(
    'VALUE_OUT_OF_RANGE',
    `The value ${String(value)} of column ${column} does not fit the GraphQL Int (32 bits) its contract declares (graphql: { type: Int }); REST returns it whole`,
    { details: { column } },
  );
}

/**
 * A FLOAT64 for a `Float` field: GraphQL's Float holds finite values only (the spec's Float is
 * IEEE 754 without NaN or the infinities), so +inf, -inf or NaN is that field's error, like an
 * Int out of range, never graphql-js's serialize error (which reads as a bad argument).
 */
export function floatValue(value: EngineValue | undefined, column: string): number | QuerygateError | null {
  const number = numberValue(value);
  if (number === null || Number.isFinite(number)) return number;
  return new QuerygateError(
    'VALUE_OUT_OF_RANGE',
    `The value ${String(number)} of column ${column} has no GraphQL Float (finite values only); REST returns it as the text "${String(number)}", as BigQuery does`,
    { details: { column } },
  );
}

export function textValue(value: EngineValue | undefined): string | null {
  if (value === null || value === undefined) return null;
  return typeof value === 'string' ? value : String(value);
}
