import { QuerygateError } from '../errors.js';
import { compoundParts, type Expr, type Payload, type Value } from './ast.js';
import { type Ast, calledName, stringLiteral, variant } from './bigquery-ast.js';
import { builtStructSql, objectSql } from './built-structs.js';
import { constantRowFieldSql } from './constant-row-field.js';
import { callSql, functionCallSql } from './function-call.js';
import { quantileAt } from './function-rules.js';
import { intervalRangeSql } from './interval-literal.js';
import { jsonNumberFault } from './json-numbers.js';
import { isJsonType, isJsonValued, jsonSubscriptSql, jsonType } from './json-values.js';
import { bareName, computedRowType } from './names.js';
import { isNumericCombination, numericQuotientSql } from './numeric-division.js';
import { raiseSql } from './raised-errors.js';
import { recordElementType, recordSubscriptSql } from './repeated-records.js';
import { checkedDivisor } from './rules/math.js';
import { hasNullElement, quoteString } from './rules/rule.js';
import { civilOf, datetimeOf, extract, rangeChecked } from './rules/time.js';
import { bytesOfLiteral } from './string-escapes.js';
import {
  elementOf,
  isListSqlType,
  isStructSqlType,
  quoteIdent,
  type SqlType,
  structField,
  unknownType,
} from './table-schema.js';
import type { TranslationContext } from './translation-context.js';
import { typedStructArray } from './typed-struct-arrays.js';
import { arraySubqueryType, unnestLookupSql, unnestLookupType } from './unnest-lookup.js';
import { followFields, type Resolved } from './unnest-scope.js';
import { atNode, unsupported } from './unsupported.js';
import {
  anonymousField,
  castSql,
  listSubscriptSql,
  structArraySql,
  structArrayType,
  structSql,
  typedArraySql,
  valueKind,
} from './value-forms.js';

const binaryOperators: Record<string, string> = {
  Eq: '=',
  NotEq: '<>',
  Lt: '<',
  LtEq: '<=',
  Gt: '>',
  GtEq: '>=',
  And: 'AND',
  Or: 'OR',
  Plus: '+',
  Minus: '-',
  Multiply: '*',
  Divide: '/',
  Modulo: '%',
  StringConcat: '||',
  BitwiseAnd: '&',
  BitwiseOr: '|',
};

/**
 * BigQuery's JSON is neither comparable nor a number: `json_payload.message = 'x'` (Log
 * Analytics' _AllLogs) fails there with "No matching signature for operator = for argument types:
 * JSON, STRING" (https://cloud.google.com/bigquery/docs/reference/standard-sql/data-types, JSON:
 * not comparable, orderable or groupable). DuckDB would compare JSON text, or fail at run time
 * casting 'x' to JSON, so the operator is refused at load, naming what reads a scalar.
 */
function refuseJsonOperand(op: string, operands: readonly Ast[], context: TranslationContext): void {
  if (!operands.some((operand) => isJsonValued(operand, context.valueType))) return;
  const symbol = binaryOperators[op] === '<>' ? '!=' : (binaryOperators[op] ?? op);
  throw unsupported(
    `operator ${symbol} on a JSON value (BigQuery's JSON is not comparable; read a scalar first with JSON_VALUE, STRING, INT64 or BOOL)`,
  );
}

const unaryOperators: Record<string, string> = { Not: 'NOT ', Minus: '-', Plus: '+' };

/** How refusals name the expression forms that have no rule, in the words of the SQL text. */
const expressionNames: Record<string, string> = {
  AtTimeZone: 'AT TIME ZONE outside EXTRACT(... AT TIME ZONE ...)',
  Collate: 'COLLATE',
  IsUnknown: 'IS UNKNOWN',
  IsNotUnknown: 'IS NOT UNKNOWN',
  Position: 'POSITION(... IN ...)',
  SimilarTo: 'SIMILAR TO',
  RLike: 'RLIKE',
  AnyOp: 'ANY (...)',
  AllOp: 'ALL (...)',
  Lambda: 'lambda expressions',
  Dictionary: 'dictionary literals',
  Map: 'MAP literals',
};

const intervalUnits = new Set([
  'Microsecond',
  'Millisecond',
  'Second',
  'Minute',
  'Hour',
  'Day',
  'Week',
  'Month',
  'Quarter',
  'Year',
]);

/**
 * An expression in the context's scope. Names go to names.ts, function calls to their rules
 * (function-call.ts), casts, structs and subscripts to value-forms.ts; the rest is here.
 */
export function expressionSql(expression: Expr, context: TranslationContext): string {
  return atNode(expression, () => expressionAt(expression, context));
}

