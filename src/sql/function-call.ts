import { type Ast, numberLiteral, stringLiteral, variant } from './bigquery-ast.js';
import { functionsReadingNow, nowParameter, translateFunction, unsupported } from './function-rules.js';
import { jsonShapeOf } from './json-shapes.js';
import { isJsonValued } from './json-values.js';
import {
  isNumericCombination,
  isNumericValued,
  numericIntegerQuotientSql,
  numericQuotientSql,
} from './numeric-division.js';
import { checkedDivisor } from './rules/math.js';
import type { AggregateClauses } from './rules/rule.js';
import { isStructSqlType, quoteIdent } from './table-schema.js';
import { bigQueryTextOf, type FormContext, formatTextSql, isStringValued, valueKind } from './value-forms.js';

/**
 * A function call: its arguments, the clauses written inside an aggregate's parentheses
 * (`IGNORE NULLS`, `ORDER BY`, `LIMIT`) and its window, read from the AST and handed to the
 * function's rule (function-rules.ts), which writes the DuckDB SQL.
 */
export function functionCallSql(node: Ast, context: FormContext): string {
  if (node.filter) throw unsupported('FILTER on an aggregate');
  const name = (node.name as Ast[])
    .map((part) => variant(part)[1].value)
    .join('.')
    .toLowerCase();
  // `CURRENT_TIMESTAMP` without parentheses has no argument list at all.
  if (node.args === 'None') return callSql(name, [], context);
  const [argsKind, argList] = variant(node.args);
  // ARRAY(subquery) is DuckDB's ARRAY(subquery) too.
  if (argsKind === 'Subquery' && name === 'array') return `ARRAY(\n${context.query(argList)}\n)`;
  if (argsKind !== 'List') throw unsupported(`${name.toUpperCase()} with this argument form`);
  // Named arguments (`mode => 'lax'`) go to the rule by name; a rule refuses those it does not read.
  const named: Record<string, Ast> = {};
  const args: (Ast | typeof wildcard)[] = [];
  for (const arg of argList.args as Ast[]) {
    const [argKind, argNode] = variant(arg);
    if (argKind === 'Named' && argNode.arg?.Expr)
      named[String(argNode.name.value).toLowerCase()] = argNode.arg.Expr;
    else if (argKind !== 'Unnamed') throw unsupported(`named arguments to ${name.toUpperCase()}`);
    else if (argNode === 'Wildcard') args.push(wildcard);
    else if (!argNode.Expr) throw unsupported(`argument form of ${name.toUpperCase()}`);
    else args.push(argNode.Expr);
  }
  const clauses: { ignoreNulls?: boolean; orderBy?: string; sortKey?: string; limit?: number } = {};
  let having: [extreme: string, key: Ast] | undefined;
  if (node.null_treatment) clauses.ignoreNulls = node.null_treatment === 'IgnoreNulls';
  const hoisted = argumentNullTreatment(args.at(-1));
  if (hoisted) {
    args[args.length - 1] = hoisted.arg;
    clauses.ignoreNulls = hoisted.ignoreNulls;
  }
  for (const clause of argList.clauses as Ast[]) {
    const [clauseKind, payload] = variant(clause);
    const limit = clauseKind === 'Limit' ? numberLiteral(payload) : undefined;
    if (clauseKind === 'IgnoreOrRespectNulls') clauses.ignoreNulls = payload === 'IgnoreNulls';
    else if (clauseKind === 'OrderBy') {
      clauses.orderBy = (payload as Ast[]).map(context.orderItem).join(', ');
      if (!node.over) clauses.sortKey = sortKeySql(payload as Ast[], context);
    } else if (limit !== undefined) clauses.limit = limit;
    else if (clauseKind === 'Having' && name === 'any_value') having = payload;
    else throw unsupported(`${name.toUpperCase()} with ${clauseKind} inside`);
  }
  // ANY_VALUE(x HAVING MAX y) is MAX_BY(x, y), and HAVING MIN MIN_BY, by BigQuery's definition.
  if (having && args.length === 1 && !node.over && !node.null_treatment && argList.clauses.length === 1)
    return callSql(having[0] === 'Max' ? 'max_by' : 'min_by', [args[0] as Ast, having[1]], context);
  if (having) throw unsupported('ANY_VALUE with HAVING and other clauses or OVER');
  return callSql(name, args, context, {
    named,
    distinct: argList.duplicate_treatment === 'Distinct',
    clauses,
    over: node.over ? windowSql(node.over, context) : undefined,
  });
}

