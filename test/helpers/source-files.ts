import { readdirSync } from 'node:fs';
import { join } from 'node:path';

/** The server's sources, which the static checks of test/unit read. */
export const srcDir = join(import.meta.dirname, '../../src');

/** Every .ts file below `dir`. */
export function sourceFiles(dir: string = srcDir): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith('.ts') ? [path] : [];
  });
}
