import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { queriesDir } from '../../src/paths.js';

/**
 * A directory holding the shipped `queries/sources.yaml` with `line` added to its edge source
 * (cloudflare.logs.prod); its path is pushed to `dirs` for the caller to remove.
 */
export function shippedSourcesWith(line: string, dirs: string[]): string {
  const dir = mkdtempSync(join(tmpdir(), 'querygate-edited-sources-'));
  dirs.push(dir);
  const shipped = readFileSync(join(queriesDir, 'sources.yaml'), 'utf8');
  const edited = shipped.replace(
    /^(\s*)- name: cloudflare\.logs\.prod$/m,
    `$1- name: cloudflare.logs.prod\n$1  ${line}`,
  );
  if (edited === shipped) throw new Error('the shipped sources.yaml has no cloudflare.logs.prod entry');
  writeFileSync(join(dir, 'sources.yaml'), edited);
  return dir;
}
