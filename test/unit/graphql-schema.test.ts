import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  type GraphQLArgument,
  type GraphQLEnumType,
  type GraphQLField,
  getNamedType,
  isEnumType,
  isObjectType,
} from 'graphql';
import { describe, expect, it } from 'vitest';
import { loadScratchSnapshot } from '../../src/cli/scratch-snapshot.js';
import { printSortedSchema, schemaFor } from '../../src/graphql/schema.js';
import { packageRoot, queriesDir } from '../../src/paths.js';

// The schema projected from the shipped queries, their shapes derived on an empty DuckDB store.
const registry = await loadScratchSnapshot(queriesDir);
const schema = schemaFor(registry);

function field(typeName: string, fieldName: string): GraphQLField<unknown, unknown> {
  const type = schema.getType(typeName);
  if (!isObjectType(type)) throw new Error(`${typeName} is not an object type`);
  const found = type.getFields()[fieldName];
  if (!found) throw new Error(`${typeName}.${fieldName} does not exist`);
  return found;
}

const signature = (f: GraphQLField<unknown, unknown>) =>
  `(${f.args.map((arg: GraphQLArgument) => `${arg.name}: ${arg.type}`).join(', ')}): ${f.type}`;

const enumValues = (name: string) => (schema.getType(name) as GraphQLEnumType).getValues();

describe('the checked-in SDL', () => {
  it('is up to date with the code (run `npm run schema` after changing the schema)', () => {
    const checkedIn = readFileSync(join(packageRoot, 'schema', 'schema.graphql'), 'utf8');
    expect(printSortedSchema(schema)).toBe(checkedIn);
  });
});

describe('the schema of the spec', () => {
  it('has exactly the four Query fields', () => {
    const query = schema.getQueryType();
    expect(
      Object.fromEntries(Object.values(query?.getFields() ?? {}).map((f) => [f.name, String(f.type)])),
    ).toEqual({
      logs: 'LogsQueries!',
      functions: 'FunctionsQueries!',
      usage: 'UsageQueries!',
      endpoints: '[Endpoint!]!',
    });
  });

  it('types the arguments of the three endpoint fields', () => {
    expect(signature(field('LogsQueries', 'all'))).toBe(
      '(project: String!, projectTier: ProjectTier!, isoTimestampStart: DateTime, isoTimestampEnd: DateTime): [LogRecord!]',
    );
    expect(signature(field('FunctionsQueries', 'invocationStats'))).toBe(
      '(project: String!, interval: InvocationInterval!, functionId: String): [InvocationStatsBucket!]',
    );
    expect(signature(field('UsageQueries', 'apiCounts'))).toBe(
      '(project: String!, interval: UsageInterval!): [ApiCountsBucket!]',
    );
  });

  it('has the enums of the spec, mapped onto the contract values', () => {
    const mapped = (name: string) =>
      Object.fromEntries(enumValues(name).map((value) => [value.name, value.value]));
    expect(mapped('ProjectTier')).toEqual({
      FREE: 'FREE',
      PRO: 'PRO',
      PAYG: 'PAYG',
      ENTERPRISE: 'ENTERPRISE',
    });
    expect(mapped('InvocationInterval')).toEqual({
      FIVE_MINUTES: '5min',
      FIFTEEN_MINUTES: '15min',
      ONE_HOUR: '1hr',
      ONE_DAY: '1day',
      SEVEN_DAYS: '7day',
    });
    expect(mapped('UsageInterval')).toEqual({ MINUTELY: 'minutely', HOURLY: 'hourly', DAILY: 'daily' });
  });

  it('has the row fields of the spec in camelCase, with DateTime timestamps and JSON metadata', () => {
    const fields = (name: string) => {
      const type = schema.getType(name);
      if (!isObjectType(type)) throw new Error(name);
      return Object.fromEntries(Object.values(type.getFields()).map((f) => [f.name, String(f.type)]));
    };
    expect(fields('LogRecord')).toEqual({
      id: 'String!',
      timestamp: 'DateTime!',
      eventMessage: 'String!',
      metadata: 'JSON',
    });
    expect(fields('InvocationStatsBucket')).toEqual({
      timestamp: 'DateTime!',
      minExecutionTime: 'Int',
      maxExecutionTime: 'Int',
      avgExecutionTime: 'Float',
      p95ExecutionTime: 'Int',
      p99ExecutionTime: 'Int',
      count: 'Int!',
      errorCount: 'Int!',
    });
    expect(fields('ApiCountsBucket')).toEqual({
      timestamp: 'DateTime!',
      totalRestRequests: 'Int!',
      totalStorageRequests: 'Int!',
      totalAuthRequests: 'Int!',
      totalRealtimeRequests: 'Int!',
    });
    expect(Object.keys(fields('Endpoint'))).toEqual([
      'id',
      'name',
      'description',
      'parameters',
      'maxRows',
      'cacheSeconds',
      'warmSeconds',
    ]);
  });

  it('describes every type, field, argument and enum value', () => {
    const missing: string[] = [];
    for (const type of Object.values(schema.getTypeMap())) {
      if (type.name.startsWith('__') || ['String', 'Int', 'Float', 'Boolean', 'ID'].includes(type.name))
        continue;
      if (!type.description) missing.push(type.name);
      if (isObjectType(type)) {
        for (const f of Object.values(type.getFields())) {
          if (!f.description) missing.push(`${type.name}.${f.name}`);
          for (const arg of f.args) if (!arg.description) missing.push(`${type.name}.${f.name}(${arg.name})`);
        }
      }
      if (isEnumType(type)) {
        for (const value of type.getValues())
          if (!value.description) missing.push(`${type.name}.${value.name}`);
      }
    }
    expect(missing).toEqual([]);
  });
});

