import {
  compoundParts,
  type Expr,
  type Ident,
  type Select,
  type SelectItem,
  type WildcardOptions,
  withoutParentheses,
} from './ast.js';
import { type Ast, variant } from './bigquery-ast.js';
import { objectMark } from './built-structs.js';
import { fromClauseSql } from './from-clause.js';
import { windowSql } from './function-call.js';
import { jsonPrefilters } from './json-prefilter.js';
import { isJsonValued, refuseJsonKey } from './json-values.js';
import { bareName } from './names.js';
import { computedNumberType } from './numeric-division.js';
import { nullRejectedPaths, presenceSql } from './record-presence.js';
import type { OutputTypes } from './set-operation-types.js';
import { withSortColumns } from './sort-column.js';
import { withoutTerms } from './suffix-prefilter.js';
import {
  isStructSqlType,
  quoteIdent,
  type SqlType,
  type StructSqlType,
  unknownType,
} from './table-schema.js';
import { indent, type OutputNames, type TranslationContext } from './translation-context.js';
import {
  type Binding,
  type Column,
  type Columns,
  elementPath,
  type Resolved,
  type Scope,
  storedColumn,
  unstored,
} from './unnest-scope.js';
import { atNode, unsupported } from './unsupported.js';
import { structValueSql } from './value-forms.js';

/**
 * One SELECT in a scope of its own: its FROM clause (from-clause.ts), the SELECT list, WHERE (with
 * the filters the FROM clause implies), GROUP BY, HAVING, WINDOW and QUALIFY. Its scope and output
 * names are returned for the ORDER BY of the query around it.
 */
export function selectSql(
  select: Select,
  outer: TranslationContext,
): { sql: string; scope: Scope; columns: Columns; types: OutputTypes; outputs: OutputNames } {
  const context = outer.within(outer.scope.child());
  const { fromItems, implied, moved } = fromClauseSql(select.from, context, select.selection, {
    ...select,
    from: [],
  });
  // The terms the FROM's table took before its UNNESTs are not asked again (from-clause.ts).
  const selection = withoutTerms(select.selection, moved);
  if (select.distinct && select.distinct !== 'Distinct') throw unsupported('SELECT DISTINCT ON');
  if (select.distinct) refuseDistinctJson(select.projection, context);
  const named = outputNames(select.projection);
  // A value table's fields are no columns of its one column: ORDER BY reads their expressions.
  const outputs: OutputNames = select.value_table_mode
    ? new Map([...named].map(([name, output]) => [name, { ...output, explicit: false }]))
    : withSortColumns(select, named, context);
  const columns: Columns = new Map();
  // Every output column's type in order, the anonymous ones too (a set operation's sides).
  const types: (SqlType | undefined)[] = [];
  let allKnown = true;
  // BigQuery names the columns of unaliased expressions f0_, f1_, ... in the order they come; a
  // name the list gives a column itself is passed over, so that no two columns share a name.
  let anonymous = 0;
  const nextAnonymous = () => {
    while (named.has(`f${anonymous}_`)) anonymous++;
    return `f${anonymous++}_`;
  };
  // A value table's one column has no name a query could use: its columns stay unknown.
  if (select.value_table_mode) allKnown = false;
  // The fields `expression.*` spreads: ORDER BY may name them, as it names any output column.
  const spread = new Map<string, { expr: Expr; explicit: boolean }>();
  const projection = select.value_table_mode
    ? [valueTableSql(select, context)]
    : select.projection.map((item) =>
        atNode(item, () => {
          const printed = selectItem(item, context, nextAnonymous);
          if (printed.spread)
            for (const column of printed.columns ?? [])
              spread.set(column.name.toLowerCase(), {
                expr: { Identifier: { value: column.name } },
                explicit: true,
              });
          if (printed.columns === undefined) allKnown = false;
          for (const column of printed.columns ?? []) {
            columns.set(column.name.toLowerCase(), column);
            types.push(column.type);
          }
          if (printed.anonymous) types.push(printed.anonymous.type);
          return printed.sql;
        }),
      );
  const lines = [`SELECT${select.distinct ? ' DISTINCT' : ''}\n${indent(projection.join(',\n'))}`];
  if (fromItems.length > 0) lines.push(`FROM ${fromItems.join(',\n  ')}`);
  const present = presenceSql(implied.present, nullRejectedPaths(select.selection, context));
  const where = [
    ...(selection ? [atNode(select.selection, () => context.expr(selection))] : []),
    ...implied.conditions,
    ...(present ? [present] : []),
    ...jsonPrefilters(select.selection, context),
  ];
  if (where.length === 1) lines.push(`WHERE ${where[0]}`);
  if (where.length > 1) lines.push(`WHERE (${where[0]})\n  AND ${where.slice(1).join('\n  AND ')}`);
  const groupBy = groupBySql(select, context, outputs);
  if (groupBy) lines.push(groupBy);
  const having = select.having;
  if (having) lines.push(`HAVING ${atNode(having, () => havingSql(having, context, outputs))}`);
  if (select.named_window.length > 0) {
    const windows = select.named_window.map(([name, spec]) => {
      const window = atNode(spec, () => windowSql(spec, context));
      return `${quoteIdent(name.value)} AS ${window.startsWith('(') ? window : `(${window})`}`;
    });
    lines.push(`WINDOW ${windows.join(', ')}`);
  }
  if (select.qualify) lines.push(`QUALIFY ${withOutputNames(select.qualify, context, outputs)}`);
  // ROLLUP, CUBE and GROUPING SETS add rows whose grouped columns are NULL: no stored values.
  return {
    sql: lines.join('\n'),
    scope: context.scope,
    columns: allKnown ? (groupsBySets(select) ? unstored(columns) : columns) : undefined,
    types: allKnown ? types : undefined,
    outputs: spread.size === 0 ? outputs : new Map([...spread, ...outputs]),
  };
}

