import { basename } from 'node:path';
import { GraphQLEnumType, GraphQLObjectType } from 'graphql';
import { EndpointRefusedError } from '../endpoints/refusal.js';
import type { Endpoint } from '../endpoints/registry.js';

/** Who claims a type name: a namespace, or an endpoint (which alone can be refused for it). */
export interface TypeOwner {
  readonly what: string;
  readonly endpoint?: Endpoint;
}

/**
 * Every type name is claimed once. A second claim of an object type with the same fields (names
 * and types) shares the first one's type, the first's descriptions included: a copied endpoint
 * keeps its type. A claim with other fields refuses the later endpoint, naming both files and the
 * key to change.
 */
export class TypeNames {
  private readonly claimed = new Map<string, { type: GraphQLEnumType | GraphQLObjectType; by: TypeOwner }>();

  claim<T extends GraphQLEnumType | GraphQLObjectType>(type: T, by: TypeOwner): T {
    const first = this.claimed.get(type.name);
    if (!first) {
      this.claimed.set(type.name, { type, by });
      return type;
    }
    if (
      first.type instanceof GraphQLObjectType &&
      type instanceof GraphQLObjectType &&
      fieldsOf(first.type) === fieldsOf(type)
    )
      return first.type as T;
    const { endpoint } = by;
    const other = first.by.endpoint
      ? `endpoint ${first.by.endpoint.name} (${basename(first.by.endpoint.contractFile)})`
      : first.by.what;
    if (!endpoint)
      throw new Error(`the GraphQL type ${type.name} of ${by.what} is also the type of ${other}`);
    throw new EndpointRefusedError(
      endpoint.name,
      endpoint.contractFile,
      `${endpoint.contractFile}: graphql.type: the GraphQL type ${type.name} of ${by.what} is also the type of ${other} with other fields; name another type in graphql.type of ${basename(endpoint.contractFile)}`,
    );
  }

  /** An enum declared by several parameters is one type, if they declare it alike. */
  enum(type: GraphQLEnumType, by: TypeOwner): GraphQLEnumType {
    const first = this.claimed.get(type.name);
    if (!first) return this.claim(type, by);
    const same =
      first.type instanceof GraphQLEnumType &&
      JSON.stringify(first.type.getValues().map((v) => [v.name, v.value, v.description])) ===
        JSON.stringify(type.getValues().map((v) => [v.name, v.value, v.description]));
    if (same) return first.type as GraphQLEnumType;
    const message = `the GraphQL enum ${type.name} of ${by.what} differs from the one of ${first.by.what}`;
    if (!by.endpoint) throw new Error(message);
    throw new EndpointRefusedError(
      by.endpoint.name,
      by.endpoint.contractFile,
      `${by.endpoint.contractFile}: parameters: ${message}; name another enum in its graphql.enum`,
    );
  }
}

/** An object type's shape: its fields' names and types, in order. */
function fieldsOf(type: GraphQLObjectType): string {
  return JSON.stringify(Object.values(type.getFields()).map((field) => [field.name, String(field.type)]));
}
