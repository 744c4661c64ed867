import type {
  Expr,
  Join,
  OrderByExpr,
  Query,
  Select,
  SelectItem,
  SetExpr,
  TableFactor,
  TableWithJoins,
} from './ast.js';
import { compoundParts } from './ast.js';
import { type Ast, variant, visitNodes, withoutSpans } from './bigquery-ast.js';
import { bareName } from './names.js';
import { rowWise, ungrouped } from './row-wise.js';
import { findTable } from './table-names.js';
import { isListSqlType, isStructSqlType, type SqlType, type TableSchema } from './table-schema.js';

/**
 * `ORDER BY k LIMIT n` taken closer to the rows it picks from, where that provably gives a row set
 * the query as written could return (rows tied on k included: LIMIT among ties is already any of
 * them, in BigQuery as here). DuckDB pushes a top n down only as a filter on k that prunes little,
 * so without these Studio's unified logs page builds every function log's ARRAY_AGG before it
 * keeps 50 rows, and runs out of memory at 3M edge records. Three rules, on the parsed query
 * before translation (a new AST; the one parsed is not changed):
 *
 * - **Through a projection.** `SELECT a, b AS c FROM u [WHERE p] ORDER BY c LIMIT n` over a CTE read
 *   once or a subquery whose body is a UNION ALL: the same ORDER BY and LIMIT on that UNION ALL
 *   too, with p in each branch's WHERE (Studio's unified logs page filtered by log type or level).
 * - **Into UNION ALL.** The top n of a UNION ALL is among the top n of each branch, so each SELECT
 *   branch gets the ORDER BY (by its own name for the column at the same place) and LIMIT too.
 * - **Before a LEFT JOIN to one row per key.** `FROM t CROSS JOIN UNNEST(t.record) AS r ... LEFT
 *   JOIN (SELECT k, aggregates ... GROUP BY k) AS g ON x = g.k` ordered by and filtered on the left
 *   side only: each left row comes out exactly once, so the top n are those of the left side,
 *   taken (WHERE included) in a subquery that keeps the left table's columns. The grouped side is
 *   then read for the keys of those rows only: `k = x` in its WHERE (a correlated join, which
 *   DuckDB evaluates for the distinct keys of the left side), which leaves each key's group whole.
 *   The UNNESTs on the left must be over records (STRUCTs in the store), which keep a row or drop
 *   it, never repeat it, so applying them again to the rows kept changes nothing.
 *
 * Each rule needs LIMIT without OFFSET and ORDER BY items that name columns; whatever does not
 * fit is left as written.
 */
export function pushTopN(query: Query, tables: ReadonlyMap<string, TableSchema>): Query {
  const cteNames = new Set<string>();
  const tableReads = new Map<string, number>();
  visitNodes(query as Ast, (node) => {
    for (const cte of (node.with?.cte_tables ?? []) as Ast[]) cteNames.add(lower(cte.alias.name.value));
    const name = node.Table?.name;
    if (Array.isArray(name) && name.length === 1) {
      const read = lower(name[0].Identifier.value);
      tableReads.set(read, (tableReads.get(read) ?? 0) + 1);
    }
  });
  return pushInQuery(query, { tables, cteNames, tableReads });
}

interface Statement {
  readonly tables: ReadonlyMap<string, TableSchema>;
  /** Every CTE name defined anywhere in the statement (lower case): a FROM name that may be one. */
  readonly cteNames: ReadonlySet<string>;
  /** How often each one-part FROM name is read in the whole statement. */
  readonly tableReads: ReadonlyMap<string, number>;
}

/** ORDER BY items and the LIMIT they go with. */
interface TopN {
  readonly items: readonly OrderByExpr[];
  readonly limit: NonNullable<Query['limit_clause']>;
}

