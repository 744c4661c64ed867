import SchemaBuilder from '@pothos/core';
import type { GraphQLContext } from './context.js';

/**
 * The one Pothos builder. Each part of the schema registers itself from its own file (one per
 * namespace); `schema.ts` imports them all and builds. Fields are non-null unless a file says
 * otherwise, since a query that ran returns every column of every row.
 */
export const builder = new SchemaBuilder<{
  Context: GraphQLContext;
  DefaultFieldNullability: false;
  Scalars: {
    /** ISO 8601 in UTC, passed as text so microseconds survive both ways. */
    DateTime: { Input: string; Output: string };
    JSON: { Input: unknown; Output: unknown };
    /** INT64 as its decimal text, exact to 64 bits. */
    BigInt: { Input: string; Output: string };
    Date: { Input: string; Output: string };
    Time: { Input: string; Output: string };
    Bytes: { Input: string; Output: string };
  };
}>({ defaultFieldNullability: false });
