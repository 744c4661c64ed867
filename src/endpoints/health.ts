import type { Refusal } from './refusal.js';
import type { Snapshot } from './snapshot.js';

/**
 * The body of the public `/health`: the server answers (200), and which endpoints of its queries
 * directory it refuses, each with its file (relative to the directory, so no path of the host
 * leaks) and the reason, for a deploy to notice without reading the log.
 */
export function healthOf(
  engine: string,
  snapshot: Snapshot,
): { status: 'ok'; engine: string; refused?: readonly Refusal[] } {
  return snapshot.refused.length > 0
    ? { status: 'ok', engine, refused: snapshot.refused }
    : { status: 'ok', engine };
}
