import type { Expr, JoinConstraint, NestedJoin, TableFactor, TableWithJoins, Unnest } from './ast.js';
import { type Ast, variant } from './bigquery-ast.js';
import { pivotSql, unpivotSql } from './pivot.js';
import { type ImpliedFilters, noImpliedFilters, nullRejectedPaths, presenceSql } from './record-presence.js';
import { quoteString } from './rules/rule.js';
import { suffixTerms, tableTerms, withoutTerms } from './suffix-prefilter.js';
import { findTable } from './table-names.js';
import { quoteIdent } from './table-schema.js';
import { indent, type TranslationContext } from './translation-context.js';
import type { Column } from './unnest-scope.js';
import {
  type ArrayUnnest,
  arrayPathUnnest,
  arrayUnnestSql,
  arrayUnnests,
  joinUnnestSql,
  selectListUnnestsSql,
  unnestNames,
} from './unnest-sql.js';
import { atNode, unsupported } from './unsupported.js';
import { refuseValueTable } from './value-table.js';

/**
 * A SELECT's FROM clause, binding each name it introduces in the SELECT's scope (`context.scope`)
 * as it goes: tables, CTEs, derived tables and UNNESTs (unnest-sql.ts). Returns the FROM items to
 * print, comma-separated, and the WHERE filters that UNNESTs over objects imply.
 */
export function fromClauseSql(
  from: readonly TableWithJoins[],
  context: TranslationContext,
  where?: Expr,
  /** The rest of the SELECT: whether it takes the table's row whole or by `*` (see selectListUnnests). */
  select?: unknown,
): { fromItems: string[]; implied: ImpliedFilters; moved: Expr[] } {
  // Filters implied by CROSS JOIN UNNEST over objects: a record without the object is dropped.
  const implied = noImpliedFilters();
  const fromItems: string[] = [];
  // A table joined to nothing but UNNESTs of its arrays takes the WHERE's terms on its own
  // columns before the join, and the WHERE drops them (suffix-prefilter.ts tableTerms); under a
  // WHERE the UNNESTs are select-list unnests. Asked once the table is bound, as the arrays'
  // types decide (tableUnnests), and once for both.
  let unnests: TableUnnests | undefined;
  const tableUnnestsOnce = () => (unnests ??= tableUnnests(from, context));
  const moved: Expr[] = [];
  // The FROM items already made part of the first (selectListUnnests).
  let consumed = 0;
  for (const [index, item] of from.entries()) {
    if (index < consumed) continue;
    const sql = atNode(item, () => {
      // `FROM t, UNNEST(t.a) AS x` is a correlated CROSS JOIN, as if written with the keywords.
      // With nothing printed before it (a constant CTE was inlined), it is a FROM item of its own.
      const unnest = unnestOf(item.relation, context);
      if (index > 0 && unnest && fromItems.length > 0) {
        const joined = joinUnnestSql(unnest, 'CrossJoin', undefined, context, implied);
        fromItems[fromItems.length - 1] += joined + joinsSql(item, context, implied);
        return '';
      }
      const inlined = inlineConstant(item, context, from.length);
      if (inlined !== undefined) return inlined;
      // The first table, joined to nothing on its right or full side, is filtered by the WHERE's
      // bounds of its _TABLE_SUFFIX, and before UNNESTs alone by its terms on the table's own
      // columns, before anything is joined to it (suffix-prefilter.ts).
      const keepsRows =
        index === 0 && !item.joins.some((join) => /^(Right|Full)/.test(variant(join.join_operator)[0]));
      const first = relationSql(item.relation, context, {
        where: keepsRows ? where : undefined,
        moved:
          index === 0
            ? { into: moved, others: () => unnestNames(tableUnnestsOnce().joins.map(({ unnest }) => unnest)) }
            : undefined,
      });
      const rows =
        index === 0 && where ? selectListUnnests(first, tableUnnestsOnce(), context, select) : undefined;
      if (rows !== undefined) {
        consumed = from.length;
        return rows;
      }
      if (item.joins.some((join) => 'NestedJoin' in join.relation)) context.scope.qualifyRelations();
      return first + joinsSql(item, context, implied);
    });
    if (sql !== '') fromItems.push(sql);
  }
  return { fromItems, implied, moved };
}

