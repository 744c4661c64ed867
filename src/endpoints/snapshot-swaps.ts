import type { Endpoint } from './registry.js';
import type { Snapshot } from './snapshot.js';

/** Told once a new snapshot serves, with the endpoints it changed or removed. */
export type SwapListener = (next: Snapshot, gone: (endpoint: Endpoint) => boolean) => void;

/**
 * How a reload tells the parts that keep something per endpoint (the resolver's results, the
 * engine's plans, GraphQL's kept responses) that a new snapshot serves: each part subscribes and
 * keeps what it still needs; the reloader knows none of them.
 */
export interface SnapshotSwaps {
  subscribe(listener: SwapListener): void;
  emit: SwapListener;
}

export function createSnapshotSwaps(): SnapshotSwaps {
  const listeners: SwapListener[] = [];
  return {
    subscribe: (listener) => {
      listeners.push(listener);
    },
    emit: (next, gone) => {
      for (const listener of listeners) listener(next, gone);
    },
  };
}
