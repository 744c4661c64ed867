import { compoundParts, type Query } from './ast.js';
import { parseBigQuery } from './bigquery-ast.js';
import { CteScopes } from './cte-scopes.js';
import { expressionSql, valueType } from './expression-sql.js';
import { nowParameter } from './function-rules.js';
import { resolveName } from './names.js';
import { orderItemSql, querySql } from './query-sql.js';
import { type TableSchema, unknownType } from './table-schema.js';
import { pushTopN } from './top-n-pushdown.js';
import { indent, type TranslationContext } from './translation-context.js';
import { Scope } from './unnest-scope.js';
import { atNode } from './unsupported.js';
import { refuseValueTable } from './value-table.js';

/** The DuckDB form of one saved BigQuery query. */
export interface Translation {
  /** DuckDB SQL with `$name` placeholders for the BigQuery `@name` parameters and `$__now`. */
  readonly sql: string;
  /** The `@name` parameters the DuckDB text reads, sorted (not those of CTEs it drops). */
  readonly parameters: readonly string[];
  /** Whether the SQL reads `$__now` (CURRENT_TIMESTAMP() or a UDF that depends on it). */
  readonly usesNow: boolean;
  /** The store names of the tables the query reads. */
  readonly tables: readonly string[];
}

export interface TranslateOptions {
  /**
   * The tables a query may read, with their columns as the store has them now: names and aliases
   * are what the SQL may write, the types tell objects (STRUCTs) from arrays and which fields exist.
   */
  readonly tables: readonly TableSchema[];
  /**
   * The BigQuery types the parameters are bound with; one not named is a STRING. Where a type
   * decides whether BigQuery accepts the query (EXTRACT of a STRING parameter), it is refused
   * here, naming the parameter. @default unknown: nothing is refused for a parameter's type
   */
  readonly parameterTypes?: Readonly<Record<string, string>> | undefined;
}

/**
 * Translates a saved BigQuery Standard SQL query to DuckDB SQL. The text is parsed by
 * sqlparser-rs and the AST is walked once; every construct with a different meaning on DuckDB
 * goes through a named rule (function-rules.ts, the UNNEST scope, the cast and subscript rules
 * of value-forms.ts). Whatever has no rule is refused with a message, never passed through.
 */
export function translateToDuckDb(bigQuerySql: string, options: TranslateOptions): Translation {
  return translateStatement(parseBigQuery(bigQuerySql), options);
}

/**
 * Translates a query statement already parsed (`parseBigQuery`), or built or merged from parsed
 * ones: the AST is read, never changed. Parameters and `usesNow` are found in the AST.
 */
export function translateStatement(query: Query, options: TranslateOptions): Translation {
  const tables = new Map<string, TableSchema>();
  for (const table of options.tables) {
    for (const name of [table.name, ...(table.aliases ?? [])]) tables.set(name.toLowerCase(), table);
  }
  const tablesRead = new Set<string>();
  const context = translationContext(
    tables,
    tablesRead,
    new CteScopes(),
    new Scope(),
    options.parameterTypes,
  );
  // ORDER BY ... LIMIT taken closer to the rows it picks from, where that is exact.
  const pushed = pushTopN(query, tables);
  const { result, uses } = context.ctes.tracingUse(() =>
    atNode(query, () => context.queryWithColumns(refuseValueTable(pushed, 'the whole query'))),
  );
  // The parameters of the text printed, not of the query parsed: a CTE nothing reads is dropped
  // with its parameters, and DuckDB refuses to bind a parameter its statement does not have.
  return {
    sql: result.sql,
    parameters: [...uses.parameters].filter((name) => name !== nowName).sort(),
    usesNow: uses.parameters.has(nowName),
    tables: [...tablesRead].sort(),
  };
}

const nowName = nowParameter.slice(1);

/** Wires the rooms of the translator together for one statement, in one scope. */
function translationContext(
  tables: ReadonlyMap<string, TableSchema>,
  tablesRead: Set<string>,
  ctes: CteScopes,
  scope: Scope,
  parameterTypes: Readonly<Record<string, string>> | undefined,
): TranslationContext {
  const context: TranslationContext = {
    scope,
    tables,
    tablesRead,
    ctes,
    parameterTypes,
    within: (other) => translationContext(tables, tablesRead, ctes, other, parameterTypes),
    expr: (node) => expressionSql(node, context),
    resolveName: (parts) => resolveName(parts, context),
    queryWithColumns: (query) => querySql(query, context),
    query: (node) => indent(querySql(node, context).sql),
    // ORDER BY inside an aggregate or a window orders by expressions, never by SELECT aliases.
    orderItem: (item) => orderItemSql(item, context, new Map()),
    useParameter: (name) => ctes.useParameter(name),
    valueType: (node) => valueType(node, context),
    // A range variable wins over a column of the same name, as resolveName reads it.
    rangeVariable: (node) => {
      const name = (node as { Identifier?: { value?: unknown } }).Identifier?.value;
      return typeof name === 'string' && context.scope.lookup(name)?.kind === 'relation';
    },
    neverNull: (node) => {
      const parts = compoundParts(node);
      return parts !== undefined && resolveName(parts, context).neverNull === true;
    },
    integerText: (node) => {
      const parts = compoundParts(node);
      return parts !== undefined && resolveName(parts, context).integerText === true;
    },
    columnType: (node) => {
      const parts = compoundParts(node);
      // A stored field read through a scalar subquery over the row's array (unnest-lookup.ts) too.
      const type = parts
        ? resolveName(parts, context).type
        : 'Subquery' in node
          ? valueType(node, context)
          : undefined;
      return typeof type === 'string' && type !== unknownType ? type : undefined;
    },
  };
  return context;
}

export { nowParameter };
