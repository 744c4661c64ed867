import { isQuerygateError } from '../errors.js';

/** Where in a SQL text a problem is: 1-based, as editors and sqlparser count. */
interface SqlPosition {
  readonly line: number;
  readonly column: number;
}

/**
 * A problem of a saved query's SQL as one line against its `.sql` file, with the line and column
 * where they are known (`queries/x.sql:3:11: SQL does not parse: ...`), as compilers report it:
 * a refused construct carries its position (`(line 3, column 11)` in its text), a parse error
 * names it in its text (sqlparser's `at Line: 3, Column: 11`), and one that ran out of text (`found: EOF`) is at the text's end.
 */
export function sqlProblemLine(sqlFile: string, error: unknown, sql?: string): string {
  const message = error instanceof Error ? error.message : String(error);
  const position = positionOf(error, message, sql);
  return `${sqlFile}${position ? `:${position.line}:${position.column}` : ''}: ${message}`;
}

function positionOf(error: unknown, message: string, sql: string | undefined): SqlPosition | undefined {
  const details = isQuerygateError(error) ? error.details : undefined;
  if (typeof details?.line === 'number' && typeof details.column === 'number')
    return { line: details.line, column: details.column };
  // sqlparser's words, or the translator's as a wrapping message (`does not prepare`) keeps them.
  const parsed = /\bLine: (\d+), Column: (\d+)|\(line (\d+), column (\d+)\)/.exec(message);
  if (parsed) return { line: Number(parsed[1] ?? parsed[3]), column: Number(parsed[2] ?? parsed[4]) };
  if (sql !== undefined && /\bfound: EOF\b/.test(message)) {
    const lines = sql.trimEnd().split('\n');
    return { line: lines.length, column: (lines.at(-1)?.length ?? 0) + 1 };
  }
  return undefined;
}
