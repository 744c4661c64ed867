import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Querygate, type StartOptions, startQuerygate } from '../../src/server.js';
import { type FixtureEvent, fixtureEvents, fixtureNow, toIngestEvent } from '../fixtures/spec-fixture.js';
import { type CountingEngine, createCountingEngine } from './counting-engine.js';
import { createManualTime, type ManualTime } from './manual-time.js';
import { testApiKey, testConfig } from './querygate-server.js';

/** A real server on a temporary data dir whose engine counts (and can hold) the runs reaching it. */
export interface ServerWithCountingEngine {
  readonly app: Querygate;
  readonly engine: CountingEngine;
  /** Releases held runs, stops the server and removes its data dir. */
  close(): Promise<void>;
}

/**
 * Starts the server with `testConfig` and `environment`, its real engine wrapped in a
 * `CountingEngine`; `options` are the server's other test options (a clock, timers).
 */
export async function startWithCountingEngine(
  environment: Readonly<Record<string, string>> = {},
  options: Pick<StartOptions, 'now' | 'timers'> = {},
): Promise<ServerWithCountingEngine> {
  const dataDir = await mkdtemp(join(tmpdir(), 'querygate-counted-'));
  let engine: CountingEngine | undefined;
  try {
    const app = await startQuerygate(testConfig(dataDir, environment), {
      ...options,
      wrapEngine: (inner) => {
        engine = createCountingEngine(inner);
        return engine;
      },
    });
    if (!engine) throw new Error('the server started without wrapping its engine');
    const counting = engine;
    return {
      app,
      engine: counting,
      async close() {
        counting.release();
        await app.close();
        await rm(dataDir, { recursive: true, force: true });
      },
    };
  } catch (error) {
    await rm(dataDir, { recursive: true, force: true });
    throw error;
  }
}

/** A real server on a manual clock whose engine counts the queries that reach it. */
export interface CountedQuerygate extends ServerWithCountingEngine {
  readonly time: ManualTime;
}

/**
 * Starts the server at the fixture's "now", on a manual clock that settles with the resolver's
 * warm runs, and ingests the spec fixture over HTTP, one batch per source.
 */
export async function startCountedQuerygate(): Promise<CountedQuerygate> {
  const time = createManualTime(fixtureNow);
  const server = await startWithCountingEngine({}, { now: time.now, timers: time.timers });
  const { app } = server;
  try {
    time.settleWith(() => app.resolver.idle());
    const bySource = new Map<string, FixtureEvent[]>();
    for (const event of fixtureEvents)
      bySource.set(event.source, [...(bySource.get(event.source) ?? []), event]);
    for (const [source, events] of bySource) {
      const response = await fetch(new URL(`/api/logs?source_name=${encodeURIComponent(source)}`, app.url), {
        method: 'POST',
        headers: { 'x-api-key': testApiKey, 'content-type': 'application/json' },
        body: JSON.stringify({ batch: events.map(toIngestEvent) }),
      });
      if (response.status !== 200) throw new Error(`ingesting ${source}: ${response.status}`);
    }
    return { ...server, time };
  } catch (error) {
    await server.close();
    throw error;
  }
}
