import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../src/logger.js';
import { startQuerygate } from '../../src/server.js';
import { testApiKey, testConfig } from '../helpers/querygate-server.js';

describe('api_key in the query string', () => {
  it('never reaches a log line, even at trace level, valid or not, full or ingest-only, on REST, GraphQL and errors', async () => {
    const lines: string[] = [];
    const capture = new Writable({
      write(chunk: Buffer, _encoding, done) {
        lines.push(chunk.toString('utf8'));
        done();
      },
    });
    const dataDir = await mkdtemp(join(tmpdir(), 'querygate-keylog-'));
    const wrongKey = 'wrong-key-that-must-not-be-logged-42';
    const ingestKey = 'ingest-only-key-that-must-not-be-logged-7';
    const app = await startQuerygate(testConfig(dataDir, { QUERYGATE_INGEST_KEYS: ingestKey }), {
      logger: createLogger('trace', capture),
    });
    try {
      const targets = [
        `/api/endpoints/query/usage.api-counts?project=p&interval=daily&api_key=${testApiKey}`,
        `/api/endpoints/query/usage.api-counts?project=p&interval=daily&api_key=${wrongKey}`,
        `/api/endpoints/query/nope?api_key=${testApiKey}`,
        `/api/endpoints/%E0%A4%A?api_key=${testApiKey}`,
        `/graphql?query=${encodeURIComponent('{ endpoints { name } }')}&api_key=${testApiKey}`,
        `/graphql?query=${encodeURIComponent('{ nope }')}&api_key=${testApiKey}`,
      ];
      const statuses = [];
      for (const target of targets) statuses.push((await fetch(`${app.url}${target}`)).status);
      // A validation error asked for as plain JSON is a 200 (GraphQL over HTTP, application/json).
      expect(statuses).toEqual([200, 401, 404, 404, 200, 200]);
      const posted = await fetch(`${app.url}/api/logs?source_name=postgres.logs&api_key=${testApiKey}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${testApiKey}` },
        body: '{"message":"x"}',
      });
      expect(posted.status).toBe(200);
      // An ingest-only key: refused on a route that reads (403), accepted where it ingests.
      const refused = await fetch(
        `${app.url}/api/endpoints/query/usage.api-counts?project=p&interval=daily&api_key=${ingestKey}`,
      );
      const ingested = await fetch(`${app.url}/api/logs?source_name=postgres.logs&api_key=${ingestKey}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: '{"message":"y"}',
      });
      expect([refused.status, ingested.status]).toEqual([403, 200]);
    } finally {
      await app.close();
      await rm(dataDir, { recursive: true, force: true });
    }
    expect(lines.length).toBeGreaterThan(0);
    const leaked = lines.filter(
      (line) => line.includes(testApiKey) || line.includes(wrongKey) || line.includes(ingestKey),
    );
    expect(leaked).toEqual([]);
  });
});
