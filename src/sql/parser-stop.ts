/**
 * Where sqlparser stopped, from its error's `at Line: L, Column: C` (what `stopped` matched, the
 * line and column its first two groups): the text's lines, the line's index and the position in
 * that line as a JavaScript string index. For the rewrites that mend a form the parser cannot read
 * at the place it stopped (typed-struct-array-header.ts, safe-keyword-calls.ts).
 */
export function parserStop(
  sql: string,
  stopped: RegExpExecArray | null,
): { lines: string[]; lineIndex: number; line: string; position: number } | undefined {
  if (!stopped) return undefined;
  const lines = sql.split('\n');
  const lineIndex = Number(stopped[1]) - 1;
  const line = lines[lineIndex];
  if (line === undefined) return undefined;
  // sqlparser counts columns in characters (code points); a JavaScript string in UTF-16 units.
  const position = [...line].slice(0, Number(stopped[2]) - 1).join('').length;
  return { lines, lineIndex, line, position };
}
