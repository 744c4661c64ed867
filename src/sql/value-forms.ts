import { compoundParts, type Expr, withoutParentheses } from './ast.js';
import { type Ast, calledName, numberLiteral, stringLiteral, variant } from './bigquery-ast.js';
import { builtStructSql } from './built-structs.js';
import { unsupported } from './function-rules.js';
import { raiseSql } from './raised-errors.js';
import { civilText, roundTripDoubleText } from './rules/json-encoding.js';
import { quoteString } from './rules/rule.js';
import { civilOf, datetimeOf } from './rules/time.js';
import { fromCivil, type Zone } from './rules/time-zone.js';
import { isIntegerText, isTextValued, textToInt64Sql } from './string-to-int64.js';
import { isStructSqlType, type SqlType, unknownType } from './table-schema.js';

/** How a form module reaches back into the translation of the query it is part of. */
export interface FormContext {
  /** An expression, translated in the current scope. */
  expr(node: Ast): string;
  /** One ORDER BY item (`x DESC NULLS LAST`). */
  orderItem(item: Ast): string;
  /** A subquery. */
  query(node: Ast): string;
  /** The DuckDB type of a column or field reference, where the store's schema tells it. */
  columnType(node: Ast): string | undefined;
  /** The type of a name or of an access chain from one (`metadata[OFFSET(0)].request`), where the store's schema tells it. */
  valueType(node: Ast): SqlType | undefined;
  /** Whether an expression is a bare name of a table, CTE or subquery in FROM: the whole row. */
  rangeVariable(node: Ast): boolean;
  /** Whether a name is a stored column no row of its table holds NULL in (Resolved.neverNull). */
  neverNull(node: Ast): boolean;
  /** Whether a name is a stored field whose every value is NULL or integer text (Resolved.integerText). */
  integerText(node: Ast): boolean;
  /** Records that the text being printed reads the parameter `$name` (see cte-scopes.ts). */
  useParameter(name: string): void;
}

/** BigQuery type names and their DuckDB types (DATETIME is TIMESTAMPTZ: see rules/time.ts). */
const castTypes: Record<string, string> = {
  String: 'VARCHAR',
  Int64: 'BIGINT',
  Float64: 'DOUBLE',
  Bool: 'BOOLEAN',
  Date: 'DATE',
  Datetime: 'TIMESTAMPTZ',
  Timestamp: 'TIMESTAMP',
  Time: 'TIME',
  Numeric: 'DECIMAL(38, 9)',
  Bytes: 'BLOB',
};

/**
 * The DuckDB type a CAST or a typed literal (`DATE '2020-01-01'`, which castSql translates as a
 * CAST) gives its value; undefined for a type not translated.
 */
export function castTypeOf(dataType: Ast): string | undefined {
  return castTypes[variant(dataType)[0]];
}

function duckdbType(dataType: Ast): string {
  const type = castTypeOf(dataType);
  if (!type) throw unsupported(`CAST to ${variant(dataType)[0].toUpperCase()}`);
  return type;
}

// BigQuery's other names of the same types, for the element type of ARRAY<T>[...].
const typeAliases: Record<string, string> = {
  INT: 'Int64',
  INTEGER: 'Int64',
  BIGINT: 'Int64',
  SMALLINT: 'Int64',
  TINYINT: 'Int64',
  BYTEINT: 'Int64',
  DECIMAL: 'Numeric',
};

/**
 * `ARRAY<INT64>[1, 2]`, `ARRAY<STRING>[]`: sqlparser reads BigQuery's typed array literal as two
 * comparisons, `(ARRAY < INT64) > [1, 2]`. Exactly that shape, with ARRAY unquoted (a reserved
 * word in BigQuery, so never a column compared) and a scalar type name, is the literal: a list of
 * that type on DuckDB, so an empty one has its element type and `[1, 2]` of FLOAT64 holds
 * doubles. Undefined for any other comparison.
 */
