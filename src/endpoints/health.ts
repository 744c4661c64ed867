import type { Refusal } from './refusal.js';
import type { Snapshot } from './snapshot.js';

/**
 * Something an operator should know that does not stop the server from serving: while any holds,
 * `/health` says `degraded` (still 200) and lists it. Each part that can fall into such a state
 * gives its own kind (`reload-refused`: the queries directory's last reload was refused).
 */
export interface HealthCondition {
  readonly kind: string;
  /** One line saying what happened and what still serves. */
  readonly message: string;
  /** When it began, ISO 8601. */
  readonly since: string;
  readonly [detail: string]: unknown;
}

export interface Health {
  readonly status: 'ok' | 'degraded';
  readonly engine: string;
  readonly refused?: readonly Refusal[];
  readonly conditions?: readonly HealthCondition[];
}

/**
 * The body of the public `/health`: the server answers (200), and which endpoints of its queries
 * directory it refuses, each with its file (relative to the directory, so no path of the host
 * leaks) and the reason, for a deploy to notice without reading the log. It is `degraded` while
 * a condition holds (a refused reload: the previous endpoints still serve), `ok` otherwise.
 */
export function healthOf(
  engine: string,
  snapshot: Snapshot,
  conditions: readonly HealthCondition[] = [],
): Health {
  return {
    status: conditions.length > 0 ? 'degraded' : 'ok',
    engine,
    ...(snapshot.refused.length > 0 ? { refused: snapshot.refused } : {}),
    ...(conditions.length > 0 ? { conditions } : {}),
  };
}
