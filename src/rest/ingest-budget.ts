import { QuerygateError } from '../errors.js';

/**
 * The body bytes of the ingestion requests in flight, within a bound. A request's records cost
 * the server some six times its body while it is parsed, fitted, serialised and waits for its
 * commit (24 bodies of 9.4 MiB sent at once took a server from 194 MiB to 1.6 GiB), so without a
 * bound any number of clients sending large batches at once could push it past its memory. A
 * request that would take the bytes in flight past the bound is answered 503 with Retry-After
 * (Vector and Logflare's other clients send it again), and nothing of it is stored. Alone, a
 * request is always let in, whatever its size (the body limit bounds that). A request's share
 * grows again once its records' storing cost is known (ingest-routes.ts admitStoring).
 */
export interface IngestBudget {
  /**
   * A request's share, empty until it grows; released once the request is answered and its
   * records committed (they are answered first, see storage/log-writer.ts).
   */
  hold(): HeldBytes;
  /** The bytes counted now. */
  inFlight(): number;
}

export interface HeldBytes {
  /**
   * Counts the request at `bytes` (if more than it holds), or throws ENGINE_BUSY (503) when the
   * other requests' bytes and these do not fit.
   */
  grow(bytes: number): void;
  /** Gives back what it holds; once is enough, twice does nothing. */
  release(): void;
}

export function createIngestBudget(maxBytes: number): IngestBudget {
  let inFlight = 0;
  return {
    hold() {
      let own = 0;
      return {
        grow(bytes) {
          const more = bytes - own;
          if (more <= 0) return;
          if (inFlight > own && inFlight + more > maxBytes) {
            throw new QuerygateError(
              'ENGINE_BUSY',
              `Too many ingestion bytes in flight (at most ${maxBytes}, QUERYGATE_INGEST_INFLIGHT_BYTES): send this request again shortly; nothing of it was stored`,
              { details: { retryAfterSeconds: 1 } },
            );
          }
          inFlight += more;
          own = bytes;
        },
        release() {
          inFlight -= own;
          own = 0;
        },
      };
    },
    inFlight: () => inFlight,
  };
}