export function typedArraySql(node: Ast, context: FormContext): string | undefined {
  const inner = node.left?.BinaryOp;
  const array = inner?.left?.Identifier;
  const type = inner?.right?.Identifier;
  if (node.op !== 'Gt' || inner?.op !== 'Lt' || !node.right?.Array) return undefined;
  if (!array || array.quote_style || String(array.value).toUpperCase() !== 'ARRAY') return undefined;
  if (!type || type.quote_style) throw unsupported('ARRAY<...> of a quoted type name');
  const name = String(type.value).toUpperCase();
  const known = Object.keys(castTypes).find((key) => key.toUpperCase() === name);
  const element = castTypes[typeAliases[name] ?? known ?? ''];
  if (!element) throw unsupported(`ARRAY<${type.value}>[...]`);
  const items = (node.right.Array.elem as Ast[]).map((item) => context.expr(item));
  return `CAST([${items.join(', ')}] AS ${element}[])`;
}

/**
 * `CAST(NULL AS ARRAY<INT64>)`, `CAST([] AS ARRAY<STRING>)`: a NULL or empty array of that element
 * type (data-types.md, "NULLs and the array type"), as a UNION's typed placeholder column needs.
 * A cast of any other array would cast each element by DuckDB's rules, which are not BigQuery's
 * for every pair of types (FLOAT64 to STRING, say): refused.
 */
function emptyArrayCastSql(node: Ast, elementType: Ast, context: FormContext): string {
  const element = castTypeOf(elementType);
  const value = node.expr;
  const empty = value?.Value?.value === 'Null' || (value?.Array && value.Array.elem.length === 0);
  if (!element || !empty)
    throw unsupported('CAST to ARRAY of a value other than NULL or [] or to ARRAY<STRUCT>');
  return `CAST(${context.expr(value)} AS ${element}[])`;
}

/**
 * A TIMESTAMP literal's civil time and the zone it names in its text (`2023-11-05 01:30:00
 * America/New_York`): read as BigQuery reads a civil time in a zone (fromCivil, the earlier of a
 * repeated one), where DuckDB's cast would take ICU's later instant.
 */
function zoneNamedIn(text: string | undefined): { civil: string; zone: Zone } | undefined {
  const match =
    /^(\d{4}-\d{1,2}-\d{1,2}(?:[ Tt]\d{1,2}:\d{2}(?::\d{2}(?:\.\d{1,9})?)?)?)\s+([A-Za-z][A-Za-z0-9_+-]*(?:\/[A-Za-z0-9_+-]+)+)$/.exec(
      text ?? '',
    );
  if (!match) return undefined;
  return {
    civil: (match[1] as string).replace(/[Tt]/, ' '),
    zone: { sql: quoteString(match[2] as string), literal: match[2] },
  };
}

/**
 * CAST and SAFE_CAST (and typed literals, `DATE '2020-01-01'`). A string cast to TIMESTAMP:
 * BigQuery honours a `Z` or `+hh:mm` offset, DuckDB's cast to TIMESTAMP silently drops it, so
 * parameters and literals go through TIMESTAMPTZ, which applies the offset, and back to the UTC
 * TIMESTAMP of the store.
 */
