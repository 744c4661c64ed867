import { QuerygateError } from '../errors.js';
import type { SavedQuery } from './query-engine.js';

/**
 * A run that stopped on an error of the query itself, raised at run time in BigQuery's words (a
 * division by zero no parameter explains, an array index out of bounds, the ERROR() the SQL
 * calls): BigQuery answers it with HTTP 400, reason invalidQuery, and so does querygate on both
 * engines, with BigQuery's message. A caller's own SQL is named as `sql` (caller-sql-errors.ts);
 * a saved query by its endpoint's name.
 */
export function raisedRunError(query: SavedQuery, message: string, cause: unknown): QuerygateError {
  if (query.callerLineOffset !== undefined) {
    return new QuerygateError('SANDBOX_INVALID_SQL', `sql does not run: ${message}`, {
      details: { parameter: 'sql' },
      cause,
    });
  }
  return new QuerygateError('INVALID_QUERY', `${query.name} stopped on an error of its SQL: ${message}`, {
    details: { endpoint: query.name },
    cause,
  });
}
