import type { QueryEngine, ResultColumn } from '../engines/query-engine.js';
import { isEndpointRefusedError, type Refusal, refusalsOf } from './refusal.js';
import { type Endpoint, type EndpointRegistry, registryOf } from './registry.js';
import { lockFileOf, readLock, type ShapeColumn, shapeDifferences } from './shape-lock.js';
import { sqlProblemLine } from './sql-problem.js';

export type { ShapeColumn } from './shape-lock.js';

/**
 * One loaded, checked set of endpoints: the registry with each endpoint's result shape as the
 * engine derived it. Immutable; a reload builds a new one and swaps it in whole, and a request
 * keeps the one it started with.
 */
export interface Snapshot extends EndpointRegistry {
  /** Counts loads: 1 at start, then one more per successful reload. */
  readonly version: number;
  readonly queriesDir: string;
  /** By endpoint name. */
  readonly shapes: ReadonlyMap<string, readonly ShapeColumn[]>;
  /**
   * What `make` builds from this snapshot (a face's schema, its document), built on the first
   * call and kept with the snapshot, so it lives and goes with it. `make` must be a pure function
   * of the snapshot; it is the key, so pass the same function each time.
   */
  derived<T>(make: (snapshot: Snapshot) => T): T;
}

export interface SnapshotOptions {
  /** @default 1 */
  readonly version?: number;
  /**
   * How shapes meet their locks: `check` refuses a shape that differs from its lock (an endpoint
   * without one is served unlocked), `require` also refuses a missing lock (`queries check`),
   * `ignore` skips them (`queries lock`). @default 'check'
   */
  readonly locks?: 'check' | 'require' | 'ignore';
  /**
   * `partial` serves the endpoints whose shape is derived (and matches its lock) and refuses the
   * others one by one; `strict` refuses the whole set on any problem. @default 'strict'
   */
  readonly refusals?: 'partial' | 'strict';
}

/** The snapshot of a registry already loaded (start-up needs its sources before the engine). */
export async function snapshotOf(
  registry: EndpointRegistry,
  queriesDir: string,
  engine: QueryEngine,
  { version = 1, locks = 'check', refusals = 'strict' }: SnapshotOptions = {},
): Promise<Snapshot> {
  const problems: string[] = [];
  const refused: Refusal[] = [...registry.refused];
  const shapes = new Map<string, readonly ShapeColumn[]>();
  for (const endpoint of registry.endpoints) {
    try {
      const shape = shapeOf(endpoint, await engine.describe(endpoint));
      if (locks !== 'ignore') checkLock(queriesDir, endpoint, shape, locks === 'require');
      shapes.set(endpoint.name, shape);
    } catch (error) {
      const line = problemLine(queriesDir, endpoint, error);
      problems.push(line);
      refused.push(...refusalsOf(queriesDir, endpoint.name, endpoint.contractFile, line));
    }
  }
  if (refusals === 'strict' && problems.length > 0) throw new Error(problems.join('\n'));
  const served = registry.endpoints.filter((endpoint) => shapes.has(endpoint.name));
  return sealed(
    { ...registry, ...registryOf(served, registry.sources, registry.tables, refused) },
    version,
    queriesDir,
    shapes,
  );
}

/**
 * The one place a snapshot is made: whatever else a registry carries (table sources) is kept, and
 * what belongs to one snapshot alone (its version, shapes, and anything memoised per snapshot)
 * is set here last, so a snapshot made from another never inherits it.
 */
function sealed(
  registry: EndpointRegistry,
  version: number,
  queriesDir: string,
  shapes: ReadonlyMap<string, readonly ShapeColumn[]>,
): Snapshot {
  const made = new Map<(snapshot: Snapshot) => unknown, unknown>();
  const snapshot: Snapshot = Object.freeze({
    ...registry,
    version,
    queriesDir,
    shapes,
    derived<T>(make: (snapshot: Snapshot) => T): T {
      if (!made.has(make)) made.set(make, make(snapshot));
      return made.get(make) as T;
    },
  });
  return snapshot;
}

/**
 * The snapshot of some of `snapshot`'s endpoints (each by its name, possibly restated, as a
 * signed token's view restates pinned parameters as optional): the same version, sources and
 * shapes, and its own faces, derived and kept with it.
 */
export function snapshotServing(snapshot: Snapshot, endpoints: readonly Endpoint[]): Snapshot {
  return sealed(
    { ...snapshot, ...registryOf(endpoints, snapshot.sources, snapshot.tables, snapshot.refused) },
    snapshot.version,
    snapshot.queriesDir,
    snapshot.shapes,
  );
}