function pushInQuery(query: Query, statement: Statement): Query {
  const topN = topNOf(query);
  const target = topN && projectionTarget(query, topN, statement);
  // The UNION ALL the top n is taken from, with the outer WHERE in each branch where there is one.
  const inner = target && (target.filter ? filteredBranches(target.inner, target.filter) : target.inner);
  const limited = (items: readonly OrderByExpr[]) =>
    pushInQuery(
      { ...(inner as Query), order_by: orderBy(items), limit_clause: (topN as TopN).limit },
      statement,
    );
  const ctes = query.with?.cte_tables.map((cte) => {
    const read = inner && target?.cte !== undefined && target.cte === lower(cte.alias.name.value);
    return { ...cte, query: read ? limited(target.items) : pushInQuery(cte.query, statement) };
  });
  let body = query.body;
  if (inner && target && target.cte === undefined) body = withDerived(body, () => limited(target.items));
  if (topN) body = intoUnionAll(body, topN, statement) ?? body;
  const pushed: Query = {
    ...query,
    ...(ctes && query.with ? { with: { ...query.with, cte_tables: ctes } } : {}),
    body,
  };
  if (!topN || !('Select' in body)) return pushed;
  return beforeLeftJoin(pushed, body.Select, topN, statement) ?? pushed;
}

/** The query's ORDER BY and LIMIT, when it has both and no OFFSET, and LIMIT is a number or parameter. */
function topNOf(query: Query): TopN | undefined {
  if (!query.order_by || !query.limit_clause) return undefined;
  const [kind, items] = variant(query.order_by.kind);
  const [limitKind, limit] = variant(query.limit_clause);
  if (kind !== 'Expressions' || limitKind !== 'LimitOffset' || !limit.limit || limit.offset) return undefined;
  const count = limit.limit as Ast;
  const constant = count.Value?.value?.Number !== undefined || /^@\w+$/.test(count.Identifier?.value ?? '');
  return constant && items.length > 0 ? { items, limit: query.limit_clause } : undefined;
}

function orderBy(items: readonly OrderByExpr[]): Query['order_by'] {
  return { kind: { Expressions: items } };
}

/**
 * `SELECT <columns> FROM u [WHERE ...] ORDER BY ... LIMIT n` where u is a CTE read once in the
 * statement or a subquery, and its body a UNION ALL without ORDER BY or LIMIT: the CTE's name
 * (none for a subquery), its query, the ORDER BY items in u's column names, and the WHERE (row by
 * row, see `filteredBranches`) with the name u's columns are qualified by. Columns only, so the
 * projection is one row per row of u.
 */
function projectionTarget(
  query: Query,
  topN: TopN,
  statement: Statement,
): { cte?: string; inner: Query; items: OrderByExpr[]; filter?: Filter } | undefined {
  const select = plainSelect(query.body);
  const [from] = select?.from ?? [];
  if (!select || !from || select.from.length > 1 || from.joins.length > 0) return undefined;
  if (select.selection && !rowWise([select.selection])) return undefined;
  const columns = new Map<string, string>();
  for (const item of select.projection) {
    const [kind, node] = variant(item);
    const parts =
      kind === 'UnnamedExpr'
        ? compoundParts(node)
        : kind === 'ExprWithAlias'
          ? compoundParts(node.expr)
          : undefined;
    const column = parts?.at(-1);
    if (!column) return undefined;
    columns.set(lower(kind === 'ExprWithAlias' ? node.alias.value : column), column);
  }
  const items: OrderByExpr[] = [];
  for (const item of topN.items) {
    const name = bareName(item.expr)?.value;
    const column = name === undefined ? undefined : columns.get(lower(name));
    if (!column) return undefined;
    items.push({ ...item, expr: { Identifier: { value: column } } });
  }
  const [kind, relation] = variant(from.relation);
  const unordered = (inner: Query) => isUnionAll(inner.body) && !inner.order_by && !inner.limit_clause;
  const alias: string | undefined = relation.alias?.name?.value;
  const filterAs = (qualifier: string) =>
    select.selection ? { filter: { expr: select.selection, qualifier: lower(qualifier) } } : {};
  if (kind === 'Derived')
    return unordered(relation.subquery)
      ? { inner: relation.subquery, items, ...filterAs(alias ?? '') }
      : undefined;
  if (kind !== 'Table' || relation.name.length !== 1) return undefined;
  const name = lower(relation.name[0]?.Identifier.value ?? '');
  const cte = query.with?.cte_tables.find((candidate) => lower(candidate.alias.name.value) === name);
  const readOnce = statement.tableReads.get(name) === 1;
  return cte && readOnce && unordered(cte.query)
    ? { cte: name, inner: cte.query, items, ...filterAs(alias ?? name) }
    : undefined;
}

/** A WHERE over u's rows and the name (lower case; '' for none) its columns may be qualified by. */
interface Filter {
  readonly expr: Expr;
  readonly qualifier: string;
}

