import type { FieldType } from '../storage/field-type.js';
import { isStructType, quoteIdent } from '../storage/field-type.js';
import type { LogSource } from '../storage/sources.js';
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
import { functionsReadingNow, nowParameter, quantileAt, unsupported } from './function-rules.js';
import { extract } from './rules/time.js';
import { Scope, typeOfPath } from './unnest-scope.js';
import { arrayIndexSql, castSql, type FormContext, structSql } from './value-forms.js';

/** The DuckDB form of one saved BigQuery query. */
export interface Translation {
  /** DuckDB SQL with `$name` placeholders for the BigQuery `@name` parameters and `$__now`. */
  readonly sql: string;
  /** The `@name` parameters the BigQuery text uses, sorted. */
  readonly parameters: readonly string[];
  /** Whether the SQL reads `$__now` (CURRENT_TIMESTAMP() or a UDF that depends on it). */
  readonly usesNow: boolean;
}

export interface TranslateOptions {
  /** The log sources: their logical names are table names, their shapes tell objects from arrays. */
  readonly sources: readonly LogSource[];
}

/**
 * Translates a saved BigQuery Standard SQL query to DuckDB SQL. The text is parsed by
 * sqlparser-rs and the AST is walked once; every construct with a different meaning on DuckDB
 * goes through a named rule (function-rules.ts, the UNNEST scope, the cast and subscript rules
 * below). Whatever has no rule is refused with a message, never passed through.
 */