function expressionAt(expression: Expr, context: TranslationContext): string {
  const expr = context.expr;
  const [kind, node] = variant(expression);
  switch (kind) {
    case 'Identifier':
      return context.resolveName([node.value]).sql;
    case 'CompoundIdentifier':
      return context.resolveName(node.map((part) => part.value)).sql;
    case 'Value':
      return literal(node.value);
    case 'BinaryOp': {
      refuseJsonOperand(node.op, [node.left, node.right], context);
      // `^` is XOR in BigQuery and a power in DuckDB.
      if (node.op === 'BitwiseXor') return `xor(${expr(node.left)}, ${expr(node.right)})`;
      const typedArray = typedArraySql(node, context);
      if (typedArray !== undefined) return typedArray;
      const structArray = typedStructArray(expression);
      if (structArray) {
        const { elements, empty } = structArray;
        // An empty one of the declared element type: DuckDB types `[]` as a list of NULLs.
        if (elements.length === 0) return `${expr({ Array: { elem: [empty], named: false } })}[1:0]`;
        return expr({ Array: { elem: elements, named: false } });
      }
      if (node.op === 'Divide') {
        const divisor = checkedDivisor(expr(node.right));
        if (isNumericCombination(node.left, node.right, context.columnType))
          return numericQuotientSql(expr(node.left), divisor);
        return `${expr(node.left)} / ${divisor}`;
      }
      const difference = datetimeDifferenceSql(node, context);
      if (difference !== undefined) return difference;
      const operator = binaryOperators[node.op];
      if (!operator) throw unsupported(`operator ${node.op}`);
      const sql = `${expr(node.left)} ${operator} ${expr(node.right)}`;
      const civil = isCivilIntervalArithmetic(node, context);
      const moved = civil ? 'datetime' : movedKind(node, context);
      // A DATE or DATETIME moved as a civil TIMESTAMP (see datetimeOf).
      const side = (operand: Expr) => ('Interval' in operand ? expr(operand) : civilOf(expr(operand)));
      // As DATE_ADD and TIMESTAMP_ADD (rules/time.ts): past BigQuery's range is an error.
      return moved
        ? rangeChecked(
            moved,
            civil ? datetimeOf(`${side(node.left)} ${operator} ${side(node.right)}`) : sql,
            raiseSql(
              quoteString(
                `${moved.toUpperCase()} ${operator} ${moved === 'date' ? 'INT64' : 'INTERVAL'} result is out of the ${moved.toUpperCase()} range (0001-01-01 to 9999-12-31)`,
              ),
            ),
          )
        : sql;
    }
    case 'UnaryOp': {
      if (!unaryOperators[node.op]) throw unsupported(`operator ${node.op}`);
      return `${unaryOperators[node.op]}(${expr(node.expr)})`;
    }
    case 'Nested':
      return `(${expr(node)})`;
    case 'IsNull':
      return `${expr(node)} IS NULL`;
    case 'IsNotNull':
      return `${expr(node)} IS NOT NULL`;
    case 'IsTrue':
      return `${expr(node)} IS TRUE`;
    case 'IsFalse':
      return `${expr(node)} IS FALSE`;
    case 'InList':
      refuseJsonOperand('IN', [node.expr, ...node.list], context);
      return `${expr(node.expr)}${node.negated ? ' NOT' : ''} IN (${node.list.map((item) => expr(item)).join(', ')})`;
    case 'InSubquery':
      return `${expr(node.expr)}${node.negated ? ' NOT' : ''} IN (${context.queryWithColumns(node.subquery).sql})`;
    case 'Between':
      refuseJsonOperand('BETWEEN', [node.expr, node.low, node.high], context);
      return `${expr(node.expr)}${node.negated ? ' NOT' : ''} BETWEEN ${expr(node.low)} AND ${expr(node.high)}`;
    case 'Like': {
      if (node.escape_char) throw unsupported('LIKE ... ESCAPE');
      const quantified = quantifiedPatterns(node);
      if (quantified) return quantifiedLikeSql(node, quantified, context);
      return likeSql(expr(node.expr), expr(node.pattern), node.negated);
    }
    case 'Case':
      return caseSql(node, context);
    case 'Cast':
      return castSql(node, context);
    case 'TypedString':
      // `JSON '{"a": 1}'`: BigQuery keeps the value in its normal form, as DuckDB's json() does.
      if (node.data_type === 'JSON') {
        // BigQuery refuses the literal when it resolves the query (resolver_expr.cc), so it is
        // refused at load, in its words.
        const fault = jsonNumberFault(stringLiteral({ Value: node.value }) ?? '');
        if (fault) throw unsupported(`a JSON literal BigQuery refuses (Invalid JSON literal: ${fault})`);
        return `json(${expr({ Value: node.value })})`;
      }
      return castSql({ kind: 'Cast', expr: { Value: node.value }, data_type: node.data_type }, context);
    case 'Function':
      return functionCallSql(node, context);
    case 'CompoundFieldAccess':
      return fieldAccessSql(node, context);
    case 'Interval':
      return intervalSql(node, context);
    case 'Array':
      return structArraySql(node.elem, context) ?? `[${node.elem.map((item) => expr(item)).join(', ')}]`;
    case 'Subquery':
      return unnestLookupSql(node, context) ?? `(\n${context.query(node)}\n)`;
    case 'Exists':
      return `${node.negated ? 'NOT ' : ''}EXISTS (\n${context.query(node.subquery)}\n)`;
    case 'IsDistinctFrom':
    case 'IsNotDistinctFrom':
      return `${expr(node[0])} IS${kind === 'IsNotDistinctFrom' ? ' NOT' : ''} DISTINCT FROM ${expr(node[1])}`;
    // `x IN UNNEST(array)` keeps IN's NULL rules through a subquery over the elements.
    case 'InUnnest':
      return `${expr(node.expr)}${node.negated ? ' NOT' : ''} IN (SELECT unnest(${expr(node.array_expr)}))`;
    case 'Substring':
      return callSql('substr', [node.expr, node.substring_from, node.substring_for].filter(Boolean), context);
    case 'Ceil':
    case 'Floor':
      if (node.field?.DateTimeField !== 'NoDateTime')
        throw unsupported(`${kind.toUpperCase()} TO a date part`);
      return callSql(kind.toLowerCase(), [node.expr], context);
    case 'Trim':
      if (node.trim_where) throw unsupported('TRIM(BOTH/LEADING/TRAILING ...)');
      return callSql('trim', [node.expr, ...(node.trim_characters ?? [])], context);
    case 'Extract': {
      const [field, payload] = variant(node.field);
      const at = 'AtTimeZone' in node.expr ? node.expr.AtTimeZone : undefined;
      refuseStringParameter(at ? at.timestamp : node.expr, field, context);
      const read = expr(at ? at.timestamp : node.expr);
      // A DATETIME's parts read off its civil TIMESTAMP, without ICU's calendar (see datetimeOf).
      const value = !at && valueKind(node.expr, context) === 'datetime' ? civilOf(read) : read;
      const zone = at ? { sql: expr(at.time_zone), literal: stringLiteral(at.time_zone) } : undefined;
      return extract(field, value, zone, field === 'Week' && payload ? String(payload.value) : undefined);
    }
    // STRUCT(1 AS a, 'x' AS b), STRUCT<a INT64>(1) and (1, 'x').
    case 'Struct':
      return structSql(node, context);
    // A tuple is a STRUCT of anonymous fields.
    case 'Tuple':
      return builtStructSql(node.map((item, i) => ({ name: anonymousField(i), sql: expr(item) })));
    default:
      throw unsupported(expressionNames[kind] ?? `expression ${kind}`);
  }
}

