import { join, resolve } from 'node:path';
import { type BackendChoice, backendOf, ownSettingsOf } from '../backends/registry.js';
import { checkSnapshot } from '../check-snapshot.js';
import { refusalLine } from '../endpoints/refusal.js';
import { type ShapeColumn, writeLock } from '../endpoints/shape-lock.js';
import { admitToFaces, type Snapshot, type SnapshotOptions } from '../endpoints/snapshot.js';
import { chosenIn, loadScratchSnapshot, type ScratchSelection, type ShapesOn } from './scratch-snapshot.js';

/**
 * With a backend named (`bigquery: { config }`, as QUERYGATE_ENGINE=bigquery gives): derive shapes
 * on it, as the server does at start (BigQuery dry-runs each endpoint). @default an empty DuckDB store
 */
export interface QueriesCommandOptions extends ShapesOn {
  readonly queriesDir: string;
  /** Where lines go. @default process.stdout */
  readonly print?: (line: string) => void;
}

/** The configured backend, for `queries check|lock` to derive shapes as the server would. */
export function shapesOn(config: BackendChoice): ShapesOn {
  return { [config.engine]: { config: ownSettingsOf(config) } };
}

/**
 * `querygate queries check`: every check the server makes before serving a queries directory,
 * without serving it: the contracts and sources validate, the SQL parses and translates, its
 * `@params` match the contract, each statement prepares on an empty DuckDB store with the declared
 * sources (or dry-runs on the configured BigQuery), each shape equals its lock (a missing lock is
 * a problem here), and every face builds from it (`checkSnapshot`: the GraphQL schema, the OpenAPI
 * document). One line per problem, naming its file and the key to change (each refused endpoint
 * is checked on its own, as the server serves the others); false when there was any.
 */
export async function runQueriesCheck(options: QueriesCommandOptions): Promise<boolean> {
  const print = options.print ?? ((line: string) => process.stdout.write(`${line}\n`));
  const snapshot = await attempt(options, { locks: 'require' }, print);
  if (!snapshot) return false;
  const checkedOn = backendOf(chosenIn(options).kind).checkedOn;
  const on = checkedOn ? ` on ${checkedOn}` : '';
  const dir = resolve(options.queriesDir);
  const refused = new Set(snapshot.refused.map((refusal) => refusal.endpoint)).size;
  const others = refused > 0 ? ` (${refused} refused; the server would serve the others)` : '';
  print(
    `${refused > 0 ? '✗' : '✓'} ${snapshot.endpoints.length} endpoints in ${dir} pass every check${on}${others}`,
  );
  return refused === 0;
}

/**
 * `querygate queries lock [NAME...]`: writes the current shape of each endpoint named (of every
 * endpoint when none is) as its lock; the others are neither derived nor touched.
 */
export async function runQueriesLock(options: QueriesCommandOptions & ScratchSelection): Promise<boolean> {
  return (await lockShapes(options)).ok;
}

/** What `queries lock` did: whether every endpoint it was about was locked, and their shapes. */
export async function lockShapes(
  options: QueriesCommandOptions & ScratchSelection,
): Promise<{ ok: boolean; shapes: ReadonlyMap<string, readonly ShapeColumn[]> }> {
  const print = options.print ?? ((line: string) => process.stdout.write(`${line}\n`));
  const snapshot = await attempt(options, { locks: 'ignore', only: options.only }, print);
  if (!snapshot) return { ok: false, shapes: new Map() };
  for (const endpoint of snapshot.endpoints) {
    print(`Locked ${writeLock(options.queriesDir, endpoint.name, snapshot.shapes.get(endpoint.name) ?? [])}`);
  }
  return { ok: snapshot.refused.length === 0, shapes: snapshot.shapes };
}

async function attempt(
  options: QueriesCommandOptions,
  snapshotOptions: SnapshotOptions & ScratchSelection,
  print: (line: string) => void,
): Promise<Snapshot | undefined> {
  try {
    const dir = resolve(options.queriesDir);
    const loaded = await loadScratchSnapshot(dir, { ...snapshotOptions, refusals: 'partial' }, options);
    const snapshot = admitToFaces(loaded, checkSnapshot, 'partial');
    for (const refusal of snapshot.refused) print(`✗ ${join(dir, refusalLine(refusal))}`);
    return snapshot;
  } catch (error) {
    for (const line of (error as Error).message.split('\n')) print(`✗ ${line}`);
    return undefined;
  }
}
