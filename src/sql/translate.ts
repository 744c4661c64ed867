import {
  type Ast,
  parseBigQuery,
  queryFunctions,
  queryParameters,
  stringLiteral,
  variant,
} from './bigquery-ast.js';
import { constantCtes } from './constant-ctes.js';
import { callSql, functionCallSql, windowSql } from './function-call.js';
import { functionsReadingNow, nowParameter, quantileAt } from './function-rules.js';
import { quoteString } from './rules/rule.js';
import { extract } from './rules/time.js';
import {
  isListSqlType,
  isStructSqlType,
  quoteIdent,
  type SqlType,
  type TableSchema,
} from './table-schema.js';
import { type Column, elementPath, followFields, type Resolved, Scope } from './unnest-scope.js';
import { atNode, unsupported } from './unsupported.js';
import { arrayIndexSql, castSql, type FormContext, structSql } from './value-forms.js';

/** The DuckDB form of one saved BigQuery query. */
export interface Translation {
  /** DuckDB SQL with `$name` placeholders for the BigQuery `@name` parameters and `$__now`. */
  readonly sql: string;
  /** The `@name` parameters the BigQuery text uses, sorted. */
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
}

/**
 * Translates a saved BigQuery Standard SQL query to DuckDB SQL. The text is parsed by
 * sqlparser-rs and the AST is walked once; every construct with a different meaning on DuckDB
 * goes through a named rule (function-rules.ts, the UNNEST scope, the cast and subscript rules
 * below). Whatever has no rule is refused with a message, never passed through.
 */
export function translateToDuckDb(bigQuerySql: string, options: TranslateOptions): Translation {
  const query = parseBigQuery(bigQuerySql);
  const translator = new Translator(options.tables);
  const sql = atNode(query, () => translator.query(query, new Scope()));
  const functions = queryFunctions(query);
  return {
    sql,
    parameters: [...queryParameters(query)].sort(),
    usesNow: [...functions].some((name) => functionsReadingNow.has(name)),
    tables: [...translator.tablesRead].sort(),
  };
}

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
 * The names a SELECT list gives its columns (lower case): explicit aliases, and the implicit ones
 * BigQuery gives a path (`p.user_name` is `user_name`); an explicit alias wins.
 */
type OutputNames = ReadonlyMap<string, { readonly expr: Ast; readonly explicit: boolean }>;

function outputNames(projection: readonly Ast[]): OutputNames {
  const names = new Map<string, { expr: Ast; explicit: boolean }>();
  for (const item of projection) {
    const [kind, node] = variant(item);
    if (kind === 'ExprWithAlias')
      names.set(node.alias.value.toLowerCase(), { expr: node.expr, explicit: true });
  }
  for (const item of projection) {
    const [kind, node] = variant(item);
    const name = kind === 'UnnamedExpr' ? compoundParts(node)?.at(-1)?.toLowerCase() : undefined;
    if (name !== undefined && !names.has(name)) names.set(name, { expr: node, explicit: false });
  }
  return names;
}

/** Output columns of a query or SELECT by lower-case name; undefined when not all are known. */
type Columns = Map<string, Column> | undefined;

class Translator {
  /** Tables by lower-case name and alias. */
  private readonly tables = new Map<string, TableSchema>();
  /** Constant one-row CTEs (see constant-ctes.ts): name → column → expression. */
  private readonly constants = new Map<string, Map<string, Ast>>();
  /** The CTEs visible from the query being printed, innermost WITH last: name → output columns. */
  private readonly cteScopes: Map<string, Columns>[] = [];
  /** One set per query being printed, collecting the CTE names it references. */
  private readonly cteUses: Set<string>[] = [];
  /** The store names of the tables read so far. */
  readonly tablesRead = new Set<string>();

  constructor(tables: readonly TableSchema[]) {
    for (const table of tables) {
      for (const name of [table.name, ...(table.aliases ?? [])]) this.tables.set(name.toLowerCase(), table);
    }
  }

  query(query: Ast, outer: Scope): string {
    return this.queryWithColumns(query, outer).sql;
  }

  private queryWithColumns(query: Ast, outer: Scope): { sql: string; columns: Columns } {
    const ctes: Array<{ name: string; sql: string; uses: Set<string> }> = [];
    const visible = new Map<string, Columns>();
    this.cteScopes.push(visible);
    try {
      if (query.with) {
        if (query.with.recursive) throw unsupported('WITH RECURSIVE');
        for (const [name, columns] of constantCtes(query)) this.constants.set(name, columns);
        for (const cte of query.with.cte_tables as Ast[]) {
          const name = String(cte.alias.name.value);
          const { result, uses } = this.tracingCteUse(() =>
            atNode(cte, () => this.queryWithColumns(cte.query, outer)),
          );
          ctes.push({
            name: name.toLowerCase(),
            sql: `${quoteIdent(name)} AS (\n${indent(result.sql)}\n)`,
            uses,
          });
          // Visible to the CTEs after it and to the query body, not to its own body.
          visible.set(name.toLowerCase(), result.columns);
        }
      }
      const { result: body, uses } = this.tracingCteUse(() => this.queryBody(query, outer));
      // CTEs nothing reaches are dropped: BigQuery never evaluates them, and DuckDB need not bind them.
      const reached = new Set<string>();
      const reach = (name: string) => {
        if (reached.has(name)) return;
        reached.add(name);
        for (const used of ctes.find((cte) => cte.name === name)?.uses ?? []) reach(used);
      };
      for (const name of uses) reach(name);
      const kept = ctes.filter((cte) => reached.has(cte.name));
      const sql = kept.length > 0 ? `WITH ${kept.map((cte) => cte.sql).join(',\n')}\n${body.sql}` : body.sql;
      return { sql, columns: body.columns };
    } finally {
      this.cteScopes.pop();
    }
  }