/**
 * The UNION ALL `inner` with `filter` in each branch's WHERE, each of u's columns it names replaced
 * by the expression the branch writes at that column's place (by place, as UNION ALL lines its
 * branches up): `SELECT e AS c FROM t WHERE w` then `WHERE p(c)` keeps the rows `SELECT e AS c FROM t
 * WHERE w AND p(e)` keeps, for a branch that acts on one row at a time (no GROUP BY, DISTINCT,
 * window or subquery in its columns). So the top n can then be taken in each branch (Studio's
 * unified logs page filtered by log type or level). Undefined when a branch is not such a SELECT or
 * the WHERE names anything but u's columns; the query is then left as written.
 */
function filteredBranches(inner: Query, filter: Filter): Query | undefined {
  const first = leftmostSelect(inner.body);
  const names = first && outputNamesByPlace(first);
  if (!names) return undefined;
  const branch = (expr: SetExpr): SetExpr | undefined => {
    if (isUnionAll(expr)) {
      const operation = (expr as { SetOperation: Ast }).SetOperation;
      const left = branch(operation.left);
      const right = left && branch(operation.right);
      return right && { SetOperation: { ...operation, left, right } };
    }
    const select = plainSelect(expr);
    if (!select || select.projection.length !== names.length || !rowWise(select.projection)) return undefined;
    const columns = select.projection.map((item) => {
      const [kind, node] = variant(item);
      return kind === 'UnnamedExpr' ? node : kind === 'ExprWithAlias' ? node.expr : undefined;
    });
    if (columns.some((column) => column === undefined)) return undefined;
    const columnOf = (name: string) => {
      const place = names.indexOf(lower(name));
      return place < 0 || names.lastIndexOf(lower(name)) !== place ? undefined : columns[place];
    };
    const condition = withColumns(filter, columnOf);
    if (condition === undefined) return undefined;
    const selection = select.selection
      ? { BinaryOp: { left: { Nested: select.selection }, op: 'And', right: { Nested: condition } } }
      : condition;
    return { Select: { ...select, selection } as Select };
  };
  const body = branch(inner.body);
  return body && { ...inner, body };
}

/**
 * `filter`'s expression with each column of u it names (`c`, or `u.c` by its qualifier) replaced by
 * `columnOf(c)` in parentheses; undefined when it names anything else. Function names and query
 * parameters are no columns and are kept.
 */
function withColumns(filter: Filter, columnOf: (name: string) => Ast | undefined): Expr | undefined {
  let foreign = false;
  const copy = (node: Ast): Ast => {
    if (Array.isArray(node)) return node.map(copy);
    if (node === null || typeof node !== 'object') return node;
    // A query parameter (`@kind`) is the same value in every branch.
    if (node.Identifier && Object.keys(node).length === 1 && !String(node.Identifier.value).startsWith('@')) {
      const column = columnOf(node.Identifier.value);
      if (column === undefined) foreign = true;
      return { Nested: structuredClone(column) };
    }
    if (node.CompoundIdentifier && Object.keys(node).length === 1) {
      const [qualifier, name, ...rest] = node.CompoundIdentifier as { value: string }[];
      const column =
        rest.length === 0 && name && lower(qualifier?.value ?? '') === filter.qualifier
          ? columnOf(name.value)
          : undefined;
      if (column === undefined) foreign = true;
      return { Nested: structuredClone(column) };
    }
    const copied: Record<string, Ast> = {};
    for (const [key, value] of Object.entries(node as Record<string, Ast>))
      copied[key] = key === 'Function' ? { ...value, args: copy(value.args) } : copy(value);
    return copied;
  };
  const expr = copy(filter.expr);
  return foreign ? undefined : (expr as Expr);
}

/** A SELECT with nothing that acts on more than one row: no GROUP BY, HAVING, DISTINCT, QUALIFY, WINDOW. */
function plainSelect(body: SetExpr): Select | undefined {
  if (!('Select' in body)) return undefined;
  const select = body.Select;
  return ungrouped(select) && !select.value_table_mode ? select : undefined;
}

function withDerived(body: SetExpr, change: (subquery: Query) => Query): SetExpr {
  const select = (body as { Select: Select }).Select;
  const [from] = select.from as [TableWithJoins];
  const derived = (from.relation as { Derived: { subquery: Query } }).Derived;
  const relation = { Derived: { ...derived, subquery: change(derived.subquery) } } as TableFactor;
  return { Select: { ...select, from: [{ ...from, relation }] } };
}

