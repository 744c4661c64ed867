import { v5 as uuidV5 } from 'uuid';
import { z } from 'zod';
import { maximumBytesBilledSchema } from './maximum-bytes-billed.js';

/** A GraphQL name: enum types, enum values and object types are spelled like this. */
const graphqlName = /^[_A-Za-z][_0-9A-Za-z]*$/;
const graphqlNameSchema = z
  .string()
  .regex(graphqlName, 'must be a GraphQL name: letters, digits and _, not starting with a digit');

/**
 * A declared value: its text (what REST sends and the SQL compares with), and on the GraphQL face
 * the enum value's name and description. Written as plain text when the text is a GraphQL name
 * already and needs no description.
 */
const declaredValueSchema = z.union([
  z.string().transform((value) => ({
    value,
    graphql: undefined as string | undefined,
    description: undefined as string | undefined,
  })),
  z.object({
    value: z.string(),
    graphql: graphqlNameSchema.optional(),
    description: z.string().min(1).optional(),
  }),
]);

export const parameterTypes = ['text', 'integer', 'number', 'boolean', 'timestamp'] as const;
export type ParameterType = (typeof parameterTypes)[number];

const parameterSchema = z
  .object({
    name: z.string().regex(/^[a-z][a-z0-9_]*$/, 'parameter names are lower_snake_case'),
    /** A call without it is refused (400), rather than run with it NULL. @default true */
    required: z.boolean().default(true),
    /** @default `The @<name> of the SQL.` */
    description: z.string().min(1).optional(),
    /**
     * The type the value is bound with: BigQuery named parameters of that type, DuckDB values of
     * the matching type. `timestamp` is ISO 8601 text bound as a TIMESTAMP.
     */
    type: z.enum(parameterTypes).default('text'),
    /** How a text value is checked: free text, an ISO 8601 timestamp (bound as text), or an RE2 pattern. */
    format: z.enum(['text', 'iso8601', 're2']).default('text'),
    /** The declared values; with `otherValues: 'fallback'` others are accepted (the SQL has an ELSE). */
    values: z.array(declaredValueSchema).nonempty().optional(),
    otherValues: z.enum(['reject', 'fallback']).default('reject'),
    /**
     * With `otherValues: 'fallback'`: the declared value that every other value behaves as (the
     * one the SQL's ELSE means). Other values are bound as this one, so they share its cache entry.
     */
    fallback: z.string().optional(),
    /**
     * The value an absent or empty parameter takes, written as its type is (a number for
     * `integer` and `number`, true or false for `boolean`, text otherwise). Checked at load as a
     * caller's value would be: values, format and range.
     */
    default: z.union([z.string(), z.number(), z.boolean()]).optional(),
    /** `integer` and `number` only: the least and the greatest value a caller may send. */
    min: z.number().optional(),
    max: z.number().optional(),
    /** The GraphQL argument: its description where it differs, and the enum type of the values. */
    graphql: z
      .object({
        description: z.string().min(1).optional(),
        enum: graphqlNameSchema.optional(),
        enumDescription: z.string().min(1).optional(),
      })
      .default({}),
  })
  .superRefine((parameter, context) => {
    const texts = (parameter.values ?? []).map((value) => value.value);
    if (
      parameter.otherValues === 'fallback' &&
      (parameter.fallback === undefined || !texts.includes(parameter.fallback))
    ) {
      context.addIssue({
        code: 'custom',
        message: "otherValues 'fallback' needs `values` and a `fallback` that is one of them",
        path: ['fallback'],
      });
    }
    if (parameter.type !== 'text' && (parameter.values || parameter.format !== 'text')) {
      context.addIssue({
        code: 'custom',
        message: `a ${parameter.type} parameter takes no values or format; those are for text`,
        path: ['type'],
      });
    }
    for (const problem of boundsProblems(parameter)) context.addIssue({ code: 'custom', ...problem });
    (parameter.values ?? []).forEach((value, index) => {
      if (value.graphql === undefined && !graphqlName.test(defaultEnumName(value.value))) {
        context.addIssue({
          code: 'custom',
          message: `'${value.value}' is no GraphQL enum name; give one with graphql: NAME`,
          path: ['values', index, 'graphql'],
        });
      }
    });
    if (new Set(texts).size !== texts.length) {
      context.addIssue({ code: 'custom', message: 'a value is declared twice', path: ['values'] });
    }
  })
  .transform(({ values, ...parameter }) => ({
    ...parameter,
    description: parameter.description ?? `The @${parameter.name} of the SQL.`,
    ...(values
      ? {
          values: values.map((value) => value.value),
          enumValues: values.map((value) => ({
            value: value.value,
            name: value.graphql ?? defaultEnumName(value.value),
            ...(value.description === undefined ? {} : { description: value.description }),
          })),
        }
      : {}),
  }));