  /** Runs `print` and returns the CTE names referenced while it ran, at any depth. */
  private tracingCteUse<T>(print: () => T): { result: T; uses: Set<string> } {
    const uses = new Set<string>();
    this.cteUses.push(uses);
    try {
      return { result: print(), uses };
    } finally {
      this.cteUses.pop();
    }
  }

  /** The output columns of the CTE `name` visible here, or false when no CTE has that name. */
  private findCte(name: string): Columns | false {
    const lower = name.toLowerCase();
    for (let i = this.cteScopes.length - 1; i >= 0; i--) {
      const visible = this.cteScopes[i] as Map<string, Columns>;
      if (visible.has(lower)) return visible.get(lower);
    }
    return false;
  }

  private queryBody(query: Ast, outer: Scope): { sql: string; columns: Columns } {
    const parts: string[] = [];
    const { sql, scope, columns, outputs } = this.setExpression(query.body, outer);
    parts.push(sql);
    if (query.order_by) {
      const [kind, items] = variant(query.order_by.kind);
      if (kind !== 'Expressions') throw unsupported('ORDER BY ALL');
      parts.push(
        `ORDER BY ${items.map((item: Ast) => atNode(item, () => this.orderItem(item, scope, outputs))).join(', ')}`,
      );
    }
    if (query.limit_clause) {
      const [kind, limit] = variant(query.limit_clause);
      if (kind !== 'LimitOffset') throw unsupported('this LIMIT form');
      if (limit.limit) parts.push(`LIMIT ${this.expr(limit.limit, scope)}`);
      if (limit.offset) parts.push(`OFFSET ${this.expr(limit.offset.value, scope)}`);
    }
    return { sql: parts.join('\n'), columns };
  }

  /**
   * ORDER BY names a column of the SELECT list before a FROM column, as BigQuery does: an explicit
   * alias is printed as the alias, an implicit one (`postgres_logs.timestamp` is `timestamp`) as
   * the expression it names, which also keeps it apart from a field of the same name elsewhere.
   */
  private orderItem(item: Ast, scope: Scope, outputs: OutputNames): string {
    const direction = item.options?.asc === false ? ' DESC' : item.options?.asc === true ? ' ASC' : '';
    // BigQuery sorts NULLs first ascending and last descending; the DuckDB engine sets that order.
    const nulls =
      item.options?.nulls_first === true
        ? ' NULLS FIRST'
        : item.options?.nulls_first === false
          ? ' NULLS LAST'
          : '';
    const bare = item.expr.Identifier;
    const output = bare ? outputs.get(String(bare.value).toLowerCase()) : undefined;
    const sql = output
      ? output.explicit
        ? quoteIdent(bare.value)
        : this.expr(output.expr, scope)
      : this.expr(item.expr, scope);
    return `${sql}${direction}${nulls}`;
  }

  /** A query body; the scope of its SELECT is returned so ORDER BY can see the FROM names. */
  private setExpression(
    body: Ast,
    outer: Scope,
  ): { sql: string; scope: Scope; columns: Columns; outputs: OutputNames } {
    const [kind, node] = variant(body);
    switch (kind) {
      case 'Select':
        return atNode(node, () => this.select(node, outer));
      case 'Query': {
        const inner = this.queryWithColumns(node, outer);
        return { sql: `(${inner.sql})`, scope: outer, columns: inner.columns, outputs: new Map() };
      }
      case 'SetOperation': {
        const operators: Record<string, string> = {
          Union: 'UNION',
          Intersect: 'INTERSECT',
          Except: 'EXCEPT',
        };
        const quantifier =
          node.set_quantifier === 'All' ? ' ALL' : node.set_quantifier === 'Distinct' ? '' : null;
        if (!operators[node.op] || quantifier === null)
          throw unsupported(`${node.op} ${node.set_quantifier}`);
        const left = this.setExpression(node.left, outer);
        const right = this.setExpression(node.right, outer);
        return {
          sql: `${left.sql}\n${operators[node.op]}${quantifier}\n${right.sql}`,
          scope: left.scope,
          columns: left.columns,
          // After a set operation ORDER BY can only name the result's columns, never an expression.
          outputs: new Map([...left.outputs].map(([name, output]) => [name, { ...output, explicit: true }])),
        };
      }
      default:
        throw unsupported(`query body ${kind}`);
    }
  }

