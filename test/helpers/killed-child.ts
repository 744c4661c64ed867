import { spawn } from 'node:child_process';
import { resolve } from 'node:path';

const repoRoot = resolve(import.meta.dirname, '../..');

/**
 * Runs a TypeScript `script` (through tsx) as a child process until it prints `ok`, then kills it
 * with SIGKILL, the way a crash or `kill -9` ends a process: no exit handlers, no checkpoint.
 * Resolves with the signal that ended it; rejects with its stderr if it exits before `ok`.
 */
export async function runUntilOkThenKill(
  script: string,
  args: readonly string[],
): Promise<NodeJS.Signals | null> {
  const child = spawn(process.execPath, ['--import', 'tsx', script, ...args], {
    cwd: repoRoot,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr += String(chunk);
  });
  const exited = new Promise<NodeJS.Signals | null>((done) =>
    child.once('exit', (_code, signal) => done(signal)),
  );
  await new Promise<void>((done, fail) => {
    child.stdout.on('data', (chunk) => {
      if (String(chunk).includes('ok')) done();
    });
    void exited.then(() => fail(new Error(`the child exited before printing ok: ${stderr}`)));
  });
  child.kill('SIGKILL');
  return exited;
}
