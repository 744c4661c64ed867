import SchemaBuilder from '@pothos/core';
import type { GraphQLContext } from './context.js';

/** The types of our Pothos builder: the context every resolver gets and our scalars. */
interface QuerygateTypes {
  Context: GraphQLContext;
  DefaultFieldNullability: false;
  Scalars: {
    /** ISO 8601 in UTC, passed as text so microseconds survive both ways. */
    DateTime: { Input: string; Output: string };
    /** BigQuery DATETIME: civil text with no zone. */
    LocalDateTime: { Input: string; Output: string };
    JSON: { Input: unknown; Output: unknown };
    /** INT64 as its decimal text, exact to 64 bits. */
    BigInt: { Input: string; Output: string };
    /** NUMERIC and BIGNUMERIC as their exact decimal text. */
    Decimal: { Input: string; Output: string };
    Date: { Input: string; Output: string };
    Time: { Input: string; Output: string };
    Bytes: { Input: string; Output: string };
  };
}

export type QuerygateBuilder = PothosSchemaTypes.SchemaBuilder<
  PothosSchemaTypes.ExtendDefaultTypes<QuerygateTypes>
>;

/**
 * A Pothos builder for one schema. Each part of the schema adds itself from its own file
 * (`addScalars`, `addEndpointTypes`); `schema.ts` makes a builder per snapshot, so no schema
 * exists before a snapshot asks for one. Fields are non-null unless a file says otherwise, since
 * a query that ran returns every column of every row.
 */
export function createBuilder(): QuerygateBuilder {
  return new SchemaBuilder<QuerygateTypes>({ defaultFieldNullability: false });
}
