import {
  GraphQLEnumType as EnumType,
  GraphQLBoolean,
  type GraphQLEnumType,
  type GraphQLFieldConfig,
  type GraphQLFieldConfigArgumentMap,
  GraphQLFloat,
  type GraphQLInputType,
  GraphQLInt,
  GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
  type GraphQLOutputType,
  type GraphQLScalarType,
  GraphQLString,
} from 'graphql';
import { bindParameters } from '../endpoints/bind-parameters.js';
import type { ParameterContract } from '../endpoints/contract.js';
import type { Endpoint } from '../endpoints/registry.js';
import type { ShapeColumn, Snapshot } from '../endpoints/snapshot.js';
import type { EngineValue } from '../engines/query-engine.js';
import { isQuerygateError, QuerygateError } from '../errors.js';
import type { Encoding } from '../resolve/encodings.js';
import type { ResolvedResult } from '../resolve/resolver.js';
import type { GraphQLContext } from './context.js';
import { createRowMapper, numberValue, textValue } from './result-rows.js';
import { dateTimeText, jsonValue } from './scalars.js';

/** The scalars the projection types columns and arguments with. */
export interface ProjectionScalars {
  readonly DateTime: GraphQLScalarType;
  readonly JSON: GraphQLScalarType;
}

type Args = Readonly<Record<string, unknown>>;
type Row = Readonly<Record<string, unknown>>;

/** An endpoint field's call, apart from graphql-js: its arguments bound and run, and its rows. */
export interface EndpointFieldCall {
  /** Binds the field's argument values to the endpoint's parameters and runs the call. */
  readonly load: (values: Args, context: GraphQLContext) => Promise<ResolvedResult>;
  /** The result's rows as the field's row objects (made once per cached result). */
  readonly rows: Encoding<readonly Row[]>;
}

/**
 * The GraphQL face of a snapshot's endpoints, projected from their contracts and result shapes:
 * the namespace is the name before the first dot (`logs` of logs.all), a field of it the
 * camelCased rest (`invocationStats` of functions.invocation-stats), an argument per parameter
 * (camelCased, typed, an enum where values are declared) and a list of a row type made from the
 * result columns. Returns the Query fields, one per namespace.
 */
export function projectEndpoints(
  snapshot: Snapshot,
  scalars: ProjectionScalars,
): Record<string, GraphQLFieldConfig<unknown, GraphQLContext>> {
  const names = new TypeNames();
  const namespaces = new Map<string, { endpoints: Endpoint[] }>();
  for (const endpoint of snapshot.endpoints) {
    const namespace = namespaceOf(endpoint.name);
    const entry = namespaces.get(namespace) ?? { endpoints: [] };
    entry.endpoints.push(endpoint);
    namespaces.set(namespace, entry);
  }
  const query: Record<string, GraphQLFieldConfig<unknown, GraphQLContext>> = {};
  for (const [namespace, { endpoints }] of namespaces) {
    const fields: Record<string, GraphQLFieldConfig<unknown, GraphQLContext>> = {};
    for (const endpoint of endpoints) {
      const shape = snapshot.shapes.get(endpoint.name) ?? [];
      fields[fieldNameOf(endpoint.name)] = endpointField(endpoint, shape, scalars, names);
    }
    const typeDescription = endpoints.find((e) => e.graphql.namespaceTypeDescription)?.graphql
      .namespaceTypeDescription;
    const fieldDescription = endpoints.find((e) => e.graphql.namespaceDescription)?.graphql
      .namespaceDescription;
    const type = names.claim(
      new GraphQLObjectType<unknown, GraphQLContext>({
        name: `${pascal(namespace)}Queries`,
        description: typeDescription ?? `The saved queries named ${namespace}.*.`,
        fields,
      }),
      `namespace ${namespace}`,
    );
    query[namespace] = {
      type: new GraphQLNonNull(type),
      description: fieldDescription ?? `The saved queries named ${namespace}.*.`,
      resolve: () => ({}),
      extensions: { querygateNamespace: true },
    };
  }
  return query;
}

/** The namespace of an endpoint: its name before the first dot. */
export function namespaceOf(name: string): string {
  return name.slice(0, name.indexOf('.'));
}

/** The field of an endpoint in its namespace: the rest of its name, camelCased. */
export function fieldNameOf(name: string): string {
  return camel(name.slice(name.indexOf('.') + 1));
}

/** `iso_timestamp_start` → `isoTimestampStart`, `invocation-stats` → `invocationStats`. */
export function camel(text: string): string {
  return text.replace(/[-_.]+([a-zA-Z0-9])/g, (_, letter: string) => letter.toUpperCase());
}