function groupsBySets(select: Select): boolean {
  const [kind, node] = variant(select.group_by);
  return kind !== 'All' && node[0].some((expression: Expr) => variant(expression)[0] in groupingForms);
}

/**
 * The one column of `SELECT AS STRUCT a, b AS c` (a STRUCT of the list, as in
 * `ARRAY(SELECT AS STRUCT ...)`) or of `SELECT AS VALUE x` (x itself).
 */
function valueTableSql(select: Select, context: TranslationContext): string {
  const fields = select.projection.map((item) => {
    const [kind, node] = variant(item);
    if (kind === 'ExprWithAlias') return { name: node.alias.value, expr: node.expr };
    if (kind === 'UnnamedExpr') return { expr: node };
    throw unsupported(`SELECT AS ${select.value_table_mode === 'AsValue' ? 'VALUE' : 'STRUCT'} with *`);
  });
  if (select.value_table_mode !== 'AsValue') return `${structValueSql(fields, context)} AS "$struct"`;
  const [only] = fields;
  if (!only || fields.length > 1) throw unsupported('SELECT AS VALUE of more than one column');
  return `${context.expr(only.expr)} AS "$value"`;
}

function outputNames(projection: readonly SelectItem[]): OutputNames {
  const names = new Map<string, { expr: Expr; explicit: boolean }>();
  for (const item of projection) {
    const [kind, node] = variant(item);
    if (kind === 'ExprWithAlias')
      names.set(node.alias.value.toLowerCase(), { expr: node.expr, explicit: true });
  }
  for (const item of projection) {
    const [kind, node] = variant(item);
    if (kind !== 'UnnamedExpr') continue;
    const expr = withoutParentheses(node);
    const name = (compoundParts(expr)?.at(-1) ?? lastFieldName(expr))?.toLowerCase();
    if (name !== undefined && !names.has(name)) names.set(name, { expr, explicit: false });
  }
  return names;
}

/** SELECT DISTINCT of a JSON column fails on BigQuery (JSON is not groupable); DuckDB would compare its text. */
function refuseDistinctJson(projection: readonly SelectItem[], context: TranslationContext): void {
  for (const item of projection) {
    const [kind, node] = variant(item);
    const expression = kind === 'UnnamedExpr' ? node : kind === 'ExprWithAlias' ? node.expr : undefined;
    if (expression !== undefined && isJsonValued(expression, context.valueType))
      throw unsupported(
        "SELECT DISTINCT of a JSON value (BigQuery's JSON is not groupable; use JSON_VALUE, STRING or INT64 of it)",
      );
  }
}

/**
 * GROUP BY names resolve to SELECT-list names first in BigQuery, and to FROM columns first in
 * DuckDB: a name of the SELECT list is replaced by the expression it names.
 */