export function castSql(node: Ast, context: FormContext): string {
  if (node.array) throw unsupported('CAST to an ARRAY type');
  const arrayOf = node.data_type?.Array?.AngleBracket;
  if (arrayOf !== undefined) return emptyArrayCastSql(node, arrayOf, context);
  if (node.format) throw unsupported('CAST ... FORMAT');
  const target = duckdbType(node.data_type);
  // BigQuery casts no STRUCT to a scalar ("Invalid cast from STRUCT<...> to STRING"); DuckDB would.
  if (isStructSqlType(context.valueType(node.expr)))
    throw unsupported(
      `CAST of a STRUCT to ${variant(node.data_type)[0].toUpperCase()} (BigQuery has no such cast)`,
    );
  const value = context.expr(node.expr);
  const cast = node.kind === 'SafeCast' ? 'TRY_CAST' : node.kind === 'Cast' ? 'CAST' : null;
  if (!cast) throw unsupported(`${node.kind}`);
  // STRING to BYTES is the text's UTF-8 bytes; DuckDB's CAST to BLOB would read `\x..` escapes.
  if (target === 'BLOB') return `encode(${value})`;
  if ((target === 'TIMESTAMP' || target === 'TIMESTAMPTZ') && isStringValued(node.expr)) {
    const named = target === 'TIMESTAMP' ? zoneNamedIn(stringLiteral(node.expr)) : undefined;
    if (named) return fromCivil(`${cast}('${named.civil}' AS TIMESTAMP)`, named.zone);
    return target === 'TIMESTAMPTZ'
      ? `${cast}(${value} AS TIMESTAMPTZ)`
      : `${cast}(${cast}(${value} AS TIMESTAMPTZ) AS TIMESTAMP)`;
  }
  // A TIMESTAMP or DATE as a DATETIME without ICU's cast (Studio's `cast(timestamp as datetime)`).
  const kind = target === 'TIMESTAMPTZ' ? valueKind(node.expr, context) : undefined;
  if (kind === 'timestamp' || kind === 'date') return datetimeOf(value);
  // DuckDB casts no TIMESTAMPTZ (our DATETIME) to TIME: a DATETIME's civil TIMESTAMP casts, and
  // a value of no known type (a subquery's column: TIME, TIMESTAMP or DATETIME) through TIMETZ,
  // which DuckDB casts each of them to, in the UTC session.
  if (target === 'TIME' && !isStringValued(node.expr)) {
    const known = valueKind(node.expr, context);
    if (known === 'datetime') return `${cast}(${civilOf(value)} AS TIME)`;
    if (known === undefined && context.columnType(node.expr) === undefined)
      return `${cast}(${cast}(${value} AS TIMETZ) AS TIME)`;
  }
  if (target === 'VARCHAR' && mayPrintUnlikeBigQuery(node.expr, context)) return bigQueryTextSql(value, cast);
  // Text the store holds only as integer text reads as BigQuery reads it, with no check.
  if (target === 'BIGINT' && isIntegerText(node.expr, context.integerText))
    return `${cast}(${value} AS BIGINT)`;
  if (target === 'BIGINT' && isTextValued(node.expr, context.columnType)) return textToInt64Sql(value, cast);
  if (target === 'BOOLEAN' && isTextValued(node.expr, context.columnType)) return textToBoolSql(value, cast);
  // FLOAT64 to INT64 rounds halfway cases away from zero in BigQuery and to even in DuckDB;
  // through DECIMAL, DuckDB rounds them away from zero too. Integers cast directly. The scale is
  // one more than NUMERIC's, so DuckDB's error of this cast (`... to DECIMAL(38,10)`) is told
  // from a CAST AS NUMERIC's in BigQuery's words (backends/duckdb/value-errors.ts).
  if (
    target === 'BIGINT' &&
    !isStringValued(node.expr) &&
    !/^\d+$/.test(node.expr.Value?.value?.Number?.[0])
  ) {
    return `${cast}(${cast}(${value} AS DECIMAL(38, 10)) AS BIGINT)`;
  }
  return `${cast}(${value} AS ${target})`;
}

/**
 * A value's SQL (`sql`, translated from `expression`) as BigQuery's STRING text of it: what CAST AS
 * STRING and CONCAT, which casts its arguments so, answer for a FLOAT64 or a TIMESTAMP.
 */
export function bigQueryTextOf(expression: Ast, sql: string, context: FormContext): string {
  return mayPrintUnlikeBigQuery(expression, context) ? bigQueryTextSql(sql, 'CAST') : sql;
}

/**
 * Whether a value cast to STRING may be of a type whose DuckDB text is not BigQuery's (FLOAT64,
 * NUMERIC, TIMESTAMP, DATETIME, TIME): not when it is text, an integer literal, or a stored column
 * or field of another type (Studio's `CAST(response.status_code AS STRING)` keeps DuckDB's plain cast).
 */
function mayPrintUnlikeBigQuery(expression: Ast, context: FormContext): boolean {
  if (isTextValued(expression, context.columnType)) return false;
  if (/^\d+$/.test(expression.Value?.value?.Number?.[0])) return false;
  const stored = context.columnType(expression);
  return (
    stored === undefined ||
    stored.startsWith('DECIMAL') ||
    ['DOUBLE', 'TIMESTAMP', 'TIMESTAMP_NS', 'TIMESTAMP WITH TIME ZONE', 'TIME'].includes(stored)
  );
}