function isUnionAll(body: SetExpr): boolean {
  return (
    'SetOperation' in body && body.SetOperation.op === 'Union' && body.SetOperation.set_quantifier === 'All'
  );
}

/**
 * A UNION ALL body with each SELECT branch in parentheses with the ORDER BY and LIMIT of its own;
 * undefined when the body is no UNION ALL or the ORDER BY names no column of it. Branches that are
 * no plain list of named columns at that place are left as they are (still exact: the ORDER BY
 * and LIMIT around the union stay).
 */
function intoUnionAll(body: SetExpr, topN: TopN, statement: Statement): SetExpr | undefined {
  if (!isUnionAll(body)) return undefined;
  const first = leftmostSelect(body);
  const names = first && outputNamesByPlace(first);
  if (!names) return undefined;
  const places: number[] = [];
  for (const item of topN.items) {
    const name = bareName(item.expr)?.value;
    const place = name === undefined ? -1 : names.indexOf(lower(name));
    if (place < 0 || names.lastIndexOf(lower(name as string)) !== place) return undefined;
    places.push(place);
  }
  const branch = (expr: SetExpr): SetExpr => {
    if (isUnionAll(expr)) {
      const operation = (expr as { SetOperation: Ast }).SetOperation;
      return { SetOperation: { ...operation, left: branch(operation.left), right: branch(operation.right) } };
    }
    const select = 'Select' in expr ? expr.Select : undefined;
    const own = select && outputNamesByPlace(select);
    const named = places.map((place) => own?.[place]);
    if (!own || named.some((name) => !name || own.indexOf(name) !== own.lastIndexOf(name))) return expr;
    const items = topN.items.map((item, i) => ({
      ...item,
      expr: { Identifier: { value: named[i] as string } },
    }));
    return {
      Query: pushInQuery({ body: expr, order_by: orderBy(items), limit_clause: topN.limit }, statement),
    };
  };
  return branch(body);
}

function leftmostSelect(body: SetExpr): Select | undefined {
  if ('SetOperation' in body) return leftmostSelect(body.SetOperation.left);
  return 'Select' in body ? body.Select : undefined;
}

/** Each SELECT item's output name (lower case; '' for an expression without one); undefined with `*`. */
function outputNamesByPlace(select: Select): string[] | undefined {
  if (select.value_table_mode) return undefined;
  const names: string[] = [];
  for (const item of select.projection) {
    const [kind, node] = variant(item);
    if (kind === 'ExprWithAlias') names.push(lower(node.alias.value));
    else if (kind === 'UnnamedExpr') names.push(lower(compoundParts(node)?.at(-1) ?? ''));
    else return undefined;
  }
  return names;
}

/** The names the left side of the join answers to, and what the right side makes. */
interface JoinSides {
  /** The left table's range name. */
  readonly alias: string;
  /** Its UNNEST aliases (lower case), each with its path from the left table (`[fel, metadata]`). */
  readonly unnests: ReadonlyMap<string, readonly string[]>;
  /** The left table's columns (lower case). */
  readonly columns: ReadonlySet<string>;
  /** The right side's alias and columns (lower case). */
  readonly right: ReadonlySet<string>;
}

/**
 * The third rule (see pushTopN): the query with the left side of its LEFT JOIN limited and the
 * grouped side correlated to it, or undefined when the SELECT is not of that form.
 */
