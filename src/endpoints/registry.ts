import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { SavedQuery } from '../engines/query-engine.js';
import { parseBigQuery, queryParameters } from '../sql/bigquery-ast.js';
import { type EndpointManifestEntry, type ParameterContract, readManifest } from './manifest.js';

/** A saved query with everything the faces need to serve it. */
export interface Endpoint extends SavedQuery {
  readonly description: string;
  readonly cacheSeconds: number;
  readonly warmSeconds: number | null;
  readonly sandboxed: boolean;
  readonly parameters: readonly ParameterContract[];
}

export interface EndpointRegistry {
  readonly endpoints: readonly Endpoint[];
  /** By dotted name or by UUID: both reach the same endpoint. */
  find(nameOrId: string): Endpoint | undefined;
}

/**
 * Loads every endpoint of the manifest with its `queries/<name>.sql`. An endpoint whose SQL uses
 * other `@parameters` than its contract declares is refused: a contract that drifted from its
 * query would validate the wrong things and bind the wrong values.
 */
export function loadEndpointRegistry(queriesDir: string): EndpointRegistry {
  const endpoints = readManifest(queriesDir).map((entry) => loadEndpoint(queriesDir, entry));
  assertUnique(
    endpoints.map((endpoint) => endpoint.name),
    'name',
  );
  assertUnique(
    endpoints.map((endpoint) => endpoint.id),
    'id',
  );
  const index = new Map<string, Endpoint>();
  for (const endpoint of endpoints) {
    index.set(endpoint.name, endpoint);
    index.set(endpoint.id.toLowerCase(), endpoint);
  }
  return { endpoints, find: (nameOrId) => index.get(nameOrId) ?? index.get(nameOrId.toLowerCase()) };
}

function loadEndpoint(queriesDir: string, entry: EndpointManifestEntry): Endpoint {
  const sql = readFileSync(join(queriesDir, `${entry.name}.sql`), 'utf8');
  const used = queryParameters(parseBigQuery(sql));
  const declared = new Set(entry.parameters.map((parameter) => parameter.name));
  const drift = [
    ...[...used]
      .filter((name) => !declared.has(name))
      .map((name) => `the SQL uses @${name}, which the manifest does not declare`),
    ...[...declared]
      .filter((name) => !used.has(name))
      .map((name) => `the manifest declares ${name}, which the SQL does not use`),
  ];
  if (drift.length > 0) throw new Error(`Endpoint ${entry.name}: ${drift.join('; ')}`);
  const { maximumBytesBilled, ...rest } = entry;
  return { ...rest, sql, ...(maximumBytesBilled ? { maximumBytesBilled } : {}) };
}

function assertUnique(values: string[], what: string): void {
  const seen = new Set<string>();
  for (const value of values) {
    if (seen.has(value)) throw new Error(`Two endpoints share the ${what} ${value}`);
    seen.add(value);
  }
}
