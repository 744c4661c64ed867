import { andTerms, compoundParts, type Expr } from './ast.js';
import type { Ast } from './bigquery-ast.js';
import type { TranslationContext } from './translation-context.js';

/**
 * What a FROM clause's joins over records imply for the rows of its SELECT: the record paths a
 * `CROSS JOIN UNNEST(m.response) AS r` needs present (a row without the record has no element to
 * join, so BigQuery drops it), and the conditions of inner joins over records.
 */
export interface ImpliedFilters {
  readonly present: string[];
  readonly conditions: string[];
}

export function noImpliedFilters(): ImpliedFilters {
  return { present: [], conditions: [] };
}

/**
 * The test that every record of `present` is there, reduced to the paths nothing else implies;
 * undefined when none is left. A record path is implied present by a longer path through it
 * (`"metadata"."response"."headers"` is NULL when `"metadata"."response"` is) and by a path through
 * it that a condition ANDed beside it rejects NULL of (`r.status_code >= 500` drops the row whose
 * response is absent). The reduction is for DuckDB's sake: a struct's IS NOT NULL reads the whole
 * root column, every child of it, unless the column's statistics say it holds no NULLs, and DuckDB
 * uses those statistics only for a scan filter that is a single expression; so what is left is
 * written as one (`NOT (a IS NULL OR b IS NULL)`, which the planner keeps whole).
 */
export function presenceSql(
  present: readonly string[],
  rejectNull: readonly string[] = [],
): string | undefined {
  const through = (path: string) => (other: string) => other.startsWith(`${path}.`);
  const needed = [...new Set(present)].filter(
    (path) => !present.some(through(path)) && !rejectNull.some(through(path)),
  );
  if (needed.length === 0) return undefined;
  if (needed.length === 1) return `${needed[0]} IS NOT NULL`;
  return `NOT (${needed.map((path) => `${path} IS NULL`).join(' OR ')})`;
}

/**
 * The paths to scalar fields that a WHERE (or ON) condition rejects NULL of: those compared, matched
 * by LIKE, tested by IN (list), BETWEEN or IS NOT NULL, in the terms ANDed at its top. Each comparison is NULL
 * when the field is, and a NULL condition drops the row; a path under OR, NOT, CASE or a function
 * call is left out, since those can turn a NULL into TRUE.
 */
export function nullRejectedPaths(condition: Expr | undefined, context: TranslationContext): string[] {
  return andTerms(condition).flatMap((term) => termRejectedPaths(term as Ast, context));
}

function termRejectedPaths(node: Ast, context: TranslationContext): string[] {
  if (node.BinaryOp && comparisons.has(node.BinaryOp.op))
    return [...scalarPath(node.BinaryOp.left, context), ...scalarPath(node.BinaryOp.right, context)];
  const tested = node.IsNotNull ?? node.Like?.expr ?? node.InList?.expr ?? node.Between?.expr;
  return tested === undefined ? [] : scalarPath(tested, context);
}

const comparisons = new Set(['Eq', 'NotEq', 'Lt', 'LtEq', 'Gt', 'GtEq']);

/** The DuckDB path of a name that stands for a scalar field (not a record or an array). */
function scalarPath(operand: Expr, context: TranslationContext): string[] {
  const parts = compoundParts(operand);
  return parts && context.columnType(operand) !== undefined ? [context.resolveName(parts).sql] : [];
}