/**
 * EXTRACT of a STRING parameter, which BigQuery refuses ("No matching signature for function
 * EXTRACT for argument types: DATE_TIME_PART FROM STRING") and DuckDB cannot bind: refused when
 * the query is loaded, naming the parameter and the types EXTRACT takes.
 */
function refuseStringParameter(operand: Expr, field: string, context: TranslationContext): void {
  const name = (operand as { Identifier?: { value?: unknown } }).Identifier?.value;
  if (typeof name !== 'string' || !name.startsWith('@') || context.parameterTypes === undefined) return;
  const type = context.parameterTypes[name.slice(1)] ?? 'STRING';
  if (type !== 'STRING') return;
  const part = field.toUpperCase();
  const reason = `EXTRACT(${part} FROM ${name}): ${name} is a STRING parameter, and EXTRACT takes a DATE, DATETIME, TIME, TIMESTAMP or INTERVAL; declare ${name.slice(1)} with \`type: timestamp\` in the contract, or write EXTRACT(${part} FROM DATE(${name}))`;
  throw new QuerygateError('UNSUPPORTED_SQL', reason, {
    details: { construct: 'EXTRACT of a STRING parameter', reason },
  });
}

/** `value [NOT] LIKE pattern`. A backslash escapes %, _ and itself in BigQuery's LIKE; DuckDB's has no escape unless told. */
function likeSql(value: string, pattern: string, negated: boolean): string {
  return `${value}${negated ? ' NOT' : ''} LIKE ${pattern} ESCAPE '\\'`;
}

/** The quantifier and patterns of `[NOT] LIKE ANY|SOME|ALL (...)` or `LIKE ANY UNNEST(array)`. */
interface QuantifiedPatterns {
  readonly quantifier: 'any' | 'all';
  readonly list?: readonly Expr[];
  readonly array?: Expr;
}

/**
 * How sqlparser gives a quantified LIKE: `LIKE ANY (a, b)` as `any` with a tuple (one pattern:
 * nested), `LIKE ANY UNNEST(x)` as `any` with a call of UNNEST, and `LIKE ALL (...)`, `[NOT] LIKE
 * SOME (...)` as a call of ALL or SOME (reserved words in BigQuery, so never a function of the
 * query's). Undefined for a plain LIKE.
 */
