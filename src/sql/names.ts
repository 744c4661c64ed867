import type { Expr, Ident } from './ast.js';
import { objectSql } from './built-structs.js';
import { recordElementType } from './repeated-records.js';
import { isListSqlType, isStructSqlType, quoteIdent, type SqlType, unknownType } from './table-schema.js';
import type { TranslationContext } from './translation-context.js';
import {
  columnSql,
  elementPath,
  elementValue,
  followFields,
  type Resolved,
  Scope,
  storedColumn,
} from './unnest-scope.js';
import { unsupported } from './unsupported.js';

/**
 * A (possibly dotted) name as BigQuery resolves it: a parameter; a range variable (a table
 * alias, an UNNEST alias, which wins over a column of the same name); else a column of a table
 * in FROM or a field of an UNNEST value table, in this SELECT and then the enclosing ones. The
 * rest of the name walks into records; a field no record of the store has is refused by name.
 */
export function resolveName(parts: readonly string[], context: TranslationContext): Resolved {
  const [head, ...rest] = parts;
  if (head === undefined) throw unsupported('an empty name');
  if (head.startsWith('@')) {
    if (rest.length > 0) throw unsupported(`field access on parameter ${head}`);
    context.useParameter(head.slice(1));
    return { sql: `$${head.slice(1)}` };
  }
  const binding = context.scope.lookup(head);
  switch (binding?.kind) {
    case 'object':
      // The alias taken whole is an element of the repeated record: BigQuery answers the STRUCT.
      if (rest.length === 0) return { sql: objectSql(binding.path), type: recordElementType(binding.type) };
      return followFields({ sql: binding.path, type: binding.type, stored: binding.stored }, rest, head);
    case 'element':
      if (rest.length > 0) return followFields({ sql: elementPath(binding), type: binding.type }, rest, head);
      // An element of an array of records taken whole is a STRUCT: BigQuery answers the object.
      return isStructSqlType(binding.type)
        ? { sql: objectSql(elementValue(binding)), type: binding.type }
        : { sql: elementValue(binding), type: binding.type };
    case 'constant': {
      const [columnName, ...fields] = rest;
      if (columnName === undefined) throw unsupported(`${head}: a constant CTE's row taken whole`);
      const expression = binding.columns.get(columnName.toLowerCase());
      if (!expression) throw unsupported(`${parts.join('.')}: no such column`);
      // The constant's expression names nothing of the FROM clause it is inlined into.
      const constant = context.within(new Scope());
      const column = { sql: `(${constant.expr(expression)})`, type: constant.valueType(expression) };
      return fields.length === 0 ? column : followFields(column, fields, `${head}.${columnName}`);
    }
    case 'relation': {
      // A range variable taken whole is its row as a STRUCT (query syntax, range variables):
      // one object, whose stored records are still arrays.
      if (rest.length === 0) return { sql: objectSql(quoteIdent(head)) };
      const [columnName, ...fields] = rest as [string, ...string[]];
      if (!binding.columns) return { sql: parts.map(quoteIdent).join('.') };
      const column = binding.columns.get(columnName.toLowerCase());
      if (!column) throw unsupported(`no column ${columnName} in ${head}`);
      return followFields(
        {
          sql: columnSql(column, column.name, head),
          type: column.type,
          ...storedColumn(binding, column),
        },
        fields,
        `${head}.${columnName}`,
      );
    }
  }
  const column = context.scope.resolveColumn(head);
  if (column === 'unknown') throw unsupported(`no column or field named ${head} in the tables of this query`);
  if (column === undefined) return { sql: parts.map(quoteIdent).join('.') };
  return followFields(column, rest, head);
}

/**
 * The row of a range variable as a STRUCT type (`ARRAY_AGG(t ORDER BY ts DESC LIMIT 1)` collects
 * such rows), where its columns are known (a subquery's or a CTE's); a row holding a stored
 * record, which the store keeps in its own form (repeated-records.ts), is left undefined.
 */
export function computedRowType(name: string, context: TranslationContext): SqlType | undefined {
  const binding = context.scope.lookup(name);
  if (binding?.kind !== 'relation' || !binding.columns) return undefined;
  const columns = [...binding.columns.values()].filter((column) => !column.pseudo);
  const storedRecord = (column: (typeof columns)[number]) =>
    storedColumn(binding, column).stored && (isStructSqlType(column.type) || isListSqlType(column.type));
  if (columns.some(storedRecord)) return undefined;
  return { struct: Object.fromEntries(columns.map((column) => [column.name, column.type ?? unknownType])) };
}

/** The name of a bare identifier (`a`, `@p`), or undefined for any other expression. */
export function bareName(expression: Expr): Ident | undefined {
  return 'Identifier' in expression ? expression.Identifier : undefined;
}