  private select(
    select: Ast,
    outer: Scope,
  ): { sql: string; scope: Scope; columns: Columns; outputs: OutputNames } {
    const scope = outer.child();
    // Filters implied by CROSS JOIN UNNEST over objects: a record without the object is dropped.
    const impliedFilters: string[] = [];
    const from = select.from as Ast[];
    const fromItems: string[] = [];
    for (const [index, item] of from.entries()) {
      const sql = atNode(item, () => {
        // `FROM t, UNNEST(t.a) AS x` is a correlated CROSS JOIN, as if written with the keywords.
        // With nothing printed before it (a constant CTE was inlined), it is a FROM item of its own.
        const unnest = item.relation.UNNEST ?? arrayPathUnnest(item.relation, scope);
        if (index > 0 && unnest && fromItems.length > 0) {
          const joined = this.joinUnnest(unnest, 'CrossJoin', undefined, scope, impliedFilters);
          fromItems[fromItems.length - 1] += joined + this.joins(item, scope, impliedFilters);
          return '';
        }
        return this.inlineConstant(item, scope, from.length) ?? this.fromItem(item, scope, impliedFilters);
      });
      if (sql !== '') fromItems.push(sql);
    }
    if (select.distinct && select.distinct !== 'Distinct') throw unsupported('SELECT DISTINCT ON');
    if (select.value_table_mode) throw unsupported('SELECT AS STRUCT / SELECT AS VALUE');
    const outputs = outputNames(select.projection as Ast[]);
    const columns: Columns = new Map();
    let allKnown = true;
    const projection = (select.projection as Ast[]).map((item) =>
      atNode(item, () => {
        const printed = this.selectItem(item, scope);
        if (printed.columns === undefined) allKnown = false;
        for (const column of printed.columns ?? []) columns.set(column.name.toLowerCase(), column);
        return printed.sql;
      }),
    );
    const lines = [`SELECT${select.distinct ? ' DISTINCT' : ''}\n${indent(projection.join(',\n'))}`];
    if (fromItems.length > 0) lines.push(`FROM ${fromItems.join(',\n  ')}`);
    const where = [
      ...(select.selection ? [atNode(select.selection, () => this.expr(select.selection, scope))] : []),
      ...impliedFilters,
    ];
    if (where.length === 1) lines.push(`WHERE ${where[0]}`);
    if (where.length > 1) lines.push(`WHERE (${where[0]})\n  AND ${where.slice(1).join('\n  AND ')}`);
    const groupBy = this.groupBy(select, scope, outputs);
    if (groupBy) lines.push(groupBy);
    if (select.having)
      lines.push(`HAVING ${atNode(select.having, () => this.withAliases(select.having, scope, outputs))}`);
    if (select.named_window.length > 0) {
      const windows = (select.named_window as Ast[]).map(([name, spec]: Ast) => {
        const window = atNode(spec, () => windowSql(spec, this.forms(scope)));
        return `${quoteIdent(name.value)} AS ${window.startsWith('(') ? window : `(${window})`}`;
      });
      lines.push(`WINDOW ${windows.join(', ')}`);
    }
    if (select.qualify) lines.push(`QUALIFY ${this.withOutputNames(select.qualify, scope, outputs)}`);
    return {
      sql: lines.join('\n'),
      scope,
      columns: allKnown ? columns : undefined,
      outputs,
    };
  }

  /**
   * GROUP BY names resolve to SELECT-list names first in BigQuery, and to FROM columns first in
   * DuckDB: a name of the SELECT list is replaced by the expression it names.
   */
  private groupBy(select: Ast, scope: Scope, outputs: OutputNames): string | undefined {
    const [kind, node] = variant(select.group_by);
    if (kind !== 'Expressions') throw unsupported('GROUP BY ALL');
    const [expressions] = node as [Ast[], Ast[]];
    if (expressions.length === 0) return undefined;
    const items = expressions.map((expression) =>
      atNode(expression, () => this.withAliases(expression, scope, outputs)),
    );
    return `GROUP BY ${items.join(', ')}`;
  }

  /** An expression where a bare name may name a SELECT-list column (GROUP BY, HAVING): that wins. */
  private withAliases(expression: Ast, scope: Scope, outputs: OutputNames): string {
    const name = expression.Identifier?.value?.toLowerCase();
    const output = name === undefined ? undefined : outputs.get(name);
    return this.expr(output?.expr ?? expression, scope);
  }

  /**
   * QUALIFY may name SELECT-list columns (`QUALIFY rank <= 3`), on DuckDB as in BigQuery: a name
   * that is no range variable or column of the FROM clause is left to mean the output column.
   */
  private withOutputNames(expression: Ast, scope: Scope, outputs: OutputNames): string {
    const withOutputs = scope.child();
    for (const name of outputs.keys()) {
      if (scope.lookup(name) === undefined && scope.resolveColumn(name) === 'unknown')
        withOutputs.bind(name, { kind: 'element', alias: name });
    }
    return this.expr(expression, withOutputs);
  }

