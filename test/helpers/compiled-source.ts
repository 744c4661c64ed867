import { readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { build } from 'esbuild';
import type { TestProject } from 'vitest/node';
import { packageRoot } from '../../src/paths.js';

declare module 'vitest' {
  export interface ProvidedContext {
    /** src/ compiled for this test run, laid out as dist/ is: `<it>/cli/main.js` is the CLI. */
    compiledSource: string;
  }
}

const prefix = '.test-build-';

/**
 * Vitest's global setup: src/ compiled once per test run for the child processes the tests start
 * (the CLI as a user runs it). Each file is transpiled alone by esbuild, as tsx does it, but once:
 * a Node starting under tsx's loader spends seconds of CPU compiling and resolving ~230 modules, and
 * the tests start the CLI dozens of times. The output sits one level below the package root, as
 * dist/ does, so `src/paths.ts` finds the root, queries and package.json the same way; one
 * directory per run (named by its pid) keeps concurrent runs apart, and is removed at the end.
 */
export default async function setup(project: TestProject): Promise<() => void> {
  // A run killed before its teardown leaves its directory: remove those whose process is gone.
  for (const entry of readdirSync(packageRoot))
    if (entry.startsWith(prefix) && !alive(Number(entry.slice(prefix.length))))
      rmSync(join(packageRoot, entry), { recursive: true, force: true });
  const outdir = join(packageRoot, `${prefix}${process.pid}`);
  await build({
    entryPoints: [join(packageRoot, 'src/**/*.ts')],
    outdir,
    outbase: join(packageRoot, 'src'),
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'warning',
  });
  project.provide('compiledSource', outdir);
  return () => rmSync(outdir, { recursive: true, force: true });
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}