/**
 * CAST / SAFE_CAST to STRING with BigQuery's text of the types whose DuckDB text differs (the
 * conversion rules of CAST AS STRING):
 * - FLOAT64: %.15g, or %.17g where 15 digits do not read back (ZetaSQL's RoundTripDoubleToString:
 *   '40' for 40.0, '0.33333333333333331' for 1/3 and '1e+15' for 1e15, where DuckDB writes '40.0',
 *   '0.3333333333333333' and '1000000000000000.0'), and "a returned NaN or 0 will not be signed".
 * - NUMERIC: a BigQuery NUMERIC holds no scale, so its text has no trailing fractional zeros
 *   ('598', '110.75'; ZetaSQL's NumericValue::ToString, and BigQuery's REST text of a NUMERIC,
 *   backends/duckdb/rows.ts), where DuckDB writes a DECIMAL with its scale ('598.00', '110.750000000').
 * - TIMESTAMP: in UTC with its offset (`STRING(TIMESTAMP "2008-12-25 15:30:00+00", "UTC")` is
 *   '2008-12-25 15:30:00+00'), and "the number of subsecond digits produced depends on the
 *   number of trailing zeroes in the subsecond part: the CAST function will truncate zero,
 *   three, or six digits" ('.1' is '.100'); DuckDB trims every trailing zero and writes no offset.
 * - DATETIME (TIMESTAMPTZ here, whose DuckDB text ends in the session zone's '+00') and TIME: the same zero, three or six digits, no offset (ZetaSQL's
 *   ConvertDatetimeToString and ConvertTimeToString narrow the fraction by its trailing zeros).
 * The translator often cannot tell these types from others (a field of an UNNEST, an
 * expression), so DuckDB's `typeof` picks the branch; every branch only edits DuckDB's text, so
 * each binds for every type. The value is read once, as a lambda's argument: it is often a
 * correlated subquery (`(SELECT value.int_value FROM UNNEST(event_params) ...)`), which DuckDB
 * would otherwise plan once per mention.
 */
function bigQueryTextSql(value: string, cast: 'CAST' | 'TRY_CAST', form: 'cast' | 'format' = 'cast'): string {
  const text = `${cast}(v AS VARCHAR)`;
  // Read through its text, so the branch binds whatever v's type; NaN and the infinities print
  // as DuckDB prints them ('nan', 'inf', '-inf'). CAST writes 0 unsigned; FORMAT's %t writes a
  // whole FLOAT64 "always with .0" (123.0), as the reference implementation appends it.
  const d = `CAST(${text} AS DOUBLE)`;
  const roundTrip = roundTripDoubleText(d);
  const double =
    form === 'format'
      ? `CASE WHEN isnan(${d}) OR isinf(${d}) THEN ${text} WHEN regexp_full_match(${roundTrip}, '-?[0-9]+') THEN ${roundTrip} || '.0' ELSE ${roundTrip} END`
      : `CASE WHEN isnan(${d}) OR isinf(${d}) THEN ${text} WHEN ${d} = 0 THEN '0' ELSE ${roundTrip} END`;
  const civil = civilText(text);
  const decimal =
    form === 'format'
      ? `regexp_replace(${text}, '(\\.[0-9]*[1-9])0+$|(\\.0)0*$', '\\1\\2')`
      : `regexp_replace(${text}, '(\\.[0-9]*[1-9])0+$|\\.0+$', '\\1')`;
  return `list_transform([${value}], v -> CASE WHEN starts_with(typeof(v), 'DECIMAL') THEN ${decimal} ELSE CASE typeof(v) WHEN 'DOUBLE' THEN ${double} WHEN 'TIMESTAMP' THEN ${civil} || '+00' WHEN 'TIMESTAMP WITH TIME ZONE' THEN ${civilText(`left(${text}, -3)`)} WHEN 'TIMESTAMP_NS' THEN ${civil} WHEN 'TIME' THEN ${civil} WHEN 'INTERVAL' THEN ${intervalTextSql(`CAST(${text} AS INTERVAL)`)} ELSE ${text} END END)[1]`;
}

/**
 * BigQuery's text of an INTERVAL (SQL of one): `[-]Y-M D [-]H:M:S[.F]`, the fraction in groups of
 * three digits (ZetaSQL's IntervalValue::AppendToString; CAST(INTERVAL 3 DAY AS STRING) is
 * '0-0 3 0:0:0', INTERVAL "1-2 3 4:5:6.789" YEAR TO SECOND '1-2 3 4:5:6.789'), its months, days
 * and time kept apart as DuckDB keeps them, as a query's INTERVAL column is answered
 * (backends/duckdb/rows.ts). DuckDB writes '3 days'. Read once, as a lambda's argument `i`, and
 * its time as `t`, the microseconds signed (DuckDB's date_part splits them into hours, minutes and
 * microseconds of the minute, each with the time's sign).
 */
