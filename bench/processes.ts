import { type ChildProcess, execFileSync, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { packageRoot } from '../src/paths.js';

/** A child process serving HTTP on a port it prints; its peak RSS is read from /proc. */
export interface ServedProcess {
  readonly url: string;
  readonly child: ChildProcess;
  /** Peak resident set size so far (VmHWM), in bytes; undefined where /proc is missing. */
  peakRssBytes(): number | undefined;
  /** User plus system CPU time the process has used so far, in seconds; undefined without /proc. */
  cpuSeconds(): number | undefined;
  /** The same split into user and system seconds; undefined without /proc. */
  cpuSplitSeconds(): { readonly user: number; readonly system: number } | undefined;
  /**
   * CPU seconds of its main thread alone (JavaScript; the rest is DuckDB's threads, libuv's pool
   * and V8's helpers); undefined without /proc.
   */
  mainThreadCpuSeconds(): number | undefined;
  stop(): Promise<void>;
}

export const benchApiKey = 'bench-key-0123456789abcdef';

/**
 * The built server (`<dist>/cli/main.js serve`) on a free port over `dataDir`, with Node's
 * `nodeArgs` and the variables of `env` beside the bench's own.
 */
export function startServerProcess(
  dataDir: string,
  nodeArgs: readonly string[] = [],
  dist = join(packageRoot, 'dist'),
  env: Readonly<Record<string, string>> = {},
): Promise<ServedProcess> {
  return startProcess(
    process.execPath,
    [...nodeArgs, join(dist, 'cli/main.js'), 'serve'],
    {
      PORT: '0',
      QUERYGATE_DATA_DIR: dataDir,
      QUERYGATE_DEMO: '0',
      QUERYGATE_API_KEYS: benchApiKey,
      LOG_LEVEL: 'warn',
      ...env,
    },
    /listening on (http:\/\/\S+)/,
  );
}

/**
 * A peer server written in TypeScript under `bench/peers/` (loaded through tsx, which costs only at
 * start), told what to serve through `env`.
 */
export function startPeerProcess(file: string, env: Record<string, string>): Promise<ServedProcess> {
  return startProcess(
    process.execPath,
    ['--import', 'tsx', join(packageRoot, 'bench/peers', file)],
    env,
    /listening on (http:\/\/\S+)/,
  );
}

/**
 * A bare node:http server answering every request with `body` under `headers` (content-length
 * added): the serving ceiling. Given the headers the measured server sends, it serves the same
 * bytes, so a ratio to it is what the server costs beyond writing that response. With
 * `readsBody` it first reads the request's body into one buffer, as any server answering a POST
 * from its body must (the ceiling for replayed GraphQL, a POST of JSON); otherwise it discards it.
 */
export function startBareServer(
  body: string,
  nodeArgs: readonly string[] = [],
  { headers, readsBody = false }: { headers: Readonly<Record<string, string>>; readsBody?: boolean },
): Promise<ServedProcess> {
  const script = `
    const body = Buffer.from(process.env.BODY);
    const head = { ...JSON.parse(process.env.HEADERS), 'content-length': body.length };
    const answer = (res) => {
      res.writeHead(200, head);
      res.end(body);
    };
    const server = require('node:http').createServer(process.env.READS_BODY === '1'
      ? (req, res) => {
          const chunks = [];
          req.on('data', (chunk) => chunks.push(chunk));
          req.on('end', () => {
            if (Buffer.concat(chunks).length >= 0) answer(res);
          });
        }
      : (req, res) => {
          req.resume();
          answer(res);
        });
    // An exit of its own on SIGTERM, so a --cpu-prof run writes its profile.
    process.once('SIGTERM', () => process.exit(0));
    server.listen(0, '127.0.0.1', () => console.log('listening on http://127.0.0.1:' + server.address().port));`;
  return startProcess(
    process.execPath,
    [...nodeArgs, '-e', script],
    { BODY: body, HEADERS: JSON.stringify(headers), READS_BODY: readsBody ? '1' : '0' },
    /listening on (http:\/\/\S+)/,
  );
}

/**
 * The headers of `response` a peer serving the same bytes sends itself: all but those Node's
 * HTTP server writes on its own (date, connection, keep-alive) and the length, which it counts.
 */
export function servedHeaders(response: Response): Record<string, string> {
  const own = new Set(['date', 'connection', 'keep-alive', 'content-length', 'transfer-encoding']);
  return Object.fromEntries([...response.headers].filter(([name]) => !own.has(name)));
}

function startProcess(
  command: string,
  args: string[],
  env: Record<string, string>,
  ready: RegExp,
): Promise<ServedProcess> {
  const child = spawn(command, args, {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let stopping = false;
  return new Promise((resolve, reject) => {
    let output = '';
    child.once('exit', (code) =>
      reject(new Error(`${command} exited with ${code} before it listened:\n${output}`)),
    );
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = ready.exec(output);
      if (!match?.[1]) return;
      // Once: what it prints later (V8's --trace-deopt, say) must not match again and take the
      // 'exit' listener `stop` waits on.
      child.stdout?.off('data', onData);
      child.stdout?.resume();
      child.removeAllListeners('exit');
      // A serving process that dies under load says so here (its stderr is ours too), rather than
      // leaving the bench to wait for an exit that has already happened.
      child.once('exit', (code, signal) => {
        if (!stopping)
          process.stderr.write(`${command} ${args.join(' ')} exited (${signal ?? code}) while serving\n`);
      });
      resolve({
        url: match[1],
        child,
        peakRssBytes: () => {
          try {
            const kb = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${child.pid}/status`, 'utf8'))?.[1];
            return kb ? Number(kb) * 1024 : undefined;
          } catch {
            return undefined;
          }
        },
        cpuSeconds: () => {
          const split = processCpuSplit(child.pid);
          return split && split.user + split.system;
        },
        cpuSplitSeconds: () => processCpuSplit(child.pid),
        mainThreadCpuSeconds: () => {
          const split = processCpuSplit(child.pid, `${child.pid}/task/${child.pid}`);
          return split && split.user + split.system;
        },
        stop: () =>
          new Promise<void>((done) => {
            stopping = true;
            if (child.exitCode !== null || child.signalCode !== null) return done();
            child.once('exit', () => done());
            child.kill('SIGTERM');
          }),
      });
    };
    child.stdout?.on('data', onData);
  });
}

/**
 * Which CPUs a side-by-side load gives the servers and which the load generator (`taskset -c`
 * lists): the servers one CPU, the load generator the others. Each server's requests/s is then
 * bounded by its own CPU per request, not by how the scheduler shares the cores between it, the
 * load generator and the kernel's work for both, which moved one server's figure by ±15% from one
 * run to the next on two cores. Undefined with one CPU or without `taskset` (util-linux).
 */
export interface CpuSplit {
  readonly servers: string;
  readonly load: string;
  /** Every CPU: what a server is given back after the load. */
  readonly all: string;
}

export function splitCpus(): CpuSplit | undefined {
  let list: string | undefined;
  try {
    // "pid 123's current affinity list: 0-3,6"
    list = /list:\s*(\S+)/.exec(
      execFileSync('taskset', ['-cp', String(process.pid)], { encoding: 'utf8' }),
    )?.[1];
  } catch {
    return undefined;
  }
  const cpus = (list ?? '').split(',').flatMap((range) => {
    const [first, last = first] = range.split('-').map(Number);
    return first === undefined || last === undefined || Number.isNaN(first) || Number.isNaN(last)
      ? []
      : Array.from({ length: last - first + 1 }, (_, i) => first + i);
  });
  const server = cpus.at(-1);
  if (list === undefined || server === undefined || cpus.length < 2) return undefined;
  return { servers: String(server), load: cpus.slice(0, -1).join(','), all: list };
}

/** Moves every thread of a running process onto `cpus`; threads it starts later inherit them. */
export function pinProcess(served: ServedProcess, cpus: string): void {
  execFileSync('taskset', ['-a', '-p', '-c', cpus, String(served.child.pid)], { stdio: 'ignore' });
}

// /proc/<pid>/stat counts utime and stime (fields 14 and 15) in clock ticks, 100 a second on Linux.
const clockTicksPerSecond = 100;

/** A process's CPU time, or one thread's given `thread` as `<pid>/task/<tid>`. */
function processCpuSplit(
  pid: number | undefined,
  thread = String(pid),
): { user: number; system: number } | undefined {
  try {
    const stat = readFileSync(`/proc/${thread}/stat`, 'utf8');
    // The command name (field 2) may hold spaces; the fields after its closing parenthesis do not.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return {
      user: Number(fields[11]) / clockTicksPerSecond,
      system: Number(fields[12]) / clockTicksPerSecond,
    };
  } catch {
    return undefined;
  }
}
