import { expect } from 'vitest';
import type { BigQueryType, WarehouseCase } from './warehouse-cases.js';
import type { Oracle } from './warehouse-fixture.js';

/**
 * The GraphQL face of examples/warehouse, checked against the same oracle as REST: the operation
 * selects every field of the endpoint (from the case's hand-written BigQuery types), and the
 * oracle's rows are put in the form the faces promise for each BigQuery type (README, "Your own
 * warehouse tables"): INT64 a BigInt string, NUMERIC a Decimal string as BigQuery writes it,
 * FLOAT64 a number, DATETIME civil LocalDateTime text, a STRUCT an object (null when NULL), an ARRAY a list.
 */

/**
 * `page_title` → `pageTitle`, `daily-revenue` → `dailyRevenue`, as the README names fields; `_1`
 * stays `_1`, since a GraphQL name cannot start with a digit.
 */
const camel = (text: string) => {
  const camelled = text.replace(/[-_.]+([a-zA-Z0-9])/g, (_, letter: string) => letter.toUpperCase());
  return /^[0-9]/.test(camelled) ? `_${camelled}` : camelled;
};

/** The operation asking the case's endpoint, with its parameters as arguments, for every field. */
export function warehouseOperation(testCase: WarehouseCase): string {
  const [namespace, ...rest] = testCase.endpoint.split('.');
  const args = Object.entries(testCase.params ?? {}).map(
    ([name, value]) => `${camel(name)}: ${JSON.stringify(value)}`,
  );
  const call = args.length > 0 ? `${camel(rest.join('.'))}(${args.join(', ')})` : camel(rest.join('.'));
  return `{ ${namespace} { ${call} ${selection(testCase.types)} } }`;
}

function selection(fields: Readonly<Record<string, BigQueryType>>): string {
  const parts = Object.entries(fields).map(([name, type]) =>
    isStruct(type) ? `${camel(name)} ${selection(type)}` : camel(name),
  );
  return `{ ${parts.join(' ')} }`;
}

function isStruct(type: BigQueryType): type is { readonly [field: string]: BigQueryType } {
  return typeof type === 'object' && !Array.isArray(type);
}

/** The rows of the endpoint's field in a GraphQL answer's `data`. */
export function rowsOf(testCase: WarehouseCase, data: unknown): unknown[] {
  const [namespace, ...rest] = testCase.endpoint.split('.');
  const field = camel(rest.join('.'));
  return (data as Record<string, Record<string, unknown[]>>)[namespace as string]?.[field] ?? [];
}

/** Asserts the GraphQL rows are the oracle's, in the faces' form, in order where the query fixes it. */
export async function expectOracleGraphQLRows(
  oracle: Oracle,
  dir: string,
  testCase: WarehouseCase,
  rows: readonly unknown[],
): Promise<void> {
  const oracleRows = await oracle.rows(testCase.oracle(dir));
  const expected = oracleRows.map((row) => record(row, testCase.types));
  // Received values are compared as they came; only FLOAT64 numbers are rounded (both sides),
  // since a float sum in another order differs in its last digits.
  const received = rows.map((row) => roundedFloats(row, testCase.types));
  const ordered = (list: unknown[]) =>
    testCase.ordered ? list : [...list].sort((a, b) => (JSON.stringify(a) < JSON.stringify(b) ? -1 : 1));
  expect(received.length).toBe(expected.length);
  expect(ordered(received)).toEqual(ordered(expected));
}

function record(row: Readonly<Record<string, unknown>>, types: Readonly<Record<string, BigQueryType>>) {
  return Object.fromEntries(
    Object.entries(types).map(([name, type]) => [camel(name), face(row[name] ?? null, type)]),
  );
}

/** An oracle value (DuckDB's JSON: BIGINT and DECIMAL as text) as the GraphQL face answers it. */
function face(value: unknown, type: BigQueryType): unknown {
  if (value === null) return Array.isArray(type) ? [] : null;
  if (Array.isArray(type)) return (value as unknown[]).map((item) => face(item, type[0]));
  if (isStruct(type)) return record(value as Record<string, unknown>, type);
  switch (type) {
    case 'INT64':
      return BigInt(value as string | number).toString();
    case 'NUMERIC':
      // BigQuery writes a NUMERIC without trailing zeros: 12.50 is "12.5".
      return String(value).includes('.')
        ? String(value).replace(/0+$/, '').replace(/\.$/, '')
        : String(value);
    case 'FLOAT64':
      return Number(Number(value).toPrecision(12));
    case 'TIMESTAMP': {
      // The oracle's microseconds since the epoch as a UTC instant, with the fraction digits
      // that carry information (GraphQL's DateTime).
      const micros = BigInt(value as string | number);
      const whole = new Date(Number(micros / 1_000_000n) * 1000).toISOString().slice(0, 19);
      const fraction = String(micros % 1_000_000n)
        .padStart(6, '0')
        .replace(/0+$/, '');
      return fraction === '' ? `${whole}Z` : `${whole}.${fraction}Z`;
    }
    case 'DATETIME':
      // Civil time (LocalDateTime): BigQuery's own text, with no zone made up. The oracle reads
      // it from the export as text, YYYY-MM-DDTHH:MM:SS.
      return String(value);
    default:
      return value;
  }
}

function roundedFloats(value: unknown, type: BigQueryType | Readonly<Record<string, BigQueryType>>): unknown {
  if (value === null || value === undefined) return value;
  if (Array.isArray(type))
    return Array.isArray(value) ? value.map((item) => roundedFloats(item, type[0])) : value;
  if (typeof type === 'object') {
    if (typeof value !== 'object' || Array.isArray(value)) return value;
    const struct = type as Readonly<Record<string, BigQueryType>>;
    return Object.fromEntries(
      Object.entries(value as Record<string, unknown>).map(([key, item]) => {
        const name = Object.keys(struct).find((field) => camel(field) === key);
        return [key, name ? roundedFloats(item, struct[name] as BigQueryType) : item];
      }),
    );
  }
  return type === 'FLOAT64' && typeof value === 'number' ? Number(value.toPrecision(12)) : value;
}