  /** One select-list item and the output columns it makes (undefined when they are not known). */
  private selectItem(item: Ast, scope: Scope): { sql: string; columns: Column[] | undefined } {
    const [kind, node] = variant(item);
    switch (kind) {
      case 'UnnamedExpr': {
        const parts = compoundParts(node);
        if (!parts) return { sql: this.expr(node, scope), columns: [] };
        const resolved = this.resolveName(parts, scope);
        // BigQuery names the column after the last part; DuckDB would name a path after its
        // last field, which for a bare UNNEST alias (`select request`) is another name.
        const name = parts.at(-1) as string;
        const sql = resolved.sql.endsWith(quoteIdent(name))
          ? resolved.sql
          : `${resolved.sql} AS ${quoteIdent(name)}`;
        return { sql, columns: [{ name, type: resolved.type }] };
      }
      case 'ExprWithAlias': {
        const parts = compoundParts(node.expr);
        const resolved = parts ? this.resolveName(parts, scope) : { sql: this.expr(node.expr, scope) };
        return {
          sql: `${resolved.sql} AS ${quoteIdent(node.alias.value)}`,
          columns: [{ name: node.alias.value, type: resolved.type }],
        };
      }
      case 'Wildcard': {
        const options = this.wildcardOptions(node, scope);
        // EXCEPT and REPLACE change which columns come out, and their types: DuckDB works them out.
        return { sql: `*${options}`, columns: options ? undefined : wildcardColumns(scope) };
      }
      case 'QualifiedWildcard': {
        const [, name] = variant(node[0]);
        const parts: string[] = name.map((part: Ast) => variant(part)[1].value);
        const binding = parts.length === 1 ? scope.lookup(parts[0] as string) : undefined;
        const options = this.wildcardOptions(node[1], scope);
        if (binding?.kind === 'object') {
          if (options) throw unsupported(`SELECT ${parts[0]}.* with EXCEPT or REPLACE over a record`);
          // DuckDB's unnest() of a STRUCT spreads its fields into columns, as `m.*` does in BigQuery.
          const columns = Object.entries(binding.type.struct).map(([field, type]) => ({ name: field, type }));
          return { sql: `unnest(${binding.path})`, columns };
        }
        const columns =
          binding?.kind === 'relation' && binding.columns && !options
            ? [...binding.columns.values()]
            : undefined;
        return { sql: `${parts.map(quoteIdent).join('.')}.*${options}`, columns };
      }
      default:
        throw unsupported(`select item ${kind}`);
    }
  }

  /** `* EXCEPT (a, b) REPLACE (expr AS c)`: DuckDB's `* EXCLUDE (...) REPLACE (...)`. */
  private wildcardOptions(options: Ast, scope: Scope): string {
    if (!options) return '';
    if (options.opt_ilike || options.opt_exclude || options.opt_rename)
      throw unsupported('this SELECT * modifier');
    let sql = '';
    const except = options.opt_except;
    if (except) {
      const names = [except.first_element, ...(except.additional_elements ?? [])];
      sql += ` EXCLUDE (${names.map((name: Ast) => quoteIdent(name.value)).join(', ')})`;
    }
    const replace = options.opt_replace;
    if (replace) {
      const items = (replace.items as Ast[]).map(
        (item) => `${this.expr(item.expr, scope)} AS ${quoteIdent(item.column_name.value)}`,
      );
      sql += ` REPLACE (${items.join(', ')})`;
    }
    return sql;
  }

  /**
   * A constant one-row CTE joined with a comma beside other FROM items is not joined at all: its
   * alias is bound to the CTE's expressions. Returns '' when inlined, undefined otherwise.
   */
  private inlineConstant(item: Ast, scope: Scope, fromItems: number): string | undefined {
    const table = item.relation.Table;
    if (!table || item.joins.length > 0 || fromItems < 2 || table.name.length !== 1) return undefined;
    const name = String(variant(table.name[0])[1].value);
    const columns = this.constants.get(name.toLowerCase());
    if (!columns || this.findCte(name) === false) return undefined;
    scope.bind(table.alias?.name?.value ?? name, { kind: 'constant', columns });
    return '';
  }

  private fromItem(item: Ast, scope: Scope, impliedFilters: string[]): string {
    const sql = this.relation(item.relation, scope);
    return sql + this.joins(item, scope, impliedFilters);
  }

  /** The JOIN clauses of a FROM item, after its first relation. */
  private joins(item: Ast, scope: Scope, impliedFilters: string[]): string {
    let sql = '';
    for (const join of item.joins as Ast[]) {
      sql += atNode(join, () => {
        const [operator, constraint] = variant(join.join_operator);
        const relation = join.relation;
        const unnest = relation.UNNEST ?? arrayPathUnnest(relation, scope);
        if (unnest) return this.joinUnnest(unnest, operator, constraint, scope, impliedFilters);
        const right = this.relation(relation, scope);
        if (operator === 'CrossJoin') return `\nCROSS JOIN ${right}`;
        if (operator === 'Inner' || operator === 'Join')
          return `\nJOIN ${right}${this.joinConstraint(constraint, scope)}`;
        if (operator === 'Left' || operator === 'LeftOuter')
          return `\nLEFT JOIN ${right}${this.joinConstraint(constraint, scope)}`;
        throw unsupported(`${operator} joins`);
      });
    }
    return sql;
  }

  private joinConstraint(constraint: Ast, scope: Scope): string {
    const [kind, node] = variant(constraint);
    if (kind === 'On') return ` ON ${this.expr(node, scope)}`;
    if (kind === 'Using')
      return ` USING (${node.map((name: Ast) => quoteIdent(variant(name[0] ?? name)[1].value ?? '')).join(', ')})`;
    throw unsupported(`join constraint ${kind}`);
  }

