/** Something kept for a request: the head it was made for and the bytes of its body. */
export interface ShelvedRequest {
  /** The request's method, target and the headers its answer depends on (see response-replay.ts). */
  readonly requestHead: string;
  /** The request's body; empty for a GET. Never changed once shelved. */
  readonly requestBody: Buffer;
}

/**
 * Kept things found by their request's head and body bytes, without a key made of the body or a
 * hash over it: they stand by head, then by body length, on shelves sorted by the body's bytes,
 * so finding a request's is two map lookups of a short string and a number and a binary search
 * of `Buffer.compare` (a memcmp that stops at the first differing byte); usually one compare, as
 * few bodies of a head share a length. Bounds and recency are the owner's (an LRU whose eviction
 * calls `remove`).
 */
export function createRequestShelves<Item extends ShelvedRequest>() {
  const byHead = new Map<string, Map<number, Item[]>>();

  /** Where `body` stands on `shelf`: its index when there, else -(the index it would go at) - 1. */
  const position = (shelf: readonly Item[], body: Buffer): number => {
    let low = 0;
    let high = shelf.length - 1;
    while (low <= high) {
      const middle = (low + high) >>> 1;
      const order = body.compare((shelf[middle] as Item).requestBody);
      if (order === 0) return middle;
      if (order > 0) low = middle + 1;
      else high = middle - 1;
    }
    return -low - 1;
  };

  return {
    /** The shelf of this head and body length, if anything stands on it. */
    shelf: (head: string, length: number): readonly Item[] | undefined => byHead.get(head)?.get(length),

    /** What stands on `shelf` for a request with this body. */
    findOn(shelf: readonly Item[], body: Buffer): Item | undefined {
      const at = position(shelf, body);
      return at < 0 ? undefined : shelf[at];
    },

    /** What stands for a request with this head and body. */
    find(head: string, body: Buffer): Item | undefined {
      const shelf = byHead.get(head)?.get(body.length);
      if (shelf === undefined) return undefined;
      const at = position(shelf, body);
      return at < 0 ? undefined : shelf[at];
    },

    /** Puts `item` up, in place of whatever stood for the same request (which it returns). */
    add(item: Item): Item | undefined {
      let lengths = byHead.get(item.requestHead);
      if (lengths === undefined) {
        lengths = new Map();
        byHead.set(item.requestHead, lengths);
      }
      let shelf = lengths.get(item.requestBody.length);
      if (shelf === undefined) {
        shelf = [];
        lengths.set(item.requestBody.length, shelf);
      }
      const at = position(shelf, item.requestBody);
      if (at >= 0) {
        const replaced = shelf[at];
        shelf[at] = item;
        return replaced;
      }
      shelf.splice(-at - 1, 0, item);
      return undefined;
    },

    /** Takes `item` down, if it stands (not something else for the same request). */
    remove(item: Item): void {
      const lengths = byHead.get(item.requestHead);
      const shelf = lengths?.get(item.requestBody.length);
      if (lengths === undefined || shelf === undefined) return;
      const at = position(shelf, item.requestBody);
      if (at < 0 || shelf[at] !== item) return;
      shelf.splice(at, 1);
      if (shelf.length > 0) return;
      lengths.delete(item.requestBody.length);
      if (lengths.size === 0) byHead.delete(item.requestHead);
    },

    clear: (): void => byHead.clear(),
  };
}

export type RequestShelves<Item extends ShelvedRequest> = ReturnType<typeof createRequestShelves<Item>>;
