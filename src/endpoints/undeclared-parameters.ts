import { QuerygateError } from '../errors.js';
import type { ParameterContract } from './contract.js';
import { likelyMeant } from './likely-meant.js';
import { callerSqlParameter } from './sandboxable.js';

/**
 * What a directory does with a parameter a call sends that the endpoint does not declare:
 * `refuse` it (400 naming it and the declared one it most likely meant), or `ignore` it, as
 * Logflare does (Supabase Studio sends extras). Set once per directory in `sources.yaml`.
 */
export const undeclaredParameterPolicies = ['refuse', 'ignore'] as const;
export type UndeclaredParameters = (typeof undeclaredParameterPolicies)[number];

/** What the check needs of an endpoint. */
export interface DeclaredParameters {
  readonly name: string;
  readonly sandboxed: boolean;
  readonly parameters: readonly Pick<ParameterContract, 'name'>[];
  readonly undeclaredParameters: UndeclaredParameters;
}

/**
 * Refuses the first of `sent` (parameter names as the call gave them, the face's own names such
 * as `api_key` left out) that the endpoint does not declare, unless its directory ignores them.
 * A misspelt filter that was silently dropped would answer every row instead of the few asked for.
 */
export function refuseUndeclaredParameters(endpoint: DeclaredParameters, sent: Iterable<string>): void {
  if (endpoint.undeclaredParameters === 'ignore') return;
  const declared = endpoint.parameters.map((parameter) => parameter.name);
  for (const name of sent) {
    if (declared.includes(name)) continue;
    if (name === callerSqlParameter) {
      if (endpoint.sandboxed) continue;
      throw undeclared(name, `; ${endpoint.name} is not sandboxed, so it takes no ${callerSqlParameter}`);
    }
    const meant = likelyMeant(name, declared);
    throw undeclared(
      name,
      meant === undefined
        ? declared.length === 0
          ? `; ${endpoint.name} takes no parameters`
          : `; ${endpoint.name} takes ${declared.join(', ')}`
        : `; did you mean "${meant}"?`,
      meant,
    );
  }
}

function undeclared(name: string, rest: string, meant?: string): QuerygateError {
  return new QuerygateError('BAD_PARAMETER', `unknown parameter "${name}"${rest}`, {
    details: { parameter: name, ...(meant === undefined ? {} : { didYouMean: meant }) },
  });
}
