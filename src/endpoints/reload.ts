import { type FSWatcher, watch } from 'node:fs';
import { join, resolve, sep } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import type { Logger } from 'pino';
import type { QueryEngine } from '../engines/query-engine.js';
import type { HealthCondition } from './health.js';
import { type Refusal, refusalLine } from './refusal.js';
import { type Endpoint, loadEndpointRegistry } from './registry.js';
import { admitToFaces, type Snapshot, snapshotOf, snapshotWith } from './snapshot.js';
import { sourcesFileName } from './sources.js';
import type { TableSource } from './table-source.js';

export interface ServedEndpointsOptions {
  readonly initial: Snapshot;
  readonly engine: QueryEngine;
  readonly logger: Logger;
  /** Further checks a new snapshot must pass before it is served (the faces build from it). */
  readonly check: (snapshot: Snapshot) => void;
  /**
   * `partial`: a refused endpoint is reported and the others serve (a refused endpoint that was
   * serving keeps its previous version); `strict`: any refusal refuses the whole reload.
   * @default 'strict'
   */
  readonly refusals?: 'partial' | 'strict';
  /**
   * Brings the store's table sources to new declarations (`OpenBackend.migrateTables`), called
   * when a reload finds only columns of table sources changed; returns what changed, one line
   * each, or throws naming what it cannot change. Absent: such a change needs a restart.
   */
  readonly migrateTables?: ((tables: readonly TableSource[]) => Promise<string[]>) | undefined;
  /** Told once a new snapshot serves, with the endpoints it changed or removed. */
  readonly onSwap: (next: Snapshot, gone: (endpoint: Endpoint) => boolean) => void;
}

export type ReloadOutcome =
  | {
      readonly ok: true;
      readonly version: number;
      readonly added: string[];
      readonly changed: string[];
      readonly removed: string[];
      /** The endpoints not served as their files now say, and why. */
      readonly refused: readonly Refusal[];
      /** The changes made to table sources' tables before it, one line each (`t.c: added, STRING`). */
      readonly migrated: readonly string[];
    }
  | { readonly ok: false; readonly version: number; readonly problems: string[] };

/**
 * The snapshot being served and how it is replaced. A reload loads the directory again and checks
 * the new set in full (contracts, SQL, shapes from the engine and their locks, the faces); only
 * then does it replace the old set, in one assignment, so REST, GraphQL and OpenAPI change
 * together and a request keeps the snapshot it started with. If anything fails the old set keeps
 * serving and the log says why. A changed `sources.yaml` is refused with a log line asking for a
 * restart (the store's tables and the ingest routes are made from the sources at start), except
 * when only columns of table sources changed: the backend migrates those tables first, as
 * BigQuery's schema updates allow (`migrateTables`), and every endpoint is checked anew.
 * Reloads run one at a time; one asked for meanwhile runs after.
 */
export function createServedEndpoints(options: ServedEndpointsOptions) {
  const { engine, logger } = options;
  const refusals = options.refusals ?? 'strict';
  let current = options.initial;
  let running: Promise<ReloadOutcome> | undefined;
  let again = false;
  let watcher: FSWatcher | undefined;
  let debounce: NodeJS.Timeout | undefined;
  // The last reload's refusal, for /health until a reload succeeds.
  let refused: HealthCondition | undefined;

  async function reloadOnce(): Promise<ReloadOutcome> {
    const old = current;
    let next: Snapshot;
    let migrated: string[] = [];
    try {
      const registry = loadEndpointRegistry(old.queriesDir, { refusals });
      const migrating = options.migrateTables ? columnsChanged(old.tables, registry.tables) : [];
      const sourceChanges = sourcesChanged(
        [...old.sources, ...old.tables],
        [...registry.sources, ...registry.tables],
      ).filter((change) => !migrating.some((name) => change === `source ${name} changed`));
      if (sourceChanges.length > 0) {
        // The store's tables and the ingest routes were made from the sources at start.
        const problems = [
          `${join(old.queriesDir, sourcesFileName)}: ${sourceChanges.join('; ')}: sources apply only at start, so restart querygate to serve this directory`,
        ];
        logger.error(
          { problems, version: old.version },
          `reload refused: ${sourcesFileName} changed, which needs a restart; still serving version ${old.version}`,
        );
        return { ok: false, version: old.version, problems };
      }
      if (migrating.length > 0) {
        // Committed before the new set is checked: the store and its writer now hold the new
        // columns whatever the check finds, and a later reload finds nothing left to migrate.
        migrated = (await options.migrateTables?.(registry.tables)) ?? [];
        logger.info(
          { migrated, version: old.version },
          `migrated ${migrating.join(', ')} to the columns sources.yaml declares`,
        );
      }
      next = keepServing(
        old,
        admitToFaces(
          await snapshotOf(registry, old.queriesDir, engine, { version: old.version + 1, refusals }),
          options.check,
          refusals,
        ),
        options.check,
      );
    } catch (error) {
      const problems = (error as Error).message.split('\n');
      logger.error(
        { problems, version: old.version },
        `reload refused; still serving version ${old.version}`,
      );
      return { ok: false, version: old.version, problems };
    }
    if (next.refused.length > 0 && sameEndpoints(old, next)) {
      // Only refusals: what serves stays as it is, under its version.
      const problems = next.refused.map(refusalLine);
      logger.error(
        { problems, refused: next.refused, version: old.version },
        `reload refused; still serving version ${old.version}`,
      );
      return { ok: false, version: old.version, problems };
    }
    const kept = new Map(next.endpoints.map((endpoint) => [endpoint.id.toLowerCase(), endpoint.hash]));
    const gone = (endpoint: Endpoint) => kept.get(endpoint.id.toLowerCase()) !== endpoint.hash;
    const names = (endpoints: readonly Endpoint[]) => new Set(endpoints.map((endpoint) => endpoint.name));
    const before = names(old.endpoints);
    const after = names(next.endpoints);
    const outcome = {
      ok: true as const,
      version: next.version,
      added: [...after].filter((name) => !before.has(name)),
      removed: [...before].filter((name) => !after.has(name)),
      changed: next.endpoints
        .filter((endpoint) => before.has(endpoint.name) && old.find(endpoint.name)?.hash !== endpoint.hash)
        .map((endpoint) => endpoint.name),
      refused: next.refused,
      migrated,
    };
    current = next;
    options.onSwap(next, gone);
    if (next.refused.length > 0) {
      logger.warn(
        outcome,
        `reloaded ${old.queriesDir}: now serving version ${next.version}, refusing ${next.refused.length} problems`,
      );
    } else {
      logger.info(outcome, `reloaded ${old.queriesDir}: now serving version ${next.version}`);
    }
    return outcome;
  }

  function reload(): Promise<ReloadOutcome> {
    if (running) {
      again = true;
      return running;
    }
    running = (async () => {
      let outcome: ReloadOutcome;
      do {
        again = false;
        outcome = await reloadOnce();
        refused = outcome.ok ? undefined : refusedReloadCondition(outcome, current.queriesDir, refused);
      } while (again);
      running = undefined;
      return outcome;
    })();
    return running;
  }

  return {
    current: () => current,
    reload,
    /** `/health`'s condition while the last reload was refused (the previous set still serves). */
    refusedReload: (): HealthCondition | undefined => refused,
    /** Reloads whenever a file of the directory changes (development): a burst of writes is one reload. */
    watch(): void {
      watcher ??= watch(current.queriesDir, () => {
        clearTimeout(debounce);
        debounce = setTimeout(() => void reload(), 200);
      });
    },
    close(): void {
      clearTimeout(debounce);
      watcher?.close();
    },
  };
}