function beforeLeftJoin(query: Query, select: Select, topN: TopN, statement: Statement): Query | undefined {
  const [from] = select.from;
  if (!plainSelect({ Select: select }) || !from || select.from.length > 1) return undefined;
  const joins = from.joins;
  const last = joins.at(-1);
  const table = leftTable(from.relation, statement);
  if (!table || !last) return undefined;
  const unnests = recordUnnests(joins.slice(0, -1), table);
  const grouped = groupedJoin(last, statement);
  if (!unnests || !grouped) return undefined;
  const sides: JoinSides = {
    alias: table.alias,
    unnests,
    columns: new Set(Object.keys(table.schema.columns).map(lower)),
    right: new Set([lower(grouped.alias), ...grouped.columns]),
  };
  const [onKind, on] = variant(grouped.join.join_operator as Ast);
  const equality = onKind === 'Left' || onKind === 'LeftOuter' ? variant(on).at(1)?.BinaryOp : undefined;
  if (equality?.op !== 'Eq') return undefined;
  const isKey = (side: Expr) => sameParts(compoundParts(side), [grouped.alias, grouped.key]);
  const leftKey = isKey(equality.right) ? equality.left : isKey(equality.left) ? equality.right : undefined;
  if (!leftKey || !compoundParts(leftKey) || !leftOnly(leftKey, sides)) return undefined;
  // A name in the grouped side's WHERE means its own columns first: the left table's range name
  // must be none of them, nor a range name there.
  if (grouped.names.has(lower(table.alias))) return undefined;
  const outputs = outputExpressions(select);
  const items = topN.items.map((item) => {
    const name = bareName(item.expr)?.value;
    return { ...item, expr: (name !== undefined && outputs.get(lower(name))) || item.expr };
  });
  if (
    !items.every((item) => leftOnly(item.expr, sides)) ||
    (select.selection && !leftOnly(select.selection, sides))
  )
    return undefined;
  if (!rowWise(select.projection)) return undefined;
  const limited = limitedLeft(select, from, table.alias, items, topN.limit);
  const correlated = correlatedGroup(grouped, qualified(leftKey, sides));
  const join: Join = { ...grouped.join, relation: correlated };
  const { selection: _, ...unfiltered } = select;
  const body: SetExpr = {
    Select: { ...unfiltered, from: [{ relation: limited, joins: [...joins.slice(0, -1), join] }] },
  };
  return { ...query, body };
}

/** The left table: a store table (not a CTE, not a wildcard family) and its range name. */
function leftTable(relation: TableFactor, statement: Statement) {
  if (!('Table' in relation)) return undefined;
  const parts = relation.Table.name.map((part) => part.Identifier.value);
  const name = parts.join('.');
  if (parts.length === 1 && statement.cteNames.has(lower(name))) return undefined;
  const found = findTable(statement.tables, name);
  if (!found || found.wildcard || found.suffix !== undefined || found.prefix !== undefined) return undefined;
  return { alias: relation.Table.alias?.name.value ?? (parts.at(-1) as string), schema: found.table };
}

/**
 * The UNNEST aliases of `CROSS JOIN UNNEST(path) AS alias` joins, each over a record of the left
 * table (a STRUCT in the store: one row in, one row or none out), with their paths; undefined
 * when a join is anything else.
 */
function recordUnnests(
  joins: readonly Join[],
  table: { alias: string; schema: TableSchema },
): Map<string, string[]> | undefined {
  const unnests = new Map<string, { path: string[]; type: SqlType }>();
  for (const join of joins) {
    const [operator] = variant(join.join_operator as Ast);
    const unnest = 'UNNEST' in join.relation ? join.relation.UNNEST : undefined;
    const [array, ...more] = unnest?.array_exprs ?? [];
    const parts = array && compoundParts(array);
    if (operator !== 'CrossJoin' || !unnest?.alias || unnest.with_offset || more.length > 0 || !parts)
      return undefined;
    const [head, ...fields] = parts as [string, ...string[]];
    const base = unnests.get(lower(head));
    let path: string[];
    let type: SqlType | undefined;
    if (base) [path, type] = [[...base.path], base.type];
    else if (lower(head) === lower(table.alias)) {
      const [column, ...rest] = fields;
      if (!column) return undefined;
      [path, type] = [[table.alias, column], fieldType(table.schema.columns, column)];
      fields.splice(0, fields.length, ...rest);
    } else [path, type] = [[table.alias, head], fieldType(table.schema.columns, head)];
    for (const field of fields) {
      type = isStructSqlType(type) ? fieldType(type.struct, field) : undefined;
      path.push(field);
    }
    if (!isStructSqlType(type)) return undefined;
    unnests.set(lower(unnest.alias.name.value), { path, type });
  }
  return new Map([...unnests].map(([alias, { path }]) => [alias, path]));
}

function fieldType(fields: Readonly<Record<string, SqlType>>, name: string): SqlType | undefined {
  const found = Object.keys(fields).find((field) => lower(field) === lower(name));
  return found === undefined ? undefined : fields[found];
}

interface GroupedJoin {
  readonly join: Join;
  readonly alias: string;
  readonly subquery: Query;
  readonly select: Select;
  /** The output column holding the one GROUP BY expression, and that expression. */
  readonly key: string;
  readonly keyExpr: Expr;
  /** Its output columns (lower case). */
  readonly columns: readonly string[];
  /** Every name its FROM may answer to: range names and the fields of its tables (lower case). */
  readonly names: ReadonlySet<string>;
}

