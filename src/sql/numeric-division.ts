import { type Ast, numberLiteral, variant } from './bigquery-ast.js';

/**
 * NUMERIC stays NUMERIC where BigQuery keeps it. BigQuery's AVG of a NUMERIC and a NUMERIC divided
 * by a NUMERIC or an INT64 are NUMERIC (exact, 9 decimal places, rounded half away from zero);
 * DuckDB's avg of a DECIMAL and its `/` of one are DOUBLE, so an endpoint's result would be typed
 * FLOAT64 on the embedded engine and NUMERIC on BigQuery, and lose digits. Where the query and the
 * store's schema show a value is NUMERIC, the quotient is computed exactly instead.
 */

/** How the translation reads a value's stored type (a column's DuckDB type), where it knows it. */
type ColumnType = (node: Ast) => string | undefined;

// Functions whose result is NUMERIC when their (first) argument is.
const numericPreserving = new Set([
  'sum',
  'avg',
  'min',
  'max',
  'any_value',
  'abs',
  'round',
  'trunc',
  'ceil',
  'floor',
  'coalesce',
  'ifnull',
  'nullif',
  // Window functions giving a row's value.
  'lag',
  'lead',
  'first_value',
  'last_value',
  'nth_value',
  'max_by',
  'min_by',
]);
const integerFunctions = new Set(['count', 'countif', 'length', 'char_length', 'array_length']);
// Aggregates and functions of one value whose result is INT64 when it is (SUM of INT64 is INT64).
const integerPreserving = new Set([
  'sum',
  'min',
  'max',
  'any_value',
  'abs',
  'lag',
  'lead',
  'first_value',
  'last_value',
  'nth_value',
]);

/**
 * The values a conditional can give: IF's two branches, a CASE's THENs and ELSE, GREATEST's and
 * LEAST's arguments. BigQuery types it by their supertype: NUMERIC when one is NUMERIC and the
 * others NUMERIC, INT64 or NULL (a FLOAT64 one makes FLOAT64).
 */
function branchesOf(expression: Ast): Ast[] | undefined {
  const call = callOf(expression);
  if (call?.name === 'if' && call.args.length === 3) return call.args.slice(1);
  if (call && (call.name === 'greatest' || call.name === 'least') && call.args.length > 0) return call.args;
  const conditional = expression.Case;
  if (!conditional) return undefined;
  const results = (conditional.conditions as Ast[]).map((condition) => condition.result as Ast);
  return conditional.else_result ? [...results, conditional.else_result as Ast] : results;
}

const isNullLiteral = (expression: Ast) => expression.Value?.value === 'Null';

function callOf(expression: Ast): { name: string; args: Ast[] } | undefined {
  const call = expression.Function;
  if (!call) return undefined;
  const name = (call.name as Ast[])
    .map((part) => variant(part)[1].value)
    .join('.')
    .toLowerCase();
  const args = ((call.args?.List?.args ?? []) as Ast[])
    .map((arg) => arg.Unnamed?.Expr)
    .filter((arg): arg is Ast => arg !== undefined);
  return { name, args };
}

function castTarget(expression: Ast): string | undefined {
  const cast = expression.Cast ?? expression.TypedString;
  if (!cast) return undefined;
  return variant(cast.data_type)[0].toLowerCase();
}

/** Whether the value is NUMERIC (or BIGNUMERIC) in BigQuery, as far as the text and the schema show. */
export function isNumericValued(expression: Ast, columnType: ColumnType): boolean {
  if (expression.Nested) return isNumericValued(expression.Nested, columnType);
  if (columnType(expression)?.startsWith('DECIMAL')) return true;
  const target = castTarget(expression);
  if (target !== undefined) return target === 'numeric' || target === 'bignumeric';
  const call = callOf(expression);
  if (call && numericPreserving.has(call.name))
    return call.args[0] !== undefined && isNumericValued(call.args[0], columnType);
  const [dividend, divisor] = call?.args ?? [];
  if (
    (call?.name === 'safe_divide' || call?.name === 'div') &&
    dividend !== undefined &&
    divisor !== undefined
  )
    return isNumericCombination(dividend, divisor, columnType);
  const branches = branchesOf(expression);
  if (branches)
    return (
      branches.some((branch) => isNumericValued(branch, columnType)) &&
      branches.every(
        (branch) =>
          isNumericValued(branch, columnType) || isIntegerValued(branch, columnType) || isNullLiteral(branch),
      )
    );
  const binary = expression.BinaryOp;
  if (binary && ['Plus', 'Minus', 'Multiply', 'Divide'].includes(binary.op))
    return isNumericCombination(binary.left, binary.right, columnType);
  return false;
}

