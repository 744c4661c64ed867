import { bindParameters } from '../endpoints/bind-parameters.js';
import type { Endpoint } from '../endpoints/registry.js';
import { refuseUndeclaredParameters } from '../endpoints/undeclared-parameters.js';
import type { ParameterValues } from '../engines/query-engine.js';
import { badParameter, QuerygateError } from '../errors.js';

/** A parsed query string: a name given more than once has every value. */
export type Query = Readonly<Record<string, string | string[] | undefined>>;

/** The parameters a call sent, from its query string and body. */
export interface SentParameters {
  /** Every value given of a parameter. */
  readonly values: (name: string) => readonly string[];
  /** Every name given, `api_key` (a credential, never a parameter) left out. */
  readonly names: ReadonlySet<string>;
}

/** The key a call may carry in its query string instead of a header; never a parameter. */
const apiKeyParameter = 'api_key';

/**
 * The values of each parameter, from the query string and a JSON object body (numbers and
 * booleans as their text). One value given in both places counts once; two different values are
 * refused. `api_key` is a credential, never a parameter.
 */
export function parameterValues(query: Query, rawBody: unknown): SentParameters {
  const body = bodyParameters(rawBody);
  const names = new Set([...Object.keys(query), ...(body?.keys() ?? [])]);
  names.delete(apiKeyParameter);
  return { values: (name) => valuesOf(name, query, body), names };
}

function valuesOf(name: string, query: Query, body: Map<string, string> | undefined): readonly string[] {
  if (name === apiKeyParameter) return [];
  const inQuery = query[name];
  const fromQuery = inQuery === undefined ? [] : Array.isArray(inQuery) ? inQuery : [inQuery];
  const fromBody = body?.get(name);
  if (fromBody === undefined) return fromQuery;
  if (fromQuery.length === 0) return [fromBody];
  if (fromQuery.every((value) => value === fromBody)) return [fromBody];
  throw badParameter(name, 'is given twice with different values (query string and body)');
}

const utf8 = new TextDecoder('utf-8', { fatal: true });

function bodyParameters(body: unknown): Map<string, string> | undefined {
  if (!Buffer.isBuffer(body) || body.length === 0) return undefined;
  let text: string;
  try {
    text = utf8.decode(body);
  } catch {
    // Read as UTF-8 with replacement characters, a value would be silently some other text.
    throw new QuerygateError('BAD_REQUEST', 'The request body is not valid UTF-8');
  }
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new QuerygateError(
      'BAD_REQUEST',
      'The request body is not valid JSON; send a JSON object of parameters',
    );
  }
  if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
    throw new QuerygateError('BAD_REQUEST', 'The request body must be a JSON object of parameters');
  }
  const values = new Map<string, string>();
  for (const [name, value] of Object.entries(parsed)) {
    if (value === null) continue;
    if (typeof value === 'string') values.set(name, value);
    else if (typeof value === 'number' || typeof value === 'boolean') values.set(name, String(value));
    else throw badParameter(name, 'must be a string, number or boolean in the body');
  }
  return values;
}

/** The parameters of a call with no body: `parameterValues` of the query string alone. */
export function queryParameterValues(query: Query): SentParameters {
  return parameterValues(query, undefined);
}

/**
 * The values to run an endpoint with: a name it does not declare is refused first (unless its
 * directory ignores them), then each declared one is checked and bound by its contract.
 */
export function boundParameters(endpoint: Endpoint, sent: SentParameters): ParameterValues {
  refuseUndeclaredParameters(endpoint, sent.names);
  return bindParameters(endpoint.parameters, sent.values);
}
