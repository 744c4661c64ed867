import type { Ast } from './bigquery-ast.js';
import { isJsonType, jsonMemberSql } from './json-values.js';
import {
  isStructSqlType,
  quoteIdent,
  type SqlType,
  type StructSqlType,
  structField,
  unknownType,
} from './table-schema.js';
import { unsupported } from './unsupported.js';

/**
 * What a name in a FROM clause stands for while a SELECT is translated, and how names resolve
 * the way BigQuery resolves them.
 *
 * BigQuery (as Logflare stores logs) keeps every nested object as a repeated record, so queries
 * reach into it with `CROSS JOIN UNNEST(t.metadata) AS m`. The embedded store keeps objects as
 * plain STRUCTs, and DuckDB plans a JOIN UNNEST as a dependent join orders of magnitude slower
 * than field access. An UNNEST over an object therefore binds its alias to a *path* (`m` stands
 * for `t.metadata`), and only UNNESTs over real arrays stay joins.
 */
export type Binding =
  /**
   * A table, CTE or derived table. `columns` (lower-case name → type, undefined when unknown) is
   * known for the log sources and for subqueries whose select list names its columns.
   */
  | {
      readonly kind: 'relation';
      readonly alias: string;
      readonly columns?: ReadonlyMap<string, Column> | undefined;
      /**
       * Its bare column names are written with the alias: in a FROM with a parenthesized join,
       * where DuckDB sees every table at once and BigQuery only those before or inside it.
       */
      readonly qualified?: boolean;
      /**
       * Its rows are not made up by an outer join (all NULL where nothing matched): with
       * Column.stored, a column read through it is a stored value (see Resolved.stored).
       */
      readonly stored?: boolean;
    }
  /** An UNNEST over an object: the alias is an abbreviation of `path` (DuckDB SQL text). */
  | {
      readonly kind: 'object';
      readonly path: string;
      readonly type: StructSqlType;
      readonly stored?: boolean | undefined;
    }
  /**
   * An UNNEST over an array: the alias is the column (and table) of a lateral join, or `column`
   * (DuckDB SQL) reads it where the UNNEST is a select-list unnest (unnest-sql.ts selectListUnnestsSql).
   */
  | {
      readonly kind: 'element';
      readonly alias: string;
      readonly type?: SqlType | undefined;
      readonly column?: string | undefined;
    }
  /** A constant one-row CTE joined with a comma: `alias.column` stands for the column's expression. */
  | { readonly kind: 'constant'; readonly columns: ReadonlyMap<string, Ast> };

export interface Column {
  /** The name as the relation spells it. */
  readonly name: string;
  readonly type?: SqlType | undefined;
  /**
   * A pseudo-column standing for another (a wildcard table's `_TABLE_SUFFIX` for the column that
   * holds it): `name` is that column, and `SELECT *` leaves it out, as BigQuery does.
   */
  readonly pseudo?: boolean | undefined;
  /**
   * Of `_TABLE_SUFFIX` under a partial prefix (`events_2024*`): how many leading characters of
   * the stored column the prefix takes; the suffix is the rest, as BigQuery matches it.
   */
  readonly prefixLength?: number | undefined;
  /**
   * Its values are a store table's own, row for row: a table's column, or a CTE's or subquery's
   * that passes one through unchanged (logs.all's `edge_logs` passes `metadata`). What the store
   * knows of the table's records (StructSqlType.present) then holds for it too: the rows a
   * filter, DISTINCT or GROUP BY keeps are rows the table holds.
   */
  readonly stored?: boolean | undefined;
  /** No row of its relation holds NULL in it (of a stored column, see TableSchema.notNull). */
  readonly notNull?: boolean | undefined;
}

/**
 * What Resolved says of a column read through `binding`: a stored value only of rows the table
 * holds (none an outer join made up), never NULL only if also so in every such row.
 */
export function storedColumn(
  binding: { readonly stored?: boolean },
  column: Column,
): { stored: boolean; neverNull: boolean } {
  const stored = binding.stored === true && column.stored === true;
  return { stored, neverNull: stored && column.notNull === true };
}