  private relation(relation: Ast, scope: Scope): string {
    const [kind, node] = variant(relation);
    const alias: string | undefined = node?.alias?.name?.value;
    switch (kind) {
      case 'Table': {
        // `cloudflare.logs.prod` comes back from the parser as three identifiers; the logical
        // source name is the whole dotted name, and so is its DuckDB table name.
        const parts: string[] = (node.name as Ast[]).map((part) => variant(part)[1].value);
        const name = parts.join('.');
        // BigQuery's implicit alias of a table is the last part of its name.
        const rangeName = alias ?? (parts.at(-1) as string);
        const cte = parts.length === 1 ? this.findCte(name) : false;
        if (cte !== false) {
          for (const uses of this.cteUses) uses.add(name.toLowerCase());
          scope.bind(rangeName, { kind: 'relation', alias: rangeName, columns: cte });
          return `${quoteIdent(name)}${alias ? ` AS ${quoteIdent(alias)}` : ''}`;
        }
        const found = findTable(this.tables, name);
        if (!found) throw unsupported(`no table or source named ${name}`);
        const { table, suffix } = found;
        this.tablesRead.add(table.name);
        const columns = new Map<string, Column>(
          Object.entries(table.columns).map(([column, type]) => [
            column.toLowerCase(),
            { name: column, type },
          ]),
        );
        const suffixColumn = table.tableSuffix && columns.get(table.tableSuffix.column.toLowerCase());
        if (found.wildcard && suffixColumn) columns.set('_table_suffix', { ...suffixColumn, pseudo: true });
        scope.bind(rangeName, { kind: 'relation', alias: rangeName, columns });
        // One table of a wildcard family (`events_20240131`): the rows of that suffix.
        if (suffix !== undefined && suffixColumn)
          return `(SELECT * FROM ${quoteIdent(table.name)} WHERE ${quoteIdent(suffixColumn.name)} = ${quoteString(suffix)}) AS ${quoteIdent(rangeName)}`;
        return rangeName === table.name
          ? quoteIdent(table.name)
          : `${quoteIdent(table.name)} AS ${quoteIdent(rangeName)}`;
      }
      case 'Derived': {
        const inner = this.queryWithColumns(node.subquery, scope);
        const sql = `(\n${indent(inner.sql)}\n)`;
        if (alias) scope.bind(alias, { kind: 'relation', alias, columns: inner.columns });
        return `${sql}${alias ? ` AS ${quoteIdent(alias)}` : ''}`;
      }
      case 'UNNEST':
        return this.arrayUnnest(node, scope);
      default:
        throw unsupported(`FROM item ${kind}`);
    }
  }

  /**
   * `JOIN UNNEST(x) AS a`. Over an object (a STRUCT in the store), the alias becomes a path and
   * the join disappears: CROSS JOIN keeps its meaning through an `x IS NOT NULL` filter, LEFT JOIN
   * ... ON TRUE needs none. Over an array it stays a lateral join.
   */
  private joinUnnest(
    unnest: Ast,
    operator: string,
    constraint: Ast,
    scope: Scope,
    impliedFilters: string[],
  ): string {
    const alias = this.unnestAlias(unnest);
    const [array] = unnest.array_exprs as Ast[];
    const isLeftOnTrue = (operator === 'Left' || operator === 'LeftOuter') && isTrueConstraint(constraint);
    const isCross =
      operator === 'CrossJoin' ||
      ((operator === 'Inner' || operator === 'Join') && isTrueConstraint(constraint));
    if (!isCross && !isLeftOnTrue)
      throw unsupported('JOIN UNNEST other than CROSS JOIN or LEFT JOIN ... ON TRUE');
    const parts = compoundParts(array);
    const target: Resolved = parts ? this.resolveName(parts, scope) : { sql: this.expr(array, scope) };
    if (isStructSqlType(target.type)) {
      if (unnest.with_offset) throw unsupported('UNNEST ... WITH OFFSET over a record');
      scope.bind(alias, { kind: 'object', path: target.sql, type: target.type });
      if (isCross) impliedFilters.push(`${target.sql} IS NOT NULL`);
      return '';
    }
    if (target.type !== undefined && typeof target.type === 'string')
      throw unsupported(
        `UNNEST of ${parts?.join('.') ?? 'a value'}, which is a ${target.type}, not an array`,
      );
    scope.bind(alias, { kind: 'element', alias, type: listElement(target.type) });
    const lateral = unnestElements(target.sql, alias, this.bindOffset(unnest, scope));
    return isCross ? `\nCROSS JOIN ${lateral}` : `\nLEFT JOIN ${lateral} ON TRUE`;
  }

  /** `FROM UNNEST(array) AS a` as the first FROM item. */
  private arrayUnnest(unnest: Ast, scope: Scope): string {
    const alias = this.unnestAlias(unnest);
    const [array] = unnest.array_exprs as Ast[];
    const parts = compoundParts(array);
    const target: Resolved = parts ? this.resolveName(parts, scope) : { sql: this.expr(array, scope) };
    if (isStructSqlType(target.type)) throw unsupported('FROM UNNEST of a record with nothing before it');
    scope.bind(alias, { kind: 'element', alias, type: listElement(target.type) });
    const sql = unnestElements(target.sql, alias, this.bindOffset(unnest, scope));
    return sql;
  }

  /** `WITH OFFSET [AS o]`: binds the offset column (an INT64) and returns its name. */
  private bindOffset(unnest: Ast, scope: Scope): string | undefined {
    const name = offsetAlias(unnest);
    if (name !== undefined) scope.bind(name, { kind: 'element', alias: name, type: 'BIGINT' });
    return name;
  }