function pascal(text: string): string {
  const camelled = camel(text);
  return camelled.charAt(0).toUpperCase() + camelled.slice(1);
}

/** Every type name is claimed once; a second claim with another meaning is a contract problem. */
class TypeNames {
  private readonly claimed = new Map<string, { type: GraphQLEnumType | GraphQLObjectType; by: string }>();

  claim<T extends GraphQLEnumType | GraphQLObjectType>(type: T, by: string): T {
    const first = this.claimed.get(type.name);
    if (first) throw new Error(`the GraphQL type ${type.name} of ${by} is also the type of ${first.by}`);
    this.claimed.set(type.name, { type, by });
    return type;
  }

  /** An enum declared by several parameters is one type, if they declare it alike. */
  enum(type: GraphQLEnumType, by: string): GraphQLEnumType {
    const first = this.claimed.get(type.name);
    if (!first) return this.claim(type, by);
    const same =
      first.type instanceof EnumType &&
      JSON.stringify(first.type.getValues().map((v) => [v.name, v.value, v.description])) ===
        JSON.stringify(type.getValues().map((v) => [v.name, v.value, v.description]));
    if (!same) throw new Error(`the GraphQL enum ${type.name} of ${by} differs from the one of ${first.by}`);
    return first.type as GraphQLEnumType;
  }
}

function endpointField(
  endpoint: Endpoint,
  shape: readonly ShapeColumn[],
  scalars: ProjectionScalars,
  names: TypeNames,
): GraphQLFieldConfig<unknown, GraphQLContext, Args> {
  const field = fieldNameOf(endpoint.name);
  const args: GraphQLFieldConfigArgumentMap = {};
  const parameterOf = new Map<string, ParameterContract>();
  for (const parameter of endpoint.parameters) {
    const argument = camel(parameter.name);
    parameterOf.set(argument, parameter);
    const type = argumentType(endpoint, field, parameter, scalars, names);
    args[argument] = {
      type: parameter.required ? new GraphQLNonNull(type) : type,
      description: parameter.graphql.description ?? parameter.description,
    };
  }
  const rowType = objectType(
    endpoint.graphql.type ?? `${pascal(namespaceOf(endpoint.name))}${pascal(field)}Row`,
    endpoint.graphql.typeDescription ?? `One row of ${endpoint.name}.`,
    shape,
    (column) => endpoint.columns[column]?.description,
    scalars,
    names,
    `endpoint ${endpoint.name}`,
  );
  const toRows = rowMapper(shape);
  const call: EndpointFieldCall = {
    load(values, context) {
      const raw = new Map<string, string>();
      for (const [argument, parameter] of parameterOf) {
        const value = values[argument];
        if (value !== null && value !== undefined) raw.set(parameter.name, String(value));
      }
      let params: ReturnType<typeof bindParameters>;
      try {
        params = bindParameters(endpoint.parameters, (name) => {
          const value = raw.get(name);
          return value === undefined ? [] : [value];
        });
      } catch (error) {
        return Promise.reject(inArgumentTerms(error, parameterOf));
      }
      return context.loadEndpoint(endpoint, params);
    },
    rows: toRows,
  };
  return {
    type: new GraphQLNonNull(new GraphQLList(new GraphQLNonNull(rowType))),
    description: endpoint.graphql.description ?? `${endpoint.description} (endpoint ${endpoint.name})`,
    args,
    resolve: async (_namespace, values, context) => (await call.load(values, context)).encoded(toRows),
    // What the fast path reads to splice the field's encoded rows (see encoded-fields.ts).
    extensions: { querygateEndpointCall: call },
  };
}

/**
 * A parameter's argument type. Enum values carry the contract's text as their internal value,
 * DateTime its ISO 8601 text, numbers and booleans turn back into their text: every argument
 * becomes the text a REST call would send, so both faces share the same cache entries.
 */
function argumentType(
  endpoint: Endpoint,
  field: string,
  parameter: ParameterContract,
  scalars: ProjectionScalars,
  names: TypeNames,
): GraphQLInputType {
  if (parameter.enumValues) {
    const name = parameter.graphql.enum ?? `${pascal(field)}${pascal(parameter.name)}`;
    return names.enum(
      new EnumType({
        name,
        description:
          parameter.graphql.enumDescription ?? `The values of ${parameter.name} of ${endpoint.name}.`,
        values: Object.fromEntries(
          parameter.enumValues.map((value) => [
            value.name,
            { value: value.value, description: value.description ?? `The value ${value.value}.` },
          ]),
        ),
      }),
      `${endpoint.name} parameter ${parameter.name}`,
    );
  }
  if (parameter.type === 'timestamp' || parameter.format === 'iso8601') return scalars.DateTime;
  switch (parameter.type) {
    case 'integer':
      return GraphQLInt;
    case 'number':
      return GraphQLFloat;
    case 'boolean':
      return GraphQLBoolean;
    default:
      return GraphQLString;
  }
}