function groupBySql(select: Select, context: TranslationContext, outputs: OutputNames): string | undefined {
  const [kind, node] = variant(select.group_by);
  // BigQuery's GROUP BY ALL groups by every SELECT item without an aggregate or window function,
  // as DuckDB's does (DuckDB also groups by constants, which changes no group).
  if (kind === 'All') {
    if (Array.isArray(node) && node.length > 0) throw unsupported('GROUP BY ALL with modifiers');
    return 'GROUP BY ALL';
  }
  const [expressions] = node;
  if (expressions.length === 0) return undefined;
  const items = expressions.map((expression) =>
    atNode(expression, () => groupingElementSql(expression, context, outputs)),
  );
  return `GROUP BY ${items.join(', ')}`;
}

const groupingForms: Record<string, string> = {
  Rollup: 'ROLLUP',
  Cube: 'CUBE',
  GroupingSets: 'GROUPING SETS',
};

/**
 * One GROUP BY element: an expression, or ROLLUP, CUBE or GROUPING SETS over lists of them, which
 * DuckDB reads as BigQuery does (the rows of each grouping set, NULL for the columns it leaves
 * out); the names inside resolve to SELECT-list names first, as a plain GROUP BY's do.
 */
function groupingElementSql(expression: Expr, context: TranslationContext, outputs: OutputNames): string {
  const [kind, sets] = variant(expression);
  const form = groupingForms[kind];
  if (form === undefined) {
    const name = bareName(expression)?.value.toLowerCase();
    refuseJsonKey('GROUP BY', (name && outputs.get(name)?.expr) || expression, context.valueType);
    return withAliases(expression, context, outputs);
  }
  const set = (list: Expr[]) => {
    const nested = list.length === 1 ? nestedGrouping(list[0] as Expr) : undefined;
    if (nested)
      return `${nested.form}(${nested.items.map((item) => withAliases(item, context, outputs)).join(', ')})`;
    const items = list.map((item) => withAliases(item, context, outputs));
    return items.length === 1 ? (items[0] as string) : `(${items.join(', ')})`;
  };
  return `${form}(${(sets as Expr[][]).map(set).join(', ')})`;
}

/**
 * `ROLLUP (a, b)` or `CUBE (a, b)` as one set of GROUPING SETS (query-syntax.md, "Group rows by
 * GROUPING SETS": the sets they stand for), which the parser reads as a call: DuckDB nests them
 * as BigQuery does.
 */
function nestedGrouping(expression: Expr): { form: string; items: Expr[] } | undefined {
  const call = (expression as Ast).Function;
  const name = call?.name?.length === 1 ? String(call.name[0]?.Identifier?.value).toUpperCase() : undefined;
  const list = call?.args?.List;
  if ((name !== 'ROLLUP' && name !== 'CUBE') || !list || list.clauses?.length || list.duplicate_treatment)
    return undefined;
  if (call.over || call.filter || call.null_treatment) return undefined;
  const items = (list.args as Ast[]).map((arg) => arg.Unnamed?.Expr as Expr | undefined);
  return items.every((item) => item !== undefined) ? { form: name, items: items as Expr[] } : undefined;
}

/** An expression where a bare name may name a SELECT-list column (GROUP BY, HAVING): that wins. */
function withAliases(expression: Expr, context: TranslationContext, outputs: OutputNames): string {
  const name = bareName(expression)?.value.toLowerCase();
  const output = name === undefined ? undefined : outputs.get(name);
  return context.expr(output?.expr ?? expression);
}

/**
 * HAVING may name SELECT-list columns anywhere in its condition (`HAVING total > 10`), as
 * BigQuery allows: a bare name is replaced as in GROUP BY, and within a larger condition a name
 * that is no column of the FROM clause means the output column, as in QUALIFY.
 */
function havingSql(having: Expr, context: TranslationContext, outputs: OutputNames): string {
  return bareName(having) ? withAliases(having, context, outputs) : withOutputNames(having, context, outputs);
}

/**
 * QUALIFY may name SELECT-list columns (`QUALIFY rank <= 3`), on DuckDB as in BigQuery: a name
 * that is no range variable or column of the FROM clause is left to mean the output column.
 */
function withOutputNames(expression: Expr, context: TranslationContext, outputs: OutputNames): string {
  const { scope } = context;
  const withOutputs = scope.child();
  for (const name of outputs.keys()) {
    if (scope.lookup(name) === undefined && !namedByFromClause(scope, name))
      withOutputs.bind(name, { kind: 'element', alias: name });
  }
  return context.within(withOutputs).expr(expression);
}