/** Columns whose rows are no longer all rows a table holds (a set operation's, ROLLUP's). */
export function unstored(columns: Iterable<[string, Column]>): Map<string, Column> {
  return new Map([...columns].map(([name, column]) => [name, { ...column, stored: false }]));
}

/** The DuckDB SQL reading `column` (spelled `spelled` by the query) of a relation, qualified or not. */
export function columnSql(column: Column | undefined, spelled: string, qualifier?: string): string {
  const stored = quoteIdent(column?.pseudo ? column.name : spelled);
  const sql = qualifier === undefined ? stored : `${quoteIdent(qualifier)}.${stored}`;
  return column?.prefixLength ? `substr(${sql}, ${column.prefixLength + 1})` : sql;
}

/** Output columns of a query or SELECT by lower-case name; undefined when not all are known. */
export type Columns = Map<string, Column> | undefined;

/** A name resolved to DuckDB SQL, with its type where the scope knows it. */
export interface Resolved {
  readonly sql: string;
  readonly type?: SqlType | undefined;
  /**
   * Read from a row a table of the store holds: a table named in FROM, not a CTE or subquery
   * (whose columns could be anything) and not the side of an outer join (whose rows may be all
   * NULL). Only then does a record type's `present` hold for the value.
   */
  readonly stored?: boolean | undefined;
  /** A stored column (see `stored`) that no row of its table holds NULL in. */
  readonly neverNull?: boolean | undefined;
  /**
   * A stored field (see `stored`) whose every value is NULL or integer text
   * (StructSqlType.integerTexts).
   */
  readonly integerText?: boolean | undefined;
}

/** The FROM-clause names visible at one point: the current SELECT's, then its enclosing ones. */
export class Scope {
  private readonly bindings = new Map<string, Binding>();
  /** The columns a JOIN ... USING (...) of this SELECT made one. */
  private readonly joinedColumns = new Map<string, string>();

  constructor(private readonly parent?: Scope) {}

  bind(alias: string, binding: Binding): void {
    this.bindings.set(alias.toLowerCase(), binding);
  }

  /** After `JOIN t USING (a)`, a bare `a` is the one joined column, as in BigQuery and DuckDB. */
  joinUsing(names: readonly string[]): void {
    for (const name of names)
      if (!this.joinedColumns.has(name.toLowerCase())) this.joinedColumns.set(name.toLowerCase(), name);
  }

  /** The columns JOIN ... USING (...) made one, as USING names them. */
  joinedUsing(): string[] {
    return [...this.joinedColumns.values()];
  }

  lookup(name: string): Binding | undefined {
    return this.bindings.get(name.toLowerCase()) ?? this.parent?.lookup(name);
  }

  child(): Scope {
    return new Scope(this);
  }

  /** A scope beside this one: the enclosing SELECTs' names, none of this one's (a parenthesized join). */
  sibling(): Scope {
    return new Scope(this.parent);
  }

  /** Writes the bare column names of this scope's tables with their alias (see `qualified`). */
  qualifyRelations(): void {
    for (const [alias, binding] of this.bindings)
      if (binding.kind === 'relation') this.bindings.set(alias, { ...binding, qualified: true });
  }

  /** This SELECT's own bindings, in FROM order. */
  own(): [string, Binding][] {
    return [...this.bindings];
  }

