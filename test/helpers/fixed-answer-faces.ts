import { pino } from 'pino';
import { loadEndpointRegistry } from '../../src/endpoints/registry.js';
import { type Snapshot, snapshotOf } from '../../src/endpoints/snapshot.js';
import type { QueryEngine, QueryResult } from '../../src/engines/query-engine.js';
import { createQuerygateYoga } from '../../src/graphql/yoga.js';
import { createResolver } from '../../src/resolve/resolver.js';

/**
 * The faces of a queries directory over an engine that stands for the warehouse: every query
 * describes as `answer.columns` and answers `answer` (BigQuery's documented answer for the
 * fixture's SQL), so a test checks how the faces type and encode it. Close when done.
 */
export async function fixedAnswerFaces(queriesDir: string, answer: QueryResult) {
  const warehouse: QueryEngine = {
    kind: 'bigquery',
    ready: async () => {},
    run: async () => answer,
    describe: async () => answer.columns,
    close: async () => {},
  };
  const snapshot: Snapshot = await snapshotOf(loadEndpointRegistry(queriesDir), queriesDir, warehouse, {
    locks: 'ignore',
  });
  const resolver = createResolver({ engine: warehouse, now: () => new Date('2026-03-10T12:00:00Z') });
  const yoga = createQuerygateYoga({ snapshot: () => snapshot, resolver, logger: pino({ level: 'silent' }) });
  return {
    snapshot,
    /** A GraphQL POST through yoga: its status and parsed body. */
    async graphql(query: string) {
      const response = await yoga.fetch('http://querygate.test/graphql', {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify({ query }),
      });
      return { status: response.status, body: (await response.json()) as Record<string, unknown> };
    },
    close: () => resolver.close(),
  };
}
