import { rmSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { readSources } from '../../src/endpoints/sources.js';
import { shippedSourcesWith } from '../helpers/edited-sources.js';

/** `rollup:` in sources.yaml: its dimensions are checked against the source when it loads. */

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** The shipped sources.yaml with a rollup of `dimensions` on its edge source. */
function sourcesWithRollup(dimensions: string): string {
  return shippedSourcesWith(`rollup: { dimensions: ${dimensions} }`, dirs);
}

describe('the rollup of a source', () => {
  it('takes project and declared scalar fields of metadata as dimensions', () => {
    const edge = readSources(
      sourcesWithRollup('[project, metadata.request.path, metadata.response.status_code]'),
    ).find((source) => source.name === 'cloudflare.logs.prod');
    expect(edge?.rollup?.dimensions).toEqual([
      'project',
      'metadata.request.path',
      'metadata.response.status_code',
    ]);
  });

  it.each([
    [
      'a field not declared',
      '[metadata.request.nowhere]',
      /metadata\.request\.nowhere' is not a field declared/,
    ],
    ['a record', '[metadata.request]', /metadata\.request' is a record or an array/],
    ['a column that is not a dimension', '[id]', /'id' is not a dimension/],
    ['the same dimension twice', '[project, project]', /lists a dimension twice/],
    ['no dimension', '[]', /at least one dimension/],
  ])('is refused at load, naming it, for %s', (_name, dimensions, message) => {
    expect(() => readSources(sourcesWithRollup(dimensions))).toThrow(message);
  });
});