describe('the GraphQL arguments and the parameter contracts', () => {
  // GraphQL argument → contract parameter, as the spec names them.
  const bindings: Array<[string, string, { endpoint: string; arguments: Record<string, string> }]> = [
    [
      'LogsQueries',
      'all',
      {
        endpoint: 'logs.all',
        arguments: {
          project: 'project',
          projectTier: 'project_tier',
          isoTimestampStart: 'iso_timestamp_start',
          isoTimestampEnd: 'iso_timestamp_end',
        },
      },
    ],
    [
      'FunctionsQueries',
      'invocationStats',
      {
        endpoint: 'functions.invocation-stats',
        arguments: { project: 'project', interval: 'interval', functionId: 'function_id' },
      },
    ],
    [
      'UsageQueries',
      'apiCounts',
      { endpoint: 'usage.api-counts', arguments: { project: 'project', interval: 'interval' } },
    ],
  ];

  it.each(bindings)(
    '%s.%s fills every contract parameter from exactly one argument',
    (typeName, fieldName, binding) => {
      const endpoint = registry.find(binding.endpoint);
      expect(endpoint).toBeDefined();
      const graphqlField = field(typeName, fieldName);
      expect(Object.keys(binding.arguments).sort()).toEqual(graphqlField.args.map((arg) => arg.name).sort());
      expect(Object.values(binding.arguments).sort()).toEqual(endpoint?.parameters.map((p) => p.name).sort());
      for (const parameter of endpoint?.parameters ?? []) {
        const argumentName = Object.entries(binding.arguments).find(
          ([, name]) => name === parameter.name,
        )?.[0];
        const argument = graphqlField.args.find((arg) => arg.name === argumentName);
        // A required parameter is a non-null argument, an optional one nullable.
        expect(String(argument?.type).endsWith('!'), parameter.name).toBe(parameter.required);
        // A parameter with declared values is an enum with exactly those values.
        const named = getNamedType(argument?.type);
        if (parameter.values) {
          expect(isEnumType(named), parameter.name).toBe(true);
          expect((named as GraphQLEnumType).getValues().map((value) => value.value)).toEqual(
            parameter.values,
          );
        }
        if (parameter.format === 'iso8601') expect(named?.name).toBe('DateTime');
      }
    },
  );
});
