import { readFileSync } from 'node:fs';
import { parseDocument } from 'yaml';
import type { z } from 'zod';

/**
 * Reads a YAML file the user wrote and checks it against `schema`. Every problem is one line
 * naming the file and the field (`queries/logs.all.yaml: parameters[1].values: ...`), so a bad
 * file is refused with what to fix rather than a stack trace.
 */
export function readYamlFile<S extends z.ZodType>(file: string, schema: S): z.output<S> {
  let text: string;
  try {
    text = readFileSync(file, 'utf8');
  } catch (error) {
    throw new Error(`${file}: cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})`);
  }
  const document = parseDocument(text, { prettyErrors: false, uniqueKeys: true });
  if (document.errors.length > 0) {
    const lines = document.errors.map((error) => `${file}: ${error.message.split('\n')[0]}`);
    throw new Error(lines.join('\n'));
  }
  const parsed = schema.safeParse(document.toJS({ maxAliasCount: 100 }));
  if (!parsed.success) throw new Error(issueLines(file, parsed.error).join('\n'));
  return parsed.data;
}

/** One `file: path: message` line per zod issue. */
export function issueLines(file: string, error: z.ZodError): string[] {
  return error.issues.map((issue) => {
    const path = issue.path
      .map((part, i) => (typeof part === 'number' ? `[${part}]` : `${i === 0 ? '' : '.'}${String(part)}`))
      .join('');
    return `${file}: ${path === '' ? '' : `${path}: `}${issue.message}`;
  });
}
