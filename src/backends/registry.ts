import type { Backend, BackendSettings, OpenBackend, OpenContext } from './backend.js';
import { bigqueryBackend } from './bigquery/index.js';
import { duckdbBackend } from './duckdb/index.js';

/**
 * Every backend querygate can serve from, by the name QUERYGATE_ENGINE gives it: the one place
 * that names them. Adding a backend is its folder and one line here. The first is the default.
 */
export const backends = {
  duckdb: duckdbBackend,
  bigquery: bigqueryBackend,
} as const;

export type BackendKind = keyof typeof backends;

/** The kinds, default first, as zod's enum takes them. */
export const backendKinds = Object.keys(backends) as [BackendKind, ...BackendKind[]];

/** The backend QUERYGATE_ENGINE names when it is unset. */
export const defaultBackendKind: BackendKind = backendKinds[0];

export type OwnOf<K extends BackendKind> = (typeof backends)[K] extends Backend<infer Own> ? Own : never;

/** Each backend's own parsed variables, under its kind (`config.bigquery`); set for the engine chosen. */
export type BackendOwnSettings = { readonly [K in BackendKind]?: Readonly<OwnOf<K>> | undefined };

/** What the server and the CLI know of the configuration: which backend, and its settings. */
export interface BackendChoice extends BackendSettings, BackendOwnSettings {
  readonly engine: BackendKind;
}

export function isBackendKind(name: unknown): name is BackendKind {
  return typeof name === 'string' && Object.hasOwn(backends, name);
}

export function backendOf(kind: BackendKind): Backend {
  return backends[kind] as Backend;
}

/** The chosen backend's own settings. */
export function ownSettingsOf(config: BackendChoice): unknown {
  return config[config.engine];
}

/** Opens the configured backend: its engine, its log sink, and what it keeps running. */
export function openBackend(
  config: BackendChoice,
  context: Omit<OpenContext<unknown>, 'settings' | 'own'>,
): Promise<OpenBackend> {
  return backendOf(config.engine).open({ ...context, settings: config, own: ownSettingsOf(config) });
}