  /**
   * A bare name that is not a range variable: a column of a table in FROM, or a field of an
   * UNNEST value table (`select path from edge_logs cross join unnest(metadata) m cross join
   * unnest(m.request)`), looked for in this SELECT and then in the enclosing ones, as BigQuery
   * does. A name found twice at one level is ambiguous and refused, as BigQuery refuses it.
   * Undefined when no table in scope has the name (or when one might: a relation whose columns
   * are not known leaves the name to DuckDB).
   */
  resolveColumn(name: string): Resolved | undefined | 'unknown' {
    const lower = name.toLowerCase();
    const found: { where: string; resolved: Resolved }[] = [];
    let open = false;
    for (const [alias, binding] of this.bindings) {
      if (binding.kind === 'relation') {
        if (!binding.columns) {
          open = true;
          continue;
        }
        const column = binding.columns.get(lower);
        const sql = columnSql(column, name, binding.qualified ? binding.alias : undefined);
        if (column)
          found.push({
            where: binding.alias,
            resolved: { sql, type: column.type, ...storedColumn(binding, column) },
          });
      } else if (binding.kind === 'object') {
        const field = structField(binding.type, name);
        if (field)
          found.push({
            where: alias,
            resolved: {
              sql: `${binding.path}.${quoteIdent(field.name)}`,
              type: field.type,
              stored: binding.stored,
            },
          });
      } else if (binding.kind === 'element' && isStructSqlType(binding.type)) {
        const field = structField(binding.type, name);
        if (field)
          found.push({
            where: alias,
            resolved: { sql: `${elementPath(binding)}.${quoteIdent(field.name)}`, type: field.type },
          });
      }
    }
    if (found.length > 1 && this.joinedColumns.has(lower))
      return { sql: quoteIdent(name), type: found[0]?.resolved.type };
    if (found.length > 1)
      throw unsupported(`the name ${name} is ambiguous: it is in ${found.map((f) => f.where).join(' and ')}`);
    const [only] = found;
    if (only) {
      // A field of a value table could also be a column of a table whose columns are unknown.
      if (open && only.resolved.sql !== quoteIdent(name))
        throw unsupported(
          `cannot tell whether ${name} is a column of a subquery or a field of ${only.where}`,
        );
      return only.resolved;
    }
    if (open) return undefined;
    const outer = this.parent?.resolveColumn(name);
    return outer ?? (this.parent ? undefined : 'unknown');
  }
}

/**
 * The element of an UNNEST over a list: of a lateral join the struct column `"x"."x"`,
 * unambiguous on DuckDB; of a select-list unnest its column.
 */
export function elementPath(binding: {
  readonly alias: string;
  readonly column?: string | undefined;
}): string {
  return binding.column ?? `${quoteIdent(binding.alias)}.${quoteIdent(binding.alias)}`;
}

/** The element of an UNNEST over a list taken whole: a lateral join's bare column, or elementPath's. */
export function elementValue(binding: {
  readonly alias: string;
  readonly column?: string | undefined;
}): string {
  return binding.column ?? quoteIdent(binding.alias);
}

/**
 * Follows `fields` from a value of `type`. A field that a known STRUCT lacks is refused with
 * its name, rather than left for DuckDB to fail on at call time; a field of a JSON value is its
 * member, JSON again.
 */
export function followFields(start: Resolved, fields: readonly string[], described: string): Resolved {
  let { sql, type } = start;
  const { stored, neverNull } = start;
  let path = described;
  let integerText = false;
  for (const field of fields) {
    integerText = false;
    if (isStructSqlType(type)) {
      // BigQuery: "Cannot access field request on a value with type ARRAY<STRUCT<...>>".
      if (type.repeated && !type.element)
        throw unsupported(
          `Cannot access field ${field} on a value with type ARRAY<STRUCT<...>>: ${path} is a repeated record; UNNEST it first (CROSS JOIN UNNEST(${path}) AS r, then r.${field}) or take one element (${path}[SAFE_OFFSET(0)].${field})`,
        );
      const found = structField(type, field);
      if (!found) throw unsupported(`no field ${field} in ${path}`);
      sql = `${sql}.${quoteIdent(found.name)}`;
      integerText = stored === true && type.integerTexts?.has(found.name) === true;
      type = found.type;
    } else if (isJsonType(type)) {
      sql = jsonMemberSql(sql, field);
    } else if (type !== undefined && type !== unknownType) {
      throw unsupported(`${path} is not a record, so it has no field ${field}`);
    } else {
      sql = `${sql}.${quoteIdent(field)}`;
    }
    path = `${path}.${field}`;
  }
  // A field of a value never NULL can be NULL.
  return { sql, type, stored, neverNull: fields.length === 0 && neverNull, integerText };
}
