import type { Query } from './ast.js';
import { variant } from './bigquery-ast.js';
import { unsupported } from './unsupported.js';

/**
 * Refuses a value table (`SELECT AS STRUCT` / `SELECT AS VALUE`) where it would be a table:
 * the whole statement, a CTE, a FROM subquery. There BigQuery's rows are the values themselves,
 * which DuckDB has no form for; inside an expression (`ARRAY(...)`, a scalar subquery, EXISTS,
 * IN) it is one value per row, which is translated.
 */
export function refuseValueTable(query: Query, where: string): Query {
  const [kind, body] = variant(query.body);
  if (kind === 'Select' && body.value_table_mode)
    throw unsupported(`SELECT AS STRUCT / SELECT AS VALUE as ${where}`);
  return query;
}
