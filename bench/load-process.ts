import { setTimeout } from 'node:timers/promises';
import autocannon from 'autocannon';

/**
 * One load of `cached-load.ts`, in a process of its own: autocannon runs in a fresh Node each
 * time, so every target of a side-by-side table is loaded by the same client, not by one whose
 * heap and JIT state depend on what the bench did before (generating a million rows, a thousand
 * earlier requests), which measured anywhere from 28k to 77k req/s against one server.
 * Reads its request from the environment (`LOAD`, JSON) and prints autocannon's figures as JSON.
 */
interface LoadSpec {
  /** When to start loading (epoch ms), so that loads of several processes start together. */
  readonly startAt?: number;
  readonly url: string;
  readonly method: 'GET' | 'POST';
  readonly headers?: Record<string, string>;
  readonly body?: string;
  readonly uniqueBodies?: boolean;
  /** Bodies sent in turn, each made unique like `body`; in place of `body`. */
  readonly bodies?: readonly string[];
  readonly connections: number;
  readonly seconds: number;
}

const spec = JSON.parse(process.env.LOAD ?? '{}') as LoadSpec;
// From a random start: a load never sends the bodies an earlier load sent, which the server may
// have seen (and so kept, to replay).
let counter = Math.floor(Math.random() * 2 ** 40);
const templates = spec.bodies ?? [spec.body ?? ''];
if (spec.startAt !== undefined) await setTimeout(Math.max(0, spec.startAt - Date.now()));
const result = await autocannon({
  url: spec.url,
  method: spec.method,
  headers: spec.headers,
  body: spec.uniqueBodies ? undefined : spec.body,
  ...(spec.uniqueBodies
    ? {
        requests: [
          {
            setupRequest: (sent) => {
              const n = counter++;
              return { ...sent, body: (templates[n % templates.length] as string).replace('{n}', String(n)) };
            },
          },
        ],
      }
    : {}),
  connections: spec.connections,
  duration: spec.seconds,
});
process.stdout.write(
  JSON.stringify({
    average: result.requests.average,
    total: result.requests.total,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
  }),
);
