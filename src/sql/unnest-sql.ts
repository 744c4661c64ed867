import { compoundParts, type Expr, type JoinConstraint, type TableFactor, type Unnest } from './ast.js';
import { type Ast, calledName, integerLiteral } from './bigquery-ast.js';
import type { ImpliedFilters } from './record-presence.js';
import {
  elementOf,
  isListSqlType,
  isStructSqlType,
  quoteIdent,
  type SqlType,
  unknownType,
} from './table-schema.js';
import type { TranslationContext } from './translation-context.js';
import type { Binding, Resolved, Scope } from './unnest-scope.js';
import { unsupported } from './unsupported.js';

/**
 * `JOIN UNNEST(x) AS a [ON condition]`. Over an object (a STRUCT in the store), the alias becomes
 * a path and the join disappears: CROSS JOIN keeps its meaning through an `x IS NOT NULL` filter
 * (and an inner join's condition becomes a filter too), LEFT JOIN ... ON TRUE needs none. Over an
 * array it stays a lateral join. See unnest-scope.ts for why.
 *
 * A condition on an array (`LEFT JOIN UNNEST(event_params) AS p ON p.key = 'ga_session_id'`)
 * keeps, for each row, the elements that meet it; a LEFT join keeps a row none meets with a NULL
 * element, as BigQuery does. It filters the elements inside the lateral subquery, because DuckDB
 * accepts only a comparison of both sides as the ON of an outer lateral join, and BigQuery's
 * condition may name one side only (or be any expression).
 */
export function joinUnnestSql(
  unnest: Unnest,
  operator: string,
  constraint: JoinConstraint | undefined,
  context: TranslationContext,
  implied: ImpliedFilters,
): string {
  const alias = unnestAlias(unnest, context);
  const array = unnest.array_exprs[0] as Expr;
  const isLeft = operator === 'Left' || operator === 'LeftOuter';
  const isInner = operator === 'CrossJoin' || operator === 'Inner' || operator === 'Join';
  if (!isLeft && !isInner) throw unsupported(`${operator} JOIN UNNEST`);
  const condition = joinCondition(constraint);
  const parts = compoundParts(array);
  const target = unnestTarget(array, context);
  if (isStructSqlType(target.type)) {
    if (unnest.with_offset) throw unsupported('UNNEST ... WITH OFFSET over a record');
    // A LEFT join's condition would have to turn the record's fields NULL where it fails,
    // which a path cannot do.
    if (isLeft && condition) throw unsupported('LEFT JOIN UNNEST of a record with an ON condition');
    // The alias is an element of the repeated record: its fields are read.
    context.scope.bind(alias, {
      kind: 'object',
      path: target.sql,
      type: elementOf(target.type),
      stored: target.stored,
    });
    // A record every row of its table has drops no row: no filter, and none for DuckDB to read
    // the record's every field for.
    if (isInner && !(target.stored && target.type.present)) implied.present.push(target.sql);
    if (condition) implied.conditions.push(context.expr(condition));
    return '';
  }
  if (typeof target.type === 'string' && target.type !== unknownType)
    throw unsupported(`UNNEST of ${parts?.join('.') ?? 'a value'}, which is a ${target.type}, not an array`);
  context.scope.bind(alias, { kind: 'element', alias, type: listElement(target.type) });
  const offset = bindOffset(unnest, context.scope);
  let lateral = unnestElements(target.sql, alias, offset, array);
  if (condition) {
    const columns = [alias, ...(offset === undefined ? [] : [offset])].map(quoteIdent).join(', ');
    lateral = `LATERAL (SELECT * FROM ${lateral} WHERE ${context.expr(condition)}) AS ${quoteIdent(alias)}(${columns})`;
  }
  return isInner ? `\nCROSS JOIN ${lateral}` : `\nLEFT JOIN ${lateral} ON TRUE`;
}

/** `FROM UNNEST(array) AS a` as the first FROM item. */
export function arrayUnnestSql(unnest: Unnest, context: TranslationContext): string {
  const alias = unnestAlias(unnest, context);
  const array = unnest.array_exprs[0] as Expr;
  const target = unnestTarget(array, context);
  if (isStructSqlType(target.type)) throw unsupported('FROM UNNEST of a record with nothing before it');
  context.scope.bind(alias, { kind: 'element', alias, type: listElement(target.type) });
  return unnestElements(target.sql, alias, bindOffset(unnest, context.scope), array);
}

