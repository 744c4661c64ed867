import type { Ast } from './bigquery-ast.js';

/**
 * The nodes of sqlparser-rs's JSON AST that the translator reads, as serde writes them: an enum
 * is an object with one key naming its variant (`{ Identifier: { value: 'x' } }`), or a bare
 * string for a variant without data (`'Null'`); an absent optional field is left out. `variant`
 * (bigquery-ast.ts) turns an enum into a `[kind, payload]` pair that a switch on `kind` narrows.
 *
 * Each enum lists the variants the translator has a rule for. The parser knows more; those reach
 * the `default` of a switch at run time and are refused there, which is why every switch keeps one.
 * Nodes the rule modules (function-call.ts, value-forms.ts) read are left as `Ast`.
 */

/** A name as written; `quote_style` is set for a quoted one (`"a"`, `` `a` ``). */
export interface Ident {
  readonly value: string;
  readonly quote_style?: string;
}

/** A dotted object name: `project.dataset.table`, `t`. */
export type ObjectName = readonly { readonly Identifier: Ident }[];

export interface TableAlias {
  readonly name: Ident;
}

export interface Query {
  readonly with?: With;
  readonly body: SetExpr;
  readonly order_by?: { readonly kind: OrderByKind };
  readonly limit_clause?: LimitClause;
}

export interface With {
  readonly recursive: boolean;
  readonly cte_tables: readonly Cte[];
}

export interface Cte {
  readonly alias: TableAlias;
  readonly query: Query;
}

export type SetExpr =
  | { readonly Select: Select }
  | { readonly Query: Query }
  | { readonly SetOperation: SetOperation };

export interface SetOperation {
  /** `Union`, `Intersect`, `Except`. */
  readonly op: string;
  /** `All`, `Distinct`, or a form BigQuery lacks (`None`, `ByName`). */
  readonly set_quantifier: string;
  readonly left: SetExpr;
  readonly right: SetExpr;
}

export type OrderByKind = { readonly Expressions: readonly OrderByExpr[] } | { readonly All: unknown };

export interface OrderByExpr {
  readonly expr: Expr;
  readonly options?: { readonly asc?: boolean; readonly nulls_first?: boolean };
}

export type LimitClause =
  | {
      readonly LimitOffset: {
        readonly limit?: Expr;
        readonly offset?: { readonly value: Expr };
      };
    }
  | { readonly OffsetCommaLimit: unknown };

export interface Select {
  /** `Distinct`, or `{ On: [...] }` for DISTINCT ON. */
  readonly distinct?: 'Distinct' | { readonly On: unknown };
  readonly projection: readonly SelectItem[];
  readonly from: readonly TableWithJoins[];
  readonly selection?: Expr;
  readonly group_by:
    | { readonly Expressions: readonly [readonly Expr[], readonly unknown[]] }
    | { readonly All: unknown };
  readonly having?: Expr;
  /** `WINDOW w AS (...)`: the name and its definition (read by function-call.ts). */
  readonly named_window: readonly (readonly [Ident, Ast])[];
  readonly qualify?: Expr;
  /** `SELECT AS STRUCT` / `SELECT AS VALUE`. */
  readonly value_table_mode?: unknown;
}

export type SelectItem =
  | { readonly UnnamedExpr: Expr }
  | { readonly ExprWithAlias: { readonly expr: Expr; readonly alias: Ident } }
  | { readonly Wildcard: WildcardOptions }
  | {
      readonly QualifiedWildcard: readonly [
        { readonly ObjectName: ObjectName } | { readonly Expr: Expr },
        WildcardOptions,
      ];
    };

/** `* EXCEPT (...) REPLACE (...)` and the modifiers of other dialects, which are refused. */
export interface WildcardOptions {
  readonly opt_except?: { readonly first_element: Ident; readonly additional_elements?: readonly Ident[] };
  readonly opt_replace?: { readonly items: readonly { readonly expr: Expr; readonly column_name: Ident }[] };
  readonly opt_ilike?: unknown;
  readonly opt_exclude?: unknown;
  readonly opt_rename?: unknown;
}

export interface TableWithJoins {
  readonly relation: TableFactor;
  readonly joins: readonly Join[];
}

export type TableFactor =
  | { readonly Table: { readonly name: ObjectName; readonly alias?: TableAlias } }
  | { readonly Derived: { readonly subquery: Query; readonly alias?: TableAlias } }
  | { readonly UNNEST: Unnest }
  | { readonly NestedJoin: NestedJoin };

/** `( t AS e CROSS JOIN UNNEST(...) ... )`: a parenthesized join as a FROM item. */
export interface NestedJoin {
  readonly table_with_joins: TableWithJoins;
  readonly alias?: TableAlias;
}

export interface Unnest {
  readonly alias?: TableAlias;
  readonly array_exprs: readonly Expr[];
  readonly with_offset: boolean;
  readonly with_offset_alias?: Ident;
  readonly with_ordinality: boolean;
}

export interface Join {
  readonly relation: TableFactor;
  /** `{ Left: constraint }`, `'CrossJoin'`, ...: the operator names the variant. */
  readonly join_operator: Readonly<Record<string, JoinConstraint>> | string;
}