function quantifiedPatterns(node: Payload<'Like'>): QuantifiedPatterns | undefined {
  const pattern = node.pattern as Ast;
  if (node.any) {
    if (pattern.Tuple) return { quantifier: 'any', list: pattern.Tuple };
    if (pattern.Nested) return { quantifier: 'any', list: [pattern.Nested] };
    if (calledName(pattern) === 'unnest') {
      const array = pattern.Function.args?.List?.args?.[0]?.Unnamed?.Expr;
      if (!array || pattern.Function.args.List.args.length !== 1)
        throw unsupported('LIKE ANY UNNEST of several arrays');
      return { quantifier: 'any', array };
    }
    throw unsupported('LIKE ANY of a subquery');
  }
  const quantifier = calledName(pattern);
  if (quantifier !== 'all' && quantifier !== 'some' && quantifier !== 'any') return undefined;
  if (pattern.Function.name[0]?.Identifier?.quote_style) return undefined;
  const list = (pattern.Function.args?.List?.args ?? []).map((arg: Ast) => arg?.Unnamed?.Expr as Expr);
  if (list.length === 0 || list.some((item: Expr | undefined) => item === undefined))
    throw unsupported(`LIKE ${quantifier.toUpperCase()} of a subquery`);
  return { quantifier: quantifier === 'all' ? 'all' : 'any', list };
}

/**
 * The quantified LIKE by the rules of BigQuery's operator docs ("Semantics rules", in this order):
 * NULL for a NULL value; TRUE when the value matches some (ANY) or every (ALL) pattern (NOT LIKE:
 * fails to match some, or every, one); NULL when a pattern is NULL; otherwise FALSE. Over an
 * empty array, ANY is FALSE and NOT LIKE ANY is TRUE, which the rules put first.
 */
function quantifiedLikeSql(
  node: Payload<'Like'>,
  { quantifier, list, array }: QuantifiedPatterns,
  context: TranslationContext,
): string {
  const value = context.expr(node.expr);
  const negated = node.negated;
  if (array !== undefined) {
    const patterns = context.expr(array);
    const name = quoteIdent('$pattern');
    const matching = `len(list_filter(${patterns}, ${name} -> (${likeSql(value, name, negated)}) IS TRUE)) > 0`;
    const nullPattern = hasNullElement(patterns);
    return `(CASE WHEN coalesce(len(${patterns}), 0) = 0 THEN ${negated ? 'TRUE' : 'FALSE'} WHEN ${value} IS NULL THEN NULL WHEN ${matching} THEN TRUE WHEN ${nullPattern} THEN NULL ELSE FALSE END)`;
  }
  const patterns = (list ?? []).map((item) => context.expr(item));
  const terms = patterns.map((pattern) => likeSql(value, pattern, negated));
  const held = terms.join(quantifier === 'any' ? ' OR ' : ' AND ');
  const nullPattern = patterns.map((pattern) => `${pattern} IS NULL`).join(' OR ');
  return `(CASE WHEN ${value} IS NULL THEN NULL WHEN (${held}) IS TRUE THEN TRUE WHEN ${nullPattern} THEN NULL ELSE FALSE END)`;
}

function caseSql(node: Payload<'Case'>, context: TranslationContext): string {
  const lines = [`CASE${node.operand ? ` ${context.expr(node.operand)}` : ''}`];
  for (const branch of node.conditions) {
    lines.push(`  WHEN ${context.expr(branch.condition)} THEN ${context.expr(branch.result)}`);
  }
  if (node.else_result) lines.push(`  ELSE ${context.expr(node.else_result)}`);
  lines.push('END');
  return lines.join('\n');
}

/** `a.b`, `arr[OFFSET(n)]`, and `APPROX_QUANTILES(x, n)[OFFSET(k)]`. */
function fieldAccessSql(node: Payload<'CompoundFieldAccess'>, context: TranslationContext): string {
  const { root, access_chain: chain } = node;
  const first = chain[0];
  const quantiles = 'Function' in root ? root.Function : undefined;
  const subscript = first && 'Subscript' in first ? first.Subscript : undefined;
  // Plain only: DISTINCT or RESPECT NULLS change the quantiles, so those take the whole array.
  const plain =
    quantiles?.args?.List !== undefined &&
    !quantiles.args.List.duplicate_treatment &&
    quantiles.args.List.clauses.length === 0 &&
    !quantiles.null_treatment;
  if (plain && variant(quantiles.name[0])[1].value.toLowerCase() === 'approx_quantiles' && subscript) {
    const offset = subscriptOffset(subscript);
    if (offset === undefined || chain.length > 1)
      throw unsupported('APPROX_QUANTILES needs a literal OFFSET');
    const [value, buckets] = quantiles.args.List.args.map((arg: Ast) => context.expr(arg.Unnamed.Expr));
    return quantileAt(value, buckets, offset);
  }
  const constantField = constantRowFieldSql(node, context);
  if (constantField !== undefined) return constantField;
  return accessChain(node, context).sql;
}

