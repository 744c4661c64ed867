import { parserStop } from './parser-stop.js';

/**
 * `SAFE.` before a function whose name sqlparser takes for a keyword: BigQuery's SAFE.SUBSTR,
 * SAFE.SUBSTRING, SAFE.TRIM, SAFE.CEIL and SAFE.FLOOR are the functions, NULL where they would
 * fail, but sqlparser reads `SAFE.SUBSTR` as a name and stops at the `(` after it.
 *
 * Where it stops there, the name is quoted (`SAFE.`SUBSTR`(`), which it reads as the call the
 * translator knows. Only that occurrence is touched, so text in a string or a comment stays as
 * written; the line grows by the two backquotes, so a position reported after the call on the
 * same line is two columns further on.
 */
export function withQuotedSafeKeyword(sql: string, parseError: string): string | undefined {
  const stop = parserStop(sql, /found: \( at Line: (\d+), Column: (\d+)$/.exec(parseError));
  if (!stop) return undefined;
  const { lines, lineIndex, line, position } = stop;
  const before = line.slice(0, position);
  const call = /\bSAFE\s*\.\s*(SUBSTR|SUBSTRING|TRIM|CEIL|FLOOR)\s*$/i.exec(before);
  if (!call) return undefined;
  const name = call[1] as string;
  const nameStart = call.index + call[0].lastIndexOf(name);
  lines[lineIndex] = `${line.slice(0, nameStart)}\`${name}\`${line.slice(nameStart + name.length)}`;
  return lines.join('\n');
}

/** How many calls `withQuotedSafeKeyword` may have to quote in `sql`: a bound on its retries. */
export function safeKeywordCalls(sql: string): number {
  return sql.match(/\bSAFE\s*\.\s*(?:SUBSTR|SUBSTRING|TRIM|CEIL|FLOOR)\s*\(/gi)?.length ?? 0;
}
