import {
  GraphQLEnumType as EnumType,
  GraphQLBoolean,
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
import { bindParameters, boundDefault } from '../endpoints/bind-parameters.js';
import type { ColumnContract, ParameterContract } from '../endpoints/contract.js';
import { withPinnedValues } from '../endpoints/grant.js';
import type { Endpoint } from '../endpoints/registry.js';
import type { ShapeColumn, Snapshot } from '../endpoints/snapshot.js';
import type { EngineValue, ParameterValues } from '../engines/query-engine.js';
import { isQuerygateError, QuerygateError } from '../errors.js';
import type { Encoding } from '../resolve/encodings.js';
import type { ResolvedResult } from '../resolve/resolver.js';
import type { GraphQLContext } from './context.js';
import { countRefused } from './counted-call.js';
import { resultPageField } from './result-page.js';
import { createRowMapper, floatValue, int32Value, textValue } from './result-rows.js';
import { dateTimeText, jsonValue } from './scalars.js';
import { TypeNames, type TypeOwner } from './type-names.js';

/** The scalars the projection types columns and arguments with. */
export interface ProjectionScalars {
  readonly DateTime: GraphQLScalarType;
  /** DATETIME: civil time with no zone (see scalars.ts for why not DateTime). */
  readonly LocalDateTime: GraphQLScalarType;
  readonly JSON: GraphQLScalarType;
  /** INT64 exact to 64 bits, as a decimal string (see scalars.ts for why). */
  readonly BigInt: GraphQLScalarType;
  /** NUMERIC and BIGNUMERIC exact, as decimal text (see scalars.ts for why not Float). */
  readonly Decimal: GraphQLScalarType;
  readonly Date: GraphQLScalarType;
  readonly Time: GraphQLScalarType;
  readonly Bytes: GraphQLScalarType;
}

type Args = Readonly<Record<string, unknown>>;
type Row = Readonly<Record<string, unknown>>;

/** An endpoint field's call, apart from graphql-js: its arguments bound and run, and its rows. */
export interface EndpointFieldCall {
  /** The endpoint the field calls. */
  readonly endpoint: Endpoint;
  /**
   * The field's argument values bound to the endpoint's parameters: a pure function of them (no
   * clock, no grant: a token's operations are never spliced). Throws the refusal, counted.
   */
  readonly bind: (values: Args, context: GraphQLContext) => ParameterValues;
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
    const pages: Array<readonly [string, GraphQLFieldConfig<unknown, GraphQLContext>]> = [];
    for (const endpoint of endpoints) {
      const shape = snapshot.shapes.get(endpoint.name) ?? [];
      const rows = endpointField(endpoint, shape, scalars, names);
      fields[fieldNameOf(endpoint.name)] = rows;
      pages.push([`${fieldNameOf(endpoint.name)}Page`, resultPageField(endpoint, rows, names)]);
    }
    // An endpoint whose field is already named so (`x.all-page` beside `x.all`) keeps its name.
    for (const [name, page] of pages) if (!(name in fields)) fields[name] = page;
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
      { what: `namespace ${namespace}` },
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

/**
 * `iso_timestamp_start` → `isoTimestampStart`, `invocation-stats` → `invocationStats`. A name
 * that would start with a digit (`_1`, as BigQuery's PIVOT names the column of the value 1) keeps
 * an underscore first: GraphQL names cannot start with a digit.
 */
export function camel(text: string): string {
  const camelled = text.replace(/[-_.]+([a-zA-Z0-9])/g, (_, letter: string) => letter.toUpperCase());
  return /^[0-9]/.test(camelled) ? `_${camelled}` : camelled;
}

function pascal(text: string): string {
  const camelled = camel(text);
  return camelled.charAt(0).toUpperCase() + camelled.slice(1);
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
    const defaultValue = argumentDefault(parameter, type);
    args[argument] = {
      type: parameter.required ? new GraphQLNonNull(type) : type,
      description: argumentDescription(parameter),
      ...(defaultValue === undefined ? {} : { defaultValue }),
    };
  }
  const rowType = objectType(
    endpoint.graphql.type ?? `${pascal(namespaceOf(endpoint.name))}${pascal(field)}Row`,
    endpoint.graphql.typeDescription ?? `One row of ${endpoint.name}.`,
    shape,
    (column) => endpoint.columns[column]?.description,
    scalars,
    names,
    { what: `endpoint ${endpoint.name}`, endpoint },
    (column) => endpoint.columns[column]?.graphql.type,
  );
  const toRows = rowMapper(shape, (column) => endpoint.columns[column]?.graphql.type);
  const call: EndpointFieldCall = {
    endpoint,
    bind,
    // Both the executed and the spliced path load the field's call here; the operation's
    // loadEndpoint counts it (once per distinct call), a refused argument is counted here.
    load: (values, context) => {
      let params: ParameterValues;
      try {
        params = bind(values, context);
      } catch (refused) {
        return Promise.reject(refused);
      }
      return context.loadEndpoint(endpoint, params);
    },
    rows: toRows,
  };
  function bind(values: Args, context: GraphQLContext): ParameterValues {
    const raw = new Map<string, string>();
    for (const [argument, parameter] of parameterOf) {
      const value = values[argument];
      if (value !== null && value !== undefined) raw.set(parameter.name, String(value));
    }
    try {
      const sent = (name: string) => {
        const value = raw.get(name);
        return value === undefined ? [] : [value];
      };
      const { grant } = context;
      return bindParameters(
        endpoint.parameters,
        grant ? withPinnedValues(grant, endpoint.parameters, sent) : sent,
      );
    } catch (error) {
      const refused = inArgumentTerms(error, parameterOf);
      countRefused(context.metrics, endpoint, refused);
      throw refused;
    }
  }
  return {
    // Nullable, so an endpoint that fails answers null with its error and its siblings in the
    // same operation still answer (GraphQL's own guidance: fields that can fail are nullable).
    type: new GraphQLList(new GraphQLNonNull(rowType)),
    description: endpoint.graphql.description ?? `${endpoint.description} (endpoint ${endpoint.name})`,
    args,
    resolve: async (_namespace, values, context) => (await call.load(values, context)).encoded(toRows),
    // What the fast path reads to splice the field's encoded rows (see encoded-fields.ts), and
    // the endpoint a token's refusal names (use-granted-fields.ts).
    extensions: { querygateEndpointCall: call, querygateEndpoint: endpoint.name },
  };
}

/**
 * An argument's description: the contract's, with the parameter's range where it has one. GraphQL
 * has no standard way to say a range: a directive would not show in introspection, which is what
 * GraphiQL and code generators read, so the description says it in words.
 */
function argumentDescription(parameter: ParameterContract): string {
  const description = parameter.graphql.description ?? parameter.description;
  const { min, max } = parameter;
  if (min === undefined && max === undefined) return description;
  const range =
    min !== undefined && max !== undefined
      ? `From ${min} to ${max}.`
      : min !== undefined
        ? `At least ${min}.`
        : `At most ${max}.`;
  return `${description} ${range}`;
}

/**
 * An argument's default value, in the argument type's internal terms (an enum's contract text, an
 * Int's number), so the SDL and introspection show it. The binding applies the contract's default
 * whether or not GraphQL does, so an INT64 default past Int's 32 bits is simply not shown.
 */
function argumentDefault(parameter: ParameterContract, type: GraphQLInputType): unknown {
  const bound = boundDefault(parameter);
  if (bound === undefined) return undefined;
  switch (type) {
    case GraphQLInt: {
      const value = Number(bound);
      return value >= -(2 ** 31) && value < 2 ** 31 ? value : undefined;
    }
    case GraphQLFloat:
      return Number(bound);
    case GraphQLBoolean:
      return bound === 'true';
    default:
      return bound;
  }
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
      { what: `${endpoint.name} parameter ${parameter.name}`, endpoint },
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

/**
 * The GraphQL type a top-level column's contract declares, if any: `Int` for an INT64 whose values
 * fit 32 bits, `DateTime` for a DATETIME the query computes in UTC (see ColumnContract).
 */
type DeclaredTypes = (column: string) => DeclaredType | undefined;
type DeclaredType = NonNullable<ColumnContract['graphql']['type']>;

function objectType(
  name: string,
  description: string,
  columns: readonly ShapeColumn[],
  describe: (column: string) => string | undefined,
  scalars: ProjectionScalars,
  names: TypeNames,
  by: TypeOwner,
  declared: DeclaredTypes = () => undefined,
): GraphQLObjectType {
  const fields: Record<string, GraphQLFieldConfig<Row, GraphQLContext>> = {};
  for (const column of columns) {
    const type = columnType(name, column, scalars, names, by, declared(column.name));
    fields[camel(column.name)] = {
      type: column.nullable ? type : new GraphQLNonNull(type),
      description: describe(column.name) ?? `The field ${column.name}.`,
    };
  }
  return names.claim(new GraphQLObjectType<Row, GraphQLContext>({ name, description, fields }), by);
}

/**
 * The GraphQL type of a column: a repeated record is a list of its own object type, a lone record
 * (`mode: NULLABLE`, a STRUCT) that object type itself. INT64 is BigInt unless the contract
 * declares the column fits 32 bits; DATETIME is LocalDateTime unless it declares it UTC.
 */
function columnType(
  parent: string,
  column: ShapeColumn,
  scalars: ProjectionScalars,
  names: TypeNames,
  by: TypeOwner,
  declared: DeclaredType | undefined,
): GraphQLOutputType {
  // BigQuery arrays hold no NULL element.
  if (column.mode === 'REPEATED' && column.type !== 'RECORD')
    return new GraphQLList(
      new GraphQLNonNull(columnType(parent, { ...column, mode: undefined }, scalars, names, by, declared)),
    );
  switch (column.type) {
    case 'INT64':
      return declared === 'Int' ? GraphQLInt : scalars.BigInt;
    case 'FLOAT64':
      return GraphQLFloat;
    case 'NUMERIC':
      return scalars.Decimal;
    case 'BOOL':
      return GraphQLBoolean;
    case 'TIMESTAMP':
      return scalars.DateTime;
    case 'DATETIME':
      return declared === 'DateTime' ? scalars.DateTime : scalars.LocalDateTime;
    case 'JSON':
      return scalars.JSON;
    case 'DATE':
      return scalars.Date;
    case 'TIME':
      return scalars.Time;
    case 'BYTES':
      return scalars.Bytes;
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
      return column.mode === 'NULLABLE' ? record : new GraphQLList(new GraphQLNonNull(record));
    }
    default:
      return GraphQLString;
  }
}

/** Rows of a result as the row type's objects, made once per (cached) result. */
function rowMapper(shape: readonly ShapeColumn[], declared: DeclaredTypes): Encoding<readonly Row[]> {
  const convert = recordConverter(shape, declared);
  return createRowMapper(({ row }) => convert(row));
}

type Converter = (record: Readonly<Record<string, EngineValue>>) => Row;

function recordConverter(
  columns: readonly ShapeColumn[],
  declared: DeclaredTypes = () => undefined,
): Converter {
  const parts = columns.map((column) => ({
    from: column.name,
    to: camel(column.name),
    value: valueConverter(column, declared(column.name)),
  }));
  return (record) => {
    const row: Record<string, unknown> = {};
    for (const part of parts) {
      const value = record[part.from] ?? null;
      row[part.to] = value === null ? null : part.value(value);
    }
    return row;
  };
}

/**
 * A converter from an engine value to the field's value. A value the field's type cannot hold
 * becomes an error value: graphql-js reports a resolved Error as that field's error (code and
 * message, HTTP 200), and the rest of the answer stands.
 */
function valueConverter(
  column: ShapeColumn,
  declared: DeclaredType | undefined,
): (value: EngineValue) => unknown {
  if (column.mode === 'REPEATED' && column.type !== 'RECORD') {
    const element = valueConverter({ ...column, mode: undefined }, declared);
    return (value) =>
      (Array.isArray(value) ? value : [value]).map((item) => (item === null ? null : element(item)));
  }
  switch (column.type) {
    case 'INT64':
      return declared === 'Int' ? (value) => int32Value(value, column.name) : (value) => textValue(value);
    case 'FLOAT64':
      return (value) => floatValue(value, column.name);
    case 'TIMESTAMP':
      return (value) => dateTimeText(value, 'TIMESTAMP');
    case 'DATETIME':
      // Civil text as REST sends it (LocalDateTime checks its form), or that time in UTC where declared.
      return declared === 'DateTime'
        ? (value) => dateTimeText(value, 'DATETIME')
        : (value) => textValue(value);
    case 'JSON':
      return (value) => jsonValue(value);
    case 'BOOL':
      return (value) => value;
    case 'RECORD': {
      if (!column.fields?.length) return (value) => jsonValue(value);
      const convert = recordConverter(column.fields);
      const each = (item: EngineValue) => convert(item as Readonly<Record<string, EngineValue>>);
      if (column.mode === 'NULLABLE')
        // An engine answering Logflare's wire gives a lone record as a repeated record of one.
        return (value) =>
          Array.isArray(value) ? (value[0] === undefined ? null : each(value[0])) : each(value);
      return (value) => (Array.isArray(value) ? value : [value]).map(each);
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