  private unnestAlias(unnest: Ast): string {
    if (unnest.with_ordinality) throw unsupported('UNNEST ... WITH ORDINALITY');
    if (unnest.array_exprs.length !== 1) throw unsupported('UNNEST of several arrays');
    const alias = unnest.alias?.name?.value;
    if (alias) return alias;
    // Without an alias, BigQuery names the value table after the last part of its path.
    const parts = compoundParts(unnest.array_exprs[0]);
    if (!parts) throw unsupported('UNNEST of an expression without an alias');
    return parts.at(-1) as string;
  }

  private expr(expression: Ast, scope: Scope): string {
    return atNode(expression, () => this.exprAt(expression, scope));
  }

  private exprAt(expression: Ast, scope: Scope): string {
    const [kind, node] = variant(expression);
    switch (kind) {
      case 'Identifier':
        return this.resolveName([node.value], scope).sql;
      case 'CompoundIdentifier':
        return this.resolveName(
          node.map((part: Ast) => part.value),
          scope,
        ).sql;
      case 'Value':
        return literal(node.value);
      case 'BinaryOp': {
        // `^` is XOR in BigQuery and a power in DuckDB.
        if (node.op === 'BitwiseXor')
          return `xor(${this.expr(node.left, scope)}, ${this.expr(node.right, scope)})`;
        const operator = binaryOperators[node.op];
        if (!operator) throw unsupported(`operator ${node.op}`);
        return `${this.expr(node.left, scope)} ${operator} ${this.expr(node.right, scope)}`;
      }
      case 'UnaryOp': {
        const operators: Record<string, string> = { Not: 'NOT ', Minus: '-', Plus: '+' };
        if (!operators[node.op]) throw unsupported(`operator ${node.op}`);
        return `${operators[node.op]}(${this.expr(node.expr, scope)})`;
      }
      case 'Nested':
        return `(${this.expr(node, scope)})`;
      case 'IsNull':
        return `${this.expr(node, scope)} IS NULL`;
      case 'IsNotNull':
        return `${this.expr(node, scope)} IS NOT NULL`;
      case 'IsTrue':
        return `${this.expr(node, scope)} IS TRUE`;
      case 'IsFalse':
        return `${this.expr(node, scope)} IS FALSE`;
      case 'InList':
        return `${this.expr(node.expr, scope)}${node.negated ? ' NOT' : ''} IN (${node.list.map((item: Ast) => this.expr(item, scope)).join(', ')})`;
      case 'InSubquery':
        return `${this.expr(node.expr, scope)}${node.negated ? ' NOT' : ''} IN (${this.query(node.subquery, scope)})`;
      case 'Between':
        return `${this.expr(node.expr, scope)}${node.negated ? ' NOT' : ''} BETWEEN ${this.expr(node.low, scope)} AND ${this.expr(node.high, scope)}`;
      case 'Like':
        if (node.any || node.escape_char) throw unsupported('LIKE ANY / ESCAPE');
        // A backslash escapes %, _ and itself in BigQuery's LIKE; DuckDB's has no escape unless told.
        return `${this.expr(node.expr, scope)}${node.negated ? ' NOT' : ''} LIKE ${this.expr(node.pattern, scope)} ESCAPE '\\'`;
      case 'Case':
        return this.caseExpression(node, scope);
      case 'Cast':
        return castSql(node, this.forms(scope));
      case 'TypedString':
        return castSql(
          { kind: 'Cast', expr: { Value: node.value }, data_type: node.data_type },
          this.forms(scope),
        );
      case 'Function':
        return functionCallSql(node, this.forms(scope));
      case 'CompoundFieldAccess':
        return this.fieldAccess(node, scope);
      case 'Interval':
        return this.interval(node, scope);
      case 'Array':
        return `[${(node.elem as Ast[]).map((item) => this.expr(item, scope)).join(', ')}]`;
      case 'Subquery':
        return `(\n${indent(this.query(node, scope))}\n)`;
      case 'Exists':
        return `${node.negated ? 'NOT ' : ''}EXISTS (\n${indent(this.query(node.subquery, scope))}\n)`;
      case 'IsDistinctFrom':
      case 'IsNotDistinctFrom':
        return `${this.expr(node[0], scope)} IS${kind === 'IsNotDistinctFrom' ? ' NOT' : ''} DISTINCT FROM ${this.expr(node[1], scope)}`;
      // `x IN UNNEST(array)` keeps IN's NULL rules through a subquery over the elements.
      case 'InUnnest':
        return `${this.expr(node.expr, scope)}${node.negated ? ' NOT' : ''} IN (SELECT unnest(${this.expr(node.array_expr, scope)}))`;
      case 'Substring':
        return callSql(
          'substr',
          [node.expr, node.substring_from, node.substring_for].filter(Boolean),
          this.forms(scope),
        );
      case 'Ceil':
      case 'Floor':
        if (node.field?.DateTimeField !== 'NoDateTime')
          throw unsupported(`${kind.toUpperCase()} TO a date part`);
        return callSql(kind.toLowerCase(), [node.expr], this.forms(scope));
      case 'Trim':
        if (node.trim_where) throw unsupported('TRIM(BOTH/LEADING/TRAILING ...)');
        return callSql('trim', [node.expr, ...(node.trim_characters ?? [])], this.forms(scope));
      case 'Extract': {
        const [field, payload] = variant(node.field);
        if (field === 'Week' && payload)
          throw unsupported(`EXTRACT(WEEK(${payload.value.toUpperCase()}) ...)`);
        const at = node.expr.AtTimeZone;
        const value = this.expr(at ? at.timestamp : node.expr, scope);
        const zone = at
          ? { sql: this.expr(at.time_zone, scope), literal: stringLiteral(at.time_zone) }
          : undefined;
        return extract(field, value, zone);
      }
      // STRUCT(1 AS a, 'x' AS b), STRUCT<a INT64>(1) and (1, 'x').
      case 'Struct':
        return structSql(node, this.forms(scope));
      case 'Tuple':
        return `row(${(node as Ast[]).map((item) => this.expr(item, scope)).join(', ')})`;
      default:
        throw unsupported(expressionNames[kind] ?? `expression ${kind}`);
    }
  }

