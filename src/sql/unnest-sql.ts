import { compoundParts, type Expr, type JoinConstraint, type TableFactor, type Unnest } from './ast.js';
import { type Ast, numberLiteral } from './bigquery-ast.js';
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
import type { Resolved, Scope } from './unnest-scope.js';
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
  const type = context.valueType(array as Ast);
  return { sql: context.expr(array), type: isListSqlType(type) ? type : undefined };
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

/** `GENERATE_ARRAY` of integer literals, which the generate_series table function makes alike. */
function isIntegerSeries(array: Expr): boolean {
  const call = (array as Ast).Function;
  const name =
    Array.isArray(call?.name) && call.name.length === 1 ? call.name[0]?.Identifier?.value : undefined;
  if (String(name).toLowerCase() !== 'generate_array') return false;
  const args: Ast[] = call.args?.List?.args ?? [];
  return args.every((arg) => Number.isInteger(numberLiteral(arg?.Unnamed?.Expr)));
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
