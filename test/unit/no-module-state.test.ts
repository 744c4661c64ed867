import { readFileSync } from 'node:fs';
import { relative } from 'node:path';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';
import { sourceFiles, srcDir } from '../helpers/source-files.js';

// No module of src/ keeps state of its own: what a part remembers lives in what its factory
// returns (and goes with it), so two servers in one process never share anything and a test
// never inherits another's leftovers. Caught here: a top-level `let`/`var`, and a top-level
// `const` bound to a container that starts empty (`[]`, `{}`, `new Map()`, `new Set([])`) or to
// a WeakMap/WeakSet (a side table keyed by other objects). A non-empty constant built from
// literals (`new Set(['a', 'b'])`, a lookup table) is not state.

const containers = new Set(['Map', 'Set', 'WeakMap', 'WeakSet', 'Array', 'Object']);
const sideTables = new Set(['WeakMap', 'WeakSet']);

/** Why `initializer` is module state, or undefined when it is not. */
function stateOf(initializer: ts.Expression | undefined): string | undefined {
  if (!initializer) return undefined;
  let expression = initializer;
  while (
    ts.isAsExpression(expression) ||
    ts.isSatisfiesExpression(expression) ||
    ts.isParenthesizedExpression(expression)
  )
    expression = expression.expression;
  if (ts.isArrayLiteralExpression(expression) && expression.elements.length === 0) return 'an empty array';
  if (ts.isObjectLiteralExpression(expression) && expression.properties.length === 0)
    return 'an empty object';
  if (ts.isNewExpression(expression) && ts.isIdentifier(expression.expression)) {
    const kind = expression.expression.text;
    if (sideTables.has(kind)) return `a ${kind}`;
    const [first] = expression.arguments ?? [];
    const empty = !first || (ts.isArrayLiteralExpression(first) && first.elements.length === 0);
    if (containers.has(kind) && empty) return `an empty ${kind}`;
  }
  return undefined;
}

/** Every top-level declaration of `file` that holds module state, as `path:line name: why`. */
function moduleState(file: string): string[] {
  const path = relative(srcDir, file);
  const source = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  for (const statement of source.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    const list = statement.declarationList;
    const isConst = (list.flags & ts.NodeFlags.Const) !== 0;
    for (const declaration of list.declarations) {
      const name = declaration.name.getText(source);
      const why = isConst ? stateOf(declaration.initializer) : 'a top-level let/var';
      if (why === undefined) continue;
      const line = source.getLineAndCharacterOfPosition(declaration.getStart(source)).line + 1;
      found.push(`${path}:${line} ${name}: ${why}`);
    }
  }
  return found;
}

describe('module state in src/', () => {
  it('finds none: no top-level let, no top-level container that starts empty, no side table', () => {
    expect(sourceFiles(srcDir).flatMap(moduleState)).toEqual([]);
  });

  it('recognises each kind of module state it forbids', () => {
    const probe = (text: string) => {
      const source = ts.createSourceFile('probe.ts', text, ts.ScriptTarget.Latest, true);
      const [statement] = source.statements as unknown as ts.VariableStatement[];
      const declaration = statement?.declarationList.declarations[0];
      const isConst = ((statement?.declarationList.flags ?? 0) & ts.NodeFlags.Const) !== 0;
      return isConst ? stateOf(declaration?.initializer) : 'a top-level let/var';
    };
    expect(probe('let count = 0;')).toBe('a top-level let/var');
    expect(probe('const seen = new Map<string, number>();')).toBe('an empty Map');
    expect(probe('const names = new Set([]);')).toBe('an empty Set');
    expect(probe('const owners = new WeakMap<object, number>();')).toBe('a WeakMap');
    expect(probe('const queue: string[] = [];')).toBe('an empty array');
    expect(probe('const byName = {} as Record<string, number>;')).toBe('an empty object');
    expect(probe("const units = new Set(['hour', 'day']);")).toBeUndefined();
    expect(probe("const methods = ['GET', 'POST'] as const;")).toBeUndefined();
  });
});