/**
 * The condition of a refused reload: since the first of a run of refusals, with its problems
 * (each file named relative to the queries directory, so no path of the host leaks).
 */
function refusedReloadCondition(
  outcome: { readonly version: number; readonly problems: readonly string[] },
  queriesDir: string,
  before: HealthCondition | undefined,
): HealthCondition {
  const directory = `${resolve(queriesDir)}${sep}`;
  return {
    kind: 'reload-refused',
    message: `the last reload of the queries directory was refused; still serving version ${outcome.version}`,
    since: before?.since ?? new Date().toISOString(),
    version: outcome.version,
    problems: outcome.problems.map((problem) => problem.replaceAll(directory, '')),
  };
}

/** How the sources differ, by name: `source x is new`, `source y is gone`, `source z changed`. */
function sourcesChanged(
  before: readonly { readonly name: string }[],
  after: readonly { readonly name: string }[],
): string[] {
  const old = new Map(before.map((source) => [source.name, source]));
  const next = new Map(after.map((source) => [source.name, source]));
  return [
    ...after.filter((source) => !old.has(source.name)).map((source) => `source ${source.name} is new`),
    ...before.filter((source) => !next.has(source.name)).map((source) => `source ${source.name} is gone`),
    ...after
      .filter((source) => old.has(source.name) && !isDeepStrictEqual(old.get(source.name), source))
      .map((source) => `source ${source.name} changed`),
  ];
}

/** The table sources declared before and now whose columns alone differ. */
function columnsChanged(before: readonly TableSource[], after: readonly TableSource[]): string[] {
  const old = new Map(before.map((table) => [table.name, table]));
  return after
    .filter((table) => {
      const was = old.get(table.name);
      return (
        was !== undefined &&
        !isDeepStrictEqual(was.columns, table.columns) &&
        isDeepStrictEqual({ ...was, columns: [] }, { ...table, columns: [] })
      );
    })
    .map((table) => table.name);
}

/**
 * The new snapshot, with each endpoint it refuses that the old one served kept at its old version
 * (its refusal still reported): a broken file never takes down what serves. A kept endpoint that
 * no longer fits the faces (a new endpoint took its type name) is refused after all.
 */
function keepServing(old: Snapshot, next: Snapshot, check: (snapshot: Snapshot) => void): Snapshot {
  const refusedNames = new Set(next.refused.map((refusal) => refusal.endpoint));
  const add = old.endpoints
    .filter((endpoint) => refusedNames.has(endpoint.name) && next.find(endpoint.name) === undefined)
    .filter((endpoint) => next.find(endpoint.id) === undefined)
    .map((endpoint) => ({ endpoint, shape: old.shapes.get(endpoint.name) ?? [] }));
  if (add.length === 0) return next;
  return admitToFaces(snapshotWith(next, { add }), check, 'partial');
}

/** Whether two snapshots serve the same endpoints at the same versions (their files unchanged). */
function sameEndpoints(a: Snapshot, b: Snapshot): boolean {
  const versions = (snapshot: Snapshot) =>
    snapshot.endpoints
      .map((endpoint) => `${endpoint.id.toLowerCase()}:${endpoint.hash}`)
      .sort()
      .join(',');
  return versions(a) === versions(b);
}