/**
 * `FROM t, t.metadata AS m` (or `JOIN t.metadata AS m`): BigQuery reads a FROM item that is a path
 * from a range variable in scope as an implicit UNNEST of that path. Returned as the UNNEST node it
 * stands for, or undefined for a table name.
 */
export function arrayPathUnnest(relation: TableFactor, scope: Scope): Unnest | undefined {
  if (!('Table' in relation)) return undefined;
  const table = relation.Table;
  const [head, ...rest] = table.name;
  if (head === undefined || rest.length === 0 || !scope.lookup(head.Identifier.value)) return undefined;
  const path = { CompoundIdentifier: table.name.map((part) => part.Identifier) };
  return { alias: table.alias, array_exprs: [path], with_offset: false, with_ordinality: false };
}

/**
 * What an UNNEST reads: a name as the scope resolves it, or an expression, typed where it is an
 * array whose element type is known (an array literal of STRUCTs: its value table's fields are
 * then columns, as a stored array of records' are).
 */
function unnestTarget(array: Expr, context: TranslationContext): Resolved {
  const parts = compoundParts(array);
  if (parts) return context.resolveName(parts);
  const record = recordOrEmpty(array, context);
  if (record) return record;
  const type = context.valueType(array as Ast);
  return { sql: context.expr(array), type: isListSqlType(type) ? type : undefined };
}

/**
 * `UNNEST(COALESCE(record, []))` (or IFNULL): BigQuery's guard against a NULL repeated record,
 * which Studio's unified logs write for the gateway's JWT records (ServiceFlow.sql.ts). UNNEST of
 * a NULL array already yields no rows, so it is the record's own UNNEST; the store keeps the
 * record as a STRUCT, which DuckDB cannot COALESCE with an empty list.
 */
function recordOrEmpty(array: Expr, context: TranslationContext): Resolved | undefined {
  const name = calledName(array as Ast);
  if (name !== 'coalesce' && name !== 'ifnull') return undefined;
  const args = ((array as Ast).Function.args?.List?.args ?? []).map((arg: Ast) => arg?.Unnamed?.Expr as Ast);
  const [first, second] = args;
  if (args.length !== 2 || !first || second?.Array?.elem?.length !== 0) return undefined;
  const parts = compoundParts(first as Expr);
  if (!parts) return undefined;
  const resolved = context.resolveName(parts);
  return isStructSqlType(resolved.type) ? resolved : undefined;
}

/** `WITH OFFSET [AS o]`: binds the offset column (an INT64) and returns its name. */
function bindOffset(unnest: Unnest, scope: Scope): string | undefined {
  // BigQuery's default name for the offset column is `offset`.
  const name = unnest.with_offset ? (unnest.with_offset_alias?.value ?? 'offset') : undefined;
  if (name !== undefined) scope.bind(name, { kind: 'element', alias: name, type: 'BIGINT' });
  return name;
}

function unnestAlias(unnest: Unnest, context: TranslationContext): string {
  if (unnest.with_ordinality) throw unsupported('UNNEST ... WITH ORDINALITY');
  if (unnest.array_exprs.length !== 1) throw unsupported('UNNEST of several arrays');
  const alias = unnest.alias?.name?.value;
  if (alias) return alias;
  // Without an alias, BigQuery names the value table after the last part of its path.
  const array = unnest.array_exprs[0] as Expr;
  const parts = compoundParts(array);
  if (parts) return parts.at(-1) as string;
  // An array of STRUCTs needs no name: its fields are the columns (`SELECT * FROM UNNEST([STRUCT(
  // 'a' AS k, 1 AS v), ...])`, an inline table). The name given here is one no query can write.
  const type = context.valueType(array as Ast);
  if (isListSqlType(type) && isStructSqlType(type.list)) return `(unnest ${context.scope.own().length + 1})`;
  throw unsupported('UNNEST of an expression without an alias');
}

/**
 * The lateral FROM item of an UNNEST over an array. WITH OFFSET numbers the elements from 0 in
 * BigQuery; generate_subscripts runs beside unnest in step and counts from 1.
 */