/**
 * The rest of a FROM after its first table (`rangeName`), when it is all UNNESTs of that table's
 * arrays (unnest-sql.ts arrayUnnests), each with its join's operator (a comma's is CROSS JOIN);
 * no joins otherwise.
 */
interface TableUnnests {
  readonly rangeName: string;
  readonly joins: readonly { readonly unnest: ArrayUnnest; readonly operator: unknown }[];
}

function tableUnnests(from: readonly TableWithJoins[], context: TranslationContext): TableUnnests {
  const [first, ...rest] = from;
  const relation = first && 'Table' in first.relation ? first.relation.Table : undefined;
  if (!first || !relation) return { rangeName: '', joins: [] };
  const rangeName = relation.alias?.name.value ?? (relation.name.at(-1)?.Identifier.value as string);
  const none = { rangeName, joins: [] };
  if (context.scope.lookup(rangeName)?.kind !== 'relation') return none;
  const joined = [
    ...first.joins.map((join) => ({ relation: join.relation, operator: join.join_operator as unknown })),
    ...rest.flatMap((item) => [
      { relation: item.relation, operator: 'CrossJoin' as unknown },
      ...item.joins.map((join) => ({ relation: join.relation, operator: join.join_operator as unknown })),
    ]),
  ];
  const written = joined.map(({ relation: joinedRelation }) => unnestOf(joinedRelation, context));
  if (!written.every((unnest) => unnest !== undefined)) return none;
  const unnests = arrayUnnests(rangeName, written, context);
  if (!unnests) return none;
  return {
    rangeName,
    joins: unnests.map((unnest, index) => ({ unnest, operator: joined[index]?.operator })),
  };
}

/**
 * A stored table joined to nothing but UNNESTs of its arrays (comma, CROSS or INNER JOIN without
 * a condition, LEFT JOIN ON TRUE), under a WHERE, as select-list unnests (unnest-sql.ts
 * selectListUnnestsSql); undefined where the joins stay lateral. Its subselects' rows carry the
 * elements as columns beside the table's, so a SELECT that takes the table's row whole (`SELECT
 * t`, `TO_JSON(t)`) or by `*` keeps the joins.
 */
function selectListUnnests(
  table: string,
  { rangeName, joins: unnests }: TableUnnests,
  context: TranslationContext,
  select: unknown,
): string | undefined {
  if (unnests.length === 0) return undefined;
  const binding = context.scope.lookup(rangeName);
  if (binding?.kind !== 'relation' || !binding.stored || !binding.columns) return undefined;
  if (namesWholeRow(select, rangeName.toLowerCase())) return undefined;
  const joins = unnests.map(({ unnest, operator }) => {
    const [kind, constraint] = variant(operator as Parameters<typeof variant>[0]);
    const left = kind === 'Left' || kind === 'LeftOuter';
    const plain =
      kind === 'CrossJoin' || ((kind === 'Inner' || kind === 'Join' || left) && isOnTrue(constraint));
    return plain ? { unnest, left } : undefined;
  });
  if (!joins.every((join) => join !== undefined)) return undefined;
  return selectListUnnestsSql(table, rangeName, binding.columns, joins, context);
}

/** No condition, or ON TRUE. */
function isOnTrue(constraint: unknown): boolean {
  if (constraint === undefined || constraint === 'None') return true;
  const on = (constraint as { On?: Ast }).On;
  return on?.Value?.value?.Boolean === true;
}

/**
 * Whether the SELECT (without its FROM) has `*` or `alias.*`, or names `rangeName` bare: the
 * table's row taken whole. Any bare name of it counts, even one a subquery binds anew.
 */
