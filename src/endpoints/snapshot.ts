import type { QueryEngine, ResultColumn } from '../engines/query-engine.js';
import type { Endpoint, EndpointRegistry } from './registry.js';
import { lockFileOf, readLock, type ShapeColumn, shapeDifferences } from './shape-lock.js';

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
}

/** The snapshot of a registry already loaded (start-up needs its sources before the engine). */
export async function snapshotOf(
  registry: EndpointRegistry,
  queriesDir: string,
  engine: QueryEngine,
  { version = 1, locks = 'check' }: SnapshotOptions = {},
): Promise<Snapshot> {
  const problems: string[] = [];
  const shapes = new Map<string, readonly ShapeColumn[]>();
  for (const endpoint of registry.endpoints) {
    try {
      const shape = shapeOf(endpoint, await engine.describe(endpoint));
      if (locks !== 'ignore') checkLock(queriesDir, endpoint, shape, locks === 'require');
      shapes.set(endpoint.name, shape);
    } catch (error) {
      problems.push(problemLine(queriesDir, endpoint, error));
    }
  }
  if (problems.length > 0) throw new Error(problems.join('\n'));
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

/** A problem as `file: what`, naming the contract where the message names no file of the directory. */
function problemLine(queriesDir: string, endpoint: Endpoint, error: unknown): string {
  const message = (error as Error).message;
  return message.startsWith(queriesDir) ? message : `${endpoint.contractFile}: ${message}`;
}

/** The shape of an endpoint's result: the engine's columns checked against the contract's. */
export function shapeOf(endpoint: Endpoint, described: readonly ResultColumn[]): ShapeColumn[] {
  const returned = new Set(described.map((column) => column.name));
  const problems = [
    ...described
      .filter((column) => endpoint.columns[column.name] === undefined)
      .map((column) => `columns: the query returns ${column.name}, which has no description in the contract`),
    ...Object.keys(endpoint.columns)
      .filter((name) => !returned.has(name))
      .map((name) => `columns.${name}: the query returns no column ${name}`),
  ];
  if (problems.length > 0)
    throw new Error(problems.map((line) => `${endpoint.contractFile}: ${line}`).join('\n'));
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
  };
}