/**
 * `LEFT JOIN (SELECT k, aggregates FROM ... GROUP BY k) AS g`: one row per key, and each key's row
 * made from the rows with that key only (no window, QUALIFY, DISTINCT, ORDER BY or LIMIT).
 */
function groupedJoin(join: Join, statement: Statement): GroupedJoin | undefined {
  const derived = 'Derived' in join.relation ? join.relation.Derived : undefined;
  const subquery = derived?.subquery;
  if (!derived?.alias || !subquery || subquery.with || subquery.order_by || subquery.limit_clause)
    return undefined;
  if (!('Select' in subquery.body)) return undefined;
  const select = subquery.body.Select;
  const [groupKind, group] = variant(select.group_by);
  if (groupKind !== 'Expressions' || group[0].length !== 1 || group[1].length > 0) return undefined;
  if (select.distinct || select.qualify || select.named_window.length > 0 || select.value_table_mode)
    return undefined;
  if (hasWindow(select.projection) || (select.having && hasWindow(select.having))) return undefined;
  const outputs = outputExpressions(select);
  const names = outputNamesByPlace(select);
  if (!outputs || !names) return undefined;
  const grouping = group[0][0] as Expr;
  const groupName = bareName(grouping)?.value;
  const keyExpr = (groupName !== undefined && outputs.get(lower(groupName))) || grouping;
  const key = [...outputs].find(([, expr]) => sameExpr(expr, keyExpr))?.[0];
  const fromNamed = fromNames(select, statement);
  if (key === undefined || names.indexOf(key) !== names.lastIndexOf(key) || !fromNamed) return undefined;
  return {
    join,
    alias: derived.alias.name.value,
    subquery,
    select,
    key,
    keyExpr,
    columns: names,
    names: fromNamed,
  };
}

/**
 * Every name the FROM clause of the grouped side answers to: range names and every column and
 * field of its tables (lower case); undefined when it reads anything else (a CTE, a subquery).
 */
function fromNames(select: Select, statement: Statement): Set<string> | undefined {
  const names = new Set<string>();
  const addFields = (type: SqlType | undefined): void => {
    if (isListSqlType(type)) addFields(type.list);
    if (!isStructSqlType(type)) return;
    for (const [field, fieldType] of Object.entries(type.struct)) {
      names.add(lower(field));
      addFields(fieldType);
    }
  };
  for (const item of select.from) {
    for (const relation of [item.relation, ...item.joins.map((join) => join.relation)]) {
      if ('UNNEST' in relation) {
        if (relation.UNNEST.alias) names.add(lower(relation.UNNEST.alias.name.value));
        continue;
      }
      const table = 'Table' in relation && leftTable(relation, statement);
      if (!table) return undefined;
      names.add(lower(table.alias));
      addFields({ struct: table.schema.columns });
    }
  }
  return names;
}

/** The expressions the SELECT list names (lower case), an explicit alias first. */
function outputExpressions(select: Select): Map<string, Expr> {
  const outputs = new Map<string, Expr>();
  for (const item of select.projection) {
    const [kind, node] = variant(item);
    if (kind === 'ExprWithAlias') outputs.set(lower(node.alias.value), node.expr);
  }
  for (const item of select.projection) {
    if (!('UnnamedExpr' in item)) continue;
    const name = compoundParts(item.UnnamedExpr)?.at(-1);
    if (name !== undefined && !outputs.has(lower(name))) outputs.set(lower(name), item.UnnamedExpr);
  }
  return outputs;
}

/**
 * Whether every name in `expr` is of the join's left side: its table's range name, an UNNEST alias
 * or a column of its table, and nothing of the right side; and nothing in it depends on more than
 * the row (no subquery, aggregate or window).
 */
function leftOnly(expr: Expr, sides: JoinSides): boolean {
  let left = rowWise([expr]);
  visitNames(expr, (parts) => {
    const head = lower(parts[0] as string);
    const ofLeft = head === lower(sides.alias) || sides.unnests.has(head) || sides.columns.has(head);
    if (!ofLeft || sides.right.has(head)) left = false;
  });
  return left;
}

function hasWindow(nodes: unknown): boolean {
  let found = false;
  visitNodes(nodes as Ast, (node) => {
    if (node.Function?.over) found = true;
  });
  return found;
}