/**
 * Whether the FROM clause has a column of this name. One that two joined tables both have
 * (`t1.user_pseudo_id` and `t2.user_pseudo_id`) is the FROM clause's too, however ambiguous: the
 * output column of that name is left unbound, and the condition is refused only if it uses the
 * name (`HAVING COUNT(*) >= 2` over such a join names neither).
 */
function namedByFromClause(scope: TranslationContext['scope'], name: string): boolean {
  try {
    return scope.resolveColumn(name) !== 'unknown';
  } catch {
    return true;
  }
}

/**
 * The field a field access of a computed value ends in (`ARRAY_AGG(...)[OFFSET(0)].a`,
 * `STRUCT(...).address.country`): BigQuery names the column after it, as it names a path after
 * its last part (query-syntax.md, "Implicit aliases"; operators.md, "Field access operator").
 */
function lastFieldName(expression: Expr): string | undefined {
  const chain = (expression as Ast).CompoundFieldAccess?.access_chain as Ast[] | undefined;
  const last = chain?.at(-1)?.Dot?.Identifier?.value;
  return typeof last === 'string' ? last : undefined;
}

/** The output column of an unaliased select-list item: named by its path, or f0_, f1_, ... */
function unnamedItem(
  node: Expr,
  context: TranslationContext,
  nextAnonymous: () => string,
): { sql: string; columns: Column[] | undefined; anonymous?: { type: SqlType | undefined } } {
  const parts = compoundParts(node);
  // An anonymous column: BigQuery's generated name, which no query can refer to.
  if (!parts) {
    const built = builtColumn(node, context);
    const field = lastFieldName(node);
    if (field !== undefined)
      return { sql: `${built.sql} AS ${quoteIdent(field)}`, columns: [passedOn(field, built)] };
    return {
      sql: `${built.sql} AS ${quoteIdent(nextAnonymous())}`,
      columns: [],
      anonymous: { type: built.type },
    };
  }
  const resolved = context.resolveName(parts);
  // BigQuery names the column after the last part; DuckDB would name a path after its
  // last field, which for a bare UNNEST alias (`select request`) is another name, and a
  // field of a computed value (an element taken whole, objectSql) after the whole text.
  const name = parts.at(-1) as string;
  const sql =
    resolved.sql.endsWith(quoteIdent(name)) && !resolved.sql.includes('(')
      ? resolved.sql
      : `${resolved.sql} AS ${quoteIdent(name)}`;
  return { sql, columns: [passedOn(name, resolved)] };
}

/** One select-list item and the output columns it makes (undefined when they are not known). */
function selectItem(
  item: SelectItem,
  context: TranslationContext,
  nextAnonymous: () => string,
): {
  sql: string;
  columns: Column[] | undefined;
  anonymous?: { type: SqlType | undefined };
  /** The columns are the fields of a STRUCT value, spread by `expression.*`. */
  spread?: boolean;
} {
  const [kind, node] = variant(item);
  switch (kind) {
    case 'UnnamedExpr': {
      // Named as the expression inside its parentheses is (withoutParentheses).
      return unnamedItem(withoutParentheses(node), context, nextAnonymous);
    }
    case 'ExprWithAlias': {
      // The decoder leaves a column of that name out of the result (rows.ts, resultColumns).
      if (node.alias.value.toLowerCase() === objectMark)
        throw unsupported(
          `a column named ${objectMark} (the translator's mark of a STRUCT answered as an object)`,
        );
      const parts = compoundParts(node.expr);
      const resolved = parts ? context.resolveName(parts) : builtColumn(node.expr, context);
      return {
        sql: `${resolved.sql} AS ${quoteIdent(node.alias.value)}`,
        columns: [passedOn(node.alias.value, resolved)],
      };
    }
    case 'Wildcard': {
      const options = wildcardOptions(node, context);
      const star = starItems(context.scope);
      if (!star.spread) {
        const joined = context.scope.joinedUsing();
        // EXCEPT and REPLACE change which columns come out, and their types: DuckDB works them out.
        if (joined.length === 0) return { sql: `*${options}`, columns: options ? undefined : star.columns };
        return usingColumnsFirst(joined, star.columns, node, context);
      }
      if (options) throw unsupported('SELECT * with EXCEPT or REPLACE over an UNNEST of STRUCTs');
      return star;
    }
    case 'QualifiedWildcard': {
      // `STRUCT(1 AS a).*`, `(SELECT AS STRUCT ...).*`: the fields of a STRUCT the query builds.
      if ('Expr' in node[0]) return { ...builtFields(node[0].Expr as Expr, node[1], context), spread: true };
      const [, name] = variant(node[0]);
      const parts = name.map((part) => part.Identifier.value);
      const binding = parts.length === 1 ? context.scope.lookup(parts[0] as string) : undefined;
      const options = wildcardOptions(node[1], context);
      if (binding?.kind === 'element' && isStructSqlType(binding.type)) {
        if (options)
          throw unsupported(`SELECT ${parts[0]}.* with EXCEPT or REPLACE over an UNNEST of STRUCTs`);
        return { ...structFields(elementPath(binding), binding.type), spread: true };
      }
      if (binding?.kind === 'object') {
        if (options) throw unsupported(`SELECT ${parts[0]}.* with EXCEPT or REPLACE over a record`);
        return { ...structFields(binding.path, binding.type), spread: true };
      }
      // `l.location.*`, `payload.*`: the fields of a STRUCT column (query-syntax.md, "SELECT
      // expression.*"), not a table's columns.
      if (binding === undefined) {
        const path: Expr =
          parts.length === 1
            ? { Identifier: { value: parts[0] as string } }
            : { CompoundIdentifier: parts.map((value) => ({ value })) };
        return { ...builtFields(path, node[1], context), spread: true };
      }
      const columns =
        binding.kind === 'relation' && binding.columns && !options ? relationColumns(binding) : undefined;
      return { sql: `${parts.map(quoteIdent).join('.')}.*${options}`, columns };
    }
    default:
      throw unsupported(`select item ${kind}`);
  }
}

