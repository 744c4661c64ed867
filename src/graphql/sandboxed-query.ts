import {
  type GraphQLFieldConfig,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  type GraphQLScalarType,
  GraphQLString,
} from 'graphql';
import { bindParameters } from '../endpoints/bind-parameters.js';
import { withPinnedValues } from '../endpoints/grant.js';
import { sandboxedEndpoint } from '../endpoints/sandboxed-call.js';
import type { Snapshot } from '../endpoints/snapshot.js';
import { refuseUndeclaredParameters } from '../endpoints/undeclared-parameters.js';
import { unknownEndpoint } from '../endpoints/unknown-endpoint.js';
import { badParameter } from '../errors.js';
import type { GraphQLContext } from './context.js';
import { countRefused } from './counted-call.js';
import { jsonValue } from './scalars.js';

/**
 * `sandboxedQuery(endpoint, sql, params)`: a caller's SQL over a sandboxed endpoint's CTEs, the
 * GraphQL form of REST's `sql` parameter. The rows' shape is the caller's, so no type can be
 * written for it ahead: the field answers the columns (name and BigQuery type, in order) and the
 * rows as JSON objects, valued as REST values them. It goes through the same checks, merge,
 * resolver and cache as REST. Only a snapshot with a sandboxed endpoint has the field.
 */
export function sandboxedQueryField(
  snapshot: Snapshot,
  scalars: { readonly JSON: GraphQLScalarType },
): GraphQLFieldConfig<unknown, GraphQLContext> | undefined {
  const sandboxed = snapshot.endpoints.filter((endpoint) => endpoint.sandboxed);
  if (sandboxed.length === 0) return undefined;
  return {
    type: resultType(scalars.JSON),
    description: `A caller's own SELECT over the CTEs of a sandboxed endpoint (${sandboxed
      .map((endpoint) => endpoint.name)
      .join(', ')}), checked and merged as REST's sql parameter is; see the README's "Sandboxed endpoints".`,
    args: {
      endpoint: { type: new GraphQLNonNull(GraphQLString), description: 'The endpoint, by name or UUID.' },
      sql: {
        type: new GraphQLNonNull(GraphQLString),
        description:
          "A BigQuery SELECT that replaces the endpoint's final SELECT; it may read only its CTEs.",
      },
      params: {
        type: scalars.JSON,
        description:
          'The endpoint\'s parameters as a JSON object, named as in REST (e.g. { "project": "default" }).',
      },
    },
    resolve: async (_root, args: { endpoint: string; sql: string; params?: unknown }, context) => {
      const saved = snapshot.find(args.endpoint);
      // The snapshot is the caller's view: a token's holds only its grant's endpoints.
      if (!saved)
        throw unknownEndpoint(
          args.endpoint,
          snapshot,
          undefined,
          `No endpoint with id or name '${args.endpoint}'`,
        );
      if (!saved.sandboxed) throw badParameter('endpoint', `names ${saved.name}, which is not sandboxed`);
      let loading: ReturnType<typeof context.loadEndpoint>;
      try {
        const values = parameterTexts(args.params);
        refuseUndeclaredParameters(saved, values.keys());
        // `sql` is the caller's SQL, as on REST: a token that pins it refuses any other (403).
        const sent = (name: string) => {
          const value = name === 'sql' ? args.sql : values.get(name);
          return value === undefined ? [] : [value];
        };
        const { grant } = context;
        const params = bindParameters(
          saved.parameters,
          grant ? withPinnedValues(grant, saved.parameters, sent) : sent,
        );
        loading = context.loadEndpoint(sandboxedEndpoint(saved, args.sql), params);
      } catch (error) {
        // Refused before it was a call: counted here; a call is counted by loadEndpoint.
        countRefused(context.metrics, saved, error);
        throw error;
      }
      const { result } = await loading;
      return {
        columns: result.columns.map((column) => ({ name: column.name, type: column.type })),
        rows: result.rows.map(jsonValue),
      };
    },
  };
}

/** Each parameter's text, as a REST query string would carry it. */
function parameterTexts(params: unknown): Map<string, string> {
  const texts = new Map<string, string>();
  if (params === undefined || params === null) return texts;
  if (typeof params !== 'object' || Array.isArray(params)) {
    throw badParameter('params', 'must be a JSON object of parameter values');
  }
  for (const [name, value] of Object.entries(params)) {
    if (value === null) continue;
    if (typeof value === 'string' || typeof value === 'number' || typeof value === 'boolean') {
      texts.set(name, String(value));
    } else throw badParameter(name, 'must be a string, number or boolean');
  }
  return texts;
}

function resultType(json: GraphQLScalarType): GraphQLObjectType {
  const column = new GraphQLObjectType({
    name: 'SandboxedColumn',
    description: 'One column of a sandboxed query: its name and BigQuery type.',
    fields: {
      name: { type: new GraphQLNonNull(GraphQLString), description: 'The column name.' },
      type: {
        type: new GraphQLNonNull(GraphQLString),
        description:
          'Its BigQuery type: STRING, INT64, FLOAT64, NUMERIC, BOOL, TIMESTAMP, DATETIME, DATE, TIME, BYTES, RECORD or JSON.',
      },
    },
  });
  return new GraphQLObjectType({
    name: 'SandboxedResult',
    description: "The answer to a caller's SQL: its columns in order, and its rows as JSON objects.",
    fields: {
      columns: {
        type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(column))),
        description: 'The columns, in the order the SELECT gives them.',
      },
      rows: {
        type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(json))),
        description: 'The rows, valued as REST values them (TIMESTAMP as integer microseconds).',
      },
    },
  });
}