  /**
   * A (possibly dotted) name as BigQuery resolves it: a parameter; a range variable (a table
   * alias, an UNNEST alias, which wins over a column of the same name); else a column of a table
   * in FROM or a field of an UNNEST value table, in this SELECT and then the enclosing ones. The
   * rest of the name walks into records; a field no record of the store has is refused by name.
   */
  private resolveName(parts: readonly string[], scope: Scope): Resolved {
    const [head, ...rest] = parts;
    if (head === undefined) throw unsupported('an empty name');
    if (head.startsWith('@')) {
      if (rest.length > 0) throw unsupported(`field access on parameter ${head}`);
      return { sql: `$${head.slice(1)}` };
    }
    const binding = scope.lookup(head);
    switch (binding?.kind) {
      case 'object':
        return followFields({ sql: binding.path, type: binding.type }, rest, head);
      case 'element':
        return rest.length === 0
          ? { sql: quoteIdent(binding.alias), type: binding.type }
          : followFields({ sql: elementPath(binding.alias), type: binding.type }, rest, head);
      case 'constant': {
        if (rest.length !== 1) throw unsupported(`${parts.join('.')}: a constant CTE has no records`);
        const expression = binding.columns.get((rest[0] as string).toLowerCase());
        if (!expression) throw unsupported(`${parts.join('.')}: no such column`);
        return { sql: `(${this.expr(expression, new Scope())})` };
      }
      case 'relation': {
        if (rest.length === 0) return { sql: quoteIdent(head) };
        const [columnName, ...fields] = rest as [string, ...string[]];
        if (!binding.columns) return { sql: parts.map(quoteIdent).join('.') };
        const column = binding.columns.get(columnName.toLowerCase());
        if (!column) throw unsupported(`no column ${columnName} in ${head}`);
        return followFields(
          { sql: `${quoteIdent(head)}.${quoteIdent(column.name)}`, type: column.type },
          fields,
          `${head}.${columnName}`,
        );
      }
    }
    const column = scope.resolveColumn(head);
    if (column === 'unknown')
      throw unsupported(`no column or field named ${head} in the tables of this query`);
    if (column === undefined) return { sql: parts.map(quoteIdent).join('.') };
    return followFields(column, rest, head);
  }

  private caseExpression(node: Ast, scope: Scope): string {
    const lines = [`CASE${node.operand ? ` ${this.expr(node.operand, scope)}` : ''}`];
    for (const branch of node.conditions as Ast[]) {
      lines.push(`  WHEN ${this.expr(branch.condition, scope)} THEN ${this.expr(branch.result, scope)}`);
    }
    if (node.else_result) lines.push(`  ELSE ${this.expr(node.else_result, scope)}`);
    lines.push('END');
    return lines.join('\n');
  }

  /** `a.b`, `arr[OFFSET(n)]`, and `APPROX_QUANTILES(x, n)[OFFSET(k)]`. */
  private fieldAccess(node: Ast, scope: Scope): string {
    const chain = node.access_chain as Ast[];
    const first = chain[0];
    const quantiles = node.root.Function;
    if (
      quantiles &&
      variant(quantiles.name[0])[1].value.toLowerCase() === 'approx_quantiles' &&
      first?.Subscript
    ) {
      const offset = subscriptOffset(first.Subscript);
      if (offset === undefined || chain.length > 1)
        throw unsupported('APPROX_QUANTILES needs a literal OFFSET');
      const [value, buckets] = quantiles.args.List.args.map((arg: Ast) => this.expr(arg.Unnamed.Expr, scope));
      return quantileAt(value, buckets, offset);
    }
    let sql = this.expr(node.root, scope);
    // A field of a computed value (`STRUCT(1 AS a).a`) needs the value in parentheses.
    if (!node.root.Identifier && !node.root.CompoundIdentifier && chain[0]?.Dot) sql = `(${sql})`;
    for (const access of chain) {
      const [kind, payload] = variant(access);
      if (kind === 'Dot') {
        sql = `${sql}.${quoteIdent(variant(payload)[1].value)}`;
      } else if (kind === 'Subscript') {
        sql = `${sql}[${arrayIndexSql(payload, this.forms(scope))}]`;
      } else {
        throw unsupported(`access ${kind}`);
      }
    }
    return sql;
  }

  /** How the form modules (function-call.ts, value-forms.ts) reach back into this translation. */
  private forms(scope: Scope): FormContext {
    return {
      expr: (node) => this.expr(node, scope),
      // ORDER BY inside an aggregate or a window orders by expressions, never by SELECT aliases.
      orderItem: (item) => this.orderItem(item, scope, new Map()),
      query: (node) => indent(this.query(node, scope)),
      columnType: (node) => {
        const parts = compoundParts(node);
        const type = parts ? this.resolveName(parts, scope).type : undefined;
        return typeof type === 'string' ? type : undefined;
      },
    };
  }