function intervalTextSql(interval: string): string {
  const months = `(date_part('year', i) * 12 + date_part('month', i))`;
  const time = `date_part('hour', i) * 3600000000 + date_part('minute', i) * 60000000 + date_part('microseconds', i)`;
  const u = 'abs(t)';
  const fraction = `CASE WHEN ${u} % 1000000 = 0 THEN '' WHEN ${u} % 1000 = 0 THEN '.' || lpad(CAST(${u} % 1000000 // 1000 AS VARCHAR), 3, '0') ELSE '.' || lpad(CAST(${u} % 1000000 AS VARCHAR), 6, '0') END`;
  const clock = `CASE WHEN t < 0 THEN '-' ELSE '' END || ${u} // 3600000000 || ':' || ${u} // 60000000 % 60 || ':' || ${u} // 1000000 % 60 || ${fraction}`;
  const yearMonth = `CASE WHEN ${months} < 0 THEN '-' ELSE '' END || abs(${months}) // 12 || '-' || abs(${months}) % 12`;
  return `list_transform([${interval}], i -> list_transform([${time}], t -> ${yearMonth} || ' ' || date_part('day', i) || ' ' || ${clock})[1])[1]`;
}

/**
 * A value as FORMAT's %t prints it ("often looks similar to casting the argument to STRING"; the
 * %t and %T table): a TIMESTAMP in UTC with `+00` (FORMAT('%t', TIMESTAMP '2015-09-01 12:34:56
 * America/Los_Angeles') is '2015-09-01 19:34:56+00'), a FLOAT64 or NUMERIC with at least `.0`
 * (123.0), other types as CAST AS STRING writes them.
 */
export function formatTextSql(value: string): string {
  return bigQueryTextSql(value, 'CAST', 'format');
}

/**
 * CAST / SAFE_CAST of a STRING to BOOL with BigQuery's meaning: 'true' and 'false' in any case,
 * anything else fails the CAST and is NULL for SAFE_CAST. DuckDB's VARCHAR → BOOLEAN cast would
 * also read '1', 't', 'yes' and 'y' as TRUE.
 */
function textToBoolSql(value: string, cast: 'CAST' | 'TRY_CAST'): string {
  const refused = cast === 'CAST' ? raiseSql(`concat('Bad bool value: ', ${value})`) : 'NULL';
  return `CASE WHEN ${value} IS NULL THEN NULL WHEN lower(${value}) = 'true' THEN TRUE WHEN lower(${value}) = 'false' THEN FALSE ELSE ${refused} END`;
}

/** `STRUCT(1 AS a, 'x' AS b)`, `STRUCT<a INT64>(1)` and `STRUCT(1, 'x')` (unnamed fields). */
export function structSql(node: Ast, context: FormContext): string {
  const values = node.values as Ast[];
  const fields = node.fields as Ast[];
  if (fields.length > 0) {
    if (fields.length !== values.length) throw unsupported('STRUCT<...> with a different number of values');
    const items = values.map((value, i) => {
      const field = fields[i];
      if (!field.field_name) throw unsupported('STRUCT<...> with an unnamed field');
      return {
        name: field.field_name.value as string,
        sql: `CAST(${context.expr(value)} AS ${duckdbType(field.field_type)})`,
      };
    });
    return builtStructSql(items);
  }
  return structValueSql(
    values.map((value) => {
      const [kind, item] = variant(value);
      return kind === 'Named'
        ? { name: item.name.value as string, expr: item.expr as Expr }
        : { expr: value as Expr };
    }),
    context,
  );
}

/**
 * A STRUCT of these fields (`STRUCT(...)`, `SELECT AS STRUCT ...`). BigQuery names a field
 * without a name of its own that is a column or path (`event_name`, `e.ts`) after its last
 * part, as a SELECT list names its columns; another unaliased field is anonymous, which a result
 * names `_field_N` by its position from 1 (`STRUCT(1, 2, 3 AS three)` answers
 * {"_field_1": 1, "_field_2": 2, "three": 3}; tobymao/sqlglot#6729, tested against BigQuery).
 * TO_JSON_STRING reads such a field by its position (json-shapes.ts), as the "" BigQuery writes.
 */
