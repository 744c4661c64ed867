import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { sourceFiles, srcDir } from '../helpers/source-files.js';

// Every error the translation raises at run time carries sql/raised-errors.ts's mark, by which the
// engine answers it as the query's fault (400, BigQuery's message) and not its own (502): SQL that
// calls DuckDB's error() is written by raiseSql, never by hand. Caught here: `error(` in the text
// of any string or template in src/, comments aside. GoogleSQL the translation reads, written as
// BigQuery SQL in upper case (`ERROR('...')`, sql/recursion-limit.ts), is translated by the rules
// into a marked error like a query's own ERROR(), so it is not DuckDB's and not caught.

/** Every string or template piece of `file` that calls error() itself, as `path:line text`. */
function unmarkedRaises(file: string): string[] {
  const text = readFileSync(file, 'utf8');
  // Parsed only where the words appear at all: most files never name error().
  if (!/error\s*\(/.test(text)) return [];
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isStringLiteralLike(node) || ts.isTemplateLiteralToken(node)) {
      if (/(?<![\w.])error\s*\(/.test(node.text)) {
        const { line } = source.getLineAndCharacterOfPosition(node.getStart(source));
        found.push(`${relative(srcDir, file)}:${line + 1} ${node.text.slice(0, 80)}`);
      }
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('errors the translation raises', () => {
  it('are all written by raiseSql, which marks them', () => {
    const files = sourceFiles(srcDir).filter((file) => !file.endsWith(join('sql', 'raised-errors.ts')));
    expect(files.flatMap(unmarkedRaises)).toEqual([]);
  });
});
