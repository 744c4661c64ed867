import { createHash } from 'node:crypto';
import type { IncomingMessage } from 'node:http';
import { presentedApiKey } from './api-keys.js';

/**
 * Who a request comes from, for the per-client bound on engine runs: its API key and remote
 * address, hashed, so the key is never kept, compared or logged as such. Asked only of calls
 * that are to run (a cache hit needs no identity).
 */
export function clientIdentity(req: IncomingMessage, query: unknown): string {
  const key = presentedApiKey(req, query) ?? '';
  const address = req.socket.remoteAddress ?? '';
  return createHash('sha256').update(key).update('\0').update(address).digest('base64url').slice(0, 22);
}