export function structValueSql(
  fields: readonly { readonly name?: string | undefined; readonly expr: Expr }[],
  context: FormContext,
): string {
  const named = fields.map((field, i) => ({
    name: field.name ?? compoundParts(withoutParentheses(field.expr))?.at(-1) ?? anonymousField(i),
    expr: field.expr,
  }));
  const names = new Set(named.map((field) => field.name.toLowerCase()));
  if (names.size < named.length) throw unsupported('STRUCT with two fields of one name');
  return builtStructSql(named.map((field) => ({ name: field.name, sql: context.expr(field.expr) })));
}

/** A field of a STRUCT the query builds: its name (undefined when anonymous) and its value. */
interface BuiltField {
  readonly name: string | undefined;
  readonly sql: () => string;
  readonly type: () => SqlType | undefined;
}

/**
 * The fields of a STRUCT built by `STRUCT(...)`, `STRUCT<...>(...)` or a tuple `(x, y)`; undefined
 * for any other expression. A field named by neither an alias nor a declared type is named after
 * the last part of a path (`STRUCT(e.ts)` has a field `ts`), as structValueSql names it.
 */
function builtFields(node: Ast, context: FormContext): BuiltField[] | undefined {
  if (node.Tuple)
    return (node.Tuple as Ast[]).map((item) => ({
      name: undefined,
      sql: () => context.expr(item),
      type: () => context.valueType(item),
    }));
  const struct = node.Struct;
  if (!struct) return undefined;
  const declared = struct.fields as Ast[];
  const values = struct.values as Ast[];
  if (declared.length > 0) {
    if (declared.length !== values.length) throw unsupported('STRUCT<...> with a different number of values');
    return values.map((value, i) => ({
      name: declared[i].field_name?.value as string | undefined,
      sql: () => `CAST(${context.expr(value)} AS ${duckdbType(declared[i].field_type)})`,
      type: () => undefined,
    }));
  }
  return values.map((value) => {
    const [kind, item] = variant(value);
    const expr = (kind === 'Named' ? item.expr : value) as Ast;
    return {
      name: kind === 'Named' ? (item.name.value as string) : compoundParts(value as Expr)?.at(-1),
      sql: () => context.expr(expr),
      type: () => context.valueType(expr),
    };
  });
}

/**
 * The field names of an array literal's STRUCT elements (`[STRUCT('a' AS k, 1 AS v), ('b', 2)]`),
 * position by position, or undefined when its elements are not all STRUCTs the query builds (or
 * NULL). BigQuery gives the array one element type, whose fields are named by the elements that
 * name them: an anonymous field takes the name another element gives it at its position, which is
 * how an inline lookup table is written (polyglot-sql's and sqlglot's BigQuery readers propagate
 * the first STRUCT's names the same way). Elements of different widths, or naming one field two
 * ways, are refused rather than guessed.
 */
function structArrayFields(
  elements: readonly Ast[],
  context: FormContext,
): { fields: (BuiltField[] | null)[]; names: (string | undefined)[] } | undefined {
  const described = elements.map((element) =>
    isNullLiteral(element) ? null : builtFields(element, context),
  );
  if (described.some((element) => element === undefined)) return undefined;
  const fields = described as (BuiltField[] | null)[];
  const built = fields.filter((element): element is BuiltField[] => element !== null);
  const [first] = built;
  if (first === undefined) return undefined;
  if (built.some((element) => element.length !== first.length))
    throw unsupported('an array of STRUCTs with different numbers of fields');
  const names = first.map((_, i) => {
    const given = [...new Set(built.map((element) => element[i]?.name).filter((name) => name !== undefined))];
    if (new Set(given.map((name) => name.toLowerCase())).size > 1)
      throw unsupported(`an array of STRUCTs naming field ${i + 1} both ${given.join(' and ')}`);
    return given[0];
  });
  const named = names.filter((name) => name !== undefined).map((name) => name.toLowerCase());
  if (new Set(named).size < named.length) throw unsupported('STRUCT with two fields of one name');
  return { fields, names };
}

