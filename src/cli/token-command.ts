import { decodeJwt, SignJWT } from 'jose';

/** The claims `querygate token` puts in a token (README, "Signed tokens"). */
export interface TokenClaims {
  /** Names or globs of the endpoints the token may call. */
  readonly endpoints: readonly string[];
  /** `name=value` pairs: the values the token pins. */
  readonly params: readonly string[];
  /** How long the token lives, as jose reads it: `15m`, `1h`, `30d`. */
  readonly expiresIn: string;
  /** How long from now before it may be used; undefined: at once. */
  readonly notBefore?: string | undefined;
  /** The token may ingest. */
  readonly ingest: boolean;
  /** Who the token is for (the `sub` claim, for the team's own records). */
  readonly subject?: string | undefined;
}

/** A token signed with HS256 by `secret` (QUERYGATE_JWT_SECRET), as the server verifies it. */
export async function signToken(secret: string, claims: TokenClaims): Promise<string> {
  // A token that could do nothing, or is expired when made, is a mistake in the arguments: say so
  // rather than print a token every call refuses.
  if (!claims.ingest && claims.endpoints.every((endpoint) => endpoint.trim() === ''))
    throw new Error('--endpoints names no endpoint, and without --ingest the token could do nothing');
  const token = new SignJWT({
    endpoints: [...claims.endpoints],
    ...(claims.params.length > 0 ? { params: pinnedParams(claims.params) } : {}),
    ...(claims.ingest ? { ingest: true } : {}),
  })
    .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
    .setIssuedAt()
    .setExpirationTime(claims.expiresIn);
  if (claims.notBefore !== undefined) token.setNotBefore(claims.notBefore);
  if (claims.subject !== undefined) token.setSubject(claims.subject);
  const signed = await token.sign(new TextEncoder().encode(secret));
  const { exp = 0, iat = 0 } = decodeJwt(signed);
  if (exp <= iat)
    throw new Error(
      `--expires-in ${claims.expiresIn}: the token would be expired when made; give a time ahead, such as 15m or 12h`,
    );
  return signed;
}

/** `name=value` pairs as an object; a pair without `=` or a name given twice is refused. */
function pinnedParams(pairs: readonly string[]): Record<string, string> {
  const params: Record<string, string> = {};
  for (const pair of pairs) {
    const at = pair.indexOf('=');
    if (at <= 0) throw new Error(`--param ${pair}: write it as name=value`);
    const name = pair.slice(0, at);
    if (Object.hasOwn(params, name)) throw new Error(`--param ${name}: is given twice`);
    params[name] = pair.slice(at + 1);
  }
  return params;
}