function namesWholeRow(select: unknown, rangeName: string): boolean {
  if (select === null || typeof select !== 'object') return false;
  if (Array.isArray(select)) return select.some((part) => namesWholeRow(part, rangeName));
  const node = select as Ast;
  if ('Wildcard' in node || 'QualifiedWildcard' in node) return true;
  if (typeof node.Identifier?.value === 'string' && node.Identifier.value.toLowerCase() === rangeName)
    return true;
  return Object.values(node).some((part) => namesWholeRow(part, rangeName));
}

/**
 * A constant one-row CTE joined with a comma beside other FROM items is not joined at all: its
 * alias is bound to the CTE's expressions. Returns '' when inlined, undefined otherwise.
 */
function inlineConstant(
  item: TableWithJoins,
  context: TranslationContext,
  fromItems: number,
): string | undefined {
  const table = 'Table' in item.relation ? item.relation.Table : undefined;
  const [only, ...more] = table?.name ?? [];
  if (!table || !only || more.length > 0 || item.joins.length > 0 || fromItems < 2) return undefined;
  const name = only.Identifier.value;
  const columns = context.ctes.constants.get(name.toLowerCase());
  if (!columns || context.ctes.find(name) === false) return undefined;
  context.scope.bind(table.alias?.name.value ?? name, { kind: 'constant', columns });
  return '';
}

/** The JOIN clauses of a FROM item, after its first relation. */
function joinsSql(item: TableWithJoins, context: TranslationContext, implied: ImpliedFilters): string {
  let sql = '';
  for (const join of item.joins) {
    sql += atNode(join, () => {
      // `{ Left: constraint }`, or a bare name (`'CrossJoin'`) for an operator without one.
      const [operator, constraint] = variant(join.join_operator);
      const relation = join.relation;
      const unnest = unnestOf(relation, context);
      if (unnest) return joinUnnestSql(unnest, operator, constraint, context, implied);
      if ('NestedJoin' in relation)
        return nestedJoinSql(relation.NestedJoin, operator, constraint, context, implied);
      const full = operator === 'FullOuter';
      if (full || operator === 'Right' || operator === 'RightOuter')
        return rightOrFullJoinSql(relation, full, constraint, context, implied);
      // The right side of a LEFT join may be NULL throughout, records included.
      const right = relationSql(relation, context, {
        outer: operator === 'Left' || operator === 'LeftOuter',
      });
      if (operator === 'CrossJoin') return `\nCROSS JOIN ${right}`;
      if (operator === 'Inner' || operator === 'Join')
        return `\nJOIN ${right}${joinConstraint(constraint, context)}`;
      if (operator === 'Left' || operator === 'LeftOuter')
        return `\nLEFT JOIN ${right}${joinConstraint(constraint, context)}`;
      throw unsupported(`${operator} joins`);
    });
  }
  return sql;
}

/**
 * `RIGHT JOIN t ON ...` and `FULL JOIN t ON ...` of a table, CTE or subquery, which DuckDB reads
 * as BigQuery does. The sides that may come out NULL throughout (the left, and for FULL the right)
 * are no longer rows the tables hold. Refused after a CROSS JOIN UNNEST over a record: the WHERE
 * filter that join implies would drop the rows only the right side has.
 */
function rightOrFullJoinSql(
  relation: TableFactor,
  full: boolean,
  constraint: JoinConstraint | undefined,
  context: TranslationContext,
  implied: ImpliedFilters,
): string {
  const keyword = full ? 'FULL JOIN' : 'RIGHT JOIN';
  if (implied.present.length > 0 || implied.conditions.length > 0)
    throw unsupported(`${keyword} after an UNNEST over a record`);
  for (const [alias, binding] of context.scope.own())
    if (binding.kind === 'relation' || binding.kind === 'object')
      context.scope.bind(alias, { ...binding, stored: false });
  const right = relationSql(relation, context, { outer: full });
  return `\n${keyword} ${right}${joinConstraint(constraint, context)}`;
}

