import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { afterAll, describe, expect, it } from 'vitest';
import type { QueryResult, ResultColumn } from '../../src/engines/query-engine.js';
import { openApiFor } from '../../src/openapi/document.js';
import { fixedAnswerFaces } from '../helpers/fixed-answer-faces.js';

// The faces of a STRUCT column (a lone RECORD, mode NULLABLE) as an engine answers a query over
// table sources: BigQuery's schema of `STRUCT<city STRING, postcode INT64>` and its rows, one
// object and one NULL, exactly as BigQuery's REST API (and so Logflare) returns them. The engine
// here stands for the warehouse: its answer is BigQuery's documented one for the fixture's SQL.

const queriesDir = join(import.meta.dirname, '../fixtures/struct-queries');

const columns: ResultColumn[] = [
  { name: 'order_id', type: 'STRING' },
  {
    name: 'address',
    type: 'RECORD',
    mode: 'NULLABLE',
    fields: [
      { name: 'city', type: 'STRING' },
      { name: 'postcode', type: 'INT64' },
    ],
  },
];
const answer: QueryResult = {
  columns,
  rows: [
    { order_id: 'o1', address: { city: 'Paris', postcode: 75001 } },
    { order_id: 'o2', address: null },
  ],
};
const faces = await fixedAnswerFaces(queriesDir, answer);
const { snapshot, graphql } = faces;

afterAll(async () => {
  await faces.close();
});

describe('a STRUCT column', () => {
  it('is an object on GraphQL, and null where the STRUCT is NULL', async () => {
    const response = await graphql(
      /* GraphQL */ `{ orders { shipping { orderId address { city postcode } } } }`,
    );
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      data: {
        orders: {
          shipping: [
            { orderId: 'o1', address: { city: 'Paris', postcode: '75001' } },
            { orderId: 'o2', address: null },
          ],
        },
      },
    });
  });

  it('is a nullable object type in the SDL, not a list', async () => {
    const response = await graphql(
      /* GraphQL */ `{ __type(name: "OrdersShippingRow") { fields { name type { kind name } } } }`,
    );
    const fields = (response.body.data as { __type: { fields: Array<{ name: string; type: unknown }> } })
      .__type.fields;
    expect(fields.find((field) => field.name === 'address')?.type).toEqual({
      kind: 'OBJECT',
      name: 'OrdersShippingRowAddress',
    });
  });

  it('is an object or null in the OpenAPI document, which the REST rows validate against', () => {
    const document = openApiFor(snapshot) as {
      components: { schemas: Record<string, { properties?: { result?: { items?: unknown } } }> };
    };
    const rowSchema = Object.values(document.components.schemas).find(
      (schema) => schema.properties?.result?.items !== undefined,
    )?.properties?.result?.items as { properties: Record<string, { type: unknown }> };
    expect(rowSchema.properties.address?.type).toEqual(['object', 'null']);
    const validate = new Ajv2020({ strict: false }).compile(rowSchema as object);
    for (const row of answer.rows) expect(validate(row), JSON.stringify(validate.errors)).toBe(true);
    expect(validate({ order_id: 'o3', address: [{ city: 'Paris', postcode: 75001 }] })).toBe(false);
  });
});