/** Calls `visit` with the parts of every name in an expression (not function names). */
function visitNames(expr: Expr, visit: (parts: string[]) => void): void {
  const walk = (node: Ast): void => {
    if (Array.isArray(node)) {
      for (const child of node) walk(child);
      return;
    }
    if (!node || typeof node !== 'object') return;
    const parts = compoundParts(node as Expr);
    if (parts) {
      visit(parts);
      return;
    }
    for (const [key, child] of Object.entries(node)) {
      // A function's name and a CAST's type are no column names.
      if (key !== 'name' && key !== 'data_type') walk(child);
    }
  };
  walk(expr as Ast);
}

/** The left side's rows that come out: `(SELECT t.* FROM t CROSS JOIN UNNEST ... WHERE ... ORDER BY ... LIMIT n) AS t`. */
function limitedLeft(
  outer: Select,
  from: TableWithJoins,
  alias: string,
  items: readonly OrderByExpr[],
  limit: TopN['limit'],
): TableFactor {
  const allOf: SelectItem = { QualifiedWildcard: [{ ObjectName: [{ Identifier: { value: alias } }] }, {}] };
  const select: Select = {
    ...outer,
    projection: [allOf],
    from: [{ relation: from.relation, joins: from.joins.slice(0, -1) }],
  };
  const subquery: Query = { body: { Select: select }, order_by: orderBy(items), limit_clause: limit };
  return { Derived: { subquery, alias: { name: { value: alias } } } } as TableFactor;
}

/** The grouped side with `key = leftKey` added to its WHERE: a correlated subquery in FROM. */
function correlatedGroup(grouped: GroupedJoin, leftKey: Expr): TableFactor {
  const match: Expr = { BinaryOp: { left: { Nested: grouped.keyExpr }, op: 'Eq', right: leftKey } };
  const selection: Expr = grouped.select.selection
    ? { BinaryOp: { left: { Nested: grouped.select.selection }, op: 'And', right: match } }
    : match;
  const subquery: Query = { ...grouped.subquery, body: { Select: { ...grouped.select, selection } } };
  const derived = (grouped.join.relation as { Derived: object }).Derived;
  return { Derived: { ...derived, subquery } } as TableFactor;
}

/**
 * A left-side name written from the left table's range name, as the grouped side can read it.
 * Through an UNNEST alias it is the record's path with each record taken at `[SAFE_OFFSET(0)]`,
 * as BigQuery reads a field of a repeated record (`fel.metadata[SAFE_OFFSET(0)].execution_id`;
 * the store's record is that one element, so DuckDB reads the same path).
 */
function qualified(expr: Expr, sides: JoinSides): Expr {
  const [head, ...rest] = compoundParts(expr) as [string, ...string[]];
  const path = sides.unnests.get(lower(head));
  if (path) {
    const [table, ...records] = path as [string, ...string[]];
    const dot = (value: string): Ast => ({ Dot: { Identifier: { value } } });
    return {
      CompoundFieldAccess: {
        root: { Identifier: { value: table } },
        access_chain: [...records.flatMap((record) => [dot(record), firstElement]), ...rest.map(dot)],
      },
    } as Expr;
  }
  const parts = lower(head) === lower(sides.alias) ? [head, ...rest] : [sides.alias, head, ...rest];
  return { CompoundIdentifier: parts.map((value) => ({ value })) };
}

/** `[SAFE_OFFSET(0)]` as the parser writes it. */
const firstElement: Ast = {
  Subscript: {
    Index: {
      index: {
        Function: {
          name: [{ Identifier: { value: 'SAFE_OFFSET' } }],
          uses_odbc_syntax: false,
          parameters: 'None',
          args: {
            List: {
              args: [{ Unnamed: { Expr: { Value: { value: { Number: ['0', false] } } } } }],
              clauses: [],
            },
          },
          within_group: [],
        },
      },
    },
  },
};

function sameParts(parts: readonly string[] | undefined, expected: readonly string[]): boolean {
  return (
    parts !== undefined &&
    parts.length === expected.length &&
    parts.every((part, i) => lower(part) === lower(expected[i] as string))
  );
}

/** The same expression as written, apart from where it was written. */
function sameExpr(a: Expr, b: Expr): boolean {
  return withoutSpans(a as Ast) === withoutSpans(b as Ast);
}

function lower(name: string): string {
  return name.toLowerCase();
}
