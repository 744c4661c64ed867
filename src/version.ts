import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from './paths.js';

/** querygate's version, as package.json says (`querygate --version`, `querygate_build_info`). */
export function querygateVersion(): string {
  const manifest = JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8')) as { version: string };
  return manifest.version;
}