export type JoinConstraint =
  | { readonly On: Expr }
  | { readonly Using: readonly ObjectName[] }
  | 'Natural'
  | 'None';

/** A literal (`Value.value`): a number with its `long` flag, a string of some quoting, ... */
export type Value =
  | 'Null'
  | { readonly Number: readonly [string, boolean] }
  | { readonly Boolean: boolean }
  | { readonly [stringKind: string]: string };

export type Expr =
  | { readonly Identifier: Ident }
  | { readonly CompoundIdentifier: readonly Ident[] }
  | { readonly Value: { readonly value: Value } }
  | { readonly BinaryOp: { readonly left: Expr; readonly op: string; readonly right: Expr } }
  | { readonly UnaryOp: { readonly op: string; readonly expr: Expr } }
  | { readonly Nested: Expr }
  | { readonly IsNull: Expr }
  | { readonly IsNotNull: Expr }
  | { readonly IsTrue: Expr }
  | { readonly IsFalse: Expr }
  | { readonly IsDistinctFrom: readonly [Expr, Expr] }
  | { readonly IsNotDistinctFrom: readonly [Expr, Expr] }
  | { readonly InList: { readonly expr: Expr; readonly list: readonly Expr[]; readonly negated: boolean } }
  | { readonly InSubquery: { readonly expr: Expr; readonly subquery: Query; readonly negated: boolean } }
  | { readonly InUnnest: { readonly expr: Expr; readonly array_expr: Expr; readonly negated: boolean } }
  | {
      readonly Between: {
        readonly expr: Expr;
        readonly low: Expr;
        readonly high: Expr;
        readonly negated: boolean;
      };
    }
  | {
      readonly Like: {
        readonly expr: Expr;
        readonly pattern: Expr;
        readonly negated: boolean;
        readonly any?: boolean;
        readonly escape_char?: unknown;
      };
    }
  | {
      readonly Case: {
        readonly operand?: Expr;
        readonly conditions: readonly { readonly condition: Expr; readonly result: Expr }[];
        readonly else_result?: Expr;
      };
    }
  | { readonly Cast: Ast }
  | { readonly TypedString: { readonly value: { readonly value: Value }; readonly data_type: Ast } }
  | { readonly Function: Ast }
  | { readonly CompoundFieldAccess: { readonly root: Expr; readonly access_chain: readonly AccessExpr[] } }
  | {
      readonly Interval: {
        readonly value: Expr;
        readonly leading_field?: string;
        readonly last_field?: string;
      };
    }
  | { readonly Array: { readonly elem: readonly Expr[] } }
  | { readonly Subquery: Query }
  | { readonly Exists: { readonly subquery: Query; readonly negated: boolean } }
  | {
      readonly Substring: {
        readonly expr: Expr;
        readonly substring_from?: Expr;
        readonly substring_for?: Expr;
      };
    }
  | { readonly Ceil: { readonly expr: Expr; readonly field?: Ast } }
  | { readonly Floor: { readonly expr: Expr; readonly field?: Ast } }
  | {
      readonly Trim: {
        readonly expr: Expr;
        readonly trim_where?: unknown;
        readonly trim_characters?: readonly Expr[];
      };
    }
  | { readonly Extract: { readonly field: Ast; readonly expr: Expr } }
  | { readonly AtTimeZone: { readonly timestamp: Expr; readonly time_zone: Expr } }
  | { readonly Struct: Ast }
  | { readonly Tuple: readonly Expr[] };

/** The payload of the expression variant `K`: `Payload<'Case'>` is the CASE node. */
export type Payload<K extends string> = Expr extends infer E
  ? E extends { readonly [P in K]: infer V }
    ? V
    : never
  : never;

/** One step after the root of `a.b[OFFSET(1)]`. */
export type AccessExpr = { readonly Dot: Expr } | { readonly Subscript: Ast };

/**
 * The expression inside any parentheses around it: `(a.b)` is `a.b`. BigQuery's parser keeps no
 * node for parentheses (ZetaSQL's ASTExpression only marks itself `parenthesized`), so an
 * unaliased `SELECT DISTINCT(x.ip)` is named `ip` as `SELECT x.ip` is; sqlparser-rs wraps it.
 */
export function withoutParentheses(expression: Expr): Expr {
  return 'Nested' in expression ? withoutParentheses(expression.Nested) : expression;
}

/** The parts of a name (`a`, `a.b.c`), or undefined when the expression is not a name. */
export function compoundParts(expression: Expr): string[] | undefined {
  if ('Identifier' in expression) return [expression.Identifier.value];
  if ('CompoundIdentifier' in expression) return expression.CompoundIdentifier.map((part) => part.value);
  return undefined;
}

/**
 * The terms ANDed at the top of a condition (`a AND (b AND c)`: a, b, c), where a term that is
 * NULL drops the row as FALSE does; terms under OR, NOT or CASE are not among them.
 */
export function andTerms(condition: Expr | undefined): Expr[] {
  if (condition === undefined) return [];
  const node = condition as Ast;
  if (node.Nested) return andTerms(node.Nested);
  if (node.BinaryOp?.op === 'And') return [...andTerms(node.BinaryOp.left), ...andTerms(node.BinaryOp.right)];
  return [condition];
}
