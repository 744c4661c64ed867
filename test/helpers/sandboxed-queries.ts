import { cpSync, mkdtempSync } from 'node:fs';
import { request } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { queriesDir } from '../../src/paths.js';
import {
  type EdgeEvent,
  type FixtureEvent,
  fixtureEvents,
  projects,
  type RelayEvent,
} from '../fixtures/spec-fixture.js';

/** The sandboxed fixture endpoint (test/fixtures/sandboxed-queries/logs.sandboxed.*). */
export const sandboxedPath = '/api/endpoints/query/logs.sandboxed';
export const sandboxedId = '5d0a3a52-8f0e-4b8e-9a61-1f3c2b7d9e10';

/**
 * A temporary queries directory: the shipped `queries/` (its three spec endpoints, sources and
 * UDFs, unchanged) plus the sandboxed fixture endpoint. The caller removes it.
 */
export function sandboxedQueriesDir(): string {
  const dir = mkdtempSync(join(tmpdir(), 'querygate-sandboxed-queries-'));
  cpSync(queriesDir, dir, { recursive: true });
  cpSync(join(import.meta.dirname, '..', 'fixtures', 'sandboxed-queries'), dir, { recursive: true });
  return dir;
}

/** The edge records of a project, from the fixture (what the `edge_logs` CTE holds). */
export function edgeRecords(project: string): EdgeEvent[] {
  return fixtureEvents.filter(
    (event): event is EdgeEvent => event.source === 'cloudflare.logs.prod' && event.project === project,
  );
}

/** The relay records of a project, from the fixture (what `function_edge_logs` holds). */
export function relayRecords(project: string): RelayEvent[] {
  return fixtureEvents.filter(
    (event): event is RelayEvent =>
      event.source === 'deno-relay-logs' && event.metadata.project_ref === project,
  );
}

export const alpha = projects.alpha;
export const beta = projects.beta;

/** Ids newest first, ties by id: the saved query's order. */
export function newestIds(events: readonly FixtureEvent[], count: number): string[] {
  return [...events]
    .sort((a, b) => b.micros - a.micros || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
    .slice(0, count)
    .map((event) => event.id);
}

/**
 * A GET with a JSON body, over node:http (fetch refuses a body on GET), as Studio's server-side
 * calls to Logflare send `sql`. Resolves to the status and the parsed body.
 */
export function getWithJsonBody(
  baseUrl: string,
  path: string,
  apiKey: string,
  body: unknown,
): Promise<{ status: number; body: unknown }> {
  const payload = Buffer.from(JSON.stringify(body));
  return new Promise((resolve, reject) => {
    const outgoing = request(
      new URL(path, baseUrl),
      {
        method: 'GET',
        headers: {
          'x-api-key': apiKey,
          'content-type': 'application/json',
          'content-length': String(payload.length),
        },
      },
      (response) => {
        const chunks: Buffer[] = [];
        response.on('data', (chunk: Buffer) => chunks.push(chunk));
        response.on('end', () =>
          resolve({
            status: response.statusCode ?? 0,
            body: JSON.parse(Buffer.concat(chunks).toString('utf8')),
          }),
        );
        response.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.end(payload);
  });
}
