import type { TableFactor } from './ast.js';
import { type Ast, stringLiteral, variant } from './bigquery-ast.js';
import { quoteString } from './rules/rule.js';
import { quoteIdent } from './table-schema.js';
import type { TranslationContext } from './translation-context.js';
import { unsupported } from './unsupported.js';

/**
 * `FROM (subquery) PIVOT(SUM(x) AS s, ... FOR c IN ('A', 'B' AS b)) [AS p]` as DuckDB's PIVOT of
 * the same form: both aggregate each group of the columns the aggregates and `c` leave out, over
 * its rows whose `c` is each value, in value-major column order. They name the columns apart
 * (BigQuery `s_A`, or `A` for one aggregate without an alias; DuckDB `A_s`), so DuckDB's are
 * given as `v0_a0` ... and renamed. Only over a subquery or a WITH table, whose columns are the
 * query's own: a table of the store may hold columns BigQuery's has not, which would group too.
 */
export function pivotSql(
  pivot: Ast,
  context: TranslationContext,
  relationSql: (relation: TableFactor, context: TranslationContext) => string,
): string {
  refuseStoredTable(pivot.table as Ast, context, 'PIVOT');
  if (pivot.default_on_null) throw unsupported('PIVOT with DEFAULT ON NULL');
  const [valueColumn, ...moreColumns] = pivot.value_column as Ast[];
  const column = valueColumn?.Identifier?.value;
  if (typeof column !== 'string' || moreColumns.length > 0)
    throw unsupported('PIVOT FOR other than one column');
  const [sourceForm, values] = variant(pivot.value_source as Ast);
  if (sourceForm !== 'List') throw unsupported(`PIVOT ... IN (${sourceForm})`);
  const aggregates = pivot.aggregate_functions as { expr: Ast; alias?: { value: string } }[];
  // BigQuery refuses several aggregates when one has no alias: their columns' names would clash.
  if (aggregates.length > 1 && aggregates.some((aggregate) => !aggregate.alias))
    throw unsupported('PIVOT with several aggregates, one without an alias');
  // The source's names are the PIVOT's own; the query's FROM sees only the PIVOT's columns.
  const inner = context.within(context.scope.sibling());
  const from = relationSql(pivot.table as TableFactor, inner);
  const valueNames = (values as { expr: Ast; alias?: { value: string } }[]).map(
    (value) => value.alias?.value ?? pivotValueName(value.expr),
  );
  const aggregateSql = aggregates.map(
    (aggregate, i) => `${inner.expr(aggregate.expr)} AS ${quoteIdent(`a${i}`)}`,
  );
  const valueSql = (values as { expr: Ast }[]).map(
    (value, j) => `${inner.expr(value.expr)} AS ${quoteIdent(`v${j}`)}`,
  );
  const renames = valueNames.flatMap((name, j) =>
    aggregates.map(
      (aggregate, i) =>
        `${quoteIdent(`v${j}_a${i}`)} AS ${quoteIdent(aggregate.alias ? `${aggregate.alias.value}_${name}` : name)}`,
    ),
  );
  const alias = pivot.alias?.name?.value ?? '(pivot)';
  context.scope.bind(alias, { kind: 'relation', alias, columns: undefined });
  return `(SELECT * RENAME (${renames.join(', ')}) FROM ${from} PIVOT (${aggregateSql.join(', ')} FOR ${quoteIdent(column)} IN (${valueSql.join(', ')}))) AS ${quoteIdent(alias)}`;
}

/**
 * `FROM (subquery) UNPIVOT [INCLUDE NULLS | EXCLUDE NULLS] (v FOR n IN (a, b AS 'x')) [AS u]`: a
 * row per input row and unpivoted column, the columns left first, then `v` (the column's value)
 * and `n` (its name as written, or its alias), as the docs' example lays them out (product,
 * sales, quarter); rows whose value is NULL are left out unless INCLUDE NULLS. Written as a
 * LATERAL VALUES list, which keeps the columns in that order (DuckDB's own UNPIVOT puts the name
 * before the value). Only over a subquery or a WITH table, as PIVOT; one value column only.
 */
