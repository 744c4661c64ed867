import type { DuckDBConnection } from '@duckdb/node-api';
import { raisedError } from '../sql/raised-errors.js';
import { editDistanceFunction } from '../sql/rules/rule.js';
import { registerTextFunction } from './text-function.js';

/**
 * BigQuery's EDIT_DISTANCE of two STRINGs: the Levenshtein distance between their code points
 * (ZetaSQL's functions/distance.cc, EditDistance), where DuckDB's levenshtein counts bytes ('ä' to
 * 'a' is 2) and JavaScript's string libraries count UTF-16 units (an emoji is two), so neither is
 * used. One row of the table at a time: O(length of a × length of b).
 */
/** About 0.1 s of the loop below. */
const maxEditCells = 1 << 24;

export function editDistance(a: string, b: string): number {
  const from = Array.from(a);
  const to = Array.from(b);
  // A registered function runs on the server's one JavaScript thread: two long texts (stored
  // event messages of megabytes) would hold every other request for minutes.
  if (from.length * to.length > maxEditCells)
    throw raisedError(
      `EDIT_DISTANCE of texts of ${from.length} and ${to.length} characters is not computed here: their product is beyond ${maxEditCells}`,
    );
  let previous = Array.from({ length: to.length + 1 }, (_, j) => j);
  for (let i = 1; i <= from.length; i++) {
    const current = [i];
    for (let j = 1; j <= to.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (from[i - 1] === to[j - 1] ? 0 : 1);
      current[j] = Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution);
    }
    previous = current;
  }
  return previous[to.length] ?? 0;
}

/** Makes `editDistanceFunction` known to the connection's whole DuckDB instance; its text is the distance. */
export function registerEditDistance(connection: DuckDBConnection): void {
  registerTextFunction(connection, editDistanceFunction, (a, b) => String(editDistance(a, b)));
}