/**
 * The IGNORE or RESPECT NULLS the parser gave a call that is the last argument: it reads
 * `ARRAY_AGG(IF(c, x, NULL) IGNORE NULLS ORDER BY t LIMIT 1)` as IF(...) IGNORE NULLS, as it
 * would `FIRST_VALUE(x) IGNORE NULLS OVER (...)`. BigQuery writes NULL handling only inside an
 * aggregate's parentheses, after its arguments: there it is the aggregate's. The argument comes
 * back without it.
 */
function argumentNullTreatment(
  arg: Ast | typeof wildcard | undefined,
): { arg: Ast; ignoreNulls: boolean } | undefined {
  if (arg === undefined || arg === wildcard) return undefined;
  const call = (arg as Ast).Function;
  if (!call?.null_treatment || call.over) return undefined;
  return {
    arg: { Function: { ...call, null_treatment: null } },
    ignoreNulls: call.null_treatment === 'IgnoreNulls',
  };
}

/**
 * An aggregate's ORDER BY items as the arguments of DuckDB's create_sort_key, each with its
 * direction and BigQuery's place for NULLs (first ascending, last descending, unless written).
 */
function sortKeySql(items: readonly Ast[], context: FormContext): string {
  return items
    .map((item) => {
      const descending = item.options?.asc === false;
      const nullsFirst = item.options?.nulls_first ?? !descending;
      return `${context.expr(item.expr)}, '${descending ? 'DESC' : 'ASC'} NULLS ${nullsFirst ? 'FIRST' : 'LAST'}'`;
    })
    .join(', ');
}

/** `COUNT(*)`'s argument. */
const wildcard = Symbol('*');

/** Where a function takes a date part (`DAY`, `WEEK(MONDAY)`) or another keyword, by argument index. */
const datePartPositions: Record<string, number> = {
  timestamp_trunc: 1,
  date_trunc: 1,
  datetime_trunc: 1,
  last_day: 1,
  timestamp_diff: 2,
  date_diff: 2,
  datetime_diff: 2,
  time_trunc: 1,
  time_diff: 2,
  // Not a date part, a keyword the same way: NORMALIZE's and NORMALIZE_AND_CASEFOLD's mode
  // (NFC, NFKC, NFD, NFKD).
  normalize: 1,
  normalize_and_casefold: 1,
};

/**
 * Where a date or time function takes a DATE, TIMESTAMP or DATETIME, by argument index: a STRING
 * literal or query parameter there is coerced to that type, as BigQuery's literal and parameter
 * coercion do ("STRING parameter: DATE, DATETIME, TIME, TIMESTAMP", conversion rules), so
 * `DATE_SUB(@end_date, INTERVAL 7 DAY)` reads the parameter's text as a DATE. DuckDB would not
 * choose a type for the text and fail to bind.
 */
const coercedArguments: Record<string, Record<number, 'DATE' | 'TIMESTAMP' | 'DATETIME'>> = {
  date_add: { 0: 'DATE' },
  date_sub: { 0: 'DATE' },
  date_diff: { 0: 'DATE', 1: 'DATE' },
  date_trunc: { 0: 'DATE' },
  last_day: { 0: 'DATE' },
  timestamp_add: { 0: 'TIMESTAMP' },
  timestamp_sub: { 0: 'TIMESTAMP' },
  timestamp_diff: { 0: 'TIMESTAMP', 1: 'TIMESTAMP' },
  timestamp_trunc: { 0: 'TIMESTAMP' },
  datetime_add: { 0: 'DATETIME' },
  datetime_sub: { 0: 'DATETIME' },
  datetime_diff: { 0: 'DATETIME', 1: 'DATETIME' },
  datetime_trunc: { 0: 'DATETIME' },
  format_datetime: { 1: 'DATETIME' },
  format_timestamp: { 1: 'TIMESTAMP' },
  format_date: { 1: 'DATE' },
  unix_seconds: { 0: 'TIMESTAMP' },
  unix_millis: { 0: 'TIMESTAMP' },
  unix_micros: { 0: 'TIMESTAMP' },
  unix_date: { 0: 'DATE' },
};

