import { createPublicKey, type KeyObject } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createLocalJWKSet, type JSONWebKeySet, type JWTPayload, jwtVerify } from 'jose';
import { LRUCache } from 'lru-cache';
import { z } from 'zod';
import { type Grant, grantOf } from '../endpoints/grant.js';
import { isQuerygateError, QuerygateError } from '../errors.js';

/** Where the keys that sign tokens come from (see `Config.signedTokens`). */
export interface SignedTokenKeys {
  /** QUERYGATE_JWT_SECRET: tokens signed with HS256 by it. */
  readonly secret?: string | undefined;
  /** QUERYGATE_JWT_PUBLIC_KEY_FILE: a PEM public key (RSA: RS256, P-256: ES256). */
  readonly publicKeyFile?: string | undefined;
  /** QUERYGATE_JWKS_FILE: a JSON Web Key Set of RS256 and ES256 keys, chosen by `kid`. */
  readonly jwksFile?: string | undefined;
}

/** The grant of a presented token; rejects with a 401 saying which rule refused it. */
export type TokenVerifier = (token: string) => Promise<Grant>;

/** Three base64url parts: what a compact JWS looks like (an `alg: none` one has an empty third). */
const compactJws = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;

/** Whether a presented credential is a token rather than an API key (keys hold no dots). */
export function looksLikeToken(presented: string): boolean {
  return compactJws.test(presented);
}

// The claims querygate reads besides exp and nbf, which jose checks. Unknown claims (sub, iss,
// aud, a team's own) are ignored, as every JWT consumer does.
const claimsSchema = z.object({
  endpoints: z
    .union([z.string().min(1), z.array(z.string().min(1))], {
      message: 'must be a name or glob, or a list of them',
    })
    .optional(),
  params: z
    .record(z.string(), z.union([z.string(), z.number(), z.boolean()]), {
      message: 'must be an object of parameter values (strings, numbers or booleans)',
    })
    .optional(),
  ingest: z.boolean({ message: 'must be true or false' }).optional(),
});

// Verified tokens, so a dashboard's repeated calls with one token cost a map lookup, not a
// signature check; expiry and nbf are still checked on every use.
const maxRemembered = 1024;

/**
 * The verifier of signed tokens with these keys, or undefined when none is configured. Keys are
 * read once, here; a key file that cannot be read or parsed stops the start with its variable
 * named. Verification is jose's: the algorithm must be one a configured key signs with (so
 * `alg: none`, or HS256 made with a public key as its secret, is refused), `exp` is required.
 */
export function createTokenVerifier(keys: SignedTokenKeys): TokenVerifier | undefined {
  const secret = keys.secret === undefined ? undefined : new TextEncoder().encode(keys.secret);
  const publicKey = keys.publicKeyFile === undefined ? undefined : readPublicKey(keys.publicKeyFile);
  const keySet = keys.jwksFile === undefined ? undefined : readKeySet(keys.jwksFile);
  if (secret === undefined && publicKey === undefined && keySet === undefined) return undefined;
  const algorithms = [
    ...(secret ? ['HS256'] : []),
    ...(publicKey ? [publicKey.alg] : []),
    ...(keySet ? ['RS256', 'ES256'] : []),
  ];
  const remembered = new LRUCache<string, { grant: Grant; payload: JWTPayload }>({ max: maxRemembered });

  return async (token) => {
    const known = remembered.get(token);
    if (known !== undefined) {
      stillValid(known.payload);
      return known.grant;
    }
    let payload: JWTPayload;
    try {
      ({ payload } = await jwtVerify(
        token,
        async (header, input) => {
          if (header.alg === 'HS256' && secret) return secret;
          if (publicKey && header.alg === publicKey.alg && (keySet === undefined || header.kid === undefined))
            return publicKey.key;
          if (keySet) return keySet(header, input);
          throw refused('key', `no configured key signs ${header.alg}`);
        },
        { algorithms, requiredClaims: ['exp'] },
      ));
    } catch (error) {
      throw refusalOf(error);
    }
    const grant = grantOfClaims(payload);
    remembered.set(token, { grant, payload });
    return grant;
  };
}

