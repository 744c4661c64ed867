import { badParameter, QuerygateError } from '../errors.js';

/** A parsed query string: a name given more than once has every value. */
export type Query = Readonly<Record<string, string | string[] | undefined>>;

/**
 * The values of each parameter, from the query string and a JSON object body (numbers and
 * booleans as their text). One value given in both places counts once; two different values are
 * refused. `api_key` is a credential, never a parameter.
 */
export function parameterValues(query: Query, rawBody: unknown): (name: string) => readonly string[] {
  const body = bodyParameters(rawBody);
  return (name) => {
    if (name === 'api_key') return [];
    const inQuery = query[name];
    const fromQuery = inQuery === undefined ? [] : Array.isArray(inQuery) ? inQuery : [inQuery];
    const fromBody = body?.get(name);
    if (fromBody === undefined) return fromQuery;
    if (fromQuery.length === 0) return [fromBody];
    if (fromQuery.every((value) => value === fromBody)) return [fromBody];
    throw badParameter(name, 'is given twice with different values (query string and body)');
  };
}

function bodyParameters(body: unknown): Map<string, string> | undefined {
  if (!Buffer.isBuffer(body) || body.length === 0) return undefined;
  let parsed: unknown;
  try {
    parsed = JSON.parse(body.toString('utf8'));
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

/** The values of each parameter of a call with no body: `parameterValues` of the query string alone. */
export function queryParameterValues(query: Query): (name: string) => readonly string[] {
  return parameterValues(query, undefined);
}
