import type { Expr, Query } from './ast.js';
import type { CteScopes } from './cte-scopes.js';
import type { TableSchema } from './table-schema.js';
import type { Columns, Resolved, Scope } from './unnest-scope.js';
import type { FormContext } from './value-forms.js';

/** A query translated to DuckDB SQL, with the columns it outputs. */
export interface QuerySql {
  readonly sql: string;
  readonly columns: Columns;
}

/**
 * The names a SELECT list gives its columns (lower case): explicit aliases, and the implicit ones
 * BigQuery gives a path (`p.user_name` is `user_name`); an explicit alias wins.
 */
export type OutputNames = ReadonlyMap<
  string,
  {
    readonly expr: Expr;
    readonly explicit: boolean;
    /** A column of the SELECT's rows that sorts as this output does, for ORDER BY (sort-column.ts). */
    readonly sortsAs?: string | undefined;
  }
>;

/**
 * One statement's translation as each room of the translator sees it, bound to the scope being
 * translated: the statements and CTEs (query-sql.ts, select-sql.ts), the FROM clause and its
 * UNNESTs (from-clause.ts, unnest-sql.ts), expressions (expression-sql.ts) and names (names.ts).
 * The rooms never import one another upwards; they call back through this context, which
 * translate.ts wires, as the function-call and value forms do through `FormContext`.
 */
export interface TranslationContext extends FormContext {
  /** The FROM-clause names visible here. */
  readonly scope: Scope;
  /** Tables by lower-case name and alias. */
  readonly tables: ReadonlyMap<string, TableSchema>;
  /** The store names of the tables the statement reads, filled in as FROM clauses are translated. */
  readonly tablesRead: Set<string>;
  /** The CTEs visible from here, and which of them are referenced. */
  readonly ctes: CteScopes;
  /** The parameters' BigQuery types, when known (TranslateOptions.parameterTypes). */
  readonly parameterTypes: Readonly<Record<string, string>> | undefined;
  /** The same translation in another scope: a SELECT's own, or an empty one. */
  within(scope: Scope): TranslationContext;
  /** A (possibly dotted) name as BigQuery resolves it here. */
  resolveName(parts: readonly string[]): Resolved;
  /** A query (CTE body, derived table, subquery), unindented, with its output columns. */
  queryWithColumns(query: Query): QuerySql;
}

export function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');
}
