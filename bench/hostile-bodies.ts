import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { residentBytes } from './memory.js';
import { benchApiKey, startServerProcess } from './processes.js';

/**
 * The built server's resident memory while hostile clients post GraphQL bodies near the body
 * limit (10 MiB) that the fast path leaves to yoga: eight at once of each content type yoga reads.
 * Issue 32 measured eight `text/plain` bodies taking RSS to 1.58 GiB and stalling `/health` for
 * 7 s; `/health` is timed here throughout.
 */
export interface HostileBodiesResult {
  readonly bodyBytes: number;
  readonly concurrent: number;
  readonly idleBytes: number;
  /** Highest RSS sampled (every 20 ms) while each content type's bodies were in flight. */
  readonly peakBytes: Readonly<Record<string, number>>;
  /** Every status answered, per content type. */
  readonly statuses: Readonly<Record<string, readonly number[]>>;
  /** The slowest `/health` answer while the bodies were in flight. */
  readonly slowestHealthMs: number;
}

const bodyBytes = Math.floor(9.5 * 1024 * 1024);

function bodiesByType(): Array<[string, string]> {
  const filler = 'x'.repeat(bodyBytes - 128);
  return [
    ['text/plain', `{"query":"{ endpoints { name } }","pad":"${filler}"}`],
    ['application/graphql', `{ endpoints { name } } # ${filler}`],
    [
      'multipart/form-data; boundary=qg',
      `--qg\r\ncontent-disposition: form-data; name="operations"\r\n\r\n${filler}\r\n--qg--\r\n`,
    ],
    ['application/json (malformed)', `{"query": "{ endpoints { name } }", "pad": "${filler}"`],
  ];
}

export async function measureHostileBodies(
  options: { concurrent?: number; dist?: string } = {},
): Promise<HostileBodiesResult> {
  const concurrent = options.concurrent ?? 8;
  const dataDir = mkdtempSync(join(tmpdir(), 'querygate-hostile-'));
  const server = await startServerProcess(dataDir, [], options.dist);
  const pid = server.child.pid as number;
  try {
    await new Promise((resolve) => setTimeout(resolve, 1000));
    const idleBytes = residentBytes(pid) ?? 0;
    const peakBytes: Record<string, number> = {};
    const statuses: Record<string, number[]> = {};
    let slowestHealthMs = 0;
    for (const [label, body] of bodiesByType()) {
      const contentType = label.replace(' (malformed)', '');
      let peak = residentBytes(pid) ?? 0;
      const sampler = setInterval(() => {
        peak = Math.max(peak, residentBytes(pid) ?? 0);
      }, 20);
      let sending = true;
      const health = (async () => {
        while (sending) {
          const started = performance.now();
          await fetch(`${server.url}/health`).then((response) => response.arrayBuffer());
          slowestHealthMs = Math.max(slowestHealthMs, performance.now() - started);
          await new Promise((resolve) => setTimeout(resolve, 50));
        }
      })();
      statuses[label] = await Promise.all(
        Array.from({ length: concurrent }, async () => {
          const response = await fetch(`${server.url}/graphql`, {
            method: 'POST',
            headers: { 'x-api-key': benchApiKey, 'content-type': contentType },
            body,
          });
          await response.arrayBuffer();
          return response.status;
        }),
      );
      sending = false;
      await health;
      clearInterval(sampler);
      peakBytes[label] = Math.max(peak, residentBytes(pid) ?? 0);
    }
    return { bodyBytes, concurrent, idleBytes, peakBytes, statuses, slowestHealthMs };
  } finally {
    await server.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

/** One line, as the bench prints it. */
export function describeHostileBodies(result: HostileBodiesResult): string {
  const mib = (bytes: number) => `${Math.round(bytes / 1024 / 1024)} MiB`;
  const peaks = Object.entries(result.peakBytes)
    .map(([label, bytes]) => `${label} ${mib(bytes)} (${[...new Set(result.statuses[label])].join('/')})`)
    .join(', ');
  return `RSS under ${result.concurrent} GraphQL bodies of ${(result.bodyBytes / 1024 / 1024).toFixed(1)} MiB at once (peak per content type, idle ${mib(result.idleBytes)}): ${peaks}; slowest /health meanwhile ${Math.round(result.slowestHealthMs)} ms`;
}