/**
 * `LEFT JOIN (edge_logs AS e CROSS JOIN UNNEST(metadata) AS m ...) ON ...` (Studio's unified
 * logs). Inside the parentheses a bare name means a column of their own tables, as in BigQuery,
 * so they are resolved apart and written qualified; their aliases are then visible outside.
 * What their UNNESTs over records imply (`m IS NOT NULL`) filters the parenthesized side: in the
 * ON clause of an outer join, which keeps the left rows that match nothing.
 */
function nestedJoinSql(
  nested: NestedJoin,
  operator: string,
  constraint: JoinConstraint | undefined,
  context: TranslationContext,
  implied: ImpliedFilters,
): string {
  if (nested.alias) throw unsupported('an alias on a parenthesized join');
  const inner = context.within(context.scope.sibling());
  let sql = relationSql(nested.table_with_joins.relation, inner);
  inner.scope.qualifyRelations();
  const innerFilters = noImpliedFilters();
  sql += joinsSql(nested.table_with_joins, inner, innerFilters);
  // Beyond a LEFT join its rows may be NULL throughout: no longer rows the tables hold.
  const outer = operator === 'Left' || operator === 'LeftOuter';
  for (const [alias, binding] of inner.scope.own())
    context.scope.bind(
      alias,
      outer && binding.kind !== 'constant' && binding.kind !== 'element'
        ? { ...binding, stored: false }
        : binding,
    );
  const right = sql.includes('\n') ? `(${sql})` : sql;
  if (operator === 'CrossJoin') {
    implied.present.push(...innerFilters.present);
    implied.conditions.push(...innerFilters.conditions);
    return `\nCROSS JOIN ${right}`;
  }
  const [kind, on] = variant(constraint ?? 'None');
  if (kind !== 'On') throw unsupported('a parenthesized join without ON');
  const present = presenceSql(innerFilters.present, nullRejectedPaths(on, context));
  const condition = [context.expr(on), ...innerFilters.conditions, ...(present ? [present] : [])]
    .map((part) => `(${part})`)
    .join(' AND ');
  if (operator === 'Inner' || operator === 'Join') return `\nJOIN ${right} ON ${condition}`;
  if (operator === 'Left' || operator === 'LeftOuter') return `\nLEFT JOIN ${right} ON ${condition}`;
  throw unsupported(`${operator} joins`);
}

function joinConstraint(constraint: JoinConstraint | undefined, context: TranslationContext): string {
  const [kind, node] = variant(constraint ?? 'None');
  if (kind === 'On') return ` ON ${context.expr(node)}`;
  if (kind === 'Using') {
    const names = node.map((name) => name[0]?.Identifier.value ?? '');
    context.scope.joinUsing(names);
    return ` USING (${names.map(quoteIdent).join(', ')})`;
  }
  throw unsupported(`join constraint ${kind}`);
}