/**
 * A chain of field accesses and subscripts from a value, with the type reached where the store's
 * schema tells it. A subscript of a stored record reads it as the repeated record it stands for
 * (repeated-records.ts); one of a list is DuckDB's 1-based index.
 */
function accessChain(node: Payload<'CompoundFieldAccess'>, context: TranslationContext): Resolved {
  const { root, access_chain: access } = node;
  const parts = compoundParts(root);
  // `t.metadata[OFFSET(0)]` parses as `t` with `.metadata` first in the chain: one name to resolve.
  const leading = parts ? access.findIndex((item) => !('Dot' in item && bareName(item.Dot))) : 0;
  const chain = access.slice(leading === -1 ? access.length : leading);
  const name = parts && [
    ...parts,
    ...access.slice(0, access.length - chain.length).map((item) => namePart(item)),
  ];
  let { sql, type }: Resolved = name
    ? context.resolveName(name)
    : { sql: context.expr(root), type: context.valueType(root) };
  // A field of a computed value (`STRUCT(1 AS a).a`) needs the value in parentheses.
  if (name === undefined && chain[0] && 'Dot' in chain[0]) sql = `(${sql})`;
  let path = name?.join('.') ?? 'the value';
  let element = false;
  let listElement = false;
  for (const access of chain) {
    const [kind, payload] = variant(access);
    element = false;
    listElement = false;
    if (kind === 'Dot') {
      const field = bareName(payload);
      if (!field) throw unsupported('access to a field by an expression');
      ({ sql, type } = followFields({ sql, type }, [field.value], path));
      path = `${path}.${field.value}`;
    } else if (kind === 'Subscript') {
      if (isJsonType(type)) {
        sql = jsonSubscriptSql(sql, payload);
      } else if (isStructSqlType(type)) {
        sql = recordSubscriptSql(sql, payload, context);
        type = elementOf(type);
        element = true;
      } else {
        sql = listSubscriptSql(sql, payload, context);
        type = isListSqlType(type) ? type.list : undefined;
        listElement = isStructSqlType(type);
      }
      path = `${path}[...]`;
    } else {
      throw unsupported(`access ${kind}`);
    }
  }
  // An element taken whole is a STRUCT, not the repeated record the stored one stands for; an
  // element of an array of records is one too, answered as one object.
  if (element) return { sql: objectSql(sql), type: recordElementType(type) };
  return listElement ? { sql: objectSql(sql), type } : { sql, type };
}

function namePart(access: Payload<'CompoundFieldAccess'>['access_chain'][number]): string {
  const field = 'Dot' in access ? bareName(access.Dot) : undefined;
  if (!field) throw unsupported('access to a field by an expression');
  return field.value;
}

/**
 * The type of a value where the store's schema or the text tells it: a name or a chain of accesses
 * from one, a JSON value, a STRUCT the query builds and an ARRAY_AGG of one (so that the fields of
 * `UNNEST(item_list)` over `ARRAY_AGG(STRUCT(...)) AS item_list` can be named, as in BigQuery).
 */
export function valueType(expression: Expr, context: TranslationContext): SqlType | undefined {
  if ('Nested' in expression) return valueType(expression.Nested, context);
  const parts = compoundParts(expression);
  if (parts) return context.resolveName(parts).type;
  const node = expression as Ast;
  if (node.Struct) return builtStructType(node.Struct, context);
  if (node.Array) return jsonArrayType(node.Array.elem, context) ?? structArrayType(node.Array.elem, context);
  const structArray = typedStructArray(node);
  if (structArray) return structArrayType([structArray.empty], context);
  if (node.Subquery) return unnestLookupType(node.Subquery, context);
  const call = node.Function;
  if (call?.args?.Subquery && calledName(node) === 'array')
    return arraySubqueryType(call.args.Subquery, context);
  // JSON_QUERY_ARRAY of a JSON value is ARRAY<JSON>: an UNNEST of it gives JSON values, whose
  // members `item.sku` and conversions `INT64(item.qty)` read as of any JSON value.
  if (
    call &&
    jsonArrayFunctions.has(calledName(node) ?? '') &&
    isJsonValued(firstArgument(call), context.valueType)
  )
    return { list: jsonType };
  if (call && isArrayAgg(call)) {
    const element = call.args.List.args[0]?.Unnamed?.Expr;
    const row = element && bareName(element);
    const type = element && ((row && computedRowType(row.value, context)) ?? valueType(element, context));
    return type === undefined ? undefined : { list: type };
  }
  const passed = passedOnType(node, context);
  if (passed !== undefined) return passed;
  // (A chain of accesses is typed below, by following it.)
  if (!('CompoundFieldAccess' in expression) && isJsonValued(expression, context.valueType)) return jsonType;
  // A chain from a name is followed as it is translated; a computed root is not translated a
  // second time: its type is followed through the chain instead.
  const access = 'CompoundFieldAccess' in expression ? expression.CompoundFieldAccess : undefined;
  if (!access) return undefined;
  if (compoundParts(access.root) === undefined) return computedAccessType(access, context);
  return constantRowFieldSql(access, context) === undefined ? accessChain(access, context).type : undefined;
}

