import { accessSync, constants, mkdirSync, type Stats, statSync } from 'node:fs';
import { dirname } from 'node:path';

/**
 * Makes the data directory (and its missing parents) and checks that querygate can write in it,
 * or throws one line naming the directory and what is wrong. Node 20's recursive mkdir never
 * returns for a path under /proc (it steps back on ENOENT and forward on EEXIST for ever), so
 * the parents are made one at a time here, each failure final.
 */
export function makeDataDirectory(dir: string): void {
  const missing: string[] = [];
  let existing = dir;
  let stat = statOf(existing);
  while (!stat && dirname(existing) !== existing) {
    missing.unshift(existing);
    existing = dirname(existing);
    stat = statOf(existing);
  }
  if (stat && !stat.isDirectory())
    throw new Error(
      existing === dir
        ? `the data directory ${dir} is a file, not a directory`
        : `the data directory ${dir} cannot be made: ${existing} is a file, not a directory`,
    );
  for (const path of missing) {
    try {
      mkdirSync(path);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') continue;
      const where = path === dir ? '' : `: ${path} cannot be made`;
      throw new Error(`the data directory ${dir} cannot be made${where} (${refusal(code)})`);
    }
  }
  try {
    accessSync(dir, constants.W_OK | constants.X_OK);
  } catch (error) {
    throw new Error(
      `the data directory ${dir} is not writable by querygate (${(error as NodeJS.ErrnoException).code})`,
    );
  }
}

function refusal(code: string | undefined): string {
  if (code === 'EACCES' || code === 'EPERM') return `permission denied, ${code}`;
  if (code === 'EROFS') return 'read-only file system, EROFS';
  // ENOENT once its parent was found: a file system that takes no new directories, as /proc.
  if (code === 'ENOENT') return 'its file system takes no new directories, ENOENT';
  return `${code}`;
}

/** What is at `path`, or undefined when nothing is (ENOTDIR: a parent on the way is a file). */
function statOf(path: string): Stats | undefined {
  try {
    return statSync(path);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') return undefined;
    throw new Error(`the data directory ${path} cannot be read (${code})`);
  }
}