/**
 * `SELECT *` over `JOIN ... USING (k)`: BigQuery answers the joined columns first, then the
 * others in FROM order (query-syntax.md, "USING clause": `SELECT * FROM Roster INNER JOIN
 * TeamMascot USING (SchoolID)` answers SchoolID, LastName, Mascot); DuckDB's `*` leaves k where
 * the left table has it. The bare k is the one joined column (COALESCEd in a FULL JOIN) in both.
 */
function usingColumnsFirst(
  joined: readonly string[],
  columns: Column[] | undefined,
  options: WildcardOptions,
  context: TranslationContext,
): { sql: string; columns: Column[] | undefined } {
  const isJoined = (name: string) => joined.some((column) => column.toLowerCase() === name.toLowerCase());
  const except = options.opt_except;
  const excepted = except ? [except.first_element, ...(except.additional_elements ?? [])] : [];
  if ((options.opt_replace?.items ?? []).some((item) => isJoined(item.column_name.value)))
    throw unsupported('SELECT * REPLACE of a JOIN ... USING column');
  const first = joined.filter(
    (name) => !excepted.some((other) => other.value.toLowerCase() === name.toLowerCase()),
  );
  const [head, ...tail] = [
    ...joined.map((value) => ({ value })),
    ...excepted.filter((name) => !isJoined(name.value)),
  ];
  const rest = wildcardOptions(
    { ...options, opt_except: { first_element: head as Ident, additional_elements: tail } },
    context,
  );
  const ordered =
    columns && excepted.length === 0 && !options.opt_replace
      ? [
          ...first.map((name) => columns.find((column) => column.name.toLowerCase() === name.toLowerCase())),
          ...columns.filter((column) => !isJoined(column.name)),
        ]
      : undefined;
  return {
    sql: [...first.map(quoteIdent), `*${rest}`].join(', '),
    columns: ordered?.every((column) => column !== undefined) ? (ordered as Column[]) : undefined,
  };
}

/** `* EXCEPT (a, b) REPLACE (expr AS c)`: DuckDB's `* EXCLUDE (...) REPLACE (...)`. */
function wildcardOptions(options: WildcardOptions | undefined, context: TranslationContext): string {
  if (!options) return '';
  if (options.opt_ilike || options.opt_exclude || options.opt_rename)
    throw unsupported('this SELECT * modifier');
  let sql = '';
  const except = options.opt_except;
  if (except) {
    const names = [except.first_element, ...(except.additional_elements ?? [])];
    sql += ` EXCLUDE (${names.map((name) => quoteIdent(name.value)).join(', ')})`;
  }
  const replace = options.opt_replace;
  if (replace) {
    const items = replace.items.map(
      (item) => `${context.expr(item.expr)} AS ${quoteIdent(item.column_name.value)}`,
    );
    sql += ` REPLACE (${items.join(', ')})`;
  }
  return sql;
}