/** Whether the value is INT64 in BigQuery: an integer literal, an integer column, COUNT. */
export function isIntegerValued(expression: Ast, columnType: ColumnType): boolean {
  if (expression.Nested) return isIntegerValued(expression.Nested, columnType);
  const literal = expression.Value?.value?.Number?.[0];
  if (typeof literal === 'string') return /^\d+$/.test(literal) && numberLiteral(expression) !== undefined;
  if (['BIGINT', 'INTEGER', 'HUGEINT'].includes(columnType(expression) ?? '')) return true;
  if (castTarget(expression) === 'int64') return true;
  const binary = expression.BinaryOp;
  if (binary && ['Plus', 'Minus', 'Multiply'].includes(binary.op))
    return isIntegerValued(binary.left, columnType) && isIntegerValued(binary.right, columnType);
  const call = callOf(expression);
  if (call && integerPreserving.has(call.name))
    return call.args[0] !== undefined && isIntegerValued(call.args[0], columnType);
  const branches = branchesOf(expression);
  if (branches)
    return (
      branches.some((branch) => isIntegerValued(branch, columnType)) &&
      branches.every((branch) => isIntegerValued(branch, columnType) || isNullLiteral(branch))
    );
  return call !== undefined && integerFunctions.has(call.name);
}

/**
 * Whether BigQuery's result of combining the two with +, -, * or / is NUMERIC: one is NUMERIC and
 * the other NUMERIC or INT64 (a FLOAT64 on either side makes FLOAT64).
 */
export function isNumericCombination(left: Ast, right: Ast, columnType: ColumnType): boolean {
  const leftNumeric = isNumericValued(left, columnType);
  const rightNumeric = isNumericValued(right, columnType);
  return (
    (leftNumeric && (rightNumeric || isIntegerValued(right, columnType))) ||
    (rightNumeric && isIntegerValued(left, columnType))
  );
}

/** A NUMERIC's value in nanounits, an integer (HUGEINT). */
const nanos = (value: string) => `CAST(CAST(${value} AS DECIMAL(38, 9)) * 1000000000 AS HUGEINT)`;

/**
 * DIV of NUMERICs: BigQuery's integer division, truncated toward zero, a NUMERIC. DuckDB's `//`
 * of DECIMALs divides as doubles and keeps the fraction (DIV(53453.6, 7) as 7636.057...); the
 * nanounits of both divided as integers truncate exactly. The divisor comes checked, as for `/`.
 */
export function numericIntegerQuotientSql(dividend: string, divisor: string): string {
  const n = nanos(dividend);
  const d = nanos(divisor);
  return `CAST(sign(${n}) * sign(${d}) * (abs(${n}) // abs(${d})) AS DECIMAL(38, 9))`;
}

/**
 * `dividend / divisor` as BigQuery divides NUMERICs: exact, to 9 decimal places, halves rounded
 * away from zero, a DECIMAL(38, 9). Both are scaled to integers of nanounits (HUGEINT) and
 * divided as integers: exact while the dividend stays below 10^20 in magnitude (its nanounits
 * times 10^9 fit 128 bits), beyond which DuckDB raises an overflow error, never a rounded value. The
 * divisor comes checked (checkedDivisor): a zero fails as on BigQuery.
 */
export function numericQuotientSql(dividend: string, divisor: string): string {
  const n = `(${nanos(dividend)} * 1000000000)`;
  const d = nanos(divisor);
  // Half up on magnitudes: (|n| + |d| div 2) div |d| (with d odd no quotient ends in exactly .5).
  const quotient = `sign(${n}) * sign(${d}) * ((abs(${n}) + abs(${d}) // 2) // abs(${d}))`;
  return `(CAST(${quotient} AS DECIMAL(38, 0)) * CAST(0.000000001 AS DECIMAL(10, 9)))`;
}

/**
 * The DuckDB type standing for a computed column's BigQuery number type, for a query around it
 * (a CTE's or subquery's `SUM(total) AS rev`, read as `rev / n`): DECIMAL for NUMERIC, BIGINT for
 * INT64; undefined where the text does not show either.
 */
export function computedNumberType(expression: Ast, columnType: ColumnType): string | undefined {
  if (isNumericValued(expression, columnType)) return 'DECIMAL(38, 9)';
  return isIntegerValued(expression, columnType) ? 'BIGINT' : undefined;
}
