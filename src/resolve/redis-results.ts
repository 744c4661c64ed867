import { createHash, randomUUID } from 'node:crypto';
import { setTimeout as delay } from 'node:timers/promises';
import { Redis } from 'ioredis';
import type { HealthCondition } from '../endpoints/health.js';
import type { Computed, ObtainRequest, SharedResults } from './shared-results.js';
import { decodeSharedValue, encodeSharedValue } from './shared-value.js';

export interface RedisResultsOptions {
  /** `redis://[user:password@]host:port[/db]`; never logged. */
  readonly url: string;
  /** A command not answered within this is a failure (a slow Redis counts as a missing one). */
  readonly commandTimeoutMs: number;
  /** How long a key's lease lasts unless renewed: a dead holder's lease goes after this. */
  readonly leaseMs: number;
  /** Longest a call waits for another replica's run before running the query itself. */
  readonly maxWaitMs: number;
  /** Told when Redis becomes reachable (true) or stops being so (false). */
  readonly onChange?: (up: boolean) => void;
}

// How often a replica waiting for another's run looks for its result.
const pollMs = 25;
// After a failed command, Redis is left alone this long: a stopped or stalled Redis then costs one
// command timeout per second, not one per call.
const backoffMs = 1_000;
// Frees a lease only while this replica still holds it (it may have expired and been taken over).
const releaseScript = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) end return 0`;
const renewScript = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) end return 0`;

type Step = { readonly adopt: Computed } | 'lead' | 'alone';

/**
 * Results shared through Redis. Per key: the result (`querygate:result:<digest>`, expiring when it
 * stops being fresh) and a lease (`querygate:lease:<digest>`) held by the one replica running the
 * key, renewed while it runs. A replica that needs a result takes the stored one if `wanted`
 * accepts it, else takes the lease and runs, else waits for the holder's result; a lease whose
 * holder died expires within `leaseMs` and a waiter takes it. Any Redis failure (down, slow, full)
 * makes that call run on this replica alone, as if Redis were not configured.
 */
export async function connectRedisResults(options: RedisResultsOptions): Promise<SharedResults> {
  const replica = randomUUID();
  const counts = { adopted: 0, leasedRuns: 0, errors: 0, unreadable: 0 };
  let skipUntil = 0;
  let downSince: Date | undefined = new Date();
  const client = new Redis(options.url, {
    enableOfflineQueue: false,
    maxRetriesPerRequest: 0,
    commandTimeout: options.commandTimeoutMs,
    connectTimeout: Math.max(1_000, options.commandTimeoutMs * 4),
    retryStrategy: (attempt) => Math.min(100 * attempt, 1_000),
  });
  client.on('ready', () => {
    downSince = undefined;
    skipUntil = 0;
    options.onChange?.(true);
  });
  client.on('error', () => markDown());
  client.on('close', () => markDown());

  function markDown(): void {
    if (downSince !== undefined) return;
    downSince = new Date();
    options.onChange?.(false);
  }

  let failedAt = new Date(0);
  function failed(): void {
    counts.errors += 1;
    failedAt = new Date();
    skipUntil = failedAt.getTime() + backoffMs;
  }

  const digest = (key: string) => createHash('sha256').update(key).digest('base64url');
  const resultKey = (key: string) => `querygate:result:${digest(key)}`;
  const leaseKey = (key: string) => `querygate:lease:${digest(key)}`;
  const usable = () => client.status === 'ready' && Date.now() >= skipUntil;

  async function read(key: string): Promise<Computed | undefined> {
    const bytes = await client.getBuffer(resultKey(key));
    if (bytes === null) return undefined;
    const computed = decodeSharedValue(key, bytes);
    if (!computed) counts.unreadable += 1;
    return computed;
  }

  const take = async (key: string) =>
    (await client.set(leaseKey(key), replica, 'PX', options.leaseMs, 'NX')) === 'OK';
  const release = (key: string) => client.eval(releaseScript, 1, leaseKey(key), replica);

  /** Adopt a stored result, lead (this replica holds the lease), or run alone (Redis failed). */
  async function coordinate({ key, wanted, signal }: ObtainRequest): Promise<Step> {
    const deadline = Date.now() + options.maxWaitMs;
    try {
      for (;;) {
        const found = await read(key);
        if (found && wanted(found.computedAt)) return { adopt: found };
        if (await take(key)) {
          // The holder before may have stored its result and let go between the two commands.
          const stored = await read(key);
          if (!stored || !wanted(stored.computedAt)) return 'lead';
          void release(key).catch(failed);
          return { adopt: stored };
        }
        if (Date.now() >= deadline || signal.aborted) return 'alone';
        await delay(pollMs, undefined, { signal });
      }
    } catch {
      if (!signal.aborted) failed();
      return 'alone';
    }
  }

  async function lead(request: ObtainRequest): Promise<Computed> {
    const { key } = request;
    counts.leasedRuns += 1;
    const renew = setInterval(() => {
      client.eval(renewScript, 1, leaseKey(key), replica, options.leaseMs).catch(failed);
    }, options.leaseMs / 3);
    renew.unref();
    let computed: Computed | undefined;
    try {
      computed = await request.run(request.signal);
      return computed;
    } finally {
      clearInterval(renew);
      // The result is stored before the lease goes, so a waiter that takes the lease finds it.
      const stored = computed;
      const write = stored
        ? client.set(resultKey(key), encodeSharedValue(key, stored), 'PX', Math.max(1, request.lifetimeMs))
        : Promise.resolve();
      void write.then(() => release(key)).catch(failed);
    }
  }

  await waitForReady(client, options.commandTimeoutMs * 2);
  return {
    async obtain(request) {
      if (!usable()) return request.run(request.signal);
      const step = await coordinate(request);
      if (step === 'alone') return request.run(request.signal);
      if (step === 'lead') return lead(request);
      counts.adopted += 1;
      return step.adopt;
    },
    stats: () => ({ up: usable(), ...counts }),
    condition(): HealthCondition | undefined {
      // Down, or failing commands (slow, full) within the last backoff.
      if (usable()) return undefined;
      return {
        kind: 'shared-cache-unavailable',
        message:
          'Redis (QUERYGATE_REDIS_URL) is unreachable or failing: this replica answers from its own cache and engine until it recovers',
        since: (downSince ?? failedAt).toISOString(),
      };
    },
    async close() {
      client.disconnect();
    },
  };
}

/** Resolves once the client is ready or after `ms`: a replica starts whether Redis is there or not. */
function waitForReady(client: Redis, ms: number): Promise<void> {
  if (client.status === 'ready') return Promise.resolve();
  return new Promise((resolve) => {
    const done = () => {
      clearTimeout(timer);
      client.off('ready', done);
      resolve();
    };
    const timer = setTimeout(done, ms);
    client.once('ready', done);
  });
}
