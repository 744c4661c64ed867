import type { OrderByExpr, Query, SetExpr } from './ast.js';
import { variant, visitNodes } from './bigquery-ast.js';
import { constantCtes } from './constant-ctes.js';
import type { References } from './cte-scopes.js';
import { refuseJsonKey } from './json-values.js';
import { bareName } from './names.js';
import { depthColumn, internalName, withIterationLimit } from './recursion-limit.js';
import { selectSql } from './select-sql.js';
import { type OutputTypes, withLeftFieldNames } from './set-operation-types.js';
import { quoteIdent } from './table-schema.js';
import { indent, type OutputNames, type QuerySql, type TranslationContext } from './translation-context.js';
import { type Column, type Columns, type Scope, unstored } from './unnest-scope.js';
import { atNode, unsupported } from './unsupported.js';
import { refuseValueTable } from './value-table.js';

/**
 * A query: its WITH clause, its body (a SELECT, a parenthesised query or a set operation), ORDER
 * BY and LIMIT. CTEs are printed in order, each visible to the ones after it and to the body;
 * the ones nothing reaches are dropped, with the parameters only they use.
 */
export function querySql(query: Query, context: TranslationContext): QuerySql {
  const ctes: Array<{ name: string; sql: string; uses: References }> = [];
  return context.ctes.withLevel((define) => {
    if (query.with) {
      for (const [name, columns] of constantCtes(query)) context.ctes.constants.set(name, columns);
      for (const cte of query.with.cte_tables) {
        const name = cte.alias.name.value;
        let limited: Query | undefined;
        if (query.with.recursive) {
          const base = recursiveBase(cte.query, name);
          limited = base && withIterationLimit(cte.query, name);
          // Its recursive term reads the rows so far, of the base term's columns (and their
          // iteration, when it is printed with BigQuery's iteration limit).
          if (base) {
            const baseColumns = context.ctes.tracingUse(() =>
              atNode(cte, () => context.queryWithColumns(base)),
            ).result.columns;
            define(name, baseColumns);
            if (limited && baseColumns) define(internalName(name), withDepth(baseColumns));
            else limited = undefined;
          }
        }
        if (limited) {
          const internal = internalName(name);
          const { result, uses } = context.ctes.tracingUse(() =>
            atNode(cte, () => context.queryWithColumns(limited as Query)),
          );
          ctes.push({
            name: internal.toLowerCase(),
            sql: `${quoteIdent(internal)} AS (\n${indent(result.sql)}\n)`,
            uses,
          });
          // The CTE's own name reads its rows without their iteration.
          ctes.push({
            name: name.toLowerCase(),
            sql: `${quoteIdent(name)} AS (\n  SELECT * EXCLUDE (${quoteIdent(depthColumn)}) FROM ${quoteIdent(internal)}\n)`,
            uses: { ctes: new Set([internal.toLowerCase()]), parameters: new Set() },
          });
          const columns = result.columns && new Map(result.columns);
          columns?.delete(depthColumn.toLowerCase());
          define(name, columns);
          continue;
        }
        const { result, uses } = context.ctes.tracingUse(() =>
          atNode(cte, () => context.queryWithColumns(refuseValueTable(cte.query, 'a WITH table'))),
        );
        ctes.push({
          name: name.toLowerCase(),
          sql: `${quoteIdent(name)} AS (\n${indent(result.sql)}\n)`,
          uses,
        });
        // Visible to the CTEs after it and to the query body, not to its own body.
        define(name, result.columns);
      }
    }
    const { result: body, uses } = context.ctes.tracingUse(() => queryBody(query, context));
    // CTEs nothing reaches are dropped: BigQuery never evaluates them, and DuckDB need not bind them.
    const reached = new Set<string>();
    const reach = (name: string) => {
      if (reached.has(name)) return;
      reached.add(name);
      for (const used of ctes.find((cte) => cte.name === name)?.uses.ctes ?? []) reach(used);
    };
    for (const name of uses.ctes) reach(name);
    const kept = ctes.filter((cte) => reached.has(cte.name));
    // What the kept text references, and only that, is the enclosing query's to know.
    context.ctes.report(uses);
    for (const cte of kept) context.ctes.report(cte.uses);
    const withKeyword = query.with?.recursive ? 'WITH RECURSIVE' : 'WITH';
    const sql =
      kept.length > 0 ? `${withKeyword} ${kept.map((cte) => cte.sql).join(',\n')}\n${body.sql}` : body.sql;
    return { sql, columns: body.columns };
  });
}

