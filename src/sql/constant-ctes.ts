import { type Ast, variant, visitNodes } from './bigquery-ast.js';

/**
 * CTEs that are one constant row, such as `retention AS (SELECT CASE ... END AS date)`: a SELECT
 * of aliased expressions with no FROM, WHERE, GROUP BY or LIMIT. Joining such a row with a comma
 * (`FROM retention, logs AS t`) changes nothing but makes `t.timestamp > retention.date` a join
 * condition, which DuckDB cannot push into the scan; referencing the expression instead lets the
 * filter skip row groups (measured on logs.all: 92 ms against 23 ms on 2 million edge records).
 *
 * Returns, per CTE name (lower case), its columns and their expressions. A CTE whose column names
 * are also written bare anywhere in the query (alone or as the head of a path, `s.field`) is left
 * out: a bare name could mean that column, and only qualified references (`retention.date`) are
 * replaced. Nor is one that a SELECT with `*` or `alias.*` reads, which lists the CTE's columns
 * as a join does (logs.all's `retention` stays inlined under a caller's `select * from edge_logs`).
 */
export function constantCtes(query: Ast): Map<string, Map<string, Ast>> {
  const constants = new Map<string, Map<string, Ast>>();
  for (const cte of (query.with?.cte_tables ?? []) as Ast[]) {
    const columns = constantColumns(cte.query);
    if (columns) constants.set(String(cte.alias.name.value).toLowerCase(), columns);
  }
  if (constants.size === 0) return constants;
  const bare = new Set<string>();
  const starred = new Set<string>();
  visitNodes(query, (node) => {
    const value = node.Identifier?.value ?? node.CompoundIdentifier?.[0]?.value;
    if (typeof value === 'string') bare.add(value.toLowerCase());
    if (node.Select) for (const name of starredTables(node.Select)) starred.add(name);
  });
  for (const [name, columns] of constants) {
    if (starred.has(name) || [...columns.keys()].some((column) => bare.has(column))) constants.delete(name);
  }
  return constants;
}

function constantColumns(query: Ast): Map<string, Ast> | undefined {
  if (query.with || query.order_by || query.limit_clause) return undefined;
  const [kind, select] = variant(query.body);
  if (kind !== 'Select' || select.from.length > 0 || select.selection || select.having || select.distinct) {
    return undefined;
  }
  const [groupKind, group] = variant(select.group_by);
  if (groupKind !== 'Expressions' || group[0].length > 0) return undefined;
  const columns = new Map<string, Ast>();
  for (const item of select.projection as Ast[]) {
    const [itemKind, node] = variant(item);
    if (itemKind !== 'ExprWithAlias') return undefined;
    columns.set(String(node.alias.value).toLowerCase(), node.expr);
  }
  return columns;
}

/** The one-part table names in the FROM of a SELECT whose list has `*` or `alias.*` (lower case). */
function starredTables(select: Ast): string[] {
  const star = (select.projection as Ast[]).some((item) => 'Wildcard' in item || 'QualifiedWildcard' in item);
  if (!star) return [];
  const names: string[] = [];
  for (const item of select.from as Ast[]) {
    for (const relation of [item.relation, ...(item.joins as Ast[]).map((join) => join.relation)]) {
      const parts = relation?.Table?.name as Ast[] | undefined;
      if (parts?.length === 1) names.push(String(variant(parts[0])[1].value).toLowerCase());
    }
  }
  return names;
}
