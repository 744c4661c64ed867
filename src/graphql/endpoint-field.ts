import { bindParameters } from '../endpoints/bind-parameters.js';
import type { QueryResult } from '../engines/query-engine.js';
import { isQuerygateError, QuerygateError } from '../errors.js';
import type { GraphQLContext } from './context.js';

/**
 * How a GraphQL field reaches a saved endpoint: the endpoint's name and, for each GraphQL
 * argument, the contract parameter it fills. Enum arguments already carry the contract's text
 * as their internal value and DateTime arguments their ISO 8601 text, so every argument turns
 * back into the text a REST call would send, and both faces share the same cache entries.
 */
export interface EndpointBinding {
  readonly endpoint: string;
  /** GraphQL argument name → contract parameter name. */
  readonly arguments: Readonly<Record<string, string>>;
}

/** Runs the bound endpoint with a field's arguments, validated by the same contract as REST. */
export async function runEndpoint(
  context: GraphQLContext,
  binding: EndpointBinding,
  args: Readonly<Record<string, string | null | undefined>>,
): Promise<QueryResult> {
  const endpoint = context.registry.find(binding.endpoint);
  if (!endpoint) throw new QuerygateError('NOT_FOUND', `No endpoint named '${binding.endpoint}'`);
  const raw = new Map<string, string>();
  for (const [argument, parameter] of Object.entries(binding.arguments)) {
    const value = args[argument];
    if (value !== null && value !== undefined) raw.set(parameter, value);
  }
  let params: ReturnType<typeof bindParameters>;
  try {
    params = bindParameters(endpoint.parameters, (name) => {
      const value = raw.get(name);
      return value === undefined ? [] : [value];
    });
  } catch (error) {
    throw inArgumentTerms(error, binding);
  }
  return (await context.loadEndpoint(endpoint, params)).result;
}

/** A contract error names the REST parameter; on this face the client wrote the GraphQL argument. */
function inArgumentTerms(error: unknown, binding: EndpointBinding): unknown {
  if (!isQuerygateError(error) || error.code !== 'BAD_PARAMETER') return error;
  const parameter = error.details?.parameter;
  const argument = Object.entries(binding.arguments).find(([, name]) => name === parameter)?.[0];
  if (typeof parameter !== 'string' || argument === undefined) return error;
  return new QuerygateError(
    'BAD_PARAMETER',
    error.message.replace(`Parameter '${parameter}'`, `Argument '${argument}'`),
    { details: { parameter, argument } },
  );
}
