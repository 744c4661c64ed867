import { maxAliasesPlugin } from '@escape.tech/graphql-armor-max-aliases';
import { maxDepthPlugin } from '@escape.tech/graphql-armor-max-depth';
import { GraphQLError, parse } from 'graphql';
import type { Plugin } from 'graphql-yoga';
import { QuerygateError } from '../errors.js';

/**
 * A document over a limit is the client's fault whatever media type it accepts: 400, as REST
 * answers a bad request, rather than the 200 the spec allows for `application/json`.
 */
function refuse(_context: unknown, error: GraphQLError): void {
  (error.extensions as Record<string, unknown>).http = { status: 400 };
}
const onReject = [refuse];

/** Bounds of one GraphQL document. */
interface DocumentLimits {
  /**
   * Tokens one document may have. Also what keeps the parser's recursion shallow: a selection
   * set nested 2,000 deep (6,000 tokens) overflowed the stack before validation could refuse it.
   * @default 2000
   */
  readonly maxTokens?: number;
  /** Selection sets nested in one operation, introspection aside. @default 12 */
  readonly maxDepth?: number;
  /** Aliases in one operation (distinct endpoint calls have their own, lower bound). @default 64 */
  readonly maxAliases?: number;
}

/**
 * The document limits (graphql-js's token count, graphql-armor's depth and alias rules), each refusal a 400 with
 * a message naming the limit and no hint of the schema beyond it.
 */
export function useDocumentLimits(limits: DocumentLimits = {}): Plugin[] {
  const maxTokens = limits.maxTokens ?? 2000;
  return [
    {
      // graphql-js counts tokens itself and stops reading at the limit. Checked before yoga
      // parses (whose parse errors answer 200 to clients accepting application/json), and only
      // for documents long enough to hold that many tokens, so the usual request pays nothing.
      onParams({ params }) {
        const { query } = params;
        if (typeof query !== 'string' || query.length <= maxTokens) return;
        try {
          parse(query, { maxTokens, noLocation: true });
        } catch (error) {
          if (error instanceof GraphQLError && /contains more tha[nt] \d+ tokens/.test(error.message)) {
            throw new QuerygateError('BAD_REQUEST', `The document has more than ${maxTokens} tokens`, {
              details: { maxTokens },
            });
          }
          // Any other syntax error is yoga's to report, as for a short document.
        }
      },
    },
    maxDepthPlugin({ n: limits.maxDepth ?? 12, ignoreIntrospection: true, flattenFragments: true, onReject }),
    maxAliasesPlugin({ n: limits.maxAliases ?? 64, onReject }),
  ] as Plugin[];
}

/**
 * Reading the request into GraphQL parameters fails with a 400 naming what is wrong, never a
 * 500: yoga's own parsers throw plain errors on a body that is not what its content type says
 * (JSON under `multipart/form-data`) and on `variables` or `extensions` in a query string that
 * are not JSON objects. Errors yoga already gave an HTTP status to pass unchanged.
 */
export function useRequestParamsCheck(): Plugin {
  return {
    onRequestParse({ request, requestParser, setRequestParser }) {
      if (!requestParser) {
        // Yoga has no parser for this content type and answers 415 with an empty body.
        const type = (request.headers.get('content-type') ?? '').split(';')[0]?.trim().slice(0, 100);
        setRequestParser(() => {
          throw new QuerygateError(
            'UNSUPPORTED_MEDIA_TYPE',
            `Unsupported Content-Type '${type}'; send application/json (GraphQL over HTTP), ` +
              'application/graphql, application/x-www-form-urlencoded or multipart/form-data',
          );
        });
      } else {
        setRequestParser(async (request) => {
          if (request.method === 'GET') refuseRepeatedParameters(request.url);
          try {
            return await requestParser(request);
          } catch (error) {
            if (hasHttpStatus(error)) throw error;
            const parameter = request.method === 'GET' ? unreadableQueryParameter(request.url) : undefined;
            throw parameter
              ? new QuerygateError('BAD_REQUEST', `'${parameter}' must be a JSON object`, {
                  details: { parameter },
                })
              : new QuerygateError(
                  'BAD_REQUEST',
                  `The request could not be read as a GraphQL request (${describeBody(request)})`,
                );
          }
        });
      }
      return {
        onRequestParseDone({ requestParserResult }) {
          const batch = Array.isArray(requestParserResult);
          for (const [index, params] of (batch ? requestParserResult : [requestParserResult]).entries()) {
            // A batch's operation that is no object (`[null, {...}]`) makes the request malformed:
            // the plugins that read each operation's fields (this one, the document limits, APQ)
            // would throw a TypeError on null, a 500.
            if (batch && (typeof params !== 'object' || params === null || Array.isArray(params))) {
              throw new QuerygateError(
                'BAD_REQUEST',
                `Operation ${index} of the batch must be a JSON object, not ${params === null ? 'null' : Array.isArray(params) ? 'an array' : typeof params}`,
                { details: { index } },
              );
            }
            for (const name of ['variables', 'extensions'] as const) {
              const value: unknown = params[name];
              if (
                value !== undefined &&
                value !== null &&
                (typeof value !== 'object' || Array.isArray(value))
              ) {
                throw new QuerygateError('BAD_REQUEST', `'${name}' must be a JSON object`, {
                  details: { parameter: name },
                });
              }
            }
          }
        },
      };
    },
  };
}

/**
 * A GraphQL parameter given twice in a query string: yoga reads the first, so a second `query`
 * or `operationName` would be dropped unsaid (REST refuses a repeated parameter too).
 */
function refuseRepeatedParameters(url: string): void {
  const search = new URL(url, 'http://localhost').searchParams;
  for (const name of ['query', 'operationName', 'variables', 'extensions']) {
    if (search.getAll(name).length > 1)
      throw new QuerygateError('BAD_REQUEST', `'${name}' is given more than once`, {
        details: { parameter: name },
      });
  }
}

/** The JSON-valued query string parameter that is not JSON, if one is. */
function unreadableQueryParameter(url: string): string | undefined {
  const search = new URL(url, 'http://localhost').searchParams;
  return ['variables', 'extensions'].find((name) => {
    const value = search.get(name);
    if (value === null) return false;
    try {
      JSON.parse(value);
      return false;
    } catch {
      return true;
    }
  });
}

function describeBody(request: Request): string {
  if (request.method === 'GET') return 'the query string does not hold a GraphQL request';
  const type = (request.headers.get('content-type') ?? '').split(';')[0]?.trim();
  return type ? `the body does not match its content type ${type}` : 'the body has no content type';
}

function hasHttpStatus(error: unknown): boolean {
  const extensions = (error as { extensions?: { http?: { status?: unknown } } } | null)?.extensions;
  return typeof extensions?.http?.status === 'number';
}
