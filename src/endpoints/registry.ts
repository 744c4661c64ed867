import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ParameterType, SavedQuery } from '../engines/query-engine.js';
import { parseBigQuery, queryParameters } from '../sql/bigquery-ast.js';
import { defaultProblem } from './bind-parameters.js';
import {
  contractSchema,
  derivedParameter,
  type EndpointContract,
  type ParameterContract,
} from './contract.js';
import { type Refusal, refusalsOf } from './refusal.js';
import { assertSandboxable } from './sandboxable.js';
import { type LogSource, readSourceDeclarations, sourcesFileName } from './sources.js';
import { sqlProblemLine } from './sql-problem.js';
import type { TableSource } from './table-source.js';
import type { UndeclaredParameters } from './undeclared-parameters.js';
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
  /** Its directory's setting (`sources.yaml`): whether a parameter it does not declare is refused. */
  readonly undeclaredParameters: UndeclaredParameters;
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
  /** The endpoints of the directory that are not served, and why (empty when loaded strictly). */
  readonly refused: readonly Refusal[];
  /** By dotted name or by UUID: both reach the same endpoint. */
  find(nameOrId: string): Endpoint | undefined;
}

export interface RegistryOptions {
  /**
   * `partial` serves the endpoints that pass and reports each refused one in `refused`; `strict`
   * refuses the whole directory when any endpoint fails (deploy pipelines). @default 'strict'
   */
  readonly refusals?: 'partial' | 'strict';
}

/** The registry of these endpoints (dropped ones are simply absent from `find`). */
export function registryOf(
  endpoints: readonly Endpoint[],
  sources: readonly LogSource[],
  tables: readonly TableSource[],
  refused: readonly Refusal[],
): EndpointRegistry {
  const index = new Map<string, Endpoint>();
  for (const endpoint of endpoints) {
    index.set(endpoint.name, endpoint);
    index.set(endpoint.id.toLowerCase(), endpoint);
  }
  return {
    endpoints,
    sources,
    tables,
    refused,
    find: (nameOrId) => index.get(nameOrId) ?? index.get(nameOrId.toLowerCase()),
  };
}

const contractExtension = '.yaml';

/**
 * Loads every endpoint of a queries directory: `<name>.sql` with its contract `<name>.yaml`, and
 * the sources of `sources.yaml`. Every problem of every file is collected, one line each. An
 * endpoint whose SQL uses other `@parameters` than its contract declares is refused: a contract
 * that drifted from its query would validate the wrong things and bind the wrong values. Of two
 * endpoints with one name or UUID, the later (by file name) is refused. A problem of the
 * directory itself or of `sources.yaml` refuses the whole directory, since every query reads the
 * sources.
 */
export function loadEndpointRegistry(queriesDir: string, options: RegistryOptions = {}): EndpointRegistry {
  let files: string[];
  try {
    files = readdirSync(queriesDir).sort();
  } catch (error) {
    throw new Error(
      `The queries directory ${queriesDir} cannot be read (${(error as NodeJS.ErrnoException).code})`,
    );
  }
  const { logs: sources, tables, undeclaredParameters } = readSourceDeclarations(queriesDir);
  // In every endpoint's hash: a migrated table makes each endpoint new, so each is checked and
  // planned again over the table as it now is, and no result cached before is served.
  const tablesDigest = createHash('sha256')
    .update(JSON.stringify(tables.map((table) => [table.name, table.columns])))
    .digest('hex');
  const problems: { stem: string; contractFile: string; message: string }[] = [];
  const stems = (extension: string) =>
    files.filter((file) => file.endsWith(extension)).map((file) => file.slice(0, -extension.length));
  const contracts = stems(contractExtension).filter(
    (stem) => `${stem}${contractExtension}` !== sourcesFileName && !stem.endsWith('.lock'),
  );
  for (const stem of stems('.sql')) {
    if (!contracts.includes(stem))
      problems.push({
        stem,
        contractFile: join(queriesDir, `${stem}.sql`),
        message: `${join(queriesDir, `${stem}.sql`)}: has no contract ${stem}${contractExtension} beside it`,
      });
  }
  const loaded = contracts.flatMap((stem) => {
    const contractFile = join(queriesDir, `${stem}${contractExtension}`);
    try {
      return [loadEndpoint(queriesDir, stem, undeclaredParameters, tablesDigest)];
    } catch (error) {
      problems.push({ stem, contractFile, message: (error as Error).message });
      return [];
    }
  });
  const endpoints = loaded.filter((endpoint) => {
    const taken = [duplicateOf(loaded, endpoint, 'name'), duplicateOf(loaded, endpoint, 'id')].filter(
      (line): line is string => line !== undefined,
    );
    for (const message of taken)
      problems.push({ stem: endpoint.name, contractFile: endpoint.contractFile, message });
    return taken.length === 0;
  });
  if (options.refusals !== 'partial' && problems.length > 0)
    throw new Error(problems.map((problem) => problem.message).join('\n'));
  if (contracts.length === 0)
    throw new Error(`${queriesDir}: holds no endpoint (<name>.sql with <name>${contractExtension})`);
  const refused = problems.flatMap((problem) =>
    refusalsOf(queriesDir, problem.stem, problem.contractFile, problem.message),
  );
  return registryOf(endpoints, sources, tables, refused);
}

