import {
  type GraphQLFieldConfig,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  type GraphQLOutputType,
  type GraphQLScalarType,
  GraphQLSchema,
  lexicographicSortSchema,
  printSchema,
} from 'graphql';
import type { Snapshot } from '../endpoints/snapshot.js';
import { createBuilder } from './builder.js';
import type { GraphQLContext } from './context.js';
import { addEndpointTypes } from './endpoints.js';
import { projectEndpoints } from './projection.js';
import { sandboxedQueryField } from './sandboxed-query.js';
import { addScalars } from './scalars.js';

/**
 * The schema of the GraphQL face for a snapshot: a namespace field per endpoint namespace, each
 * with a field per endpoint, and `endpoints`. Made once per snapshot and kept with it; throws when
 * the contracts name GraphQL types in conflict, which refuses the snapshot. It keeps the order of
 * the contracts (arguments as declared, values as listed); only the checked-in SDL is sorted.
 */
export function schemaFor(snapshot: Snapshot): GraphQLSchema {
  return snapshot.derived(buildSchema);
}

function buildSchema(snapshot: Snapshot): GraphQLSchema {
  // The parts that do not depend on the endpoints (the scalars, the Endpoint list's types) are
  // written with Pothos; the endpoints' fields are added to them.
  const builder = createBuilder();
  addScalars(builder);
  addEndpointTypes(builder);
  builder.queryType({});
  const fixed = builder.toSchema({ sortSchema: false });
  const scalars = {
    DateTime: fixed.getType('DateTime') as GraphQLScalarType,
    LocalDateTime: fixed.getType('LocalDateTime') as GraphQLScalarType,
    JSON: fixed.getType('JSON') as GraphQLScalarType,
    BigInt: fixed.getType('BigInt') as GraphQLScalarType,
    Decimal: fixed.getType('Decimal') as GraphQLScalarType,
    Date: fixed.getType('Date') as GraphQLScalarType,
    Time: fixed.getType('Time') as GraphQLScalarType,
    Bytes: fixed.getType('Bytes') as GraphQLScalarType,
  };
  const endpointType = fixed.getType('Endpoint') as GraphQLOutputType;
  const endpoints: GraphQLFieldConfig<unknown, GraphQLContext> = {
    type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(endpointType))),
    description: 'Every saved query this server serves.',
    resolve: () => snapshot.endpoints,
  };
  return new GraphQLSchema({
    query: new GraphQLObjectType<unknown, GraphQLContext>({
      name: 'Query',
      description:
        'Saved analytics queries over stored log data. Dotted endpoint names are namespaces: logs.all is logs { all }.',
      fields: { ...projectEndpoints(snapshot, scalars), endpoints, ...sandboxedFields(snapshot, scalars) },
    }),
  });
}

/** The SDL as checked in at schema/schema.graphql: types and fields in alphabetical order. */
export function printSortedSchema(schema: GraphQLSchema): string {
  return `${printSchema(lexicographicSortSchema(schema))}\n`;
}

/** `sandboxedQuery`, where the snapshot has a sandboxed endpoint (see sandboxed-query.ts). */
function sandboxedFields(
  snapshot: Snapshot,
  scalars: Parameters<typeof sandboxedQueryField>[1],
): Record<string, GraphQLFieldConfig<unknown, GraphQLContext>> {
  const field = sandboxedQueryField(snapshot, scalars);
  return field ? { sandboxedQuery: field } : {};
}
