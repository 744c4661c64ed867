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
import { builder } from './builder.js';
import type { GraphQLContext } from './context.js';
import './scalars.js';
import './endpoints.js';
import { projectEndpoints } from './projection.js';

// The parts that do not depend on the endpoints (the scalars, the Endpoint list's types) are
// written with Pothos once; each snapshot's schema adds its endpoints' fields to them.
builder.queryType({});
const fixed = builder.toSchema({ sortSchema: false });
const scalars = {
  DateTime: fixed.getType('DateTime') as GraphQLScalarType,
  JSON: fixed.getType('JSON') as GraphQLScalarType,
  BigInt: fixed.getType('BigInt') as GraphQLScalarType,
  Date: fixed.getType('Date') as GraphQLScalarType,
  Time: fixed.getType('Time') as GraphQLScalarType,
  Bytes: fixed.getType('Bytes') as GraphQLScalarType,
};
const endpointType = fixed.getType('Endpoint') as GraphQLOutputType;

const schemas = new WeakMap<Snapshot, GraphQLSchema>();

/**
 * The schema of the GraphQL face for a snapshot: a namespace field per endpoint namespace, each
 * with a field per endpoint, and `endpoints`. Made once per snapshot; throws when the contracts
 * name GraphQL types in conflict, which refuses the snapshot. It keeps the order of the
 * contracts (arguments as declared, values as listed); only the checked-in SDL is sorted.
 */
export function schemaFor(snapshot: Snapshot): GraphQLSchema {
  let schema = schemas.get(snapshot);
  if (!schema) {
    const endpoints: GraphQLFieldConfig<unknown, GraphQLContext> = {
      type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(endpointType))),
      description: 'Every saved query this server serves.',
      resolve: () => snapshot.endpoints,
    };
    schema = new GraphQLSchema({
      query: new GraphQLObjectType<unknown, GraphQLContext>({
        name: 'Query',
        description:
          'Saved analytics queries over stored log data. Dotted endpoint names are namespaces: logs.all is logs { all }.',
        fields: { ...projectEndpoints(snapshot, scalars), endpoints },
      }),
    });
    schemas.set(snapshot, schema);
  }
  return schema;
}

/** The SDL as checked in at schema/schema.graphql: types and fields in alphabetical order. */
export function printSortedSchema(schema: GraphQLSchema): string {
  return `${printSchema(lexicographicSortSchema(schema))}\n`;
}
