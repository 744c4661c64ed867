/** A place in SQL text as sqlparser reports it: 1-based line and column. */
export interface Position {
  readonly line: number;
  readonly column: number;
}

/**
 * Turns the parser's 1-based line and column into an offset of the JavaScript string. sqlparser
 * counts lines at `\n` and columns in Unicode scalar values (a `\r` or a tab is one column), while
 * a JavaScript string counts UTF-16 units: an emoji earlier on the line is two of them.
 */
export function createLocator(sql: string): (position: Position) => number {
  const lineStarts = [0];
  for (let i = 0; i < sql.length; i++) if (sql[i] === '\n') lineStarts.push(i + 1);
  return ({ line, column }) => {
    const lineStart = lineStarts[line - 1];
    if (lineStart === undefined) throw new Error(`The parser reported line ${line}, past the end of the SQL`);
    let offset = lineStart;
    for (let step = 1; step < column; step++) {
      const code = sql.codePointAt(offset);
      if (code === undefined)
        throw new Error(`The parser reported column ${column}, past the end of line ${line}`);
      offset += code > 0xffff ? 2 : 1;
    }
    return offset;
  };
}
