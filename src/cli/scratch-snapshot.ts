import {
  type BackendKind,
  backendKinds,
  backendOf,
  defaultBackendKind,
  type OwnOf,
} from '../backends/registry.js';
import { didYouMean } from '../endpoints/likely-meant.js';
import { type EndpointRegistry, loadEndpointRegistry, registryOf } from '../endpoints/registry.js';
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
  options: SnapshotOptions & ScratchSelection = {},
  on: ShapesOn = {},
): Promise<Snapshot> {
  const registry = selected(
    loadEndpointRegistry(queriesDir, { refusals: options.refusals ?? 'strict' }),
    options,
  );
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

/** Which endpoints of the directory a command is about. */
export interface ScratchSelection {
  /** These, by name (each must be one of the directory's, served or refused). @default all */
  readonly only?: readonly string[] | undefined;
}

/**
 * The registry of the endpoints named (the others are neither derived nor checked), or the whole
 * one; a name the directory does not hold is refused with the one it most likely meant.
 */
function selected(registry: EndpointRegistry, { only }: ScratchSelection): EndpointRegistry {
  if (only === undefined || only.length === 0) return registry;
  const known = [
    ...new Set([...registry.endpoints.map((it) => it.name), ...registry.refused.map((it) => it.endpoint)]),
  ];
  const unknown = only.filter((name) => !known.includes(name));
  if (unknown.length > 0)
    throw new Error(
      unknown.map((name) => `No endpoint named ${name} here${didYouMean(name, known)}`).join('\n'),
    );
  return registryOf(
    registry.endpoints.filter((endpoint) => only.includes(endpoint.name)),
    registry.sources,
    registry.tables,
    registry.refused.filter((refusal) => only.includes(refusal.endpoint)),
  );
}