/** An array literal of STRUCTs the query builds, its fields named as BigQuery types the array (structArrayFields). */
export function structArraySql(elements: readonly Ast[], context: FormContext): string | undefined {
  const array = structArrayFields(elements, context);
  if (!array) return undefined;
  const items = array.fields.map((fields) =>
    fields === null
      ? 'NULL'
      : builtStructSql(
          fields.map((field, i) => ({ name: array.names[i] ?? anonymousField(i), sql: field.sql() })),
        ),
  );
  return `[${items.join(', ')}]`;
}

/**
 * The type of an array literal of STRUCTs the query builds, where every field has a name: its
 * fields typed as its first STRUCT's are (unknown where not told), so that `UNNEST` of it binds
 * a value table whose fields are columns. Undefined otherwise.
 */
export function structArrayType(elements: readonly Ast[], context: FormContext): SqlType | undefined {
  const array = structArrayFields(elements, context);
  const first = array?.fields.find((fields) => fields !== null);
  if (!array || !first || array.names.some((name) => name === undefined)) return undefined;
  const struct: Record<string, SqlType> = {};
  first.forEach((field, i) => {
    struct[array.names[i] as string] = field.type() ?? unknownType;
  });
  return { list: { struct } };
}

function isNullLiteral(node: Ast): boolean {
  return node.Value?.value === 'Null';
}

/** The name a result gives the anonymous field at `index` (from 0) of a STRUCT. */
export function anonymousField(index: number): string {
  return `_field_${index + 1}`;
}

/** What `[OFFSET(n)]`, `[ORDINAL(n)]`, their SAFE_ forms and a bare `[n]` (which is OFFSET) ask for. */
export interface SubscriptPosition {
  /** The position expression, `n`. */
  readonly position: Ast;
  /** OFFSET counts from 0, ORDINAL from 1. */
  readonly zeroBased: boolean;
  /** SAFE_OFFSET and SAFE_ORDINAL are NULL out of range, where OFFSET and ORDINAL raise an error. */
  readonly safe: boolean;
}

export function subscriptPosition(subscript: Ast): SubscriptPosition {
  const index = subscript.Index?.index;
  if (!index) throw unsupported('array slices');
  const wrapper = index.Function;
  const wrapperName = wrapper ? variant(wrapper.name[0])[1].value.toLowerCase() : undefined;
  if (wrapper && ['offset', 'safe_offset', 'ordinal', 'safe_ordinal'].includes(wrapperName)) {
    return {
      position: wrapper.args.List.args[0].Unnamed.Expr,
      zeroBased: wrapperName.endsWith('offset'),
      safe: wrapperName.startsWith('safe_'),
    };
  }
  if (stringLiteral(index) !== undefined) {
    throw unsupported(`subscript ['${stringLiteral(index)}'] (JSON subscripts)`);
  }
  return { position: index, zeroBased: true, safe: false };
}

/** Whether SQL names a column or a field of one (`t.a`, `"x y".b`), which costs nothing to read again. */
const columnPath = /^(?:"(?:[^"]|"")*"|\w+)(?:\.(?:"(?:[^"]|"")*"|\w+))*$/;

/**
 * A subscript of a list (see subscriptPosition). BigQuery's OFFSET is 0-based and ORDINAL
 * 1-based; DuckDB lists are 1-based and read negative indexes from the end. Out of range, OFFSET,
 * ORDINAL and `[n]` raise BigQuery's error, `Array index n is out of bounds (overflow)`
 * (`underflow` before the start), per row read, where DuckDB answers NULL; the SAFE_ forms answer
 * NULL. A NULL array or position gives NULL. A list that is not a column is read once, as a
 * lambda's argument (`SPLIT(path, '/')[OFFSET(1)]` would split three times).
 */
