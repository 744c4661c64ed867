import type { HttpResult, QuerygateUnderTest } from './querygate-server.js';

/** A GraphQL response as the client sees it. */
export interface GraphQLResult<Data = Record<string, unknown>> extends HttpResult {
  readonly data: Data | null | undefined;
  readonly errors: ReadonlyArray<{
    readonly message: string;
    readonly path?: readonly (string | number)[];
    readonly extensions?: Readonly<Record<string, unknown>>;
  }>;
}

/** POST /graphql with the API key (unless `apiKey` says otherwise), as a client library would send it. */
export async function postGraphQL<Data = Record<string, unknown>>(
  service: QuerygateUnderTest,
  query: string,
  variables?: Readonly<Record<string, unknown>>,
  options: { readonly apiKey?: string | null } = {},
): Promise<GraphQLResult<Data>> {
  const response = await service.request('POST', '/graphql', {
    ...(options.apiKey === undefined ? {} : { apiKey: options.apiKey }),
    headers: { accept: 'application/graphql-response+json, application/json' },
    body: JSON.stringify(variables === undefined ? { query } : { query, variables }),
  });
  const body = (response.body ?? {}) as { data?: Data | null; errors?: GraphQLResult['errors'] };
  return { ...response, data: body.data, errors: body.errors ?? [] };
}
