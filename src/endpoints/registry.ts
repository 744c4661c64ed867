import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ParameterType, SavedQuery } from '../engines/query-engine.js';
import { parseSavedStatements, queryParameters } from '../sql/bigquery-ast.js';
import { contractSchema, type EndpointContract, type ParameterContract } from './contract.js';
import { assertSandboxable } from './sandboxable.js';
import { type LogSource, readSourceDeclarations, sourcesFileName } from './sources.js';
import type { TableSource } from './table-source.js';
import { readYamlFile } from './yaml-file.js';

/** A saved query with everything the faces need to serve it. */
export interface Endpoint extends SavedQuery {
  readonly description: string;
  readonly cacheSeconds: number;
  readonly warmSeconds: number | null;
  readonly sandboxed: boolean;
  readonly parameters: readonly ParameterContract[];
  readonly columns: EndpointContract['columns'];
  readonly examples: EndpointContract['examples'];
  readonly graphql: EndpointContract['graphql'];
  /** The contract file it was read from, for messages. */
  readonly contractFile: string;
  /**
   * A hash of the SQL and the contract: a changed file is a different endpoint, which never runs
   * under the old one's plan nor answers from its results.
   */
  readonly hash: string;
}

export interface EndpointRegistry {
  readonly endpoints: readonly Endpoint[];
  /** The log sources the queries may read and ingestion may write. */
  readonly sources: readonly LogSource[];
  /** The table sources (the team's own warehouse tables) the queries may read. */
  readonly tables: readonly TableSource[];
  /** By dotted name or by UUID: both reach the same endpoint. */
  find(nameOrId: string): Endpoint | undefined;
}

const contractExtension = '.yaml';

/**
 * Loads every endpoint of a queries directory: `<name>.sql` with its contract `<name>.yaml`, and
 * the sources of `sources.yaml`. Every problem of every file is collected, so one error lists
 * all of them, one line each. An endpoint whose SQL uses other `@parameters` than its contract
 * declares is refused: a contract that drifted from its query would validate the wrong things
 * and bind the wrong values.
 */
export function loadEndpointRegistry(queriesDir: string): EndpointRegistry {
  const problems: string[] = [];
  const attempt = <T>(load: () => T): T | undefined => {
    try {
      return load();
    } catch (error) {
      problems.push((error as Error).message);
      return undefined;
    }
  };
  let files: string[];
  try {
    files = readdirSync(queriesDir).sort();
  } catch (error) {
    throw new Error(
      `The queries directory ${queriesDir} cannot be read (${(error as NodeJS.ErrnoException).code})`,
    );
  }
  const declared = attempt(() => readSourceDeclarations(queriesDir));
  const sources = declared?.logs ?? [];
  const tables = declared?.tables ?? [];
  const stems = (extension: string) =>
    files.filter((file) => file.endsWith(extension)).map((file) => file.slice(0, -extension.length));
  const contracts = stems(contractExtension).filter(
    (stem) => `${stem}${contractExtension}` !== sourcesFileName && !stem.endsWith('.lock'),
  );
  for (const stem of stems('.sql')) {
    if (!contracts.includes(stem))
      problems.push(
        `${join(queriesDir, `${stem}.sql`)}: has no contract ${stem}${contractExtension} beside it`,
      );
  }
  const endpoints = contracts.flatMap((stem) => attempt(() => loadEndpoint(queriesDir, stem)) ?? []);
  problems.push(...duplicates(endpoints, 'name'), ...duplicates(endpoints, 'id'));
  if (problems.length > 0) throw new Error(problems.join('\n'));
  if (endpoints.length === 0)
    throw new Error(`${queriesDir}: holds no endpoint (<name>.sql with <name>${contractExtension})`);
  const index = new Map<string, Endpoint>();
  for (const endpoint of endpoints) {
    index.set(endpoint.name, endpoint);
    index.set(endpoint.id.toLowerCase(), endpoint);
  }
  return {
    endpoints,
    sources,
    tables,
    find: (nameOrId) => index.get(nameOrId) ?? index.get(nameOrId.toLowerCase()),
  };
}

function loadEndpoint(queriesDir: string, stem: string): Endpoint {
  const contractFile = join(queriesDir, `${stem}${contractExtension}`);
  const contract = readYamlFile(contractFile, contractSchema);
  if (contract.name !== stem)
    throw new Error(
      `${contractFile}: name: is ${contract.name}; the file must be named for it (${contract.name}${contractExtension})`,
    );
  const sqlFile = join(queriesDir, `${stem}.sql`);
  let sql: string;
  try {
    sql = readFileSync(sqlFile, 'utf8');
  } catch {
    throw new Error(`${contractFile}: has no SQL file ${stem}.sql beside it`);
  }
  let used: Set<string>;
  try {
    used = queryParameters(parseSavedStatements(sql));
  } catch (error) {
    throw new Error(`${sqlFile}: ${(error as Error).message}`);
  }
  const declared = new Set(contract.parameters.map((parameter) => parameter.name));
  const drift = [
    ...[...used]
      .filter((name) => !declared.has(name))
      .map((name) => `the SQL uses @${name}, which the contract does not declare`),
    ...[...declared]
      .filter((name) => !used.has(name))
      .map((name) => `the contract declares ${name}, which the SQL does not use`),
  ];
  if (drift.length > 0) throw new Error(`Endpoint ${contract.name}: ${drift.join('; ')}`);
  if (contract.sandboxed) assertSandboxable(contractFile, sql, [...declared]);
  const hash = createHash('sha256')
    .update(sql)
    .update('\0')
    .update(readFileSync(contractFile))
    .digest('hex')
    .slice(0, 16);
  const { maximumBytesBilled, ...rest } = contract;
  const parameterTypes = Object.fromEntries(
    contract.parameters.map((parameter) => [parameter.name, boundTypes[parameter.type]]),
  );
  return {
    ...rest,
    sql,
    contractFile,
    hash,
    parameterTypes,
    ...(maximumBytesBilled ? { maximumBytesBilled } : {}),
  };
}

/** The BigQuery type each contract type is bound with. */
const boundTypes: Readonly<Record<ParameterContract['type'], ParameterType>> = {
  text: 'STRING',
  integer: 'INT64',
  number: 'FLOAT64',
  boolean: 'BOOL',
  timestamp: 'TIMESTAMP',
};

function duplicates(endpoints: readonly Endpoint[], key: 'name' | 'id'): string[] {
  const seen = new Map<string, Endpoint>();
  const problems: string[] = [];
  for (const endpoint of endpoints) {
    const value = key === 'id' ? endpoint.id.toLowerCase() : endpoint.name;
    const first = seen.get(value);
    if (first)
      problems.push(`${endpoint.contractFile}: ${key}: ${value} is also the ${key} of ${first.contractFile}`);
    else seen.set(value, endpoint);
  }
  return problems;
}
