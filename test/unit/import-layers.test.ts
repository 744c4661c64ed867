import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { packageRoot } from '../../src/paths.js';
import {
  drawLayers,
  importCircles,
  layers,
  readImportGraph,
  roomArrows,
  roomOf,
} from '../helpers/import-graph.js';

const graph = readImportGraph(join(packageRoot, 'src'));
const layerOf = new Map<string, number>(layers.flatMap((rooms, index) => rooms.map((room) => [room, index])));

describe('the imports of src/', () => {
  it('form no circle between files', () => {
    expect(importCircles(graph)).toEqual([]);
  });

  it('place every room of src/ in exactly one layer', () => {
    const rooms = [...new Set(graph.files.map(roomOf))].sort();
    expect(rooms.filter((room) => !layerOf.has(room))).toEqual([]);
    expect([...layerOf.keys()].filter((room) => !rooms.includes(room))).toEqual([]);
  });

  it('run only from a layer down to a lower one', () => {
    const upward: string[] = [];
    for (const [room, targets] of roomArrows(graph)) {
      for (const target of targets) {
        if ((layerOf.get(target) ?? -1) <= (layerOf.get(room) ?? -1)) upward.push(`${room} → ${target}`);
      }
    }
    expect(upward).toEqual([]);
  });

  it('are what the drawing in docs/architecture.md shows (npm run layers prints it anew)', () => {
    const page = readFileSync(join(packageRoot, 'docs/architecture.md'), 'utf8');
    const drawn = /<!-- layers -->\n```\n([\s\S]*?)\n```/.exec(page)?.[1];
    expect(drawn).toBe(drawLayers(graph, layers));
  });
});
