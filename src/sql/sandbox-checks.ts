import { type ErrorCode, QuerygateError } from '../errors.js';
import { type Ast, numberLiteral, variant } from './bigquery-ast.js';
import { firstLocation } from './unsupported.js';

/**
 * The checks a caller's SQL passes before it may replace a sandboxed endpoint's final SELECT
 * (Logflare's, see its `Logflare.Sql`, and DuckDB's own dangers). They run on the caller's AST
 * alone, engine-neutral, so both engines refuse the same texts with the same codes, and each
 * refusal names the place in the caller's text.
 */

/**
 * Functions a caller may not call, anywhere. Logflare's BigQuery list (`external_query`,
 * `session_user`), then DuckDB's table and catalog functions and those that read the file
 * system or settings or run SQL. The DuckDB translator only writes functions it has a rule for,
 * and the engine runs with external access off: this list is the first of three walls.
 */
const restrictedFunctions = new Set([
  'external_query',
  'session_user',
  'current_user',
  'current_role',
  'user',
  'current_setting',
  'current_database',
  'current_catalog',
  'current_schema',
  'current_schemas',
  'set_config',
  'getenv',
  'version',
  'glob',
  'query',
  'query_table',
  'sniff_csv',
  'checkpoint',
  'force_checkpoint',
  'which_secret',
  'json_execute_serialized_sql',
  'json_serialize_sql',
  'json_deserialize_sql',
  'json_serialize_plan',
  'nextval',
  'currval',
  'setseed',
  'summary',
  'range',
  'generate_series',
]);

/** Prefixes of DuckDB's file readers (`read_csv`, `read_parquet`, ...) and catalog functions. */
const restrictedPrefixes = [
  'read_',
  'duckdb_',
  'pragma_',
  'sqlite_',
  'pg_',
  'parquet_',
  'iceberg_',
  'delta_',
  'icu_',
  'postgres_',
  'mysql_',
  'information_schema',
];

/** Whether a caller may not call the function `name` (dotted, any case). */
export function isRestrictedFunction(name: string): boolean {
  const parts = name.toLowerCase().split('.');
  return parts.some(
    (part) => restrictedFunctions.has(part) || restrictedPrefixes.some((prefix) => part.startsWith(prefix)),
  );
}

/** FROM items a caller may use; anything else (table functions, JSON_TABLE, ...) is refused. */
const allowedFromItems = new Set(['Table', 'Derived', 'UNNEST', 'NestedJoin']);

/** Statement-level nodes that write or change something, wherever the parser puts them. */
const writingNodes = new Set([
  'Insert',
  'Update',
  'Delete',
  'Merge',
  'Truncate',
  'Drop',
  'Copy',
  'CreateTable',
  'AlterTable',
]);

/** One refusal of the caller's SQL, at the place of `node` in the caller's text. */
export function sandboxRefusal(code: ErrorCode, message: string, node?: Ast): QuerygateError {
  const location = node === undefined ? undefined : firstLocation(node);
  const where = location ? ` (line ${location.line}, column ${location.column})` : '';
  return new QuerygateError(code, `${message}${where}`, {
    details: { parameter: 'sql', ...(location ?? {}) },
  });
}

/**
 * Checks a caller's parsed statements: one statement, a SELECT query (no DML, no INTO, no pipe
 * syntax, no WITH RECURSIVE), no `*` or `t.*` result column at any depth, every table a CTE in
 * scope where it is named (the endpoint's `savedCtes`, or the caller's own that come before it),
 * no restricted function or table function. Throws the first refusal.
 */
export function checkCallerQuery(statements: readonly Ast[], savedCtes: ReadonlySet<string>): Ast {
  if (statements.length !== 1) {
    throw sandboxRefusal(
      'SANDBOX_NOT_ONE_STATEMENT',
      `sql must be exactly one statement; it holds ${statements.length}`,
    );
  }
  const [statement] = statements;
  const [kind, query] = variant(statement);
  if (kind !== 'Query') {
    throw sandboxRefusal('SANDBOX_NOT_SELECT', `sql must be a SELECT query, not a ${kind} statement`, query);
  }
  for (const name of cteNames(query)) {
    if (savedCtes.has(name)) {
      throw sandboxRefusal(
        'SANDBOX_CTE_NAME_TAKEN',
        `sql defines a CTE named ${name}, which is a table of this endpoint already; choose another name`,
        query.with,
      );
    }
  }
  checkQuery(query, savedCtes, { folded: 0 });
  return query;
}