export function listSubscriptSql(list: string, subscript: Ast, context: FormContext): string {
  const { position, zeroBased, safe } = subscriptPosition(subscript);
  const first = zeroBased ? 0 : 1;
  const literal = numberLiteral(position);
  if (safe) {
    if (literal !== undefined) return `${list}[${literal + 1 - first >= 1 ? literal + 1 - first : 'NULL'}]`;
    const inner = context.expr(position);
    return `${list}[CASE WHEN (${inner}) >= ${first} THEN (${inner}) + ${1 - first} END]`;
  }
  let read: (l: string) => string;
  if (literal !== undefined) {
    const bound = literal < first ? 'underflow' : 'overflow';
    const error = raiseSql(quoteString(`Array index ${literal} is out of bounds (${bound})`));
    read =
      literal < first
        ? (l) => `CASE WHEN ${l} IS NULL THEN ${l}[1] ELSE ${error} END`
        : (l) =>
            `CASE WHEN len(${l}) > ${literal - first} THEN ${l}[${literal + 1 - first}] WHEN ${l} IS NULL THEN NULL ELSE ${error} END`;
  } else {
    const at = `(${context.expr(position)})`;
    const bound = `CASE WHEN ${at} < ${first} THEN 'underflow' ELSE 'overflow' END`;
    const error = raiseSql(
      `'Array index ' || CAST(${at} AS VARCHAR) || ' is out of bounds (' || ${bound} || ')'`,
    );
    read = (l) =>
      `CASE WHEN ${l} IS NULL OR ${at} IS NULL THEN NULL WHEN ${at} >= ${first} AND ${at} < len(${l}) + ${first} THEN ${l}[${at} + ${1 - first}] ELSE ${error} END`;
  }
  return columnPath.test(list)
    ? `(${read(list)})`
    : `list_transform([${list}], __list -> ${read('__list')})[1]`;
}

/** The BigQuery type of a value where the text shows it; undefined where it takes column types. */
export type ValueKind = 'date' | 'datetime' | 'timestamp';

const functionKinds: Record<string, ValueKind> = {
  current_date: 'date',
  date: 'date',
  date_add: 'date',
  date_sub: 'date',
  parse_date: 'date',
  date_from_unix_date: 'date',
  last_day: 'date',
  current_datetime: 'datetime',
  datetime: 'datetime',
  datetime_add: 'datetime',
  datetime_sub: 'datetime',
  datetime_trunc: 'datetime',
  parse_datetime: 'datetime',
  current_timestamp: 'timestamp',
  timestamp: 'timestamp',
  timestamp_add: 'timestamp',
  timestamp_sub: 'timestamp',
  timestamp_trunc: 'timestamp',
  timestamp_seconds: 'timestamp',
  timestamp_millis: 'timestamp',
  timestamp_micros: 'timestamp',
  parse_timestamp: 'timestamp',
};

/** DuckDB type names (a cast's, a stored column's) of each kind; a DATETIME is a TIMESTAMPTZ. */
const columnKinds: Record<string, ValueKind> = {
  DATE: 'date',
  TIMESTAMP_NS: 'datetime',
  TIMESTAMPTZ: 'datetime',
  'TIMESTAMP WITH TIME ZONE': 'datetime',
  TIMESTAMP: 'timestamp',
};

/**
 * DATE, DATETIME or TIMESTAMP, for literals, casts, the functions that return one, and columns
 * whose type the store's schema gives.
 */
export function valueKind(expression: Ast, context: FormContext): ValueKind | undefined {
  const columnType =
    expression.Identifier || expression.CompoundIdentifier ? context.columnType(expression) : undefined;
  // DATE_TRUNC gives its argument's type; the date_trunc rule takes an argument of no known kind as a DATE.
  const first = expression.Function?.args?.List?.args?.[0]?.Unnamed?.Expr;
  if (calledName(expression) === 'date_trunc' && first) return valueKind(first, context) ?? 'date';
  return columnType === undefined ? syntacticKind(expression) : columnKinds[columnType];
}

function syntacticKind(expression: Ast): ValueKind | undefined {
  const [kind, node] = variant(expression);
  // A cast's DuckDB type, as a column's would be.
  if (kind === 'TypedString' || kind === 'Cast') return columnKinds[castTypeOf(node.data_type) ?? ''];
  if (kind === 'Nested') return syntacticKind(node);
  if (kind === 'Function') {
    const name = (node.name as Ast[])
      .map((part) => variant(part)[1].value)
      .join('.')
      .toLowerCase();
    return functionKinds[name.replace(/^safe\./, '')];
  }
  return undefined;
}

/** Parameters (always STRING on both engines) and string literals. */
export function isStringValued(expression: Ast): boolean {
  if (stringLiteral(expression) !== undefined) return true;
  return typeof expression.Identifier?.value === 'string' && expression.Identifier.value.startsWith('@');
}
