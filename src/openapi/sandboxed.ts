import { callerSqlParameter } from '../endpoints/sandboxable.js';

type Schema = Record<string, unknown>;

/** The `sql` query parameter of a sandboxed endpoint (it may also come in a JSON body, GET or POST). */
export const sqlParameter: Schema = {
  name: callerSqlParameter,
  in: 'query',
  required: false,
  description:
    "A BigQuery SELECT that replaces the endpoint's final SELECT and may read only its CTEs (and its own). " +
    'One statement, no * or t.* result column, no table that is not a CTE, no restricted function; ' +
    'each refusal is a 400 with a SANDBOX_* code (README, "Sandboxed endpoints"). ' +
    'Without it the saved query runs. It may also be sent in a JSON body, on a GET as on a POST.',
  schema: { type: 'string', maxLength: 100_000 },
  example: 'select count(*) as n from edge_logs',
};

/** Rows of a caller's SELECT: objects whose columns the caller chose. */
export const callerRowsSchema: Schema = {
  type: 'object',
  required: ['result'],
  properties: {
    result: {
      type: 'array',
      items: { type: 'object', description: "A row of the caller's SELECT, by column name." },
    },
  },
};

/** The 200 body of a sandboxed endpoint: the saved query's rows without `sql`, the caller's with it. */
export function sandboxedRowsSchema(savedRows: string): Schema {
  return {
    anyOf: [{ $ref: `#/components/schemas/${savedRows}` }, { $ref: '#/components/schemas/CallerRows' }],
  };
}