/**
 * The type reached by subscripts and field accesses from a computed value whose type is known:
 * `ARRAY_AGG(STRUCT(...) ORDER BY t DESC LIMIT 1)[OFFSET(0)]` is that STRUCT, so the common
 * "newest row" idiom `ARRAY_AGG(t ORDER BY ... LIMIT 1)[OFFSET(0)].*` has known fields.
 */
function computedAccessType(
  access: Payload<'CompoundFieldAccess'>,
  context: TranslationContext,
): SqlType | undefined {
  let type = valueType(access.root, context);
  for (const step of access.access_chain) {
    const field = 'Dot' in step ? bareName(step.Dot) : undefined;
    if ('Subscript' in step) type = isListSqlType(type) ? type.list : undefined;
    else if (field && isStructSqlType(type) && !type.repeated) type = structField(type, field.value)?.type;
    else type = undefined;
    if (type === undefined) return undefined;
  }
  return type;
}

/** The functions that make an ARRAY<JSON> of a JSON value (an ARRAY<STRING> of a STRING). */
const jsonArrayFunctions = new Set(['json_query_array', 'json_extract_array']);

/** A call's first positional argument, or NULL's AST where it has none. */
function firstArgument(call: Ast): Ast {
  return call.args?.List?.args?.[0]?.Unnamed?.Expr ?? { Value: { value: 'Null' } };
}

/** `[JSON '1', PARSE_JSON(t)]`: an ARRAY<JSON> where every element is a JSON value. */
function jsonArrayType(elements: readonly Ast[], context: TranslationContext): SqlType | undefined {
  return elements.length > 0 && elements.every((element) => isJsonValued(element, context.valueType))
    ? { list: jsonType }
    : undefined;
}

/**
 * `STRUCT(x AS a, y)` or `STRUCT<a INT64>(x)`: its fields by name, typed where known; undefined
 * with an anonymous field.
 */
function builtStructType(node: Ast, context: TranslationContext): SqlType | undefined {
  const declared = node.fields as Ast[];
  const struct: Record<string, SqlType> = {};
  if (declared.length > 0) {
    for (const field of declared) {
      if (!field.field_name) return undefined;
      struct[field.field_name.value] = unknownType;
    }
    return { struct };
  }
  for (const value of node.values as Ast[]) {
    const [kind, item] = variant(value);
    const expr = kind === 'Named' ? item.expr : value;
    const name: string | undefined = kind === 'Named' ? item.name.value : compoundParts(value)?.at(-1);
    if (name === undefined) return undefined;
    struct[name] = valueType(expr, context) ?? unknownType;
  }
  return { struct };
}

/** The arguments whose value IF, IFNULL, COALESCE, NULLIF and ANY_VALUE answer. */
const passingArguments: Record<string, (count: number) => number[]> = {
  if: () => [1, 2],
  ifnull: () => [0, 1],
  coalesce: (count) => Array.from({ length: count }, (_, i) => i),
  nullif: () => [0],
  any_value: () => [0],
};

/**
 * The type of a value an expression passes on (IF, IFNULL, COALESCE, NULLIF, ANY_VALUE, CASE):
 * its arguments' type, which BigQuery makes one (the supertype). Only a STRUCT or ARRAY type is
 * taken, from the first argument that tells it, so that a stored record (`IF(c, m, NULL)`) is
 * still read as one and a STRUCT's fields are known; two scalar arguments may differ (INT64 and
 * FLOAT64), and their supertype is left to DuckDB.
 */
function passedOnType(node: Ast, context: TranslationContext): SqlType | undefined {
  let values: Ast[] = [];
  if (node.Case) {
    values = [...(node.Case.conditions as Ast[]).map((branch) => branch.result), node.Case.else_result];
  } else {
    const at = passingArguments[calledName(node) ?? ''];
    if (!at) return undefined;
    const args = (node.Function.args?.List?.args ?? []) as Ast[];
    values = at(args.length).map((i) => args[i]?.Unnamed?.Expr);
  }
  for (const value of values) {
    if (value === undefined) continue;
    const type = valueType(value, context);
    if (isStructSqlType(type) || isListSqlType(type)) return type;
  }
  return undefined;
}

/** `ARRAY_AGG(x [clauses])`, not as a window function. */
function isArrayAgg(call: Ast): boolean {
  const [only, ...more] = call.name as Ast[];
  return (
    more.length === 0 &&
    String(variant(only)[1].value).toLowerCase() === 'array_agg' &&
    !call.over &&
    call.args?.List?.args?.length === 1
  );
}

