import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormats from 'ajv-formats';
import { afterAll, describe, expect, it } from 'vitest';
import type { QueryResult, ResultColumn } from '../../src/engines/query-engine.js';
import { openApiFor } from '../../src/openapi/document.js';
import { fixedAnswerFaces } from '../helpers/fixed-answer-faces.js';

// The faces of NUMERIC and BIGNUMERIC columns as an engine answers a query over table sources:
// the engine here stands for BigQuery, whose REST API sends NUMERIC '12345678901234567890.123456789'
// as that text (30 significant digits; a double keeps 17 of them). The faces must keep every digit.

const queriesDir = join(import.meta.dirname, '../fixtures/numeric-queries');
const exact = '12345678901234567890.123456789';

const columns: ResultColumn[] = [
  { name: 'order_id', type: 'STRING' },
  { name: 'total', type: 'NUMERIC' },
  { name: 'charges', type: 'RECORD', mode: 'NULLABLE', fields: [{ name: 'fee', type: 'NUMERIC' }] },
];
const answer: QueryResult = {
  columns,
  rows: [
    { order_id: 'o1', total: exact, charges: { fee: '-0.000000001' } },
    { order_id: 'o2', total: null, charges: null },
  ],
};
const faces = await fixedAnswerFaces(queriesDir, answer);
const { snapshot, graphql } = faces;

afterAll(async () => {
  await faces.close();
});

describe('a NUMERIC column', () => {
  it('answers GraphQL with every digit, as Decimal text, in a STRUCT too', async () => {
    const response = await graphql(/* GraphQL */ `{ orders { totals { orderId total charges { fee } } } }`);
    expect(response.status).toBe(200);
    expect(response.body).toEqual({
      data: {
        orders: {
          totals: [
            { orderId: 'o1', total: exact, charges: { fee: '-0.000000001' } },
            { orderId: 'o2', total: null, charges: null },
          ],
        },
      },
    });
  });

  it('is the Decimal scalar in the SDL, not Float', async () => {
    const response = await graphql(
      /* GraphQL */ `{ __type(name: "OrdersTotalsRow") { fields { name type { kind name } } } }`,
    );
    const fields = (response.body.data as { __type: { fields: Array<{ name: string; type: unknown }> } })
      .__type.fields;
    expect(fields.find((field) => field.name === 'total')?.type).toEqual({ kind: 'SCALAR', name: 'Decimal' });
  });

  it('is decimal text in the OpenAPI document, which the REST rows validate against and a number does not', () => {
    const document = openApiFor(snapshot) as {
      components: { schemas: Record<string, { properties?: { result?: { items?: unknown } } }> };
    };
    const rowSchema = document.components.schemas.ordersTotalsResult?.properties?.result?.items as {
      properties: Record<string, Record<string, unknown>>;
    };
    expect(rowSchema.properties.total).toEqual(
      expect.objectContaining({ type: ['string', 'null'], format: 'decimal' }),
    );
    const ajv = new Ajv2020({ strict: false });
    addFormats.default(ajv);
    ajv.addFormat('decimal', /^-?\d+(\.\d+)?$/);
    const validate = ajv.compile(rowSchema as object);
    for (const row of answer.rows) expect(validate(row), JSON.stringify(validate.errors)).toBe(true);
    expect(validate({ order_id: 'o3', total: 12.5, charges: null })).toBe(false);
    expect(validate({ order_id: 'o3', total: '1.2e5', charges: null })).toBe(false);
  });
});