/**
 * What `SELECT *` makes, FROM item by FROM item: a table's columns, an array's element or an
 * UNNEST's offset, and the fields of a STRUCT value table (an UNNEST of STRUCTs, or of a log
 * source's record), as BigQuery's UNNEST docs have it ("For an input array of structs, UNNEST
 * returns a row for each struct, with a separate column for each field"; `SELECT *, s FROM
 * UNNEST(...) AS s` answers the fields and then the STRUCT). DuckDB's `*` would give a lateral
 * join's one STRUCT column and none for a record UNNEST (a path, no FROM item), so with such a
 * value table (`spread`) the list is written out. The columns are undefined when not all are known.
 * A constant CTE is inlined: it adds no columns.
 */
function starItems(scope: Scope): { sql: string; spread: boolean; columns: Column[] | undefined } {
  const items: string[] = [];
  let columns: Column[] | undefined = [];
  let spread = false;
  for (const [, binding] of scope.own()) {
    let made: { sql: string; columns: Column[] | undefined } | undefined;
    if (binding.kind === 'relation') {
      const known = binding.columns && relationColumns(binding).filter((column) => !column.pseudo);
      made = { sql: `${quoteIdent(binding.alias)}.*`, columns: known };
    } else if (binding.kind === 'element' && isStructSqlType(binding.type)) {
      made = structFields(elementPath(binding), binding.type);
    } else if (binding.kind === 'element') {
      made = { sql: quoteIdent(binding.alias), columns: [{ name: binding.alias, type: binding.type }] };
    } else if (binding.kind === 'object') {
      made = structFields(binding.path, binding.type, binding.stored);
    }
    if (!made) continue;
    spread ||= binding.kind === 'object' || (binding.kind === 'element' && isStructSqlType(binding.type));
    if (made.sql !== '') items.push(made.sql);
    columns = columns && made.columns && [...columns, ...made.columns];
  }
  return { sql: items.join(', '), spread, columns };
}

/** `expression.*` of a STRUCT whose fields the translator knows, each read from it by name. */
function builtFields(
  expression: Expr,
  options: WildcardOptions | undefined,
  context: TranslationContext,
): { sql: string; columns: Column[] } {
  const type = context.valueType(expression);
  if (!isStructSqlType(type)) throw unsupported('expression.* of a value whose fields are not known');
  if (wildcardOptions(options, context)) throw unsupported('expression.* with EXCEPT or REPLACE');
  return structFields(`(${context.expr(expression)})`, type);
}

/** The fields of a STRUCT value (DuckDB SQL) as columns named after them, read from it by name. */
function structFields(
  value: string,
  type: StructSqlType,
  stored?: boolean,
): { sql: string; columns: Column[] } {
  const fields = Object.entries(type.struct);
  return {
    sql: fields.map(([field]) => `${value}.${quoteIdent(field)} AS ${quoteIdent(field)}`).join(', '),
    columns: fields.map(([name, fieldType]) => ({ name, type: fieldType, ...(stored ? { stored } : {}) })),
  };
}

/** A relation's columns as a SELECT passes them on: stored only where read from rows it holds. */
function relationColumns(binding: Binding & { kind: 'relation' }): Column[] {
  return [...(binding.columns?.values() ?? [])].map((column) => {
    const { stored, neverNull } = storedColumn(binding, column);
    return { ...column, stored, notNull: neverNull };
  });
}

/** A column the SELECT computes (a STRUCT it builds carries its own mark, see built-structs.ts). */
function builtColumn(expression: Expr, context: TranslationContext): Resolved {
  const known = context.valueType(expression);
  // A computed NUMERIC (SUM(total)) or INT64 (COUNT(*)) keeps its number type for the query
  // around, whose `/` and AVG of it are then NUMERIC as BigQuery has them (numeric-division.ts).
  const type =
    known === undefined || known === unknownType
      ? (computedNumberType(expression, context.columnType) ?? known)
      : known;
  return { sql: context.expr(expression), type };
}

/** The output column of a select item that is a name: a stored one stays stored (Column.stored). */
function passedOn(name: string, resolved: Resolved): Column {
  return { name, type: resolved.type, stored: resolved.stored, notNull: resolved.neverNull };
}