function loadEndpoint(
  queriesDir: string,
  stem: string,
  undeclaredParameters: UndeclaredParameters,
  tablesDigest: string,
): Endpoint {
  const contractFile = join(queriesDir, `${stem}${contractExtension}`);
  const written = readYamlFile(contractFile, contractSchema);
  if (written.name !== stem)
    throw new Error(
      `${contractFile}: name: is ${written.name}; the file must be named for it (${written.name}${contractExtension})`,
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
    used = queryParameters(parseBigQuery(sql));
  } catch (error) {
    throw new Error(sqlProblemLine(sqlFile, error, sql));
  }
  const contract = { ...written, parameters: written.parameters ?? [...used].map(derivedParameter) };
  const badDefaults = contract.parameters.flatMap((parameter, index) => {
    const problem = defaultProblem(parameter);
    return problem === undefined ? [] : [`${contractFile}: parameters[${index}].default: ${problem}`];
  });
  if (badDefaults.length > 0) throw new Error(badDefaults.join('\n'));
  const declared = new Set(contract.parameters.map((parameter) => parameter.name));
  const drift = [
    ...[...used]
      .filter((name) => !declared.has(name))
      .map((name) => `the SQL uses @${name}, which the contract does not declare`),
    ...[...declared]
      .filter((name) => !used.has(name))
      .map((name) => `the contract declares ${name}, which the SQL does not use`),
    ...contract.examples.flatMap((example, index) =>
      Object.keys(example)
        .filter((key) => !declared.has(key))
        .map((key) => `examples[${index}].${key}: names ${key}, which is no parameter`),
    ),
  ];
  if (drift.length > 0) throw new Error(`Endpoint ${contract.name}: ${drift.join('; ')}`);
  if (contract.sandboxed) assertSandboxable(contractFile, sql, [...declared]);
  const hash = createHash('sha256')
    .update(sql)
    .update('\0')
    .update(readFileSync(contractFile))
    // The directory's setting too, so a reload that changes only it serves the change.
    .update(`\0${undeclaredParameters}\0${tablesDigest}`)
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
    undeclaredParameters,
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

/** Where an earlier endpoint already has this one's name or UUID: the key to change, in its file. */
function duplicateOf(
  endpoints: readonly Endpoint[],
  endpoint: Endpoint,
  key: 'name' | 'id',
): string | undefined {
  const keyOf = (it: Endpoint) => (key === 'id' ? it.id.toLowerCase() : it.name);
  const first = endpoints.find((it) => keyOf(it) === keyOf(endpoint));
  if (first === undefined || first === endpoint) return undefined;
  return `${endpoint.contractFile}: ${key}: ${keyOf(endpoint)} is also the ${key} of ${first.contractFile}`;
}
