/**
 * DuckDB fragments of the warehouse oracles, over one row of a GA4 day table: an event
 * parameter's value as BigQuery's `(SELECT value.int_value FROM UNNEST(event_params) WHERE key =
 * '...')` means it (NULL when the event has no such parameter), written here by hand.
 */
export const intParam = (key: string) =>
  `(SELECT p.value.int_value FROM (SELECT unnest(event_params) AS p) WHERE p.key = '${key}')`;
export const stringParam = (key: string) =>
  `(SELECT p.value.string_value FROM (SELECT unnest(event_params) AS p) WHERE p.key = '${key}')`;
/** The `value` parameter whichever typed field holds it, as a DOUBLE. */
export const valueParam = `(SELECT coalesce(CAST(p.value.int_value AS DOUBLE), p.value.float_value, p.value.double_value)
   FROM (SELECT unnest(event_params) AS p) WHERE p.key = 'value')`;
/**
 * A session's key as the corpus writes it, CONCAT(user_pseudo_id, ga_session_id): BigQuery's
 * CONCAT casts the INT64 to STRING and is NULL when any argument is, as DuckDB's `||` is.
 */
export const sessionKey = (separator = '') =>
  `user_pseudo_id || '${separator}' || CAST(${intParam('ga_session_id')} AS VARCHAR)`;
/**
 * BigQuery's CAST(FLOAT64 AS STRING) for the fixtures' values (conversion rules: "an approximate
 * string representation"; a whole double has no fraction, '40' where DuckDB writes '40.0').
 */
export const floatText = (x: string) =>
  `CASE WHEN ${x} = trunc(${x}) THEN CAST(CAST(${x} AS BIGINT) AS VARCHAR) ELSE CAST(${x} AS VARCHAR) END`;