/** The literal offset in `[OFFSET(3)]`, or undefined when it is not a literal number. */
function subscriptOffset(subscript: Ast): number | undefined {
  const argument = subscript.Index?.index?.Function?.args?.List?.args?.[0]?.Unnamed?.Expr;
  const number = argument?.Value?.value?.Number?.[0];
  return number === undefined ? undefined : Number(number);
}

/**
 * DATE or DATETIME plus or minus an INTERVAL: a DATETIME in BigQuery ("date_expression +
 * interval_expression = DATETIME"; DATE "2021-04-20" + INTERVAL 25 HOUR is 2021-04-21 01:00:00),
 * where DuckDB answers a TIMESTAMP, which would be typed and answered as an instant.
 */
function isCivilIntervalArithmetic(node: Payload<'BinaryOp'>, context: TranslationContext): boolean {
  if (node.op !== 'Plus' && node.op !== 'Minus') return false;
  const isInterval = (side: Expr) => 'Interval' in side;
  const other = isInterval(node.right)
    ? node.left
    : node.op === 'Plus' && isInterval(node.left)
      ? node.right
      : undefined;
  const kind = other && valueKind(other, context);
  return kind === 'date' || kind === 'datetime';
}

/**
 * The kind of value a `+` or `-` moves that can leave BigQuery's range: a TIMESTAMP by an INTERVAL,
 * a DATE by a number of days (a DATE by an INTERVAL is a DATETIME, isCivilIntervalArithmetic).
 */
function movedKind(node: Payload<'BinaryOp'>, context: TranslationContext): 'date' | 'timestamp' | undefined {
  if (node.op !== 'Plus' && node.op !== 'Minus') return undefined;
  const isInterval = (side: Expr) => 'Interval' in side;
  const [moved, by] =
    node.op === 'Plus' && (isInterval(node.left) || valueKind(node.right, context) !== undefined)
      ? [node.right, node.left]
      : [node.left, node.right];
  const kind = valueKind(moved, context);
  if (kind === 'timestamp' && isInterval(by)) return 'timestamp';
  if (kind === 'date' && !isInterval(by) && valueKind(by, context) === undefined) return 'date';
  return undefined;
}

/**
 * DATE - DATE, TIMESTAMP - TIMESTAMP, DATETIME - DATETIME: an INTERVAL in BigQuery, of days for
 * DATEs and of hours, minutes and seconds otherwise (DATE "2021-05-20" - DATE "2020-04-19" is
 * 0-0 396 0:0:0, TIMESTAMP "2021-06-01 12:34:56.789" - TIMESTAMP "2021-05-31 00:00:00" is
 * 0-0 0 36:34:56.789). DuckDB answers a number of days for DATEs and folds whole days out of the
 * time for TIMESTAMPs. Undefined for any other operation.
 */
function datetimeDifferenceSql(node: Payload<'BinaryOp'>, context: TranslationContext): string | undefined {
  if (node.op !== 'Minus') return undefined;
  const kind = valueKind(node.left, context);
  if (kind === undefined || kind !== valueKind(node.right, context)) return undefined;
  const [left, right] = [context.expr(node.left), context.expr(node.right)];
  if (kind === 'date') return `to_days(CAST(${left} - ${right} AS INTEGER))`;
  if (kind === 'timestamp' || kind === 'datetime')
    return `to_microseconds(epoch_us(${left}) - epoch_us(${right}))`;
  return undefined;
}

function intervalSql(node: Payload<'Interval'>, context: TranslationContext): string {
  // The parser gives WEEK as an object ({ Week: undefined }, room for WEEK(<day>)), the other units as names.
  const [unit, weekday] = node.leading_field ? variant(node.leading_field) : [];
  if (unit && !weekday && node.last_field)
    return intervalRangeSql(stringLiteral(node.value), unit, variant(node.last_field)[0]);
  if (!unit || !intervalUnits.has(unit) || weekday || node.last_field)
    throw unsupported('this INTERVAL form');
  const value = context.expr(node.value);
  // DuckDB reads `INTERVAL (x) unit` through a DOUBLE: a value past 2^53 (microseconds up to
  // BigQuery's 3.16e17) loses its last digits. A literal that a double holds exactly keeps that
  // form; anything else (a parameter above all) is counted in integers, so a value too large
  // fails with an overflow naming it, as BigQuery's IntervalValue::FromInteger multiplies.
  const [field, perUnit, max] = intervalField[unit] as IntervalField;
  const outside = (shown: string) =>
    raiseSql(
      `${quoteString(`Interval field ${field} '`)} || ${shown} || ${quoteString(`' is out of range -${max} to ${max}`)}`,
    );
  if (/^-?\d{1,15}$/.test(value)) {
    const count = BigInt(value) * perUnit;
    if (count > max || count < -max) return `CAST(${outside(quoteString(String(count)))} AS INTERVAL)`;
    return `INTERVAL (${value}) ${unit.toUpperCase()}`;
  }
  const exact = exactInterval[unit]?.(value) ?? `INTERVAL (${value}) ${unit.toUpperCase()}`;
  const counted = `(CAST(${value} AS HUGEINT) * ${perUnit})`;
  return `CASE WHEN abs${counted} > ${max} THEN ${outside(`CAST(${counted} AS VARCHAR)`)} ELSE ${exact} END`;
}

