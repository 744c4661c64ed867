import { createKeyedSemaphore } from '../../keyed-semaphore.js';

/**
 * A fixed set of connections lent one caller at a time, first come first served. Sharing them
 * fairly between endpoints is the resolver layer's (`resolve/fair-engine.ts`), for every engine.
 */
export interface ConnectionPool<T> {
  /**
   * A connection, when one is free; otherwise the first to be freed. Rejects with
   * `signal.reason` when the signal fires first (the caller timed out or went away while
   * waiting; it never reaches a connection).
   */
  acquire(signal: AbortSignal): Promise<PoolLease<T>>;
}

export interface PoolLease<T> {
  readonly item: T;
  /** Gives the connection back; call once (a second call does nothing). */
  release(): void;
}

export function createConnectionPool<T>(items: readonly T[]): ConnectionPool<T> {
  const idle = [...items];
  const slots = createKeyedSemaphore({ capacity: items.length, handOff: 'first-come' });
  return {
    async acquire(signal) {
      const release = await slots.acquire('', { signal });
      // A permit is a connection: the semaphore never grants more permits than are idle.
      const item = idle.pop() as T;
      let released = false;
      return {
        item,
        release() {
          if (released) return;
          released = true;
          idle.push(item);
          release();
        },
      };
    },
  };
}