/** The lower-case names of the CTEs of a query's own WITH. */
export function cteNames(query: Ast): string[] {
  return ((query?.with?.cte_tables ?? []) as Ast[]).map((cte) => String(cte.alias.name.value).toLowerCase());
}

/** A query node: sqlparser's `Query` struct always carries `body` and `pipe_operators`. */
function isQueryNode(node: Ast): boolean {
  return node !== null && typeof node === 'object' && 'body' in node && 'pipe_operators' in node;
}

/** What the checks of one caller query have counted so far over all of it. */
interface Budget {
  /** Elements of the arrays GENERATE_ARRAY builds as values (see maxFoldedSize). */
  folded: number;
}

function checkQuery(query: Ast, outer: ReadonlySet<string>, budget: Budget): void {
  const scope = new Set(outer);
  if (query.with) {
    if (query.with.recursive)
      throw sandboxRefusal('SANDBOX_NOT_SELECT', 'sql may not use WITH RECURSIVE', query.with);
    // A CTE sees the ones before it, never itself or those after it (BigQuery's rule without
    // RECURSIVE): a name that comes later would be a real table there.
    for (const cte of query.with.cte_tables as Ast[]) {
      checkQuery(cte.query, scope, budget);
      scope.add(String(cte.alias.name.value).toLowerCase());
    }
  }
  if ((query.pipe_operators as Ast[]).length > 0)
    throw sandboxRefusal('SANDBOX_NOT_SELECT', 'sql may not use pipe syntax (|>)', query.pipe_operators);
  if ((query.locks as Ast[]).length > 0)
    throw sandboxRefusal('SANDBOX_NOT_SELECT', 'sql may not lock rows (FOR UPDATE)', query);
  for (const [key, value] of Object.entries(query)) {
    if (key !== 'with') checkNode(value, scope, key, budget);
  }
}

function checkNode(node: Ast, scope: ReadonlySet<string>, key: string, budget: Budget): void {
  if (Array.isArray(node)) {
    for (const child of node) checkNode(child, scope, key, budget);
    return;
  }
  if (node === null || typeof node !== 'object') return;
  if (isQueryNode(node)) {
    checkQuery(node, scope, budget);
    return;
  }
  if (key === 'relation') checkFromItem(node, scope);
  if (key === 'projection') checkResultColumn(node);
  for (const [childKey, child] of Object.entries(node)) {
    if (writingNodes.has(childKey))
      throw sandboxRefusal('SANDBOX_NOT_SELECT', `sql may only read; it holds ${childKey}`, child);
    if (childKey === 'into' && child)
      throw sandboxRefusal('SANDBOX_NOT_SELECT', 'sql may not SELECT ... INTO a table', node);
    if (childKey === 'Function') checkFunction(child, key === streamedArray, budget);
    // The array of an UNNEST without an offset: GENERATE_ARRAY there is read row by row.
    const streamed = childKey === 'array_exprs' && !node.with_offset;
    checkNode(child, scope, streamed ? streamedArray : childKey, budget);
  }
}

function checkFromItem(relation: Ast, scope: ReadonlySet<string>): void {
  const [kind, node] = variant(relation);
  if (!allowedFromItems.has(kind)) {
    throw sandboxRefusal('SANDBOX_RESTRICTED_FUNCTION', `sql may not read from a ${kind} item`, node);
  }
  if (kind !== 'Table') return;
  const name = (node.name as Ast[]).map((part) => String(variant(part)[1].value)).join('.');
  if (node.args) {
    throw sandboxRefusal('SANDBOX_RESTRICTED_FUNCTION', `sql may not call the table function ${name}`, node);
  }
  if (node.name.length !== 1 || !scope.has(name.toLowerCase())) {
    throw sandboxRefusal(
      'SANDBOX_TABLE_NOT_CTE',
      `sql may read only the tables of this endpoint (${[...scope].sort().join(', ')}); ${name} is none of them`,
      node,
    );
  }
}

function checkResultColumn(item: Ast): void {
  const [kind] = variant(item);
  if (kind === 'Wildcard' || kind === 'QualifiedWildcard') {
    throw sandboxRefusal(
      'SANDBOX_WILDCARD',
      'sql may not select * or t.* as a result column; name the columns (count(*) is fine)',
      item,
    );
  }
}

