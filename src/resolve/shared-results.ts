import type { HealthCondition } from '../endpoints/health.js';
import type { QueryResult } from '../engines/query-engine.js';

/**
 * Where replicas share their results (Redis), seen by the resolver as one question: "give me a
 * result of this key that `wanted` accepts, running `run` only if no replica has or is making
 * one". Without a shared store (`localResults`) that is just `run`. The resolver's in-process
 * cache stays in front of this: a hit never reaches it.
 */
export interface SharedResults {
  obtain(request: ObtainRequest): Promise<Computed>;
  /** What `/metrics` shows; absent without a shared store. */
  stats(): SharedResultsStats | undefined;
  /** A `/health` condition while the shared store cannot be reached. */
  condition(): HealthCondition | undefined;
  close(): Promise<void>;
}

/** A result and the epoch milliseconds of the "now" it was computed with. */
export interface Computed {
  readonly result: QueryResult;
  readonly computedAt: number;
}

export interface ObtainRequest {
  /** The call's canonical key (endpoint id, content hash and parameters). */
  readonly key: string;
  /** How long a result may be served: written results expire from the shared store then. */
  readonly lifetimeMs: number;
  /** Whether a result another replica computed at `computedAt` will do (fresh, or newer than ours). */
  readonly wanted: (computedAt: number) => boolean;
  /** Runs the query on this replica's engine. */
  readonly run: (signal: AbortSignal) => Promise<Computed>;
  readonly signal: AbortSignal;
}

export interface SharedResultsStats {
  readonly up: boolean;
  /** Results taken from the shared store instead of running the query here. */
  readonly adopted: number;
  /** Runs this replica made while holding a key's lease (so no other replica ran it). */
  readonly leasedRuns: number;
  /** Commands that failed or timed out; each such call was answered from this replica alone. */
  readonly errors: number;
  /** Values that were not a result of the key asked for (corrupt or foreign): treated as misses. */
  readonly unreadable: number;
}

/** No shared store: every result this replica needs, it runs. */
export function localResults(): SharedResults {
  return {
    obtain: (request) => request.run(request.signal),
    stats: () => undefined,
    condition: () => undefined,
    close: async () => {},
  };
}
