import picomatch from 'picomatch';
import { QuerygateError } from '../errors.js';
import { bindParameters } from './bind-parameters.js';
import type { ParameterContract } from './contract.js';

/**
 * What a signed token lets its holder do (README, "Signed tokens"): call the endpoints its
 * `endpoints` claim names, with the values its `params` claim pins, and ingest when it says so.
 * A token is a grant and nothing more: it never reaches a route that does not read one.
 */
export interface Grant {
  /** The names and globs of the `endpoints` claim, as written (`checkout.*`, `usage.api-counts`). */
  readonly endpoints: readonly string[];
  /** Whether an endpoint of this name may be called (and listed). */
  readonly allows: (name: string) => boolean;
  /** Parameter values the token fixes, by parameter name, as REST text. */
  readonly pinned: Readonly<Record<string, string>>;
  /** The token may ingest (the `ingest` claim); without it every ingestion route answers 403. */
  readonly ingest: boolean;
}

/** The grant of these claims; a glob's `*` spans dots too, so `logs*` is every logs endpoint. */
export function grantOf(claims: {
  readonly endpoints: readonly string[];
  readonly pinned: Readonly<Record<string, string>>;
  readonly ingest: boolean;
}): Grant {
  // Endpoint names hold no `/`, so picomatch's `*` (which stops at `/`) spans a dotted name.
  const allows =
    claims.endpoints.length === 0 ? () => false : picomatch([...claims.endpoints], { dot: true });
  return Object.freeze({
    endpoints: Object.freeze([...claims.endpoints]),
    allows: (name: string) => allows(name),
    pinned: Object.freeze({ ...claims.pinned }),
    ingest: claims.ingest,
  });
}

/** The 403 of an endpoint a grant does not name. */
export function endpointNotGranted(name: string): QuerygateError {
  return new QuerygateError(
    'FORBIDDEN',
    `This token may not call endpoint '${name}': its endpoints claim does not name it`,
    { details: { endpoint: name } },
  );
}

/** The parameters a grant pins among these, by name: what a face may show as optional. */
export function pinnedNames(grant: Grant, parameters: readonly ParameterContract[]): string[] {
  return parameters.filter(({ name }) => Object.hasOwn(grant.pinned, name)).map(({ name }) => name);
}

/**
 * A call's raw values with the grant's pins in place: a pinned parameter takes the pinned value
 * whether the caller left it out or sent the same value (compared as the contract binds them, so
 * `+7` is `7`); any other value is a 403 naming the parameter. The pinned value then binds and
 * keys the cache as any value the caller sent would.
 */
export function withPinnedValues(
  grant: Grant,
  parameters: readonly ParameterContract[],
  raw: (name: string) => readonly string[],
): (name: string) => readonly string[] {
  // Every pinned name is checked up front, also one the contract does not declare (a sandboxed
  // endpoint's `sql`, compared as sent): replacing a caller's other value there silently
  // answered rows of a query the caller never asked for.
  for (const [name, pinned] of Object.entries(grant.pinned)) {
    const parameter = parameters.find((declared) => declared.name === name);
    const differs = (value: string) =>
      parameter === undefined
        ? value !== pinned
        : boundText(parameter, value) !== boundText(parameter, pinned);
    if (raw(name).some((value) => value !== '' && differs(value)))
      throw new QuerygateError(
        'FORBIDDEN',
        `Parameter '${name}' is pinned by this token: leave it out or send the pinned value`,
        { details: { parameter: name } },
      );
  }
  return (name) => (Object.hasOwn(grant.pinned, name) ? [grant.pinned[name] as string] : raw(name));
}

/** The text a value binds as under its contract (its canonical form). */
function boundText(parameter: ParameterContract, value: string): string | null | undefined {
  return bindParameters([parameter], () => [value])[parameter.name];
}