/** A recursive CTE's base columns with the iteration of each row (recursion-limit.ts). */
function withDepth(columns: Map<string, Column>): Columns {
  return new Map([...columns, [depthColumn.toLowerCase(), { name: depthColumn, type: 'BIGINT' }]]);
}

/**
 * The base term of a recursive CTE of `WITH RECURSIVE` (one whose body reads its own name): BigQuery
 * has it `base UNION { ALL | DISTINCT } recursive_term` (query-syntax.md, "Recursive CTEs"; DISTINCT
 * stops when an iteration adds no new row), as DuckDB runs it.
 * Undefined for a CTE that does not read itself; any other form of one that does is refused.
 */
function recursiveBase(query: Query, name: string): Query | undefined {
  let reads = false;
  visitNodes(query, (node) => {
    const parts = node.Table?.name;
    if (parts?.length === 1 && String(parts[0].Identifier?.value).toLowerCase() === name.toLowerCase())
      reads = true;
  });
  if (!reads) return undefined;
  const [kind, operation] = variant(query.body);
  if (kind !== 'SetOperation' || operation.op !== 'Union')
    throw unsupported(`the recursive CTE ${name} other than base UNION ALL (or DISTINCT) recursive term`);
  const [leftKind, left] = variant(operation.left);
  return leftKind === 'Query' ? (left as Query) : { ...query, body: operation.left };
}

/**
 * The right side of `UNION ALL BY NAME` (INTERSECT, EXCEPT DISTINCT BY NAME) with its columns
 * in the left side's order, so the set operation matches them by position: BigQuery matches
 * them by name and names and orders the result by the left side (query-syntax.md, "BY NAME or
 * CORRESPONDING"). Both sides must have the same names, else BigQuery raises an error: the
 * query is refused, as it is where a side's columns are not known.
 */
function inLeftOrder(left: SetSide, right: SetSide): SetSide {
  const names = (side: SetSide) => [...(side.columns?.values() ?? [])].map((column) => column.name);
  const [leftNames, rightNames] = [names(left), names(right)];
  const key = (list: string[]) =>
    list
      .map((name) => name.toLowerCase())
      .sort()
      .join('\u0000');
  if (!left.columns || !right.columns || leftNames.length === 0 || key(leftNames) !== key(rightNames))
    throw unsupported('BY NAME of queries whose columns are not known to be the same names');
  if (new Set(leftNames.map((name) => name.toLowerCase())).size !== leftNames.length)
    throw unsupported('BY NAME of a query with two columns of one name');
  const at = leftNames.map((name) =>
    rightNames.findIndex((other) => other.toLowerCase() === name.toLowerCase()),
  );
  return {
    ...right,
    sql: `(SELECT ${at.map((index) => `#${index + 1}`).join(', ')} FROM (${right.sql}))`,
    types: right.types && at.map((index) => right.types?.[index]),
  };
}

function queryBody(query: Query, context: TranslationContext): QuerySql {
  const parts: string[] = [];
  const { sql, scope, columns, outputs } = setExpression(query.body, context);
  const orderBy = query.order_by && variant(query.order_by.kind);
  // After a set operation ORDER BY reads the result's columns, in an expression too (`ORDER BY
  // s.b`, s a STRUCT column), as BigQuery does; DuckDB orders a set operation only by its column
  // names, so the result is read as a subquery's rows, its columns named by the left side.
  const readsResult =
    variant(query.body)[0] === 'SetOperation' &&
    orderBy?.[0] === 'Expressions' &&
    orderBy[1].some((item: OrderByExpr) => !outputs.has(bareName(item.expr)?.value.toLowerCase() ?? ''));
  let inScope = context.within(scope);
  if (readsResult) {
    const result = context.scope.child();
    result.bind(setResult, { kind: 'relation', alias: setResult, columns, qualified: true });
    inScope = context.within(result);
  }
  parts.push(readsResult ? `SELECT * FROM (\n${indent(sql)}\n) AS ${quoteIdent(setResult)}` : sql);
  if (orderBy) {
    const [kind, items] = orderBy;
    if (kind !== 'Expressions') throw unsupported('ORDER BY ALL');
    parts.push(
      `ORDER BY ${items.map((item) => atNode(item, () => orderItemSql(item, inScope, outputs))).join(', ')}`,
    );
  }
  if (query.limit_clause) {
    const [kind, limit] = variant(query.limit_clause);
    if (kind !== 'LimitOffset') throw unsupported('this LIMIT form');
    if (limit.limit) parts.push(`LIMIT ${inScope.expr(limit.limit)}`);
    if (limit.offset) parts.push(`OFFSET ${inScope.expr(limit.offset.value)}`);
  }
  return { sql: parts.join('\n'), columns };
}