function relationSql(
  relation: TableFactor,
  context: TranslationContext,
  {
    outer = false,
    where,
    moved,
  }: {
    outer?: boolean;
    where?: Expr | undefined;
    /**
     * Where to put the WHERE's terms a stored table takes before its UNNESTs (see fromClauseSql),
     * and the names there that are not its columns, asked once it is bound: none, no UNNESTs.
     */
    moved?: { into: Expr[]; others: () => ReadonlySet<string> } | undefined;
  } = {},
): string {
  const pivot = (relation as Ast).Pivot;
  if (pivot) return pivotSql(pivot, context, relationSql);
  const unpivot = (relation as Ast).Unpivot;
  if (unpivot) return unpivotSql(unpivot, context, relationSql);
  const [kind, node] = variant(relation);
  const alias = node.alias?.name.value;
  switch (kind) {
    case 'Table': {
      // `(SELECT value.int_value FROM e.event_params WHERE key = ...)`: a path from a range
      // variable in scope is an implicit UNNEST of it, in first place as after a comma.
      const path = arrayPathUnnest(relation, context.scope);
      if (path) return arrayUnnestSql(path, context);
      // `cloudflare.logs.prod` comes back from the parser as three identifiers; the logical
      // source name is the whole dotted name, and so is its DuckDB table name.
      const parts = node.name.map((part) => part.Identifier.value);
      const name = parts.join('.');
      // BigQuery's implicit alias of a table is the last part of its name.
      const rangeName = alias ?? (parts.at(-1) as string);
      const cte = parts.length === 1 ? context.ctes.find(name) : false;
      if (cte !== false) {
        context.ctes.use(name);
        context.scope.bind(rangeName, { kind: 'relation', alias: rangeName, columns: cte, stored: !outer });
        return `${quoteIdent(name)}${alias ? ` AS ${quoteIdent(alias)}` : ''}`;
      }
      const found = findTable(context.tables, name);
      if (!found) throw unsupported(`no table or source named ${name}`);
      const { table, suffix, prefix } = found;
      context.tablesRead.add(table.name);
      const columns = new Map<string, Column>(
        Object.entries(table.columns).map(([column, type]) => [
          column.toLowerCase(),
          { name: column, type, stored: true, notNull: table.notNull?.includes(column) },
        ]),
      );
      // A wildcard family's `_TABLE_SUFFIX` is the column that holds it (see TableSchema).
      const suffixColumn = table.tableSuffix && columns.get(table.tableSuffix.column.toLowerCase());
      if (found.wildcard && suffixColumn)
        columns.set('_table_suffix', { ...suffixColumn, pseudo: true, prefixLength: prefix?.length });
      context.scope.bind(rangeName, { kind: 'relation', alias: rangeName, columns, stored: !outer });
      // One table of a wildcard family (`events_20240131`), or its tables under a longer prefix
      // (`events_2024*`): the rows of that suffix, or of the suffixes it starts.
      const others = moved && where ? moved.others() : undefined;
      const taken = others?.size ? tableTerms(where, rangeName, columns, others) : [];
      moved?.into.push(...taken);
      const bounds = [
        ...taken,
        ...(found.wildcard && suffixColumn ? suffixTerms(withoutTerms(where, taken), rangeName) : []),
      ].map((term) => context.expr(term));
      if ((suffix !== undefined || prefix) && suffixColumn) {
        const stored = quoteIdent(suffixColumn.name);
        const kept =
          suffix !== undefined
            ? `${stored} = ${quoteString(suffix)}`
            : `starts_with(${stored}, ${quoteString(prefix as string)})`;
        const from = bounds.length > 0 ? ` AS ${quoteIdent(rangeName)}` : '';
        return `(SELECT * FROM ${quoteIdent(table.name)}${from} WHERE ${[kept, ...bounds].join(' AND ')}) AS ${quoteIdent(rangeName)}`;
      }
      if (bounds.length > 0)
        return `(SELECT * FROM ${quoteIdent(table.name)} AS ${quoteIdent(rangeName)} WHERE ${bounds.join(' AND ')}) AS ${quoteIdent(rangeName)}`;
      return rangeName === table.name
        ? quoteIdent(table.name)
        : `${quoteIdent(table.name)} AS ${quoteIdent(rangeName)}`;
    }
    case 'Derived': {
      const inner = context.queryWithColumns(refuseValueTable(node.subquery, 'a FROM item'));
      const sql = `(\n${indent(inner.sql)}\n)`;
      // BigQuery lets the columns of a subquery without an alias be named bare (`SELECT * EXCEPT
      // (rn) FROM (SELECT ..., ROW_NUMBER() ... AS rn) WHERE rn = 1`): it gets a name of its own
      // that no BigQuery query could write, so its columns are known to the scope.
      const name = alias ?? `(subquery ${[...context.scope.own()].length + 1})`;
      context.scope.bind(name, { kind: 'relation', alias: name, columns: inner.columns, stored: !outer });
      return `${sql} AS ${quoteIdent(name)}`;
    }
    case 'UNNEST':
      return arrayUnnestSql(node, context);
    default:
      throw unsupported(`FROM item ${kind}`);
  }
}

/** The UNNEST a FROM item stands for, written out or implied by a path; undefined for others. */
function unnestOf(relation: TableFactor, context: TranslationContext): Unnest | undefined {
  return 'UNNEST' in relation ? relation.UNNEST : arrayPathUnnest(relation, context.scope);
}