  private interval(node: Ast, scope: Scope): string {
    const unit = node.leading_field;
    if (!unit || !intervalUnits.has(unit) || node.last_field) throw unsupported('this INTERVAL form');
    const value = this.expr(node.value, scope);
    return `INTERVAL (${value}) ${unit.toUpperCase()}`;
  }
}

/** The literal offset in `[OFFSET(3)]`, or undefined when it is not a literal number. */
function subscriptOffset(subscript: Ast): number | undefined {
  const argument = subscript.Index?.index?.Function?.args?.List?.args?.[0]?.Unnamed?.Expr;
  const number = argument?.Value?.value?.Number?.[0];
  return number === undefined ? undefined : Number(number);
}

/** `WITH OFFSET [AS o]`: the offset column's name (BigQuery's default is `offset`). */
function offsetAlias(unnest: Ast): string | undefined {
  if (!unnest.with_offset) return undefined;
  return unnest.with_offset_alias?.value ?? 'offset';
}

/**
 * The lateral FROM item of an UNNEST over an array. WITH OFFSET numbers the elements from 0 in
 * BigQuery; generate_subscripts runs beside unnest in step and counts from 1.
 */
function unnestElements(array: string, alias: string, offset: string | undefined): string {
  const name = quoteIdent(alias);
  if (offset === undefined) return `unnest(${array}) AS ${name}(${name})`;
  const offsetName = quoteIdent(offset);
  return `LATERAL (SELECT unnest(${array}) AS ${name}, generate_subscripts(${array}, 1) - 1 AS ${offsetName}) AS ${name}(${name}, ${offsetName})`;
}

function compoundParts(expression: Ast): string[] | undefined {
  if (expression.Identifier) return [expression.Identifier.value];
  if (expression.CompoundIdentifier) return expression.CompoundIdentifier.map((part: Ast) => part.value);
  return undefined;
}

/**
 * `FROM t, t.metadata AS m` (or `JOIN t.metadata AS m`): BigQuery reads a FROM item that is a path
 * from a range variable in scope as an implicit UNNEST of that path. Returned as the UNNEST node it
 * stands for, or undefined for a table name.
 */
function arrayPathUnnest(relation: Ast, scope: Scope): Ast | undefined {
  const table = relation.Table;
  const parts = table?.name?.map((part: Ast) => part?.Identifier?.value);
  if (!parts || parts.length < 2 || parts.some((part: unknown) => typeof part !== 'string')) return undefined;
  if (!scope.lookup(parts[0])) return undefined;
  const path = { CompoundIdentifier: table.name.map((part: Ast) => part.Identifier) };
  return { alias: table.alias, array_exprs: [path], with_offset: false, with_ordinality: false };
}

/** The element type of a LIST type; undefined when the type is not known to be one. */
function listElement(type: SqlType | undefined): SqlType | undefined {
  return isListSqlType(type) ? type.list : undefined;
}

/** The columns `SELECT *` makes: every column of the tables and every UNNEST alias, when all are known. */
function wildcardColumns(scope: Scope): Column[] | undefined {
  const columns: Column[] = [];
  for (const [alias, binding] of scope.own()) {
    if (binding.kind === 'relation') {
      if (!binding.columns) return undefined;
      columns.push(...[...binding.columns.values()].filter((column) => !column.pseudo));
    } else if (binding.kind === 'object') {
      columns.push({ name: alias, type: binding.type });
    } else if (binding.kind === 'element') {
      columns.push({ name: binding.alias, type: binding.type });
    }
  }
  return columns;
}

/**
 * The table a FROM name reads: by name or alias, or as a wildcard family (`events_*`, whose
 * `_TABLE_SUFFIX` is then a column) or one table of it (`events_20240131`, with its suffix).
 */
function findTable(
  tables: ReadonlyMap<string, TableSchema>,
  name: string,
): { table: TableSchema; wildcard: boolean; suffix?: string } | undefined {
  const lower = name.toLowerCase();
  const table = tables.get(lower);
  if (table) return { table, wildcard: table.tableSuffix !== undefined && lower.endsWith('*') };
  for (const [alias, family] of tables) {
    if (!family.tableSuffix || !alias.endsWith('*')) continue;
    const prefix = alias.slice(0, -1);
    if (lower.startsWith(prefix) && lower.length > prefix.length)
      return { table: family, wildcard: false, suffix: name.slice(prefix.length) };
  }
  return undefined;
}

function isTrueConstraint(constraint: Ast): boolean {
  return constraint?.On?.Value?.value?.Boolean === true;
}

function literal(value: Ast): string {
  if (value === 'Null') return 'NULL';
  const [kind, payload] = variant(value);
  switch (kind) {
    case 'Number':
      return payload[0];
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
    case 'SingleQuotedByteStringLiteral':
    case 'DoubleQuotedByteStringLiteral':
      return `unhex('${Buffer.from(String(payload), 'utf8').toString('hex')}')`;
    default:
      throw unsupported(`literal ${kind}`);
  }
}

function indent(text: string): string {
  return text
    .split('\n')
    .map((line) => `  ${line}`)
    .join('\n');
}

export { nowParameter };
