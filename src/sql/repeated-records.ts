import type { Ast } from './bigquery-ast.js';
import { numberLiteral } from './bigquery-ast.js';
import { raiseSql } from './raised-errors.js';
import { quoteString } from './rules/rule.js';
import { isStructSqlType, type SqlType } from './table-schema.js';
import { type FormContext, subscriptPosition } from './value-forms.js';

/**
 * On Logflare's BigQuery tables every nested object is a repeated record (an ARRAY of STRUCTs:
 * `metadata`, `metadata.request`, ...), so SQL written for them subscripts it
 * (`metadata[OFFSET(0)].request[OFFSET(0)].path`) and counts it (`ARRAY_LENGTH(metadata)`). The
 * store keeps each as one STRUCT (unnest-scope.ts says why), which is read here as the array it
 * stands for: an array of one element, or of none when the STRUCT is NULL (as CROSS JOIN UNNEST
 * reads it, and as the wire answers it: an empty repeated field). The stored shape stays as it
 * is, so the hot paths (field access through an UNNEST alias) keep their plans. ARRAY_LENGTH of
 * a record is rules/array.ts's.
 */

/**
 * `record[OFFSET(n)]`, `[ORDINAL(n)]`, `[SAFE_OFFSET(n)]`, `[SAFE_ORDINAL(n)]` and `[n]` of a
 * stored record: the record itself at the first position, else NULL under SAFE_ and otherwise
 * BigQuery's error, `Array index n is out of bounds (overflow)` (`underflow` before the start).
 * The result keeps the record's type (a CASE, in parentheses), so fields can be read from it.
 */
export function recordSubscriptSql(record: string, subscript: Ast, context: FormContext): string {
  const { position, zeroBased, safe } = subscriptPosition(subscript);
  const first = zeroBased ? 0 : 1;
  const literal = numberLiteral(position);
  if (literal !== undefined) {
    if (safe) return literal === first ? record : `(CASE WHEN FALSE THEN ${record} END)`;
    const bound = literal < first ? 'underflow' : 'overflow';
    const error = raiseSql(quoteString(`Array index ${literal} is out of bounds (${bound})`));
    // DuckDB raises the error per row, as BigQuery does: a table with no rows answers none.
    return literal === first
      ? `(CASE WHEN ${record} IS NOT NULL THEN ${record} ELSE ${error} END)`
      : `(CASE WHEN FALSE THEN ${record} ELSE ${error} END)`;
  }
  const at = `(${context.expr(position)})`;
  if (safe) return `(CASE WHEN ${at} = ${first} THEN ${record} END)`;
  const error = raiseSql(
    `'Array index ' || CAST(${at} AS VARCHAR) || ' is out of bounds (' || ` +
      `CASE WHEN ${at} < ${first} THEN 'underflow' ELSE 'overflow' END || ')'`,
  );
  return `(CASE WHEN ${at} IS NULL THEN NULL WHEN ${at} = ${first} AND ${record} IS NOT NULL THEN ${record} ELSE ${error} END)`;
}

/**
 * The type of the element of a repeated record taken whole (`SELECT metadata[OFFSET(0)]`, an
 * UNNEST alias `m`): the same STRUCT, taken whole. BigQuery answers the STRUCT (`{...}`), where a
 * stored record is answered as the array it stands for (`[{...}]`), so its SQL is marked as a
 * STRUCT the query builds is (objectSql): its fields are read as before and its own records stay
 * arrays.
 */
export function recordElementType(type: SqlType | undefined): SqlType | undefined {
  return isStructSqlType(type) ? { ...type, element: true } : type;
}