function unnestElements(array: string, alias: string, offset: string | undefined, source: Expr): string {
  const name = quoteIdent(alias);
  // The rows themselves, made as they are read: DuckDB folds a constant generate_series list
  // into one value while it plans, about 180 bytes and 2.6 us an element outside its memory
  // limit (GENERATE_ARRAY(1, 1000000): 2.6 s and 180 MiB before the first row).
  if (offset === undefined && isIntegerSeries(source)) return `${array} AS ${name}(${name})`;
  if (offset === undefined) return `unnest(${array}) AS ${name}(${name})`;
  const offsetName = quoteIdent(offset);
  return `LATERAL (SELECT unnest(${array}) AS ${name}, generate_subscripts(${array}, 1) - 1 AS ${offsetName}) AS ${name}(${name}, ${offsetName})`;
}

/**
 * `GENERATE_ARRAY` of integer literals and a step other than 0 (an error, rules/array.ts), which
 * the generate_series table function makes alike.
 */
function isIntegerSeries(array: Expr): boolean {
  const call = (array as Ast).Function;
  const name =
    Array.isArray(call?.name) && call.name.length === 1 ? call.name[0]?.Identifier?.value : undefined;
  if (String(name).toLowerCase() !== 'generate_array') return false;
  const args: Ast[] = call.args?.List?.args ?? [];
  const numbers = args.map((arg) => integerLiteral(arg?.Unnamed?.Expr));
  return numbers.every((value) => value !== undefined) && numbers[2] !== 0;
}

/** The element type of a LIST type; undefined when the type is not known to be one. */
function listElement(type: SqlType | undefined): SqlType | undefined {
  return isListSqlType(type) ? type.list : undefined;
}

/**
 * The ON condition of a JOIN UNNEST; undefined for none or ON TRUE. BigQuery joins an UNNEST of
 * the row's own array without a condition (`LEFT JOIN UNNEST(a) AS x` keeps rows whose array is
 * empty), which is ON TRUE.
 */
function joinCondition(constraint: JoinConstraint | undefined): Expr | undefined {
  if (constraint === undefined || (constraint as unknown) === 'None') return undefined;
  if (typeof constraint !== 'object' || !('On' in constraint))
    throw unsupported('JOIN UNNEST with USING or NATURAL');
  const on = constraint.On;
  const value = 'Value' in on ? on.Value.value : undefined;
  return typeof value === 'object' && 'Boolean' in value && value.Boolean === true ? undefined : on;
}

/**
 * An UNNEST of an array of the FROM's first table, or of an element's array before it
 * (arrayUnnests): the array as a select-list unnest reads it, and its range variables, the
 * element and WITH OFFSET's number, bound to that unnest's columns.
 */
export interface ArrayUnnest {
  /** Undefined for an expression or a parameter, which stays a lateral join. */
  readonly array: string | undefined;
  readonly element: SelectListColumn;
  readonly offset?: SelectListColumn | undefined;
}

/** A range variable of an ArrayUnnest, and the column (`x (element)`) a select-list unnest makes. */
interface SelectListColumn {
  readonly alias: string;
  readonly column: string;
  readonly binding: Binding & { readonly kind: 'element' };
}

/**
 * Whether `unnests`, the rest of a FROM after the table `rangeName` (bound in the scope), are all
 * UNNESTs of its arrays: each a path (of the table, or of an element before it) whose type is
 * known to be a list, or an expression or a parameter under an alias (an array or an error, never a
 * record: joinUnnestSql); undefined, with nothing bound, when one is not. The one test of "a table
 * joined only to UNNESTs of its arrays": from-clause.ts moves the WHERE's terms on the table's own
 * columns before them, and under a WHERE writes them as select-list unnests (selectListUnnestsSql).
 * An UNNEST over a log source's repeated record is field access, no join (joinUnnestSql): not one.
 */