/** The snapshot with these endpoints added after its own (their shapes given), or some taken out. */
export function snapshotWith(
  snapshot: Snapshot,
  change: {
    readonly add?: readonly { endpoint: Endpoint; shape: readonly ShapeColumn[] }[];
    readonly drop?: string;
    readonly refused?: readonly Refusal[];
  },
): Snapshot {
  const endpoints = [
    ...snapshot.endpoints.filter((endpoint) => endpoint.name !== change.drop),
    ...(change.add ?? []).map((added) => added.endpoint),
  ];
  const shapes = new Map(snapshot.shapes);
  if (change.drop !== undefined) shapes.delete(change.drop);
  for (const added of change.add ?? []) shapes.set(added.endpoint.name, added.shape);
  return sealed(
    {
      ...snapshot,
      ...registryOf(endpoints, snapshot.sources, snapshot.tables, [
        ...snapshot.refused,
        ...(change.refused ?? []),
      ]),
    },
    snapshot.version,
    snapshot.queriesDir,
    shapes,
  );
}

/**
 * The snapshot its faces can be built from: `check` builds them, and an endpoint a face refuses
 * (a GraphQL type name another shape already has) is taken out and reported, then the faces are
 * built again without it. With `strict`, such a refusal refuses the whole snapshot.
 */
export function admitToFaces(
  snapshot: Snapshot,
  check: (snapshot: Snapshot) => void,
  refusals: 'partial' | 'strict' = 'strict',
): Snapshot {
  let current = snapshot;
  for (;;) {
    try {
      check(current);
      return current;
    } catch (error) {
      if (refusals === 'strict' || !isEndpointRefusedError(error)) throw error;
      const endpoint = current.find(error.endpoint);
      // A face refused an endpoint this snapshot does not hold: nothing left to drop.
      if (endpoint === undefined) throw error;
      current = snapshotWith(current, {
        drop: endpoint.name,
        refused: refusalsOf(current.queriesDir, endpoint.name, error.contractFile, error.message),
      });
    }
  }
}

function checkLock(queriesDir: string, endpoint: Endpoint, shape: readonly ShapeColumn[], required: boolean) {
  const locked = readLock(queriesDir, endpoint.name);
  const file = lockFileOf(queriesDir, endpoint.name);
  if (locked === undefined) {
    if (required) throw new Error(`${file}: is missing; run querygate queries lock`);
    return;
  }
  const differences = shapeDifferences(locked, shape);
  if (differences.length > 0) {
    throw new Error(
      `${file}: the result of ${endpoint.name} differs from its lock (accept it with querygate queries lock): ${differences.join('; ')}`,
    );
  }
}

/**
 * A problem as `file: what`: the engine's problems are its SQL's (a refused construct, a column
 * the store lacks), named against the `.sql` file with their line and column where known; the
 * checks of the contract and the lock name their own file.
 */
function problemLine(queriesDir: string, endpoint: Endpoint, error: unknown): string {
  const message = (error as Error).message;
  if (message.startsWith(queriesDir)) return message;
  return sqlProblemLine(endpoint.contractFile.replace(/\.yaml$/, '.sql'), error, endpoint.sql);
}

/** The shape of an endpoint's result: the engine's columns checked against the contract's. */
export function shapeOf(endpoint: Endpoint, described: readonly ResultColumn[]): ShapeColumn[] {
  const returned = new Set(described.map((column) => column.name));
  // A column the contract does not name is served as the engine types it, nullable.
  const problems = Object.keys(endpoint.columns)
    .filter((name) => !returned.has(name))
    .map((name) => `columns.${name}: the query returns no column ${name}`);
  if (problems.length > 0)
    throw new Error(problems.map((line) => `${endpoint.contractFile}: ${line}`).join('\n'));
  // BigQuery answers two result columns of one name (`SELECT a.user_pseudo_id, b.user_pseudo_id`),
  // but a REST row is an object and a GraphQL row a type, each with one member per name: the
  // second would silently replace the first. Names compare as BigQuery's do, ignoring case.
  const seen = new Set<string>();
  const twice = described
    .map((column) => column.name)
    .filter((name) => seen.has(name.toLowerCase()) || !seen.add(name.toLowerCase()));
  if (twice.length > 0)
    throw new Error(
      `${endpoint.contractFile.replace(/\.yaml$/, '.sql')}: the query returns more than one column named ${[...new Set(twice)].join(', ')}; REST rows and GraphQL fields need one name per column: give the others an alias (AS ...)`,
    );
  return described.map((column) => {
    const contract = endpoint.columns[column.name];
    const nullable = contract?.nullable ?? true;
    if (contract?.json) return { name: column.name, type: 'JSON', nullable };
    return faceColumn(column, nullable);
  });
}

function faceColumn(column: ResultColumn, nullable: boolean): ShapeColumn {
  return {
    name: column.name,
    type: column.type,
    nullable,
    ...(column.type === 'RECORD'
      ? { fields: (column.fields ?? []).map((field) => faceColumn(field, true)) }
      : {}),
    ...(column.mode === undefined ? {} : { mode: column.mode }),
  };
}