function objectType(
  name: string,
  description: string,
  columns: readonly ShapeColumn[],
  describe: (column: string) => string | undefined,
  scalars: ProjectionScalars,
  names: TypeNames,
  by: string,
): GraphQLObjectType {
  const fields: Record<string, GraphQLFieldConfig<Row, GraphQLContext>> = {};
  for (const column of columns) {
    const type = columnType(name, column, scalars, names, by);
    fields[camel(column.name)] = {
      type: column.nullable ? type : new GraphQLNonNull(type),
      description: describe(column.name) ?? `The field ${column.name}.`,
    };
  }
  return names.claim(new GraphQLObjectType<Row, GraphQLContext>({ name, description, fields }), by);
}

/** The GraphQL type of a column; a repeated record is a list of its own object type. */
function columnType(
  parent: string,
  column: ShapeColumn,
  scalars: ProjectionScalars,
  names: TypeNames,
  by: string,
): GraphQLOutputType {
  switch (column.type) {
    case 'INT64':
      return GraphQLInt;
    case 'FLOAT64':
      return GraphQLFloat;
    case 'BOOL':
      return GraphQLBoolean;
    case 'TIMESTAMP':
    case 'DATETIME':
      return scalars.DateTime;
    case 'JSON':
      return scalars.JSON;
    case 'RECORD': {
      if (!column.fields?.length) return scalars.JSON;
      const record = objectType(
        `${parent}${pascal(column.name)}`,
        `One record of ${column.name}.`,
        column.fields,
        () => undefined,
        scalars,
        names,
        by,
      );
      return new GraphQLList(new GraphQLNonNull(record));
    }
    default:
      return GraphQLString;
  }
}

/** Rows of a result as the row type's objects, made once per (cached) result. */
function rowMapper(shape: readonly ShapeColumn[]): Encoding<readonly Row[]> {
  const convert = recordConverter(shape);
  return createRowMapper(({ row, typeOf }) => convert(row, typeOf));
}

type Converter = (
  record: Readonly<Record<string, EngineValue>>,
  typeOf?: (column: string) => string | undefined,
) => Row;

function recordConverter(columns: readonly ShapeColumn[]): Converter {
  const parts = columns.map((column) => ({
    from: column.name,
    to: camel(column.name),
    value: valueConverter(column),
  }));
  return (record, typeOf) => {
    const row: Record<string, unknown> = {};
    for (const part of parts) {
      const value = record[part.from] ?? null;
      row[part.to] = value === null ? null : part.value(value, typeOf?.(part.from));
    }
    return row;
  };
}

function valueConverter(column: ShapeColumn): (value: EngineValue, type: string | undefined) => unknown {
  switch (column.type) {
    case 'INT64':
    case 'FLOAT64':
      return (value) => numberValue(value);
    case 'TIMESTAMP':
    case 'DATETIME':
      // The result's own type says which: DuckDB and BigQuery agree, but a record's fields have none.
      return (value, type) => dateTimeText(value, (type ?? column.type) as 'TIMESTAMP' | 'DATETIME');
    case 'JSON':
      return (value) => jsonValue(value);
    case 'BOOL':
      return (value) => value;
    case 'RECORD': {
      if (!column.fields?.length) return (value) => jsonValue(value);
      const convert = recordConverter(column.fields);
      return (value) =>
        (Array.isArray(value) ? value : [value]).map((item) =>
          convert(item as Readonly<Record<string, EngineValue>>),
        );
    }
    default:
      return (value) => textValue(value);
  }
}

/** A contract error names the REST parameter; on this face the client wrote the GraphQL argument. */
function inArgumentTerms(error: unknown, parameterOf: ReadonlyMap<string, ParameterContract>): unknown {
  if (!isQuerygateError(error) || error.code !== 'BAD_PARAMETER') return error;
  const parameter = error.details?.parameter;
  const argument = [...parameterOf].find(([, contract]) => contract.name === parameter)?.[0];
  if (typeof parameter !== 'string' || argument === undefined) return error;
  return new QuerygateError(
    'BAD_PARAMETER',
    error.message.replace(`Parameter '${parameter}'`, `Argument '${argument}'`),
    { details: { parameter, argument } },
  );
}