/**
 * ORDER BY names a column of the SELECT list before a FROM column, as BigQuery does: an explicit
 * alias is printed as the alias, an implicit one (`postgres_logs.timestamp` is `timestamp`) as
 * the expression it names, which also keeps it apart from a field of the same name elsewhere.
 * Inside an aggregate or a window `outputs` is empty: there ORDER BY orders by expressions only.
 */
export function orderItemSql(item: OrderByExpr, context: TranslationContext, outputs: OutputNames): string {
  const direction = item.options?.asc === false ? ' DESC' : item.options?.asc === true ? ' ASC' : '';
  // BigQuery sorts NULLs first ascending and last descending; the DuckDB engine sets that order.
  const nulls =
    item.options?.nulls_first === true
      ? ' NULLS FIRST'
      : item.options?.nulls_first === false
        ? ' NULLS LAST'
        : '';
  const name = bareName(item.expr)?.value;
  const output = name === undefined ? undefined : outputs.get(name.toLowerCase());
  refuseJsonKey('ORDER BY', output?.expr ?? item.expr, context.valueType);
  const sql =
    name === undefined || output === undefined
      ? context.expr(item.expr)
      : (output.sortsAs ?? (output.explicit ? quoteIdent(name) : context.expr(output.expr)));
  return `${sql}${direction}${nulls}`;
}

/** The name of a set operation's result read as a subquery's rows (queryBody). */
const setResult = '$set';

const setOperators: Record<string, string> = {
  Union: 'UNION',
  Intersect: 'INTERSECT',
  Except: 'EXCEPT',
};

/** A query body; the scope of its SELECT is returned so ORDER BY can see the FROM names. */
/** A side of a set operation, or the whole of one. */
interface SetSide {
  sql: string;
  scope: Scope;
  columns: Columns;
  types: OutputTypes;
  outputs: OutputNames;
}

/**
 * The inputs a chain of one set operation (`a UNION ALL b UNION ALL c`) has up to `side`, as
 * BigQuery numbers the queries of its messages (`query 3`); another operation, or one in
 * parentheses, is one input.
 */
function setInputs(side: SetExpr, operation: { op: string; set_quantifier: string }): number {
  const [kind, node] = variant(side);
  if (kind !== 'SetOperation' || node.op !== operation.op || node.set_quantifier !== operation.set_quantifier)
    return 1;
  return setInputs(node.left, operation) + setInputs(node.right, operation);
}

function setExpression(body: SetExpr, context: TranslationContext): SetSide {
  const [kind, node] = variant(body);
  switch (kind) {
    case 'Select':
      return atNode(node, () => selectSql(node, context));
    case 'Query': {
      const inner = context.queryWithColumns(node);
      // `(SELECT ... LIMIT 50) UNION ALL ... ORDER BY timestamp`: ORDER BY names its columns.
      const outputs = new Map(
        [...(inner.columns?.values() ?? [])].map((column) => [
          column.name.toLowerCase(),
          { expr: { Identifier: { value: column.name } }, explicit: true },
        ]),
      );
      return {
        sql: `(${inner.sql})`,
        scope: context.scope,
        columns: inner.columns,
        types: undefined,
        outputs,
      };
    }
    case 'SetOperation': {
      const byName = /ByName$/.test(node.set_quantifier);
      const quantifier = node.set_quantifier.replace(/ByName$/, '');
      const keyword = quantifier === 'All' ? ' ALL' : quantifier === 'Distinct' ? '' : null;
      if (!setOperators[node.op] || keyword === null) throw unsupported(`${node.op} ${node.set_quantifier}`);
      const left = setExpression(node.left, context);
      const right = byName
        ? inLeftOrder(left, setExpression(node.right, context))
        : setExpression(node.right, context);
      const renamed = withLeftFieldNames(
        { ...right, body: byName ? undefined : node.right },
        { ...left, body: node.left },
        {
          sql: `${setOperators[node.op]} ${quantifier === 'All' ? 'ALL' : 'DISTINCT'}`,
          rightIndex: setInputs(node.left, node) + 1,
        },
      );
      return {
        sql: `${left.sql}\n${setOperators[node.op]}${keyword}\n${renamed === undefined ? right.sql : `(${renamed})`}`,
        scope: left.scope,
        // Named and typed by the left side, but holding the right side's rows too: stored by neither.
        columns: left.columns && unstored(left.columns),
        types: left.types,
        // After a set operation ORDER BY names the result's columns (an expression of them: queryBody).
        outputs: new Map(
          [...left.outputs].map(([name, output]) => [name, { expr: output.expr, explicit: true }]),
        ),
      };
    }
    default:
      throw unsupported(`query body ${kind}`);
  }
}
