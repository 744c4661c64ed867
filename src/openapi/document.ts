import type { ParameterContract } from '../endpoints/contract.js';
import type { Endpoint } from '../endpoints/registry.js';
import type { ShapeColumn, Snapshot } from '../endpoints/snapshot.js';
import { errorStatus } from '../errors.js';
import { callerRowsSchema, sandboxedRowsSchema, sqlParameter } from './sandboxed.js';

/** Where the document is served. */
export const openApiPath = '/openapi.json';

type Schema = Record<string, unknown>;

/**
 * The OpenAPI 3.1 document of a snapshot's REST face: each endpoint by name and by UUID, its
 * parameters with types, enums and formats, its response from the locked shape in the REST
 * encoding (TIMESTAMP as integer microseconds, DATETIME as civil text, repeated records as arrays
 * of objects), the error body and the X-API-KEY scheme. Made once per snapshot, so a reload
 * changes it together with the other faces.
 */
export function openApiFor(snapshot: Snapshot): Schema {
  return snapshot.derived(buildDocument);
}

function buildDocument(snapshot: Snapshot): Schema {
  const paths: Record<string, Schema> = {};
  const schemas: Record<string, Schema> = { Error: errorSchema };
  if (snapshot.endpoints.some((endpoint) => endpoint.sandboxed)) schemas.CallerRows = callerRowsSchema;
  for (const endpoint of snapshot.endpoints) {
    const rows = `${operationBase(endpoint)}Result`;
    schemas[rows] = resultSchema(endpoint, snapshot.shapes.get(endpoint.name) ?? []);
    // A sandboxed endpoint answers its saved rows without `sql` and the caller's with it.
    const body = endpoint.sandboxed ? `${rows}OrCallerRows` : rows;
    if (endpoint.sandboxed) schemas[body] = sandboxedRowsSchema(rows);
    paths[`/api/endpoints/${endpoint.name}`] = { get: operation(endpoint, body, 'name') };
    paths[`/api/endpoints/query/${endpoint.id}`] = { get: operation(endpoint, body, 'id') };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'querygate',
      version: `queries-${snapshot.version}`,
      description:
        'Saved, parameterised analytics queries over REST (Logflare-compatible paths). Each endpoint is reachable by its dotted name and by its UUID.',
    },
    security: [{ ApiKey: [] }],
    paths,
    components: {
      schemas,
      securitySchemes: { ApiKey: { type: 'apiKey', in: 'header', name: 'X-API-KEY' } },
      responses: Object.fromEntries(
        errorResponses.map(([status, description]) => [
          `Error${status}`,
          {
            description,
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
          },
        ]),
      ),
    },
  };
}

const errorSchema: Schema = {
  type: 'object',
  required: ['error'],
  properties: {
    error: {
      type: 'object',
      required: ['code', 'message'],
      properties: {
        code: { type: 'string', enum: Object.keys(errorStatus) },
        message: { type: 'string' },
      },
    },
  },
};

const errorResponses: ReadonlyArray<[number, string]> = [
  [
    400,
    'A parameter is missing or wrong (BAD_PARAMETER names it), the request is malformed, or the query ' +
      "stopped on an error of its own at run time (INVALID_QUERY, with BigQuery's message).",
  ],
  [401, 'X-API-KEY is missing or not a key of this server.'],
  [404, 'No such endpoint.'],
  [405, 'Only GET and HEAD are allowed.'],
  [429, 'The engine is rate-limited; try again later.'],
  [500, 'Internal error; the server log has the details.'],
  [502, 'The engine failed to run the query.'],
  [503, 'The engine is not ready.'],
  [504, 'The query did not finish in time.'],
];

/** `functions.invocation-stats` → `functionsInvocationStats`. */
function operationBase(endpoint: Endpoint): string {
  return endpoint.name.replace(/[-_.]+([a-zA-Z0-9])/g, (_, letter: string) => letter.toUpperCase());
}

function operation(endpoint: Endpoint, rows: string, by: 'name' | 'id'): Schema {
  return {
    operationId: by === 'name' ? operationBase(endpoint) : `${operationBase(endpoint)}ById`,
    summary: `${endpoint.name}${by === 'id' ? ' (by UUID)' : ''}`,
    description: endpoint.description,
    tags: [endpoint.name.slice(0, endpoint.name.indexOf('.'))],
    parameters: [
      ...endpoint.parameters.map((contract) => parameter(contract, endpoint.examples[0]?.[contract.name])),
      ...(endpoint.sandboxed ? [sqlParameter] : []),
    ],
    responses: {
      '200': {
        description: `The rows of ${endpoint.name}, at most ${endpoint.maxRows}.`,
        content: { 'application/json': { schema: { $ref: `#/components/schemas/${rows}` } } },
      },
      ...Object.fromEntries(
        errorResponses.map(([status]) => [String(status), { $ref: `#/components/responses/Error${status}` }]),
      ),
    },
  };
}

/** A query parameter, with the contract's first example value where it gives one. */
function parameter(contract: ParameterContract, example: string | number | boolean | undefined): Schema {
  return {
    name: contract.name,
    in: 'query',
    required: contract.required,
    description: contract.description,
    schema: parameterSchema(contract),
    ...(example === undefined ? {} : { example }),
  };
}