export function unpivotSql(
  unpivot: Ast,
  context: TranslationContext,
  relationSql: (relation: TableFactor, context: TranslationContext) => string,
): string {
  refuseStoredTable(unpivot.table as Ast, context, 'UNPIVOT');
  const valueColumn = unpivot.value?.Identifier?.value;
  if (typeof valueColumn !== 'string') throw unsupported('UNPIVOT of several value columns at once');
  const nameColumn = unpivot.name?.value as string;
  const inner = context.within(context.scope.sibling());
  const from = relationSql(unpivot.table as TableFactor, inner);
  const columns = unpivot.columns as { expr: Ast; alias?: { value: string; quote_style?: string | null } }[];
  const rows = columns.map((column) => {
    const name = column.expr.Identifier?.value;
    if (typeof name !== 'string') throw unsupported('UNPIVOT of an expression other than a column');
    return { name, value: inner.expr(column.expr), label: unpivotLabel(name, column.alias) };
  });
  const value = quoteIdent('(unpivot value)');
  const label = quoteIdent('(unpivot name)');
  const excluded = [...rows.map((row) => quoteIdent(row.name)), value, label];
  const values = rows.map((row) => `(${row.value}, ${row.label})`);
  const nulls = unpivot.null_inclusion === 'IncludeNulls' ? '' : ` WHERE ${value} IS NOT NULL`;
  const alias = unpivot.alias?.name?.value ?? '(unpivot)';
  context.scope.bind(alias, { kind: 'relation', alias, columns: undefined });
  return `(SELECT * EXCLUDE (${excluded.join(', ')}), ${value} AS ${quoteIdent(valueColumn)}, ${label} AS ${quoteIdent(nameColumn)} FROM ${from} CROSS JOIN LATERAL (VALUES ${values.join(', ')}) AS ${quoteIdent('(unpivot rows)')}(${value}, ${label})${nulls}) AS ${quoteIdent(alias)}`;
}

/** The name column's value for an unpivoted column: its string alias, else its name as written. */
function unpivotLabel(
  name: string,
  alias: { value: string; quote_style?: string | null } | undefined,
): string {
  if (!alias) return quoteString(name);
  if (alias.quote_style) return quoteString(alias.value);
  throw unsupported('an UNPIVOT alias that is not a string literal');
}

/**
 * PIVOT and UNPIVOT read a subquery or a WITH table, whose columns are the query's own: a table
 * of the store may hold columns BigQuery's has not (its table-suffix column, evolved fields).
 */
function refuseStoredTable(table: Ast, context: TranslationContext, operator: string): void {
  const [kind, source] = variant(table);
  if (kind === 'Derived' || (kind === 'Table' && context.ctes.find(tableName(source)) !== false)) return;
  throw unsupported(`${operator} over a table: select its columns in a subquery`);
}

function tableName(table: Ast): string {
  const parts = (table.name as Ast[]).map((part) => part.Identifier.value as string);
  return parts.length === 1 ? (parts[0] as string) : parts.join('.');
}

/**
 * The column name BigQuery makes of a pivot value without an alias: a string that is a name is
 * that name, a whole number `_n`. Other values (names BigQuery rewrites, negative and fractional
 * numbers) are refused rather than guessed: give them an alias.
 */
function pivotValueName(value: Ast): string {
  const text = stringLiteral(value);
  if (text !== undefined && /^[A-Za-z_][A-Za-z0-9_]*$/.test(text)) return text;
  const number = value.Value?.value?.Number?.[0];
  if (typeof number === 'string' && /^\d+$/.test(number)) return `_${number}`;
  throw unsupported('a PIVOT value without an alias that is not a name or a whole number');
}