/** A STRING literal or parameter's SQL as the type it is coerced to (a TIMESTAMP's text may carry an offset). */
function coercedText(sql: string, type: 'DATE' | 'TIMESTAMP' | 'DATETIME'): string {
  if (type === 'DATE') return `CAST(${sql} AS DATE)`;
  if (type === 'DATETIME') return `CAST(${sql} AS TIMESTAMPTZ)`;
  return `CAST(CAST(${sql} AS TIMESTAMPTZ) AS TIMESTAMP)`;
}

/** `DAY` → 'day', `WEEK(MONDAY)` → 'week(monday)': keywords in BigQuery's grammar, names to the parser. */
function datePart(expression: Ast): string | undefined {
  const bare = expression.Identifier;
  if (bare && !bare.quote_style && !bare.value.startsWith('@')) return bare.value.toLowerCase();
  const call = expression.Function;
  const inner = call?.args?.List?.args?.[0]?.Unnamed?.Expr?.Identifier?.value;
  if (call && call.name.length === 1 && variant(call.name[0])[1].value.toLowerCase() === 'week' && inner)
    return `week(${String(inner).toLowerCase()})`;
  return undefined;
}

/** Translates the arguments of a call (also of forms such as SUBSTRING and TRIM) and applies its rule. */
export function callSql(
  name: string,
  args: readonly (Ast | typeof wildcard)[],
  context: FormContext,
  options: {
    named?: Readonly<Record<string, Ast>>;
    distinct?: boolean;
    clauses?: AggregateClauses;
    over?: string | undefined;
  } = {},
): string {
  // AVG of a NUMERIC is NUMERIC in BigQuery and DOUBLE in DuckDB: its exact quotient instead.
  const [first] = args;
  if (name === 'avg' && args.length === 1 && first !== wildcard && first !== undefined)
    if (isNumericValued(first, context.columnType))
      return numericQuotientSql(
        callSql('sum', args, context, options),
        callSql('count', args, context, options),
      );
  // SAFE_DIVIDE and DIV of NUMERICs (or a NUMERIC and an INT64) are NUMERIC in BigQuery, as `/`
  // is; the rules' FLOAT64 division and DuckDB's `//` (which keeps a fraction of DECIMALs) are not.
  const [, second] = args;
  if (
    (name === 'safe_divide' || name === 'div') &&
    args.length === 2 &&
    first !== wildcard &&
    first !== undefined &&
    second !== wildcard &&
    second !== undefined &&
    isNumericCombination(first, second, context.columnType)
  ) {
    const divisor = context.expr(second);
    return name === 'div'
      ? numericIntegerQuotientSql(context.expr(first), checkedDivisor(divisor))
      : `CASE WHEN (${divisor}) <> 0 THEN ${numericQuotientSql(context.expr(first), divisor)} END`;
  }
  // COUNT of a column no row holds NULL in counts the rows: COUNT(*) reads no column, where
  // DuckDB reads every value (Studio's reports count ids: 10M cost a second of CPU).
  if (
    name === 'count' &&
    first !== wildcard &&
    first !== undefined &&
    !options.distinct &&
    context.neverNull(first)
  )
    return callSql(name, [wildcard], context, options);
  // PERCENTILE_CONT of a NUMERIC is NUMERIC to 9 places in BigQuery; DuckDB's quantile_cont keeps
  // the input's scale and truncates the interpolation (139.945 between 139.94 and 139.95 as 139.94).
  const atNanos =
    name === 'percentile_cont' &&
    first !== wildcard &&
    first !== undefined &&
    isNumericValued(first, context.columnType);
  // JSON is neither groupable nor orderable on BigQuery: COUNT(DISTINCT json_payload) and
  // MAX(json_payload) fail there, where DuckDB would compare the JSON text.
  if (
    first !== wildcard &&
    first !== undefined &&
    (options.distinct || name === 'min' || name === 'max') &&
    isJsonValued(first, context.valueType)
  )
    throw unsupported(
      `${name.toUpperCase()}(${options.distinct ? 'DISTINCT ' : ''}...) of a JSON value (BigQuery's JSON is not groupable or orderable; use JSON_VALUE, STRING or INT64 of it)`,
    );
  if (functionsReadingNow.has(name)) context.useParameter(nowParameter.slice(1));
  const partAt = datePartPositions[name.replace(/^safe\./, '')];
  const parts = args.map((arg, i) => (i === partAt && arg !== wildcard ? datePart(arg) : undefined));
  const literal = <T>(read: (node: Ast) => T) =>
    args.map((arg) => (arg === wildcard ? undefined : read(arg)));
  const coerced = coercedArguments[name.replace(/^safe\./, '')];
  const translated = args.map((arg, i) => {
    if (arg === wildcard) return '*';
    if (parts[i] !== undefined) return `'${parts[i]}'`;
    if (i === 0 && atNanos) return `CAST(${context.expr(arg)} AS DECIMAL(38, 9))`;
    const target = coerced?.[i];
    return target && isStringValued(arg) ? coercedText(context.expr(arg), target) : context.expr(arg);
  });
  return translateFunction(
    {
      name,
      // A date part is passed to the rule by name only.
      args: translated,
      literals: literal(stringLiteral),
      numbers: literal(numberLiteral),
      kinds: args.map((arg, i) =>
        arg === wildcard || parts[i] !== undefined ? undefined : valueKind(arg, context),
      ),
      parts,
      isRecord: (index) => {
        const arg = args[index];
        return arg !== undefined && arg !== wildcard && isStructSqlType(context.valueType(arg));
      },
      isJson: (index) => {
        const arg = args[index];
        return arg !== undefined && arg !== wildcard && isJsonValued(arg, context.valueType);
      },
      shapeOf: (index) => {
        const arg = args[index];
        return arg === undefined || arg === wildcard ? { scalar: undefined } : jsonShapeOf(arg, context);
      },
      asText: (index) => {
        const arg = args[index];
        const sql = translated[index] as string;
        return arg === undefined || arg === wildcard ? sql : bigQueryTextOf(arg, sql, context);
      },
      asFormatText: (index) => formatTextSql(translated[index] as string),
      named: Object.fromEntries(
        Object.entries(options.named ?? {}).map(([key, value]) => [
          key,
          { sql: context.expr(value), literal: stringLiteral(value) },
        ]),
      ),
      distinct: options.distinct ?? false,
      clauses: options.clauses ?? {},
    },
    options.over,
  );
}

