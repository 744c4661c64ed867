import { isQuerygateError, QuerygateError } from '../errors.js';
import type { SavedQuery } from './query-engine.js';

/**
 * How an engine answers a failure of a caller's SQL (a sandboxed call): what the translator
 * refuses is placed in the caller's text, not the merged one, and a query the caller got wrong
 * (an unknown column, a bad cast) or made too large is the caller's 400, not the engine's 502.
 */
export function callerSqlError(
  query: SavedQuery,
  error: unknown,
  faultOf: CallerFaultOf,
): QuerygateError | undefined {
  const offset = query.callerLineOffset;
  if (offset === undefined) return undefined;
  if (isQuerygateError(error)) {
    const line = error.details?.line;
    if (error.code !== 'UNSUPPORTED_SQL' || typeof line !== 'number' || line <= offset) return undefined;
    const construct = String(error.details?.construct ?? 'this construct');
    const column = error.details?.column;
    const reason = error.details?.reason;
    const said =
      typeof reason === 'string' ? `sql: ${reason}` : `Cannot translate sql to DuckDB: ${construct}`;
    return new QuerygateError('UNSUPPORTED_SQL', `${said} (line ${line - offset}, column ${column})`, {
      details: { parameter: 'sql', construct, line: line - offset, column },
      cause: error,
    });
  }
  const message = error instanceof Error ? error.message : String(error);
  const fault = faultOf(error, message);
  if (fault === 'too-expensive') {
    return new QuerygateError(
      'SANDBOX_TOO_EXPENSIVE',
      `${query.name}: sql needs more memory than one call may have; narrow it (a time range, a LIMIT, fewer joins)`,
      { details: { parameter: 'sql' }, cause: error },
    );
  }
  if (fault === 'invalid') {
    return new QuerygateError('SANDBOX_INVALID_SQL', `sql does not run: ${firstLine(message)}`, {
      details: { parameter: 'sql' },
      cause: error,
    });
  }
  return undefined;
}

/**
 * Which failures of a run are the caller's SQL at fault, in an engine's own terms: a query the
 * engine cannot bind or run as written (`invalid`), or one too large for a call (`too-expensive`).
 */
export type CallerFaultOf = (error: unknown, message: string) => 'invalid' | 'too-expensive' | undefined;

function firstLine(message: string): string {
  return message.split('\n', 1)[0] ?? message;
}