/** What the YAML type of a default must be, by parameter type. */
const defaultTypes: Readonly<Record<ParameterType, 'string' | 'number' | 'boolean'>> = {
  text: 'string',
  integer: 'number',
  number: 'number',
  boolean: 'boolean',
  timestamp: 'string',
};

/**
 * What is wrong with a parameter's `default`, `min` and `max` as written (their values are
 * checked against the rest of the contract at load, by the binding itself).
 */
function boundsProblems(parameter: {
  readonly name: string;
  readonly type: ParameterType;
  readonly required: boolean;
  readonly default?: string | number | boolean | undefined;
  readonly min?: number | undefined;
  readonly max?: number | undefined;
}): { message: string; path: string[] }[] {
  const problems: { message: string; path: string[] }[] = [];
  const numeric = parameter.type === 'integer' || parameter.type === 'number';
  for (const bound of ['min', 'max'] as const) {
    const value = parameter[bound];
    if (value === undefined) continue;
    if (!numeric) {
      problems.push({
        message: `${bound} is for integer and number parameters; ${parameter.name} is ${parameter.type}`,
        path: [bound],
      });
    } else if (parameter.type === 'integer' && !Number.isInteger(value)) {
      problems.push({
        message: `${parameter.name} is an integer parameter, so its ${bound} is a whole number`,
        path: [bound],
      });
    }
  }
  if (parameter.min !== undefined && parameter.max !== undefined && parameter.min > parameter.max) {
    problems.push({
      message: `${parameter.name}'s min ${parameter.min} is above its max ${parameter.max}`,
      path: ['min'],
    });
  }
  if (parameter.default !== undefined) {
    const expected = defaultTypes[parameter.type];
    if (parameter.required) {
      problems.push({
        message: `${parameter.name} is required, so it takes no default (make it required: false)`,
        path: ['default'],
      });
    } else if (typeof parameter.default !== expected) {
      problems.push({
        message: `${parameter.name} is of type ${parameter.type}, so its default is a ${expected} (got ${JSON.stringify(parameter.default)})`,
        path: ['default'],
      });
    }
  }
  return problems;
}

/** A value written in upper case with `_` for anything else: `minutely` → `MINUTELY`. */
function defaultEnumName(value: string): string {
  return value.toUpperCase().replace(/[^A-Z0-9_]/g, '_');
}

const columnSchema = z.object({
  description: z.string().min(1).optional(),
  /** Whether a row may hold null here; the engines cannot say, so the contract does. */
  nullable: z.boolean().default(true),
  /** Exposed as the JSON scalar (and locked as JSON) instead of nested object types. */
  json: z.boolean().default(false),
  /**
   * The GraphQL face: `type: Int` declares that an INT64 column's values fit 32 bits (counts), so
   * it is GraphQL's Int; a value that does not is that field's error. Without it an INT64 column
   * is BigInt, exact to 64 bits. `type: DateTime` declares that a DATETIME column is computed in
   * UTC (`DATETIME(ts, 'UTC')`), so it is the DateTime instant; without it a DATETIME is civil
   * time, LocalDateTime, with no zone made up.
   */
  graphql: z
    .object({ type: z.enum(['Int', 'DateTime']).optional() })
    .strict()
    .default({}),
});

