import {
  type BackendKind,
  backendKinds,
  backendOf,
  defaultBackendKind,
  type OwnOf,
} from '../backends/registry.js';
import { loadEndpointRegistry } from '../endpoints/registry.js';
import { type Snapshot, type SnapshotOptions, snapshotOf } from '../endpoints/snapshot.js';

/** A backend to derive shapes on: its settings, and a client of it (tests point one at a fake). */
export interface ScratchTarget<Own> {
  readonly config: Own;
  /** @default its own, made from `config` */
  readonly client?: unknown;
}

/**
 * Where `loadScratchSnapshot` derives shapes, keyed by backend kind (`{ bigquery: { config } }`).
 * None: an empty in-memory store of the default backend.
 */
export type ShapesOn = { readonly [K in BackendKind]?: ScratchTarget<OwnOf<K>> | undefined };

/** The backend `on` names (the first, if several), and its target. */
export function chosenIn(on: ShapesOn): { kind: BackendKind; target?: ScratchTarget<unknown> } {
  const kind = backendKinds.find((name) => on[name] !== undefined) ?? defaultBackendKind;
  return { kind, target: on[kind] };
}

/**
 * Loads a queries directory as the server would, without a server or a data directory: against an
 * empty store of the chosen backend holding its sources' tables (on BigQuery, each endpoint
 * dry-run, so its shape is the warehouse's). For the commands that print the schema or check and
 * lock queries.
 */
export async function loadScratchSnapshot(
  queriesDir: string,
  options: SnapshotOptions = {},
  on: ShapesOn = {},
): Promise<Snapshot> {
  const registry = loadEndpointRegistry(queriesDir, { refusals: options.refusals ?? 'strict' });
  const { kind, target } = chosenIn(on);
  const engine = await backendOf(kind).scratch({
    own: target?.config,
    sources: registry.sources,
    tables: registry.tables,
    client: target?.client,
  });
  try {
    return await snapshotOf(registry, queriesDir, engine, options);
  } finally {
    await engine.close();
  }
}
