import { isQuerygateError, QuerygateError } from '../errors.js';
import { type Ast, visitNodes } from './bigquery-ast.js';

/** Where in the saved SQL text a refused construct is: 1-based, as sqlparser counts. */
export interface SqlLocation {
  readonly line: number;
  readonly column: number;
}

/**
 * A construct the translator has no rule for. Rules throw it without a location; the walk over
 * the AST (`atNode`) adds the position of the innermost node being translated, so every rule,
 * present or future, reports its line and column without knowing about spans.
 */
export function unsupported(construct: string): QuerygateError {
  return new QuerygateError('UNSUPPORTED_SQL', `Cannot translate to DuckDB: ${construct}`, {
    details: { construct },
  });
}

/**
 * Runs `translate` for `node`; an UNSUPPORTED_SQL error that comes out of it without a location
 * gets the first position the parser recorded inside `node`.
 */
export function atNode<T>(node: Ast, translate: () => T): T {
  try {
    return translate();
  } catch (error) {
    if (!isQuerygateError(error) || error.code !== 'UNSUPPORTED_SQL' || error.details?.line !== undefined)
      throw error;
    const location = firstLocation(node);
    if (!location) throw error;
    const construct = String(error.details?.construct ?? error.message);
    // A refusal in words of its own (`details.reason`, not "Cannot translate ...") keeps them.
    const reason = error.details?.reason;
    const said = typeof reason === 'string' ? reason : `Cannot translate to DuckDB: ${construct}`;
    throw new QuerygateError(
      'UNSUPPORTED_SQL',
      `${said} (line ${location.line}, column ${location.column})`,
      {
        details: { ...error.details, construct, ...location },
        cause: error,
      },
    );
  }
}

/** The earliest position the parser recorded anywhere inside `node`. */
export function firstLocation(node: Ast): SqlLocation | undefined {
  let first: SqlLocation | undefined;
  visitNodes(node, (child) => {
    const start = child.span?.start;
    if (typeof start?.line !== 'number' || start.line < 1) return;
    if (!first || start.line < first.line || (start.line === first.line && start.column < first.column))
      first = { line: start.line, column: start.column };
  });
  return first;
}
