import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/**
 * The relative imports between the files of `src/`, read as text (type-only imports included:
 * they tie the files as much as any other), and the rooms they fall in: the first folder under
 * `src/`, or the file itself for a file at its top.
 */
/**
 * The layers of src/, top down (docs/architecture.md says what each is for). A room may import
 * only from rooms of a lower layer: faces → registry/resolver → engine seam → engines, never back.
 */
export const layers = [
  ['cli/'],
  ['server.ts'],
  ['plugins/'],
  ['config.ts', 'check-snapshot.ts'],
  ['rest/', 'graphql/', 'openapi/', 'backends/'],
  ['http/', 'resolve/', 'demo/'],
  ['storage/'],
  ['endpoints/'],
  ['engines/', 'sql/', 'keyed-semaphore.ts', 'metrics/', 'api-key-file.ts'],
  ['errors.ts', 'timers.ts', 'paths.ts', 'logger.ts', 'data-directory.ts', 'server-file.ts'],
] as const;

export interface ImportGraph {
  readonly files: readonly string[];
  /** file → the files it imports, paths relative to `src/`. */
  readonly imports: ReadonlyMap<string, readonly string[]>;
}

export function readImportGraph(srcDir: string): ImportGraph {
  const root = resolve(srcDir);
  const files: string[] = [];
  const walk = (dir: string) => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.ts')) files.push(relative(root, path));
    }
  };
  walk(root);
  const imports = new Map<string, string[]>();
  for (const file of files) {
    const text = readFileSync(join(root, file), 'utf8');
    const targets = new Set<string>();
    for (const match of text.matchAll(/^(?:import|export)\b[^;]*?\bfrom\s+'(\.{1,2}\/[^']+)'/gms)) {
      const specifier = (match[1] as string).replace(/\.js$/, '.ts');
      targets.add(relative(root, resolve(root, dirname(file), specifier)));
    }
    imports.set(file, [...targets].sort());
  }
  return { files, imports };
}

export function roomOf(file: string): string {
  const slash = file.indexOf('/');
  return slash === -1 ? file : `${file.slice(0, slash)}/`;
}

/** Every circle of file imports, each as the files on it (empty when there is none). */
export function importCircles(graph: ImportGraph): string[][] {
  const circles: string[][] = [];
  const state = new Map<string, 'open' | 'done'>();
  const path: string[] = [];
  const visit = (file: string) => {
    state.set(file, 'open');
    path.push(file);
    for (const target of graph.imports.get(file) ?? []) {
      if (state.get(target) === 'open') circles.push(path.slice(path.indexOf(target)));
      else if (!state.has(target)) visit(target);
    }
    path.pop();
    state.set(file, 'done');
  };
  for (const file of graph.files) if (!state.has(file)) visit(file);
  return circles;
}

/** room → the rooms it imports from, in name order. */
export function roomArrows(graph: ImportGraph): Map<string, string[]> {
  const arrows = new Map<string, Set<string>>();
  for (const [file, targets] of graph.imports) {
    for (const target of targets) {
      if (roomOf(file) === roomOf(target)) continue;
      const set = arrows.get(roomOf(file)) ?? new Set<string>();
      set.add(roomOf(target));
      arrows.set(roomOf(file), set);
    }
  }
  return new Map(
    [...arrows].sort(([a], [b]) => a.localeCompare(b)).map(([room, set]) => [room, [...set].sort()]),
  );
}

/**
 * The drawing in docs/architecture.md: the layers from the top down, each room with the rooms it
 * imports. Made from the imports, so a test can tell when the page no longer shows the code.
 */
export function drawLayers(graph: ImportGraph, layers: readonly (readonly string[])[]): string {
  const arrows = roomArrows(graph);
  const lines: string[] = [];
  for (const [index, rooms] of layers.entries()) {
    for (const room of rooms) {
      const to = arrows.get(room) ?? [];
      lines.push(
        `${String(layers.length - index).padStart(2)}  ${room.padEnd(19)}${to.length ? `→ ${to.join(' ')}` : ''}`.trimEnd(),
      );
    }
  }
  return lines.join('\n');
}
