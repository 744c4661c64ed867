import { timingSafeEqual } from 'node:crypto';
import type { IncomingHttpHeaders } from 'node:http';
import type { Socket } from 'node:net';

/**
 * What a key may do: `all` (query and ingest: Studio's private token) or `ingest` only (Vector's
 * public token, which sits in a config file and must not read the logs).
 */
export type KeyScope = 'all' | 'ingest';

/** A route's need: `query` (every route that reads) or `ingest` (the ingestion routes). */
export type RouteScope = 'query' | 'ingest';

/** Whether a key of `scope` may call a route that needs `need`. */
export function scopeAllows(scope: KeyScope, need: RouteScope): boolean {
  return scope === 'all' || need === 'ingest';
}

/**
 * The scope of a presented key, or undefined when it is none of the configured keys, in time
 * that does not depend on how much of it matches nor on which list holds it. Every key is
 * compared over one fixed width, zero-padded, and its true length compared apart, so a prefix,
 * a padded or a longer candidate fails in the same time as any other. The width is at least 256
 * bytes, so the time tells nothing of the keys' lengths either (unless a key is longer).
 *
 * Padding rather than hashing both sides to SHA-256 digests, which cost about 3 µs a request,
 * several percent of serving a cached result; this comparison does the same job in under 1 µs.
 */
export function createKeyScopeCheck(keys: {
  readonly all: readonly string[];
  readonly ingest?: readonly string[];
}): (presented: string | undefined) => KeyScope | undefined {
  const entries: { key: string; scope: KeyScope }[] = [
    ...keys.all.map((key) => ({ key, scope: 'all' as const })),
    ...(keys.ingest ?? []).map((key) => ({ key, scope: 'ingest' as const })),
  ];
  const width = Math.max(minimumWidth, ...entries.map(({ key }) => Buffer.byteLength(key)));
  const padded = entries.map(({ key, scope }) => ({
    bytes: fixedWidth(Buffer.alloc(width), key),
    length: Buffer.byteLength(key),
    scope,
  }));
  // Reused by every call: a check runs to its end before the next one starts.
  const candidate = Buffer.alloc(width);
  return (presented) => {
    if (presented === undefined || presented === '') return undefined;
    fixedWidth(candidate, presented);
    const length = Buffer.byteLength(presented);
    let found: KeyScope | undefined;
    // Every key is compared, whichever matches: no early exit.
    for (const key of padded) {
      const same = timingSafeEqual(key.bytes, candidate) && key.length === length;
      found = same ? key.scope : found;
    }
    return found;
  };
}

/** The scope of the key a request presents on its connection; see `createConnectionKeyCheck`. */
export type ConnectionKeyCheck = (socket: Socket, presented: string | undefined) => KeyScope | undefined;

/**
 * `scopeOf`, remembering per connection the last key it accepted there: a keep-alive connection
 * presents the same key on every request, and the constant-time check of each (filling and
 * comparing a 256-byte buffer per key) was a tenth of the CPU of a cached hit. Comparing with
 * the remembered key is not constant-time, and need not be: that key was sent on this same
 * connection, so the time tells its sender nothing it did not know. Any other key is checked
 * in full, and a refused one forgets what the connection had.
 */
export function createConnectionKeyCheck(
  scopeOf: (presented: string | undefined) => KeyScope | undefined,
): ConnectionKeyCheck {
  const accepted = new WeakMap<Socket, { readonly key: string; readonly scope: KeyScope }>();
  return (socket, presented) => {
    // No key is for `scopeOf` to judge, as it is without the memo.
    if (presented === undefined || presented === '') return scopeOf(presented);
    const known = accepted.get(socket);
    if (known !== undefined && known.key === presented) return known.scope;
    const scope = scopeOf(presented);
    if (scope === undefined) accepted.delete(socket);
    else accepted.set(socket, { key: presented, scope });
    return scope;
  };
}

/** Whether a presented key is one of `keys` (all of them full keys); see `createKeyScopeCheck`. */
export function createApiKeyCheck(keys: readonly string[]): (presented: string | undefined) => boolean {
  const scopeOf = createKeyScopeCheck({ all: keys });
  return (presented) => scopeOf(presented) !== undefined;
}

const minimumWidth = 256;

/** `value`'s UTF-8 bytes in `target`, cut or zero-padded to its length. */
function fixedWidth(target: Buffer, value: string): Buffer {
  target.fill(0);
  target.write(value);
  return target;
}

/**
 * The key a request presents, in Logflare's forms: `X-API-KEY`, then `Authorization: Bearer`,
 * then `?api_key=`. Only the first is looked at; it is compared, never logged or bound.
 */
export function presentedApiKey(
  req: { readonly headers: IncomingHttpHeaders },
  query: unknown,
): string | undefined {
  const header = req.headers['x-api-key'];
  if (header !== undefined) return Array.isArray(header) ? header[0] : header;
  const authorization = req.headers.authorization;
  if (authorization !== undefined) {
    const bearer = /^Bearer +(\S+) *$/i.exec(authorization);
    return bearer ? bearer[1] : undefined;
  }
  const fromQuery = (query as Record<string, unknown> | undefined)?.api_key;
  return typeof fromQuery === 'string' ? fromQuery : undefined;
}