/** The key the checks give the array of an UNNEST whose GENERATE_ARRAY is read as rows. */
const streamedArray = 'streamed array';

function checkFunction(call: Ast, streamed: boolean, budget: Budget): void {
  if (!Array.isArray(call?.name)) return;
  const name = (call.name as Ast[]).map((part) => String(variant(part)[1].value)).join('.');
  if (isRestrictedFunction(name)) {
    throw sandboxRefusal('SANDBOX_RESTRICTED_FUNCTION', `sql may not call ${name}`, call);
  }
  checkBuiltSize(name.toLowerCase().replace(/^safe\./, ''), call, streamed, budget);
}

/**
 * The most elements (or characters) one value a caller builds may have. DuckDB builds such a
 * value in one piece, outside its memory limit and deaf to an interrupt until it is done:
 * `GENERATE_ARRAY(1, 2000000000)` took the whole process down in a test.
 */
export const maxBuiltSize = 1_048_576;

/**
 * The most elements the GENERATE_ARRAYs of one query may build as array values (any but the
 * array an UNNEST reads, which DuckDB makes row by row). DuckDB folds a GENERATE_ARRAY of
 * literals into one value while it plans, outside its memory limit: about 180 bytes an element,
 * so 131,072 elements are some 23 MiB however many calls share them (one of 1,000,000 was
 * 180 MiB, and two such queries at once took the process past 640 MiB).
 */
export const maxFoldedSize = 131_072;

/**
 * Functions whose result grows with an argument: their size must be written as number literals
 * within maxBuiltSize, so it is known before anything runs. Date and timestamp arrays have no
 * size to read off literals and are refused.
 */
function checkBuiltSize(name: string, call: Ast, streamed: boolean, budget: Budget): void {
  const args = callArguments(call);
  const literal = (index: number) => numberLiteral(args[index]);
  const tooLarge = (what: string) =>
    sandboxRefusal(
      'SANDBOX_TOO_EXPENSIVE',
      `sql may call ${name.toUpperCase()} only with number literals for ${what}, making at most ${maxBuiltSize} elements`,
      call,
    );
  switch (name) {
    case 'generate_array': {
      const [start, end, step] = [literal(0), literal(1), args.length > 2 ? literal(2) : 1];
      if (start === undefined || end === undefined || step === undefined || step === 0)
        throw tooLarge('its bounds and step');
      const size = Math.floor(Math.abs((end - start) / step)) + 1;
      if (size > maxBuiltSize) throw tooManyElements(maxBuiltSize, call);
      if (streamed) return;
      budget.folded += size;
      if (budget.folded > maxFoldedSize)
        throw tooManyElements(
          maxFoldedSize,
          call,
          ` (querygate's bound on the elements a query's GENERATE_ARRAY calls build as array values, ${budget.folded} here; UNNEST(GENERATE_ARRAY(...)) in FROM may make up to ${maxBuiltSize} rows)`,
        );
      return;
    }
    case 'generate_date_array':
    case 'generate_timestamp_array':
      throw sandboxRefusal(
        'SANDBOX_TOO_EXPENSIVE',
        `sql may not call ${name.toUpperCase()}: its size cannot be known before it runs`,
        call,
      );
    case 'repeat':
    case 'lpad':
    case 'rpad': {
      const count = literal(1);
      if (count === undefined || count > maxBuiltSize) throw tooLarge('its length');
      return;
    }
    default:
  }
}

/**
 * GoogleSQL's refusal of a GENERATE_ARRAY too large, in its words (ZetaSQL, the reference
 * implementation, and BigQuery's emulator refuse past 16,000: `Cannot generate arrays with more
 * than 16000 elements.`), with querygate's bound: BigQuery documents none of its own.
 */
function tooManyElements(bound: number, call: Ast, why = ''): QuerygateError {
  return sandboxRefusal(
    'SANDBOX_TOO_EXPENSIVE',
    `Cannot generate arrays with more than ${bound} elements.${why}`,
    call,
  );
}

function callArguments(call: Ast): Ast[] {
  const list = call?.args?.List?.args;
  if (!Array.isArray(list)) return [];
  return list.map((arg: Ast) => arg?.Unnamed?.Expr);
}
