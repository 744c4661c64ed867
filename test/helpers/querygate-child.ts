import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { cpSync, mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { inject } from 'vitest';
import { packageRoot } from '../../src/paths.js';

/** The CLI's script, `node <it> <args>` as `querygate <args>`: src/ compiled for this run (compiled-source.ts). */
export function querygateCli(): string {
  return join(inject('compiledSource'), 'cli/main.js');
}

/**
 * `querygate <args>` to completion in a child process, `env` over this process's environment:
 * its exit code, stdout and stderr.
 */
export async function runQuerygate(
  args: readonly string[],
  env: NodeJS.ProcessEnv = {},
  /** Past this the command is killed (its code then null). @default no limit */
  timeoutMs = 0,
): Promise<{ code: number; stdout: string; stderr: string }> {
  try {
    const { stdout, stderr } = await promisify(execFile)(process.execPath, [querygateCli(), ...args], {
      cwd: packageRoot,
      env: { ...process.env, ...env },
      timeout: timeoutMs,
    });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failed = error as { code: number; stdout: string; stderr: string };
    return { code: failed.code, stdout: failed.stdout, stderr: failed.stderr };
  }
}

/**
 * A copy of examples/queries in a new temporary directory (`<dir>/queries`), served by
 * `spawnQuerygate` with its store in `<dir>/data`. Remove `dir` when done.
 */
export function serveExamplesCopy(options: {
  readonly apiKey: string;
  readonly args?: readonly string[];
  readonly onOutput: (text: string) => void;
}): { dir: string; queries: string; child: ChildProcess } {
  const dir = mkdtempSync(join(tmpdir(), 'querygate-examples-'));
  const queries = join(dir, 'queries');
  cpSync(join(packageRoot, 'examples', 'queries'), queries, { recursive: true });
  return { dir, queries, child: spawnQuerygate({ ...options, queries, dataDir: join(dir, 'data') }) };
}

/**
 * `querygate serve --queries <queries> [...args]`: the real CLI in a child process on port 0,
 * without demo data, its store in `dataDir`, `apiKey` its one key (undefined: none set, so the
 * server generates one into the data dir), `env` over those. Everything it prints (stdout and the
 * log) goes to `onOutput`.
 */
export function spawnQuerygate(options: {
  readonly queries: string;
  readonly dataDir: string;
  readonly apiKey: string | undefined;
  readonly args?: readonly string[];
  /** More environment of the server (QUERYGATE_FAULT_INJECTION, LOG_LEVEL, ...); over the above. */
  readonly env?: NodeJS.ProcessEnv;
  readonly onOutput: (text: string) => void;
}): ChildProcess {
  const child = spawn(
    process.execPath,
    [querygateCli(), 'serve', '--queries', options.queries, ...(options.args ?? [])],
    {
      cwd: packageRoot,
      env: {
        ...process.env,
        PORT: '0',
        HOST: '127.0.0.1',
        QUERYGATE_DATA_DIR: options.dataDir,
        QUERYGATE_DEMO: '0',
        QUERYGATE_API_KEYS: options.apiKey ?? '',
        LOG_LEVEL: 'info',
        ...options.env,
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    },
  );
  child.stdout?.on('data', (chunk) => options.onOutput(String(chunk)));
  child.stderr?.on('data', (chunk) => options.onOutput(String(chunk)));
  return child;
}

/** Waits until the child's output matches `pattern` (as the welcome text's `listening on <url>`). */
export async function outputMatching(
  child: ChildProcess,
  output: () => string,
  pattern: RegExp,
): Promise<RegExpExecArray> {
  for (let tries = 0; ; tries++) {
    const match = pattern.exec(output());
    if (match) return match;
    if (tries > 1200 || child.exitCode !== null)
      throw new Error(`no output matched ${pattern}:\n${output()}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** Stops a child with SIGTERM, if it still runs, and waits for it to exit. */
export async function stopChild(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  await exited;
}

export interface ServedChild {
  readonly child: ChildProcess;
  readonly url: string;
  /** Everything it printed so far. */
  output(): string;
  readonly exited: Promise<void>;
}

/** `spawnQuerygate`, resolved once the server listens (rejected if it exits first). */
export async function serveChild(
  options: Omit<Parameters<typeof spawnQuerygate>[0], 'onOutput'>,
): Promise<ServedChild> {
  let output = '';
  let found: ((url: string) => void) | undefined;
  const listening = new Promise<string>((resolve) => {
    found = resolve;
  });
  const child = spawnQuerygate({
    ...options,
    onOutput: (text) => {
      output += text;
      const match = /listening on (http:\/\/[\d.]+:\d+)/.exec(output);
      if (match?.[1]) found?.(match[1]);
    },
  });
  const exited = new Promise<void>((done) => child.once('exit', () => done()));
  const url = await Promise.race([
    listening,
    exited.then(() => {
      throw new Error(`the server exited before listening:\n${output}`);
    }),
  ]);
  return { child, url, output: () => output, exited };
}
