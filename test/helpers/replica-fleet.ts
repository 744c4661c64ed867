import { type ChildProcess, spawn } from 'node:child_process';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { packageRoot } from '../../src/paths.js';
import { testDataset, testProject } from './replica-fixture.js';

// Real processes for replicas: Debian's redis-server, the fake BigQuery in its own process, and
// querygate serving on the BigQuery engine against both. Each listens on 127.0.0.1 only.

/** A child process that printed the line `ready` matched, with everything it printed. */
export interface Started {
  readonly child: ChildProcess;
  readonly match: RegExpExecArray;
  output(): string;
  /** SIGTERM, then waits for the exit. */
  stop(): Promise<void>;
  /** SIGKILL, as a crash ends a process: no exit handlers. */
  kill(): Promise<void>;
}

function exited(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return Promise.resolve();
  return new Promise((resolve) => child.once('exit', () => resolve()));
}

export async function startChild(
  command: string,
  args: readonly string[],
  env: NodeJS.ProcessEnv,
  ready: RegExp,
): Promise<Started> {
  const child = spawn(command, args, { cwd: packageRoot, env: { ...process.env, ...env }, stdio: 'pipe' });
  let output = '';
  const collect = (chunk: Buffer) => {
    output += chunk.toString();
  };
  child.stdout?.on('data', collect);
  child.stderr?.on('data', collect);
  const signalled = (signal: NodeJS.Signals) => () => {
    if (child.exitCode === null && child.signalCode === null) child.kill(signal);
    return exited(child);
  };
  const match = await new Promise<RegExpExecArray>((resolve, reject) => {
    const timer = setInterval(() => {
      const found = ready.exec(output);
      if (found) {
        clearInterval(timer);
        resolve(found);
      } else if (child.exitCode !== null || child.signalCode !== null) {
        clearInterval(timer);
        reject(new Error(`${command} ended before it was ready:\n${output}`));
      }
    }, 20);
  });
  return { child, match, output: () => output, stop: signalled('SIGTERM'), kill: signalled('SIGKILL') };
}

/** A free TCP port on 127.0.0.1 (redis-server takes no port 0). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** redis-server on `port` of 127.0.0.1, keeping nothing on disk; the same port after a restart. */
export async function startRedis(
  port?: number,
): Promise<Started & { readonly url: string; readonly port: number }> {
  const chosen = port ?? (await freePort());
  const started = await startChild(
    'redis-server',
    [
      '--port',
      String(chosen),
      '--bind',
      '127.0.0.1',
      '--save',
      '',
      '--appendonly',
      'no',
      '--protected-mode',
      'yes',
    ],
    {},
    /Ready to accept connections/,
  );
  return { ...started, url: `redis://127.0.0.1:${chosen}`, port: chosen };
}

/** The fake BigQuery in a process of its own (fake-bigquery-process.ts), with its jobs counted. */
export async function startFakeBigQueryProcess(options: {
  readonly projects: number;
  readonly delayMs: number;
}) {
  const started = await startChild(
    process.execPath,
    [
      '--import',
      'tsx',
      join(packageRoot, 'test/helpers/fake-bigquery-process.ts'),
      '--projects',
      String(options.projects),
      '--delay-ms',
      String(options.delayMs),
    ],
    {},
    /listening on (http:\/\/\S+)/,
  );
  const url = started.match[1] as string;
  return {
    ...started,
    url,
    /** Query jobs run so far, in all and by the value of their `project` parameter. */
    async jobs(): Promise<{ queryJobs: number; byProject: Record<string, number> }> {
      return (await fetch(`${url}/fake/jobs`)).json() as Promise<{
        queryJobs: number;
        byProject: Record<string, number>;
      }>;
    },
  };
}

export interface ReplicaOptions {
  readonly queries: string;
  readonly dataDir: string;
  readonly bigQueryUrl: string;
  readonly apiKey: string;
  /** Unset: the replica runs alone, with no shared cache. */
  readonly redisUrl?: string | undefined;
  readonly env?: NodeJS.ProcessEnv;
  /** The CLI's script: `dist/cli/main.js` in the bench, the run's compiled source in the tests. */
  readonly builtCli: string;
}

/** `querygate serve` on port 0 on the BigQuery engine, pointed at the fake as an emulator. */
export async function startReplica(options: ReplicaOptions): Promise<Started & { readonly url: string }> {
  const started = await startChild(
    process.execPath,
    [options.builtCli, 'serve', '--queries', options.queries],
    {
      PORT: '0',
      HOST: '127.0.0.1',
      QUERYGATE_DATA_DIR: options.dataDir,
      QUERYGATE_DEMO: '0',
      QUERYGATE_API_KEYS: options.apiKey,
      QUERYGATE_ENGINE: 'bigquery',
      QUERYGATE_BIGQUERY_PROJECT: testProject,
      QUERYGATE_BIGQUERY_DATASET: testDataset,
      QUERYGATE_BIGQUERY_API_ENDPOINT: options.bigQueryUrl,
      QUERYGATE_BIGQUERY_EMULATOR: 'true',
      LOG_LEVEL: 'warn',
      ...(options.redisUrl ? { QUERYGATE_REDIS_URL: options.redisUrl } : {}),
      ...options.env,
    },
    /listening on (http:\/\/\S+)/,
  );
  return { ...started, url: started.match[1] as string };
}
