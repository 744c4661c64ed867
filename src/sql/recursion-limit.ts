import type { Query } from './ast.js';
import { type Ast, parseStatements, variant, visitNodes } from './bigquery-ast.js';

/**
 * BigQuery stops a recursive CTE that has not terminated after 500 iterations, the base term the
 * first, with an error ("If recursion doesn't terminate, the query fails after reaching 500
 * iterations": query-syntax.md, "Recursive CTEs"; the quotas page, "Iteration limit"; the
 * recursive-ctes guide splits a longer recursion into CTEs of `WHERE iteration < 500` each, so
 * an iteration that adds no row is not counted). DuckDB iterates until no row is added, which a
 * query without a termination condition never reaches before the query timeout.
 *
 * The CTE's rows carry their iteration, `$depth`: 1 from the base term, one more from each
 * recursive one, which raises BigQuery's error where it would make iteration 501. The CTE is
 * printed under `internalName(name)`, its self-reference renamed to it (keeping its alias), and
 * the name the query reads stands for its rows without `$depth` (query-sql.ts).
 *
 * Only `base UNION ALL recursive term` where the recursive term is a SELECT whose list has no `*`
 * is given the limit: a UNION DISTINCT stops on no new distinct row, which a row's iteration
 * would defeat, and a `*` would list `$depth` twice. Undefined otherwise.
 */
export function withIterationLimit(query: Query, name: string): Query | undefined {
  const [kind, operation] = variant(query.body);
  if (kind !== 'SetOperation' || operation.op !== 'Union' || operation.set_quantifier !== 'All')
    return undefined;
  const recursive = plainSelect(operation.right);
  if (!recursive || recursive.value_table_mode) return undefined;
  if ((recursive.projection as Ast[]).some((item) => !item.UnnamedExpr && !item.ExprWithAlias))
    return undefined;
  let alias: string | undefined;
  const from = structuredClone(recursive.from) as Ast[];
  visitNodes(from, (node) => {
    const table = node.Table;
    const parts = table?.name;
    if (parts?.length !== 1 || String(parts[0].Identifier?.value).toLowerCase() !== name.toLowerCase())
      return;
    alias = table.alias?.name?.value ?? parts[0].Identifier.value;
    parts[0] = { Identifier: { value: internalName(name), quote_style: '`' } };
    table.alias = { name: { value: alias, quote_style: '`' }, columns: [] };
  });
  if (alias === undefined) return undefined;
  const quoted = `\`${alias.replaceAll('`', '\\`')}\``;
  const next = firstItem(
    `SELECT IF(${quoted}.\`$depth\` >= ${iterationLimit}, ERROR('Recursive CTE ${name.replaceAll("'", "\\'")} did not terminate within ${iterationLimit} iterations, the limit BigQuery enforces'), ${quoted}.\`$depth\` + 1) AS \`$depth\``,
  );
  const base = parseStatements('SELECT *, 1 AS `$depth` FROM (SELECT 1)')[0].Query;
  base.body.Select.from[0].relation.Derived.subquery = baseQuery(query, operation.left);
  return {
    ...query,
    body: {
      SetOperation: {
        ...operation,
        left: { Query: base },
        right: { Select: { ...recursive, from, projection: [...recursive.projection, next] } },
      },
    },
  };
}

/** BigQuery's iteration limit of a recursive CTE (quotas.md, "Recursive CTEs in queries"). */
export const iterationLimit = 500;

/** The column of a recursive CTE's rows that holds their iteration. */
export const depthColumn = '$depth';

/** The name the recursive CTE `name` is printed under, with its iterations. */
export function internalName(name: string): string {
  return `${name}$iterations`;
}

function plainSelect(side: Ast): Ast | undefined {
  if (side.Select) return side.Select;
  const query = side.Query;
  if (query && !query.with && !query.order_by && !query.limit_clause && !query.fetch)
    return plainSelect(query.body);
  return undefined;
}

function baseQuery(query: Query, left: Ast): Ast {
  return left.Query ?? { ...query, with: null, order_by: null, limit_clause: null, body: left };
}

function firstItem(sql: string): Ast {
  return parseStatements(sql)[0].Query.body.Select.projection[0];
}
