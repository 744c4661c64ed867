import { chmodSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { makeDataDirectory } from '../../src/data-directory.js';

describe('making the data directory', () => {
  const root = mkdtempSync(join(tmpdir(), 'querygate-data-dir-'));
  const file = join(root, 'a-file');
  writeFileSync(file, 'not a directory');
  afterAll(() => {
    chmodSync(root, 0o755);
    rmSync(root, { recursive: true, force: true });
  });

  it('makes it and its missing parents', () => {
    makeDataDirectory(join(root, 'one', 'two'));
    expect(statSync(join(root, 'one', 'two')).isDirectory()).toBe(true);
  });

  it('refuses a file, naming it', () => {
    expect(() => makeDataDirectory(file)).toThrow(`the data directory ${file} is a file, not a directory`);
  });

  it('refuses a path below a file, naming both', () => {
    expect(() => makeDataDirectory(join(file, 'data'))).toThrow(
      `the data directory ${join(file, 'data')} cannot be made: ${file} is a file, not a directory`,
    );
  });

  it('refuses a path under /proc at once (recursive mkdir never returns there)', () => {
    expect(() => makeDataDirectory('/proc/querygate/data')).toThrow(
      'the data directory /proc/querygate/data cannot be made: /proc/querygate cannot be made (its file system takes no new directories, ENOENT)',
    );
  });

  // Root writes anywhere; the check is the kernel's, so it is seen only as another user.
  it.skipIf(process.getuid?.() === 0)('refuses a directory it cannot write in', () => {
    const readOnly = join(root, 'read-only');
    makeDataDirectory(readOnly);
    chmodSync(readOnly, 0o555);
    expect(() => makeDataDirectory(readOnly)).toThrow(
      `the data directory ${readOnly} is not writable by querygate (EACCES)`,
    );
    chmodSync(readOnly, 0o755);
  });
});