export function arrayUnnests(
  rangeName: string,
  unnests: readonly Unnest[],
  context: TranslationContext,
): ArrayUnnest[] | undefined {
  const inner = context.within(context.scope.child());
  const column = (alias: string, name: string, type: SqlType | undefined): SelectListColumn => {
    const binding = {
      kind: 'element',
      alias,
      type,
      column: `${quoteIdent(rangeName)}.${quoteIdent(name)}`,
    } as const;
    inner.scope.bind(alias, binding);
    return { alias, column: name, binding };
  };
  const found: ArrayUnnest[] = [];
  for (const unnest of unnests) {
    const array = unnest.array_exprs[0] as Expr | undefined;
    if (unnest.with_ordinality || unnest.array_exprs.length !== 1 || !array) return undefined;
    const parts = compoundParts(array);
    const path = parts?.[0]?.startsWith('@') ? undefined : parts;
    // Without an alias an expression's STRUCT fields would be names of their own.
    const alias = unnest.alias?.name?.value ?? path?.at(-1);
    if (alias === undefined) return undefined;
    let target: Resolved | undefined;
    try {
      target = path && inner.resolveName(path);
    } catch {
      // The lateral join the UNNEST stays refuses it, with its own words.
      return undefined;
    }
    if (path && !isListSqlType(target?.type)) return undefined;
    const type = target?.type;
    const offset = unnest.with_offset ? (unnest.with_offset_alias?.value ?? 'offset') : undefined;
    found.push({
      array: target?.sql,
      element: column(alias, `${alias} (element)`, isListSqlType(type) ? type.list : undefined),
      offset: offset === undefined ? undefined : column(offset, `${offset} (offset)`, 'BIGINT'),
    });
  }
  return found;
}

/** The range variables of `unnests`: their elements' aliases, and WITH OFFSET's. */
export function unnestNames(unnests: readonly ArrayUnnest[]): Set<string> {
  return new Set(
    unnests.flatMap(({ element, offset }) =>
      [element, ...(offset ? [offset] : [])].map(({ alias }) => alias.toLowerCase()),
    ),
  );
}

/** An UNNEST of the FROM table's array (arrayUnnests): LEFT keeps a row whose array is empty or NULL. */
export interface JoinedUnnest {
  readonly unnest: ArrayUnnest;
  readonly left: boolean;
}

/**
 * `t [CROSS | LEFT] JOIN UNNEST(t.a) AS x [WITH OFFSET AS o] ...` as select-list unnests, one
 * subselect each, all under t's range name: `(SELECT "t".*, unnest("t"."a") AS "x (element)" FROM
 * t AS "t") AS "t"`, the element read as `"t"."x (element)"`. Each array is a path of t's, as
 * arrayUnnests found them; undefined, with nothing bound, when one is an expression or a parameter,
 * or when a column name made would be one of t's. With a filter above a lateral join of unnest(t.a) DuckDB plans a dependent join that
 * hashes every row's whole list to join the elements back; a select-list unnest is one pass
 * (GA4's `WHERE p.key = 'page_location'`: 3.3 s of CPU against 0.16 s over 1M events, same
 * rows). The rows are the same: DuckDB's select-list unnest of an empty or NULL list makes no
 * row, as a CROSS JOIN UNNEST does; for a LEFT join an empty or NULL array is unnested as
 * [NULL], one row with the element and its offset NULL. Two unnests in one select list would run
 * in step, so each has its own subselect, a cross product as BigQuery's.
 */
export function selectListUnnestsSql(
  table: string,
  rangeName: string,
  columns: ReadonlyMap<string, unknown>,
  joins: readonly JoinedUnnest[],
  context: TranslationContext,
): string | undefined {
  const range = quoteIdent(rangeName);
  const paths = joins.flatMap(({ unnest, left }) =>
    unnest.array === undefined ? [] : [{ unnest, array: unnest.array, left }],
  );
  if (paths.length < joins.length) return undefined;
  const names = new Set([...columns.keys()].map((name) => name.toLowerCase()));
  const made = joins.flatMap(({ unnest }) => [unnest.element, ...(unnest.offset ? [unnest.offset] : [])]);
  for (const { column } of made) {
    if (names.has(column.toLowerCase())) return undefined;
    names.add(column.toLowerCase());
  }
  const levels = paths.map(({ unnest, array, left }) => {
    // LEFT: an empty or NULL array gives one row, its element and offset NULL.
    const orNull = (list: string) =>
      left ? `CASE WHEN len(${array}) > 0 THEN ${list} ELSE [NULL] END` : list;
    const items = [`unnest(${orNull(array)}) AS ${quoteIdent(unnest.element.column)}`];
    // Unnested beside the elements, in step with them: BigQuery numbers them from 0.
    if (unnest.offset)
      items.push(`unnest(${orNull(`range(len(${array}))`)}) AS ${quoteIdent(unnest.offset.column)}`);
    return items.join(', ');
  });
  for (const { alias, binding } of made) context.scope.bind(alias, binding);
  return levels.reduce((from, items) => `(SELECT ${range}.*, ${items} FROM ${from}) AS ${range}`, table);
}