const exampleValueSchema = z.union([z.string(), z.number(), z.boolean()]);

/** An endpoint's name: dotted, its first part its GraphQL namespace (`logs.all`). */
export const endpointNameSchema = z
  .string()
  .regex(/^[a-z][a-z0-9-]*(\.[a-z][a-z0-9-]*)+$/, 'endpoint names are dotted, e.g. logs.all');

export const contractSchema = z
  .object({
    name: endpointNameSchema,
    /** The by-UUID path's id. @default `endpointIdOf(name)`, stable for the name */
    id: z.uuid().optional(),
    /** @default `The rows of saved query <name>.` */
    description: z.string().min(1).optional(),
    /** @default 1000 */
    maxRows: z.number().int().positive().default(1000),
    /** 0 turns caching off. @default 0 */
    cacheSeconds: z.number().int().nonnegative().default(0),
    /** How often the result is refreshed ahead of calls; null never. @default null */
    warmSeconds: z.number().int().positive().nullable().default(null),
    /** @default false */
    sandboxed: z.boolean().default(false),
    /** BigQuery only: bytes a job may bill, overriding the global cap. */
    maximumBytesBilled: maximumBytesBilledSchema.optional(),
    /**
     * The `@parameters` of the SQL. @default each `@name` the SQL uses, a required text parameter
     * (the registry fills them in: only it reads the SQL)
     */
    parameters: z.array(parameterSchema).optional(),
    /**
     * What the contract says of result columns, in any order: descriptions, nullability, GraphQL
     * types. Each one named must be a column the query returns. @default none
     */
    columns: z.record(z.string().min(1), columnSchema).default({}),
    /** Parameter values that make a good first call (welcome text, GraphiQL tabs, `queries check`). */
    examples: z.array(z.record(z.string(), exampleValueSchema)).default([]),
    /** The GraphQL field: its description, result type and namespace, where they differ from the defaults. */
    graphql: z
      .object({
        description: z.string().min(1).optional(),
        type: graphqlNameSchema.optional(),
        typeDescription: z.string().min(1).optional(),
        namespaceDescription: z.string().min(1).optional(),
        namespaceTypeDescription: z.string().min(1).optional(),
      })
      .default({}),
  })
  .superRefine((contract, context) => {
    const names = (contract.parameters ?? []).map((parameter) => parameter.name);
    names.forEach((name, index) => {
      if (names.indexOf(name) !== index) {
        context.addIssue({
          code: 'custom',
          message: `parameter ${name} is declared twice`,
          path: ['parameters', index],
        });
      }
    });
  })
  .transform((contract) => ({
    ...contract,
    id: contract.id ?? endpointIdOf(contract.name),
    description: contract.description ?? `The rows of saved query ${contract.name}.`,
  }));

/**
 * The parameter a contract without `parameters` has for an `@name` of its SQL: a declared one
 * with nothing but its name (required text: the SQL cannot say which type it means).
 */
export function derivedParameter(name: string): ParameterContract {
  return parameterSchema.parse({ name });
}

/**
 * Where the ids of endpoints without an `id` come from: fixed for good, since an id derived
 * under another namespace would move every such endpoint's by-UUID path.
 */
const endpointIdNamespace = '5b0f3a57-7e0c-4c55-9d6a-2f1d0e6c9a41';

/**
 * The id of an endpoint whose contract gives none: the UUIDv5 (RFC 9562, name-based) of its name,
 * so it stays the same from load to load and machine to machine, and changes with the name.
 */
export function endpointIdOf(name: string): string {
  return uuidV5(name, endpointIdNamespace);
}

export type EndpointContract = z.output<typeof contractSchema>;
export type ParameterContract = NonNullable<EndpointContract['parameters']>[number];
export type ColumnContract = EndpointContract['columns'][string];