type IntervalField = readonly [name: string, perUnit: bigint, max: bigint];

/**
 * Where each unit's count lands in BigQuery's INTERVAL and that field's bound (ZetaSQL's
 * interval_value.h: 10000 years as 120,000 months, 3,660,000 days, and the time of as many days
 * in nanoseconds, or microseconds from MILLISECOND and MICROSECOND, as IntervalValue::FromInteger
 * builds them); past it ValidateField's error ("Interval field days '3660001' is out of range
 * -3660000 to 3660000").
 */
const maxMicros = 86_400_000_000n * 3_660_000n;
const intervalField: Readonly<Record<string, IntervalField>> = {
  Microsecond: ['microseconds', 1n, maxMicros],
  Millisecond: ['microseconds', 1000n, maxMicros],
  Second: ['nanoseconds', 1_000_000_000n, maxMicros * 1000n],
  Minute: ['nanoseconds', 60_000_000_000n, maxMicros * 1000n],
  Hour: ['nanoseconds', 3_600_000_000_000n, maxMicros * 1000n],
  Day: ['days', 1n, 3_660_000n],
  Week: ['days', 7n, 3_660_000n],
  Month: ['months', 1n, 120_000n],
  Quarter: ['months', 3n, 120_000n],
  Year: ['months', 12n, 120_000n],
};

/** Each unit as DuckDB's integer interval functions: micros (BIGINT), days and months (INTEGER). */
const exactInterval: Readonly<Record<string, (value: string) => string>> = {
  Microsecond: (value) => `to_microseconds(CAST(${value} AS BIGINT))`,
  Millisecond: (value) => `to_microseconds(CAST(${value} AS BIGINT) * 1000)`,
  Second: (value) => `to_microseconds(CAST(${value} AS BIGINT) * 1000000)`,
  Minute: (value) => `to_microseconds(CAST(${value} AS BIGINT) * 60000000)`,
  Hour: (value) => `to_microseconds(CAST(${value} AS BIGINT) * 3600000000)`,
  Day: (value) => `to_days(CAST(${value} AS INTEGER))`,
  Week: (value) => `to_days(CAST(${value} AS INTEGER) * 7)`,
  Month: (value) => `to_months(CAST(${value} AS INTEGER))`,
  Quarter: (value) => `to_months(CAST(${value} AS INTEGER) * 3)`,
  Year: (value) => `to_months(CAST(${value} AS INTEGER) * 12)`,
};

function literal(value: Value): string {
  if (value === 'Null') return 'NULL';
  const [kind, payload] = variant(value);
  switch (kind) {
    case 'Number':
      // BigQuery reads 1.5 (and 1e3) as FLOAT64, DuckDB 1.5 as a DECIMAL: cast, so the column
      // is the double BigQuery answers, not an exact decimal only one engine would describe.
      return /^[\d.]+(?:[eE][+-]?\d+)?$/.test(payload[0]) && /[.eE]/.test(payload[0])
        ? `CAST(${payload[0]} AS DOUBLE)`
        : payload[0];
    case 'SingleQuotedString':
    case 'DoubleQuotedString':
    case 'TripleSingleQuotedString':
    case 'TripleDoubleQuotedString':
    case 'SingleQuotedRawStringLiteral':
    case 'DoubleQuotedRawStringLiteral':
    case 'TripleSingleQuotedRawStringLiteral':
    case 'TripleDoubleQuotedRawStringLiteral':
      return quoteString(String(payload));
    case 'Boolean':
      return payload ? 'TRUE' : 'FALSE';
    // `0xF9B5`: BigQuery's hexadecimal INT64 literal (its bytes literals are b'...', never X'...').
    case 'HexStringLiteral': {
      const value = /^[0-9a-f]{1,16}$/i.test(String(payload)) ? BigInt(`0x${payload}`) : undefined;
      if (value === undefined || value > 9223372036854775807n)
        throw unsupported(`the integer literal 0x${payload}, which is not an INT64`);
      return value.toString();
    }
    case 'SingleQuotedByteStringLiteral':
    case 'DoubleQuotedByteStringLiteral': {
      // sqlparser leaves a bytes literal's escapes as written: b'\x00' is four characters to it.
      const bytes = bytesOfLiteral(String(payload));
      if (!bytes)
        throw unsupported(
          `bytes literal b'${String(payload)}' (an escape BigQuery's bytes literals do not have)`,
        );
      return `unhex('${bytes.toString('hex')}')`;
    }
    default:
      throw unsupported(`literal ${kind}`);
  }
}