export function translateToDuckDb(bigQuerySql: string, options: TranslateOptions): Translation {
  const query = parseBigQuery(bigQuerySql);
  const translator = new Translator(options.sources);
  const sql = translator.query(query, new Scope());
  const functions = queryFunctions(query);
  return {
    sql,
    parameters: [...queryParameters(query)].sort(),
    usesNow: [...functions].some((name) => functionsReadingNow.has(name)),
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

class Translator {
  private readonly sources: Map<string, Readonly<Record<string, FieldType>>>;
  /** Constant one-row CTEs (see constant-ctes.ts): name → column → expression. */
  private readonly constants = new Map<string, Map<string, Ast>>();
  private readonly cteNames = new Set<string>();
  /** One set per query being printed, collecting the CTE names it references. */
  private readonly cteUses: Set<string>[] = [];

  constructor(sources: readonly LogSource[]) {
    this.sources = new Map(
      sources.map((source) => [
        source.name.toLowerCase(),
        // Only `metadata` matters here: it is the one column that holds objects.
        { metadata: source.metadata } satisfies Record<string, FieldType>,
      ]),
    );
  }

  query(query: Ast, outer: Scope): string {
    const ctes: Array<{ name: string; sql: string; uses: Set<string> }> = [];
    if (query.with) {
      if (query.with.recursive) throw unsupported('WITH RECURSIVE');
      for (const [name, columns] of constantCtes(query)) this.constants.set(name, columns);
      for (const cte of query.with.cte_tables as Ast[]) {
        const name = String(cte.alias.name.value);
        const { result, uses } = this.tracingCteUse(() => this.query(cte.query, outer));
        ctes.push({ name: name.toLowerCase(), sql: `${quoteIdent(name)} AS (\n${indent(result)}\n)`, uses });
        this.cteNames.add(name.toLowerCase());
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
    return kept.length > 0 ? `WITH ${kept.map((cte) => cte.sql).join(',\n')}\n${body}` : body;
  }

  /** Runs `print` and returns the CTE names referenced while it ran, at any depth. */
  private tracingCteUse(print: () => string): { result: string; uses: Set<string> } {
    const uses = new Set<string>();
    this.cteUses.push(uses);
    try {
      return { result: print(), uses };
    } finally {
      this.cteUses.pop();
    }
  }

  private queryBody(query: Ast, outer: Scope): string {
    const parts: string[] = [];
    const { sql, scope } = this.setExpression(query.body, outer);
    parts.push(sql);
    if (query.order_by) {
      const [kind, items] = variant(query.order_by.kind);
      if (kind !== 'Expressions') throw unsupported('ORDER BY ALL');
      parts.push(`ORDER BY ${items.map((item: Ast) => this.orderItem(item, scope)).join(', ')}`);
    }
    if (query.limit_clause) {
      const [kind, limit] = variant(query.limit_clause);
      if (kind !== 'LimitOffset') throw unsupported('this LIMIT form');
      if (limit.limit) parts.push(`LIMIT ${this.expr(limit.limit, scope)}`);
      if (limit.offset) parts.push(`OFFSET ${this.expr(limit.offset.value, scope)}`);
    }
    return parts.join('\n');
  }

  private orderItem(item: Ast, scope: Scope): string {
    const direction = item.options?.asc === false ? ' DESC' : item.options?.asc === true ? ' ASC' : '';
    // BigQuery sorts NULLs first ascending and last descending, as DuckDB does by default.
    const nulls =
      item.options?.nulls_first === true
        ? ' NULLS FIRST'
        : item.options?.nulls_first === false
          ? ' NULLS LAST'
          : '';
    return `${this.expr(item.expr, scope)}${direction}${nulls}`;
  }

  /** A query body; the scope of its SELECT is returned so ORDER BY can see the FROM names. */
  private setExpression(body: Ast, outer: Scope): { sql: string; scope: Scope } {
    const [kind, node] = variant(body);
    switch (kind) {
      case 'Select':
        return this.select(node, outer);
      case 'Query':
        return { sql: `(${this.query(node, outer)})`, scope: outer };
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
        return { sql: `${left.sql}\n${operators[node.op]}${quantifier}\n${right.sql}`, scope: left.scope };
      }
      default:
        throw unsupported(`query body ${kind}`);
    }
  }

  private select(select: Ast, outer: Scope): { sql: string; scope: Scope } {
    const scope = outer.child();
    // Filters implied by CROSS JOIN UNNEST over objects: a record without the object is dropped.
    const impliedFilters: string[] = [];
    const from = select.from as Ast[];
    const fromItems = from
      .map(
        (item) => this.inlineConstant(item, scope, from.length) ?? this.fromItem(item, scope, impliedFilters),
      )
      .filter((sql) => sql !== '');
    if (select.distinct && select.distinct !== 'Distinct') throw unsupported('SELECT DISTINCT ON');
    if (select.value_table_mode) throw unsupported('SELECT AS STRUCT / SELECT AS VALUE');
    const projection = (select.projection as Ast[]).map((item) => this.selectItem(item, scope));
    const lines = [`SELECT${select.distinct ? ' DISTINCT' : ''}\n${indent(projection.join(',\n'))}`];
    if (fromItems.length > 0) lines.push(`FROM ${fromItems.join(',\n  ')}`);
    const where = [...(select.selection ? [this.expr(select.selection, scope)] : []), ...impliedFilters];
    if (where.length === 1) lines.push(`WHERE ${where[0]}`);
    if (where.length > 1) lines.push(`WHERE (${where[0]})\n  AND ${where.slice(1).join('\n  AND ')}`);
    const groupBy = this.groupBy(select, scope);
    if (groupBy) lines.push(groupBy);
    if (select.having) lines.push(`HAVING ${this.expr(select.having, scope)}`);
    if (select.named_window.length > 0) {
      const windows = (select.named_window as Ast[]).map(([name, spec]: Ast) => {
        const window = windowSql(spec, this.forms(scope));
        return `${quoteIdent(name.value)} AS ${window.startsWith('(') ? window : `(${window})`}`;
      });
      lines.push(`WINDOW ${windows.join(', ')}`);
    }
    if (select.qualify) lines.push(`QUALIFY ${this.expr(select.qualify, scope)}`);
    return { sql: lines.join('\n'), scope };
  }

  /**
   * GROUP BY names resolve to SELECT aliases first in BigQuery, and to FROM columns first in
   * DuckDB: a name that is an alias is replaced by the aliased expression.
   */
  private groupBy(select: Ast, scope: Scope): string | undefined {
    const [kind, node] = variant(select.group_by);
    if (kind !== 'Expressions') throw unsupported('GROUP BY ALL');
    const [expressions] = node as [Ast[], Ast[]];
    if (expressions.length === 0) return undefined;
    const aliases = new Map<string, Ast>();
    for (const item of select.projection as Ast[]) {
      const [itemKind, itemNode] = variant(item);
      if (itemKind === 'ExprWithAlias') aliases.set(itemNode.alias.value.toLowerCase(), itemNode.expr);
    }
    const items = expressions.map((expression) => {
      const name = expression.Identifier?.value?.toLowerCase();
      const aliased = name === undefined ? undefined : aliases.get(name);
      return this.expr(aliased ?? expression, scope);
    });
    return `GROUP BY ${items.join(', ')}`;
  }

  private selectItem(item: Ast, scope: Scope): string {
    const [kind, node] = variant(item);
    switch (kind) {
      case 'UnnamedExpr':
        return this.expr(node, scope);
      case 'ExprWithAlias':
        return `${this.expr(node.expr, scope)} AS ${quoteIdent(node.alias.value)}`;
      case 'Wildcard':
        return `*${this.wildcardOptions(node, scope)}`;
      case 'QualifiedWildcard': {
        const [, name] = variant(node[0]);
        return `${name.map((part: Ast) => quoteIdent(variant(part)[1].value)).join('.')}.*${this.wildcardOptions(node[1], scope)}`;
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
    if (!columns) return undefined;
    scope.bind(table.alias?.name?.value ?? name, { kind: 'constant', columns });
    return '';
  }

  private fromItem(item: Ast, scope: Scope, impliedFilters: string[]): string {
    let sql = this.relation(item.relation, scope);
    for (const join of item.joins as Ast[]) {
      const [operator, constraint] = variant(join.join_operator);
      const relation = join.relation;
      if (relation.UNNEST) {
        sql += this.joinUnnest(relation.UNNEST, operator, constraint, scope, impliedFilters);
        continue;
      }
      const right = this.relation(relation, scope);
      if (operator === 'CrossJoin') sql += `\nCROSS JOIN ${right}`;
      else if (operator === 'Inner' || operator === 'Join')
        sql += `\nJOIN ${right}${this.joinConstraint(constraint, scope)}`;
      else if (operator === 'Left' || operator === 'LeftOuter')
        sql += `\nLEFT JOIN ${right}${this.joinConstraint(constraint, scope)}`;
      else throw unsupported(`${operator} joins`);
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
        const name = (node.name as Ast[]).map((part) => variant(part)[1].value).join('.');
        if (this.cteNames.has(name.toLowerCase())) {
          for (const uses of this.cteUses) uses.add(name.toLowerCase());
        }
        const columns = this.sources.get(name.toLowerCase());
        scope.bind(
          alias ?? name.split('.').at(-1) ?? name,
          columns ? { kind: 'relation', columns } : { kind: 'relation' },
        );
        return `${quoteIdent(name)}${alias ? ` AS ${quoteIdent(alias)}` : ''}`;
      }
      case 'Derived': {
        const sql = `(\n${indent(this.query(node.subquery, scope))}\n)`;
        if (alias) scope.bind(alias, { kind: 'relation' });
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
    const path = compoundParts(array);
    const type = path ? typeOfPath(scope, path) : undefined;
    const isLeftOnTrue = (operator === 'Left' || operator === 'LeftOuter') && isTrueConstraint(constraint);
    const isCross =
      operator === 'CrossJoin' ||
      ((operator === 'Inner' || operator === 'Join') && isTrueConstraint(constraint));
    if (!isCross && !isLeftOnTrue)
      throw unsupported('JOIN UNNEST other than CROSS JOIN or LEFT JOIN ... ON TRUE');
    if (type !== undefined && isStructType(type)) {
      if (unnest.with_offset) throw unsupported('UNNEST ... WITH OFFSET over a record');
      const target = this.expr(array, scope);
      scope.bind(alias, { kind: 'object', path: target, type });
      if (isCross) impliedFilters.push(`${target} IS NOT NULL`);
      return '';
    }
    const target = this.expr(array, scope);
    scope.bind(alias, { kind: 'element' });
    const lateral = unnestElements(target, alias, offsetAlias(unnest));
    return isCross ? `\nCROSS JOIN ${lateral}` : `\nLEFT JOIN ${lateral} ON TRUE`;
  }

  /** `FROM UNNEST(array) AS a` as the first FROM item. */
  private arrayUnnest(unnest: Ast, scope: Scope): string {
    const alias = this.unnestAlias(unnest);
    const [array] = unnest.array_exprs as Ast[];
    const sql = unnestElements(this.expr(array, scope), alias, offsetAlias(unnest));
    scope.bind(alias, { kind: 'element' });
    return sql;
  }

  private unnestAlias(unnest: Ast): string {
    if (unnest.with_ordinality) throw unsupported('UNNEST ... WITH ORDINALITY');
    if (unnest.array_exprs.length !== 1) throw unsupported('UNNEST of several arrays');
    const alias = unnest.alias?.name?.value;
    if (!alias) throw unsupported('UNNEST without an alias');
    return alias;
  }

  private expr(expression: Ast, scope: Scope): string {
    const [kind, node] = variant(expression);
    switch (kind) {
      case 'Identifier':
        return this.name([node.value], scope);
      case 'CompoundIdentifier':
        return this.name(
          node.map((part: Ast) => part.value),
          scope,
        );
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

  /** A (possibly dotted) name: a parameter, a path through an object alias, or a column. */
  private name(parts: readonly string[], scope: Scope): string {
    const [head, ...rest] = parts;
    if (head === undefined) throw unsupported('an empty name');
    if (head.startsWith('@')) {
      if (rest.length > 0) throw unsupported(`field access on parameter ${head}`);
      return `$${head.slice(1)}`;
    }
    const binding = scope.lookup(head);
    if (binding?.kind === 'object') return [binding.path, ...rest.map(quoteIdent)].join('.');
    if (binding?.kind === 'constant' && rest.length === 1) {
      const expression = binding.columns.get((rest[0] as string).toLowerCase());
      if (!expression) throw unsupported(`${parts.join('.')}: no such column`);
      return `(${this.expr(expression, new Scope())})`;
    }
    return parts.map(quoteIdent).join('.');
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
      orderItem: (item) => this.orderItem(item, scope),
      query: (node) => indent(this.query(node, scope)),
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
      return `'${String(payload).replaceAll("'", "''")}'`;
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
