import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type Querygate, startQuerygate } from '../../src/server.js';
import { type FixtureEvent, fixtureEvents, fixtureNow, toIngestEvent } from '../fixtures/spec-fixture.js';
import { type CountingEngine, createCountingEngine } from './counting-engine.js';
import { createManualTime, type ManualTime } from './manual-time.js';
import { testApiKey, testConfig } from './querygate-server.js';

/** A real server on a manual clock whose engine counts the queries that reach it. */
export interface CountedQuerygate {
  readonly app: Querygate;
  readonly engine: CountingEngine;
  readonly time: ManualTime;
  close(): Promise<void>;
}

/**
 * Starts the server at the fixture's "now", on a manual clock that settles with the resolver's
 * warm runs, and ingests the spec fixture over HTTP, one batch per source.
 */
export async function startCountedQuerygate(): Promise<CountedQuerygate> {
  const dataDir = await mkdtemp(join(tmpdir(), 'querygate-counted-'));
  const time = createManualTime(fixtureNow);
  let engine: CountingEngine | undefined;
  let app: Querygate | undefined;
  const close = async () => {
    await app?.close();
    await rm(dataDir, { recursive: true, force: true });
  };
  try {
    app = await startQuerygate(testConfig(dataDir), {
      now: time.now,
      timers: time.timers,
      wrapEngine: (inner) => {
        engine = createCountingEngine(inner);
        return engine;
      },
    });
    const started = app;
    time.settleWith(() => started.resolver.idle());
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
    if (!engine) throw new Error('the server started without wrapping its engine');
    return { app, engine, time, close };
  } catch (error) {
    await close();
    throw error;
  }
}
