import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { makeDataDirectory } from './data-directory.js';

/**
 * The key used when QUERYGATE_API_KEYS is unset: generated on first start and kept in the data
 * directory (readable by the owner only), so restarts keep working with the same key.
 */
export function loadOrCreateApiKey(dataDir: string): { key: string; file: string; created: boolean } {
  const file = join(dataDir, 'api-key');
  if (existsSync(file)) return { key: readFileSync(file, 'utf8').trim(), file, created: false };
  makeDataDirectory(dataDir);
  const key = `qg_${randomBytes(24).toString('base64url')}`;
  writeFileSync(file, `${key}\n`, { mode: 0o600 });
  return { key, file, created: true };
}
