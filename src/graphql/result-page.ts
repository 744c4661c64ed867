import {
  GraphQLBoolean,
  type GraphQLFieldConfig,
  GraphQLInt,
  type GraphQLList,
  GraphQLNonNull,
  GraphQLObjectType,
} from 'graphql';
import type { Endpoint } from '../endpoints/registry.js';
import type { Encoding } from '../resolve/encodings.js';
import type { ResolvedResult } from '../resolve/resolver.js';
import type { GraphQLContext } from './context.js';
import type { TypeNames } from './type-names.js';

type Args = Readonly<Record<string, unknown>>;

/** What the page reads of the endpoint field's call (projection.ts's `EndpointFieldCall`). */
interface RowsCall {
  readonly load: (values: Args, context: GraphQLContext) => Promise<ResolvedResult>;
  readonly rows: Encoding<readonly unknown[]>;
}

/** What a page field resolves to. */
interface ResultPage {
  readonly rows: readonly unknown[];
  readonly rowCount: number;
  readonly truncated: boolean;
}

/**
 * The page field beside an endpoint field (`allPage` beside `all`): the same call, arguments and
 * rows, wrapped with `rowCount` and `truncated` (the query had more rows than the endpoint's
 * `maxRows`; the REST `.json` answer says the same). An additive field, not a response extension:
 * the endpoint field and its row type stay as clients use them, typed clients see the new field
 * in the schema, and it is answered by the executors every field goes through, so the fast paths
 * (spliced and replayed answers) need nothing new. It shares the endpoint field's cache entry
 * and, within one operation, its run.
 */
export function resultPageField(
  endpoint: Endpoint,
  rowsField: GraphQLFieldConfig<unknown, GraphQLContext, Args>,
  names: TypeNames,
): GraphQLFieldConfig<unknown, GraphQLContext, Args> {
  const call = rowsField.extensions?.querygateEndpointCall as RowsCall;
  const rowList = rowsField.type as GraphQLList<GraphQLNonNull<GraphQLObjectType>>;
  const rowType = rowList.ofType.ofType;
  const page = names.claim(
    new GraphQLObjectType<ResultPage, GraphQLContext>({
      name: `${rowType.name}Page`,
      description: `${rowType.name} rows with how many there are and whether they were cut at the endpoint's maxRows.`,
      fields: {
        rows: {
          type: new GraphQLNonNull(rowList),
          description: `The rows, as the endpoint field answers them.`,
        },
        rowCount: { type: new GraphQLNonNull(GraphQLInt), description: 'How many rows there are.' },
        truncated: {
          type: new GraphQLNonNull(GraphQLBoolean),
          description:
            "Whether the query had more rows than the endpoint's maxRows, and these are the first of them.",
        },
      },
    }),
    { what: `endpoint ${endpoint.name}`, endpoint },
  );
  return {
    // Nullable, as the endpoint field is: a failing call answers null with its error.
    type: page,
    description: `The rows of endpoint ${endpoint.name} with rowCount, and truncated: whether they were cut at its maxRows (${endpoint.maxRows}).`,
    args: rowsField.args,
    async resolve(_namespace, values, context): Promise<ResultPage> {
      const resolved = await call.load(values, context);
      const rows = resolved.encoded(call.rows);
      return { rows, rowCount: rows.length, truncated: resolved.result.truncated === true };
    },
    // The endpoint a token's refusal names (use-granted-fields.ts); never spliced (no call here).
    extensions: { querygateEndpoint: endpoint.name },
  };
}
