import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import {
  authRecords,
  edgeRecords,
  relayRecords,
  type SupabaseRecord,
  supabaseNow,
  toLogEvent,
} from '../fixtures/supabase-fixture.js';
import {
  expectNoServerErrors,
  type QuerygateUnderTest,
  startQuerygateUnderTest,
} from './querygate-server.js';

/** The private token Studio sends (`LOGFLARE_PRIVATE_ACCESS_TOKEN`), a key of every scope here. */
export const studioToken = 'studio-private-token-0123456789';

/**
 * `serve --queries supabase` at the fixture's "now", with the fixture's edge, relay and auth
 * records ingested as self-hosted Vector sends them.
 */
export async function startSupabaseService(): Promise<QuerygateUnderTest> {
  const service = await startQuerygateUnderTest({
    now: supabaseNow,
    environment: {
      QUERYGATE_QUERIES_DIR: join(__dirname, '../../supabase'),
      QUERYGATE_API_KEYS: studioToken,
    },
  });
  for (const [source, records] of [
    ['cloudflare.logs.prod', edgeRecords],
    ['deno-relay-logs', relayRecords],
    ['gotrue.logs.prod', authRecords],
  ] as const) {
    const response = await service.request('POST', '/api/logs', {
      apiKey: studioToken,
      params: { source_name: source },
      body: JSON.stringify({ batch: (records as readonly SupabaseRecord[]).map(toLogEvent) }),
    });
    if (response.status !== 200) throw new Error(`ingesting ${source}: ${response.status} ${response.text}`);
  }
  return service;
}

/**
 * `startSupabaseService` for one test file: started before its tests; after them, checked for
 * server errors among the responses it gave through `request`, then closed.
 */
export function supabaseServiceDuringFile(): () => QuerygateUnderTest {
  let service: QuerygateUnderTest | undefined;
  beforeAll(async () => {
    service = await startSupabaseService();
  });
  afterAll(async () => {
    if (service) expectNoServerErrors(service);
    await service?.close();
  });
  return () => {
    if (!service) throw new Error('the Supabase service is not started yet');
    return service;
  };
}
