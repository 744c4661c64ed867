import { parserStop } from './parser-stop.js';

/**
 * BigQuery's typed array of STRUCTs, `ARRAY<STRUCT<x INT64, y STRING>>[(1, 'foo'), (3, 'bar')]`
 * (the UNNEST docs' own example), which sqlparser cannot read: it reads `ARRAY<INT64>[1, 2]` as
 * the comparisons `(ARRAY < INT64) > [1, 2]` (value-forms.ts, typedArraySql), but a STRUCT<...>
 * there is a typed STRUCT literal missing its `(`, and the `>>` closing both types a shift.
 *
 * Where the parser stops at such a header (at its `[`, or at the `>` after the STRUCT type), the
 * header is rewritten, on its own line and to the same length, as `STRUCT<x INT64, y STRING>(0)>[`:
 * every other character keeps its line and column, so the spans the translator reads (string
 * escapes, error positions) are those of the text as written. The parser reads that as the typed
 * STRUCT literal of one value compared with an array, which BigQuery has no meaning for (a STRUCT
 * is not ordered, nor of a type an ARRAY compares with): `typedStructArray` reads it back.
 */
export function withTypedStructArrayHeader(sql: string, parseError: string): string | undefined {
  const stop = parserStop(
    sql,
    /(?:unmatched > in STRUCT literal|Expected: \(, found: >) at Line: (\d+), Column: (\d+)$/.exec(
      parseError,
    ),
  );
  if (!stop) return undefined;
  const { lines, lineIndex, line } = stop;
  let { position } = stop;
  if (line[position] === '>') {
    position++;
    while (line[position] === ' ' || line[position] === '\t') position++;
  }
  if (line[position] !== '[') return undefined;
  const before = line.slice(0, position);
  const header = headerEndingAt(before);
  if (!header) return undefined;
  const { start, struct } = header;
  const replaced = before.slice(start);
  // `ARRAY<` and the blanks around it give the three characters `(0)` takes.
  const rewritten = `${struct}(0)>`;
  const padding = replaced.length - rewritten.length;
  if (padding < 0) return undefined;
  lines[lineIndex] = `${before.slice(0, start)}${' '.repeat(padding)}${rewritten}${line.slice(position)}`;
  return lines.join('\n');
}

/** `ARRAY<STRUCT<...>>` at the end of `text` (blanks allowed between), with its STRUCT type's text. */
function headerEndingAt(text: string): { start: number; struct: string } | undefined {
  const closing = /\s*>\s*$/.exec(text);
  if (!closing) return undefined;
  const typeEnd = closing.index;
  for (const match of [...text.matchAll(/\bARRAY\s*<\s*(STRUCT\s*<)/gi)].reverse()) {
    const structStart = match.index + match[0].length - (match[1] as string).length;
    const struct = text.slice(structStart, typeEnd);
    if (balancedType(struct)) return { start: match.index, struct };
  }
  return undefined;
}

/** Whether a type's text closes every `<` it opens, the last at its end. */
function balancedType(text: string): boolean {
  let depth = 0;
  for (let i = 0; i < text.length; i++) {
    if (text[i] === '<') depth++;
    else if (text[i] === '>') {
      depth--;
      if (depth < 0 || (depth === 0 && i !== text.length - 1)) return false;
    }
  }
  return depth === 0 && text.endsWith('>');
}
