import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The package root. This file sits one level below it both as `src/paths.ts` (tests) and as
 * `dist/paths.js` (built), so saved queries resolve the same way in both.
 */
export const packageRoot = fileURLToPath(new URL('..', import.meta.url));
export const queriesDir = fileURLToPath(new URL('../queries/', import.meta.url));

/** querygate's version, as package.json says (`querygate --version`, `querygate_build_info`). */
export function querygateVersion(): string {
  const manifest = JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { version: string };
  return manifest.version;
}