/** A parameter's schema: what REST accepts as its text, its range and what its absence means. */
function parameterSchema(contract: ParameterContract): Schema {
  return {
    ...typeSchema(contract),
    ...(contract.min === undefined ? {} : { minimum: contract.min }),
    ...(contract.max === undefined ? {} : { maximum: contract.max }),
    ...(contract.default === undefined ? {} : { default: contract.default }),
  };
}

function typeSchema(contract: ParameterContract): Schema {
  if (contract.values) {
    // Values outside the declared ones are accepted when they fall back: then they are examples.
    return contract.otherValues === 'reject'
      ? { type: 'string', enum: contract.values }
      : { type: 'string', examples: contract.values, default: contract.fallback };
  }
  switch (contract.type) {
    case 'integer':
      return { type: 'integer', format: 'int64' };
    case 'number':
      return { type: 'number', format: 'double' };
    case 'boolean':
      return { type: 'boolean' };
    case 'timestamp':
      return { type: 'string', format: 'date-time' };
    default:
      if (contract.format === 'iso8601') return { type: 'string', format: 'date-time' };
      if (contract.format === 're2') return { type: 'string', format: 're2' };
      return { type: 'string' };
  }
}

function resultSchema(endpoint: Endpoint, shape: readonly ShapeColumn[]): Schema {
  return {
    type: 'object',
    description: endpoint.description,
    required: ['result'],
    properties: {
      result: {
        type: 'array',
        maxItems: endpoint.maxRows,
        items: recordSchema(shape, (name) => endpoint.columns[name]?.description),
      },
    },
  };
}

function recordSchema(
  columns: readonly ShapeColumn[],
  describe: (name: string) => string | undefined,
): Schema {
  return {
    type: 'object',
    required: columns.map((column) => column.name),
    properties: Object.fromEntries(
      columns.map((column) => {
        const schema = columnSchema(column);
        const description = describe(column.name);
        return [column.name, description ? { ...schema, description } : schema];
      }),
    ),
  };
}

/** A column's value in the REST encoding; nullable columns also take null. */
function columnSchema(column: ShapeColumn): Schema {
  const schema = valueSchema(column);
  if (!column.nullable || column.type === 'JSON') return schema;
  if (Array.isArray(schema.anyOf)) return { ...schema, anyOf: [...schema.anyOf, { type: 'null' }] };
  return { ...schema, type: [schema.type, 'null'] };
}

function valueSchema(column: ShapeColumn): Schema {
  // An array of scalars: an array of that scalar's values (BigQuery arrays hold no NULL).
  if (column.mode === 'REPEATED' && column.type !== 'RECORD')
    return { type: 'array', items: valueSchema({ ...column, mode: undefined }) };
  switch (column.type) {
    case 'TIMESTAMP':
      return { type: 'integer', format: 'int64', description: 'Microseconds since the Unix epoch, UTC.' };
    case 'DATETIME':
      return {
        type: 'string',
        pattern: '^\\d{4}-\\d{2}-\\d{2}T\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,6})?$',
        // A pattern, not `format: date-time`: RFC 3339's date-time requires a zone, and a
        // DATETIME has none (a validator would refuse every value, a client would make one up).
        description:
          'A civil date and time with no time zone (BigQuery DATETIME), YYYY-MM-DDTHH:MM:SS[.ffffff].',
      };
    case 'INT64':
      return { type: 'integer', format: 'int64' };
    case 'FLOAT64':
      // +inf, -inf and NaN have no JSON number: they are the texts BigQuery's REST API sends.
      return {
        anyOf: [
          { type: 'number', format: 'double' },
          { type: 'string', enum: ['Infinity', '-Infinity', 'NaN'] },
        ],
      };
    case 'NUMERIC':
      // Text, as BigQuery's REST API sends NUMERIC: a JSON number is a double in most clients,
      // which would round away digits past 15-17.
      return {
        type: 'string',
        format: 'decimal',
        pattern: '^-?\\d+(\\.\\d+)?$',
        description: 'An exact decimal (BigQuery NUMERIC or BIGNUMERIC) as its decimal text.',
      };
    case 'BOOL':
      return { type: 'boolean' };
    case 'JSON':
      return {};
    case 'DATE':
      return { type: 'string', format: 'date', description: 'A calendar date, YYYY-MM-DD.' };
    case 'TIME':
      // Not `format: time`, which JSON Schema takes from RFC 3339 with a zone offset.
      return {
        type: 'string',
        pattern: '^\\d{2}:\\d{2}:\\d{2}(\\.\\d{1,6})?$',
        description: 'A time of day without a zone, HH:MM:SS[.ffffff].',
      };
    case 'BYTES':
      return { type: 'string', contentEncoding: 'base64', description: 'Bytes in standard base64.' };
    case 'RECORD':
      // A lone record (a STRUCT of a table source): one object, or null where the column may be.
      if (column.mode === 'NULLABLE' && column.fields?.length)
        return recordSchema(column.fields, () => undefined);
      // A repeated record: an array of objects, empty where there is none.
      return column.fields?.length
        ? { type: 'array', items: recordSchema(column.fields, () => undefined) }
        : { type: 'array', items: { type: 'object' } };
    default:
      return { type: 'string' };
  }
}