/**
 * What follows OVER: `(PARTITION BY ... ORDER BY ... ROWS BETWEEN ...)`, a named window `w`, or
 * `(w ROWS ...)` building on one; also the definitions of the WINDOW clause. DuckDB reads all of
 * them as BigQuery does, and its default frame is BigQuery's.
 */
export function windowSql(over: Ast, context: FormContext): string {
  const [kind, spec] = variant(over);
  if (kind === 'NamedWindow') return quoteIdent(spec.value);
  if (kind !== 'WindowSpec') throw unsupported(`OVER ${kind}`);
  const parts: string[] = spec.window_name ? [quoteIdent(spec.window_name.value)] : [];
  if (spec.partition_by.length > 0)
    parts.push(`PARTITION BY ${(spec.partition_by as Ast[]).map(context.expr).join(', ')}`);
  if (spec.order_by.length > 0)
    parts.push(`ORDER BY ${(spec.order_by as Ast[]).map(context.orderItem).join(', ')}`);
  const frame = spec.window_frame;
  if (frame) {
    const units: Record<string, string> = { Rows: 'ROWS', Range: 'RANGE' };
    if (!units[frame.units]) throw unsupported(`${frame.units} window frames`);
    const bound = (value: Ast): string => {
      const [boundKind, offset] = variant(value);
      if (boundKind === 'CurrentRow') return 'CURRENT ROW';
      const direction = boundKind === 'Preceding' ? 'PRECEDING' : 'FOLLOWING';
      return offset ? `${context.expr(offset)} ${direction}` : `UNBOUNDED ${direction}`;
    };
    parts.push(
      frame.end_bound
        ? `${units[frame.units]} BETWEEN ${bound(frame.start_bound)} AND ${bound(frame.end_bound)}`
        : `${units[frame.units]} ${bound(frame.start_bound)}`,
    );
  }
  // `OVER (w)` is `OVER w`; DuckDB refuses to copy a window that has a frame, BigQuery does not.
  if (spec.window_name && parts.length === 1) return parts[0] as string;
  return `(${parts.join(' ')})`;
}
