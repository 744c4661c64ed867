import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { request } from 'node:http';
import { createServer } from 'node:net';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';

/**
 * The image as an operator builds and runs it, with podman (Docker's CLI takes the same
 * commands): the README's "Run with Docker/Podman" and "Replace Logflare in self-hosted Supabase"
 * commands, run as written. Needs root, podman and the base image; on machines that cannot pull
 * node:20-bookworm-slim, `deploy/test/setup-podman.sh` and `deploy/test/make-base-image.sh` first
 * (.ci/run does). Run alone: `npx vitest run --config test/container/vitest.config.ts`.
 */

const root = fileURLToPath(new URL('../..', import.meta.url));
const run = promisify(execFile);
const MB = 1_000_000;

async function sh(command: string, args: readonly string[], env: Record<string, string> = {}) {
  const { stdout } = await run(command, args, {
    cwd: root,
    env: { ...process.env, ...env },
    maxBuffer: 64 * MB,
  });
  return stdout.trim();
}
const podman = (...args: string[]) => sh('podman', args);

/** A free port on the loopback, for `-p 127.0.0.1:<port>:4000`. */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

/** Milliseconds until `/health` answers 200 (the container publishes `port`). */
async function untilHealthy(port: number, deadlineMs: number): Promise<number> {
  const started = Date.now();
  while (Date.now() - started < deadlineMs) {
    const ok = await fetch(`http://127.0.0.1:${port}/health`).then(
      (response) => response.ok,
      () => false,
    );
    if (ok) return Date.now() - started;
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  throw new Error(`no healthy /health on port ${port} within ${deadlineMs} ms`);
}

/** `podman stop` as compose and orchestrators do: SIGTERM, SIGKILL after 10 s. */
async function stopTimed(container: string) {
  const started = Date.now();
  await podman('stop', '--time', '10', container);
  const ms = Date.now() - started;
  const exitCode = Number(await podman('inspect', '--format', '{{.State.ExitCode}}', container));
  return { ms, exitCode };
}

/** The server's resident memory, from the kernel's view of PID 1 in the container. */
async function rssMiB(container: string): Promise<number> {
  const status = await podman('exec', container, 'cat', '/proc/1/status');
  const kB = Number(/^VmRSS:\s+(\d+) kB$/m.exec(status)?.[1]);
  return Math.round(kB / 1024);
}

const numbers: Record<string, string> = {};

// The README's build command, as written.
const image = 'querygate';

beforeAll(async () => {
  const started = Date.now();
  await sh('podman', ['build', '--format', 'docker', '-t', image, '.']);
  numbers['build (s)'] = ((Date.now() - started) / 1000).toFixed(0);
}, 20 * 60_000);

afterAll(() => {
  console.log(
    `container numbers: ${Object.entries(numbers)
      .map(([name, value]) => `${name} ${value}`)
      .join(', ')}`,
  );
});

describe('the image', () => {
  it('adds at most 200 MB to its base image', async () => {
    const size = Number(await podman('image', 'inspect', '--format', '{{.Size}}', image));
    const base = Number(await podman('image', 'inspect', '--format', '{{.Size}}', 'node:20-bookworm-slim'));
    numbers['image size (MB)'] = (size / MB).toFixed(0);
    numbers['over its base (MB)'] = ((size - base) / MB).toFixed(0);
    expect(size - base).toBeLessThanOrEqual(200 * MB);
  });

  it('runs as the node user, with a /data volume, port 4000 and a HEALTHCHECK on /health', async () => {
    const [inspected] = JSON.parse(await podman('image', 'inspect', image)) as Array<{
      Config: { User: string; Volumes: Record<string, unknown>; ExposedPorts: Record<string, unknown> };
      Healthcheck?: { Test: string[] };
    }>;
    expect(inspected?.Config.User).toBe('node');
    expect(Object.keys(inspected?.Config.Volumes ?? {})).toEqual(['/data']);
    expect(Object.keys(inspected?.Config.ExposedPorts ?? {})).toEqual(['4000/tcp']);
    expect(inspected?.Healthcheck?.Test.join(' ')).toContain('/health');
  });
});

describe('podman run, as "Run with Docker/Podman" says', () => {
  const container = 'querygate-image-test';
  const volume = 'querygate-image-test-data';
  let port = 0;

  beforeAll(async () => {
    port = await freePort();
    await podman('rm', '--force', '--ignore', container);
    await podman('volume', 'rm', '--force', volume);
  });
  afterAll(async () => {
    await podman('rm', '--force', '--ignore', container);
    await podman('volume', 'rm', '--force', volume);
  });

  it('serves the shipped demo with the key it kept in the volume, and its HEALTHCHECK passes', async () => {
    await podman(
      'run',
      '-d',
      '--name',
      container,
      '-p',
      `127.0.0.1:${port}:4000`,
      '-v',
      `${volume}:/data`,
      image,
    );
    numbers['demo: time to healthy (s)'] = ((await untilHealthy(port, 180_000)) / 1000).toFixed(1);
    const key = await podman('exec', container, 'cat', '/data/api-key');
    expect(key).toMatch(/^qg_/);
    const logs = `http://127.0.0.1:${port}/api/endpoints/logs.all?project=default&project_tier=ENTERPRISE`;
    expect((await fetch(logs, { headers: { 'x-api-key': key } })).status).toBe(200);
    const without = await fetch(logs);
    expect(without.status).toBe(401);
    // The image's own HEALTHCHECK command, run as the engine would.
    await expect(podman('healthcheck', 'run', container)).resolves.toBeDefined();
  }, 240_000);

  it('exits 0 within 10 s of SIGTERM', async () => {
    const { ms, exitCode } = await stopTimed(container);
    numbers['demo: stop on SIGTERM (s)'] = (ms / 1000).toFixed(1);
    expect(exitCode).toBe(0);
    expect(ms).toBeLessThan(10_000);
  }, 30_000);
});

describe('the analytics service of self-hosted Supabase, as "Replace Logflare" says', () => {
  // Supabase's .env has tokens of this length; the test's own.
  const env = {
    LOGFLARE_PUBLIC_ACCESS_TOKEN: 'public-token-of-the-container-test',
    LOGFLARE_PRIVATE_ACCESS_TOKEN: 'private-token-of-the-container-test',
    QUERYGATE_TEST_PORT: '',
  };
  const container = 'querygate-test-analytics';
  const compose = [
    '-p',
    'querygate-test',
    '-f',
    'test/container/supabase-analytics.yml',
    '-f',
    'deploy/supabase/docker-compose.querygate.yml',
    '-f',
    'test/container/test-overrides.yml',
  ];
  const podmanCompose = (...args: string[]) => sh('podman-compose', [...compose, ...args], env);
  const base = () => `http://127.0.0.1:${env.QUERYGATE_TEST_PORT}`;

  // Kong's lines as Vector's kong_logs transform makes them, stamped within the last hour.
  const now = Date.now();
  const kongEvents = Array.from({ length: 30 }, (_, n) => {
    const path = n % 3 === 0 ? `/auth/v1/user?n=${n}` : `/rest/v1/items?n=${n}`;
    return {
      project: 'default',
      appname: 'supabase-kong',
      event_message: `172.18.0.1 - - "GET ${path} HTTP/1.1" 200 12 "-" "curl/8.5.0"`,
      timestamp: new Date(now - (n + 1) * 60_000).toISOString(),
      metadata: {
        request: { headers: { user_agent: 'curl/8.5.0' }, method: 'GET', path, protocol: 'HTTP/1.1' },
        response: { status_code: 200 },
      },
    };
  });
  const inFlight = Array.from({ length: 2_000 }, (_, n) => ({
    project: 'default',
    appname: 'supabase-kong',
    event_message: `in flight ${n}`,
    timestamp: new Date(now - 90 * 60_000 - n).toISOString(),
    metadata: { request: { method: 'GET', path: `/rest/v1/late?n=${n}` }, response: { status_code: 200 } },
  }));

  /** Vector's http sink: a JSON array, `x-api-key` the public token. */
  const vectorPost = (source: string, events: readonly unknown[]) =>
    fetch(`${base()}/api/logs?source_name=${source}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-api-key': env.LOGFLARE_PUBLIC_ACCESS_TOKEN },
      body: JSON.stringify(events),
    });

  /** Studio's call (apps/studio/lib/api/self-hosted/logs.ts): GET, three headers, `project`. */
  async function studioCall(
    name: string,
    params: Record<string, string>,
    token = env.LOGFLARE_PRIVATE_ACCESS_TOKEN,
  ) {
    const url = new URL(`${base()}/api/endpoints/query/${name}`);
    url.searchParams.set('project', 'default');
    for (const [key, value] of Object.entries(params)) url.searchParams.set(key, value);
    const response = await fetch(url, {
      headers: { 'x-api-key': token, 'Content-Type': 'application/json', Accept: 'application/json' },
    });
    return {
      status: response.status,
      body: (await response.json()) as { result?: Record<string, unknown>[] },
    };
  }

  const up = async () => {
    await podmanCompose('up', '-d', 'analytics');
    return untilHealthy(Number(env.QUERYGATE_TEST_PORT), 120_000);
  };

  beforeAll(async () => {
    env.QUERYGATE_TEST_PORT = String(await freePort());
    await podmanCompose('down', '-v').catch(() => undefined);
  }, 120_000);
  afterAll(async () => {
    await podmanCompose('down', '-v').catch(() => undefined);
    await podman('volume', 'rm', '--force', 'querygate-test_querygate-data');
    // podman-compose 1.0.3's down leaves the project's network.
    await podman('network', 'rm', '--force', 'querygate-test_default').catch(() => undefined);
  }, 120_000);

  it('comes up healthy from Supabase’s file with the override applied', async () => {
    numbers['supabase: time to healthy (s)'] = ((await up()) / 1000).toFixed(1);
    // podman-compose 1.0.3 (Debian's) appends list fields when merging files, so the container
    // it made runs Logflare's curl test followed by ours; Docker Compose replaces
    // `healthcheck.test`, as the compose spec says. The override's test, run as the engine
    // runs a CMD test, is what Studio's depends_on waits on.
    const override = parse(readFileSync(`${root}/deploy/supabase/docker-compose.querygate.yml`, 'utf8')) as {
      services: { analytics: { healthcheck: { test: string[] } } };
    };
    const [form, ...command] = override.services.analytics.healthcheck.test;
    expect(form).toBe('CMD');
    await expect(podman('exec', container, ...command)).resolves.toBeDefined();
  }, 180_000);

  it('ingests Vector’s batch with the public token, which cannot query', async () => {
    const response = await vectorPost('cloudflare.logs.prod', kongEvents);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ message: 'Logged!', ingested: kongEvents.length });
    const asVector = await studioCall('logs.all', {}, env.LOGFLARE_PUBLIC_ACCESS_TOKEN);
    expect(asVector.status).toBe(403);
  });

  it('answers Studio’s logs explorer and project home with the private token', async () => {
    const logs = await studioCall('logs.all', {
      iso_timestamp_start: new Date(now - 60 * 60_000).toISOString(),
      iso_timestamp_end: new Date(now).toISOString(),
    });
    expect(logs.status).toBe(200);
    // Newest first, timestamps in microseconds.
    expect(logs.body.result?.map((row) => [row.event_message, row.timestamp])).toEqual(
      kongEvents.map((event) => [event.event_message, Date.parse(event.timestamp) * 1000]),
    );
    const count = await studioCall('usage.api-requests-count', {});
    expect(count.body.result).toEqual([{ count: kongEvents.length }]);
    // The rest of what Studio's pages call: project home, Auth overview, a function's charts,
    // and the Logs Explorer's own SQL.
    const pages: ReadonlyArray<readonly [string, Record<string, string>]> = [
      ['usage.api-counts', { interval: '1hr' }],
      ['usage.api-counts', { interval: '1day' }],
      ['usage.api-counts', { interval: '7day' }],
      ['auth.metrics', { interval: '1day' }],
      ['functions.combined-stats', { function_id: 'hello', interval: '1hr' }],
      [
        'logs.all',
        { sql: 'select timestamp, event_message from edge_logs order by timestamp desc limit 10' },
      ],
    ];
    for (const [name, params] of pages) {
      expect({ name, status: (await studioCall(name, params)).status }).toEqual({ name, status: 200 });
    }
    numbers['supabase: RSS after Studio’s pages (MiB)'] = String(await rssMiB(container));
  });

  it('on SIGTERM finishes the request under way, commits it and exits 0 within 10 s', async () => {
    const body = JSON.stringify(inFlight);
    // Headers and half the body sent before the signal, the rest after it.
    const answer = new Promise<{ status: number; body: string }>((resolve, reject) => {
      const req = request(
        `${base()}/api/logs?source_name=cloudflare.logs.prod`,
        {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(body),
            'x-api-key': env.LOGFLARE_PUBLIC_ACCESS_TOKEN,
          },
        },
        (response) => {
          let text = '';
          response.on('data', (chunk) => {
            text += chunk;
          });
          response.on('end', () => resolve({ status: response.statusCode ?? 0, body: text }));
        },
      );
      req.on('error', reject);
      req.write(body.slice(0, body.length / 2));
      setTimeout(() => req.end(body.slice(body.length / 2)), 1_500);
    });
    await new Promise((resolve) => setTimeout(resolve, 500));
    const stopped = stopTimed(container);
    const answered = await answer;
    expect(answered.status).toBe(200);
    expect(JSON.parse(answered.body)).toEqual({ message: 'Logged!', ingested: inFlight.length });
    const { ms, exitCode } = await stopped;
    numbers['supabase: stop on SIGTERM with a request under way (s)'] = (ms / 1000).toFixed(1);
    expect(exitCode).toBe(0);
    expect(ms).toBeLessThan(10_000);
  }, 30_000);

  it('keeps every acknowledged record in its volume across the restart', async () => {
    await up();
    const count = await studioCall('usage.api-requests-count', {});
    expect(count.body.result).toEqual([{ count: kongEvents.length + inFlight.length }]);
  }, 180_000);
});
