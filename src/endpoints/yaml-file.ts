import { readFileSync } from 'node:fs';
import { type Document, isNode, LineCounter, parseDocument } from 'yaml';
import type { z } from 'zod';

/**
 * Reads a YAML file the user wrote and checks it against `schema`. Every problem is one line
 * naming the file, the line and column, and the field (`queries/logs.all.yaml:12:7:
 * parameters[1].values: ...`), as compilers do, so a bad file is refused with where and what to
 * fix rather than a stack trace.
 */
export function readYamlFile<S extends z.ZodType>(file: string, schema: S): z.output<S> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new Error(`${file}: cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  const lines = new LineCounter();
  const document = parseDocument(text, { prettyErrors: false, uniqueKeys: true, lineCounter: lines });
  if (document.errors.length > 0) {
    const problems = document.errors.map(
      (error) => `${at(file, lines, error.pos[0])}: ${error.message.split('\n')[0]}`,
    );
    throw new Error(problems.join('\n'));
  }
  const parsed = schema.safeParse(document.toJS({ maxAliasCount: 100 }));
  if (!parsed.success) {
    const where = (path: readonly PropertyKey[]) => at(file, lines, offsetOf(document, path));
    throw new Error(issueLines(file, parsed.error, where).join('\n'));
  }
  return parsed.data;
}

/**
 * One `file: path: message` line per zod issue; with `where`, the file is named with the line and
 * column of the path (`file:3:5`).
 */
export function issueLines(
  file: string,
  error: z.ZodError,
  where: (path: readonly PropertyKey[]) => string = () => file,
): string[] {
  return error.issues.map((issue) => {
    const path = issue.path
      .map((part, i) => (typeof part === 'number' ? `[${part}]` : `${i === 0 ? '' : '.'}${String(part)}`))
      .join('');
    return `${where(issue.path)}: ${path === '' ? '' : `${path}: `}${issue.message}`;
  });
}

/** `file:line:column` of an offset in its text (1-based, as editors count). */
function at(file: string, lines: LineCounter, offset: number | undefined): string {
  if (offset === undefined) return file;
  const { line, col } = lines.linePos(offset);
  return `${file}:${line}:${col}`;
}

/**
 * Where the value at `path` starts; for a key that is missing, where the nearest enclosing value
 * written starts (a missing `id` points at the mapping that lacks it).
 */
function offsetOf(document: Document, path: readonly PropertyKey[]): number | undefined {
  for (let length = path.length; length >= 0; length--) {
    const node = document.getIn(path.slice(0, length) as unknown[], true);
    if (isNode(node) && node.range) return node.range[0];
  }
  return undefined;
}