/** The grant the claims give, or a 401 naming the claim that is not as documented. */
function grantOfClaims(payload: JWTPayload): Grant {
  const claims = claimsSchema.safeParse(payload);
  if (!claims.success) {
    const issue = claims.error.issues[0];
    throw refused(
      'claims',
      `its ${issue?.path.join('.') || 'claims'} claim ${issue?.message ?? 'is malformed'}`,
    );
  }
  const { endpoints = [], params = {}, ingest = false } = claims.data;
  return grantOf({
    endpoints: typeof endpoints === 'string' ? [endpoints] : endpoints,
    pinned: Object.fromEntries(Object.entries(params).map(([name, value]) => [name, String(value)])),
    ingest,
  });
}

/** A remembered token's times, checked again as jose checked them (seconds since the epoch). */
function stillValid(payload: JWTPayload): void {
  const now = Math.floor(Date.now() / 1000);
  if (typeof payload.exp === 'number' && payload.exp <= now) throw refused('expired', 'it has expired');
  if (typeof payload.nbf === 'number' && payload.nbf > now)
    throw refused('not-before', 'it is not valid yet (nbf)');
}

/**
 * The 401 of a token jose refused, saying which rule refused it and never which key or secret
 * was tried. jose's errors are told apart by their stable `code`.
 */
function refusalOf(error: unknown): QuerygateError {
  if (isQuerygateError(error)) return error;
  const { code, claim, reason } = error as { code?: string; claim?: string; reason?: string };
  switch (code) {
    case 'ERR_JWT_EXPIRED':
      return refused('expired', 'it has expired');
    case 'ERR_JWT_CLAIM_VALIDATION_FAILED':
      if (claim === 'exp' && reason === 'missing')
        return refused('exp-missing', 'it has no exp claim; every token must expire');
      if (claim === 'nbf') return refused('not-before', 'it is not valid yet (nbf)');
      return refused('claims', `its ${claim ?? ''} claim is not valid`);
    case 'ERR_JOSE_ALG_NOT_ALLOWED':
    case 'ERR_JOSE_NOT_SUPPORTED':
      return refused(
        'algorithm',
        'its alg is not one this server accepts (HS256, RS256 or ES256, as configured; never none)',
      );
    case 'ERR_JWS_SIGNATURE_VERIFICATION_FAILED':
      return refused('signature', 'its signature does not verify');
    case 'ERR_JWKS_NO_MATCHING_KEY':
    case 'ERR_JWKS_MULTIPLE_MATCHING_KEYS':
      return refused('key', 'no single configured key matches its kid and alg');
    default:
      return refused('malformed', 'it is not a well-formed signed JWT');
  }
}

function refused(rule: string, why: string): QuerygateError {
  return new QuerygateError('UNAUTHENTICATED', `The signed token is refused: ${why}`, {
    details: { rule },
  });
}

/** A PEM public key and the algorithm it verifies: RS256 for RSA, ES256 for P-256. */
function readPublicKey(file: string): { key: KeyObject; alg: 'RS256' | 'ES256' } {
  let key: KeyObject;
  try {
    key = createPublicKey(readFileSync(file, 'utf8'));
  } catch (error) {
    throw new Error(
      `QUERYGATE_JWT_PUBLIC_KEY_FILE: ${file} is not a readable PEM public key (${(error as Error).message})`,
    );
  }
  if (key.asymmetricKeyType === 'rsa') return { key, alg: 'RS256' };
  if (key.asymmetricKeyType === 'ec' && key.asymmetricKeyDetails?.namedCurve === 'prime256v1')
    return { key, alg: 'ES256' };
  throw new Error(
    `QUERYGATE_JWT_PUBLIC_KEY_FILE: ${file} holds neither an RSA nor a P-256 key (RS256 or ES256)`,
  );
}

function readKeySet(file: string): ReturnType<typeof createLocalJWKSet> {
  try {
    return createLocalJWKSet(JSON.parse(readFileSync(file, 'utf8')) as JSONWebKeySet);
  } catch (error) {
    throw new Error(
      `QUERYGATE_JWKS_FILE: ${file} is not a readable JSON Web Key Set (${(error as Error).message})`,
    );
  }
}
