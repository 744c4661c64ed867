import { type ErrorCode, QuerygateError } from '../errors.js';
import { type Ast, numberLiteral, stringLiteral, variant } from './bigquery-ast.js';
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
  checkQuery(query, savedCtes, { folded: 0, built: 0 });
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
  /** Bytes REPEAT, LPAD, RPAD and FORMAT's widths build for a row (see maxBuiltBytes). */
  built: number;
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
 * The most bytes the REPEAT, LPAD, RPAD and FORMAT calls of one caller query may build for a row,
 * all together. DuckDB computes a function for 2,048 rows at once and cannot be interrupted
 * while it does, so what a call builds per row is held 2,048 times before the memory ceiling can
 * stop anything: `repeat(cast(a as string), 300000)` over generated rows took a server to 3.7 GB,
 * `format('%1000000000d', 1)` to 2 GB, with a 512 MiB ceiling. And a function may turn each
 * byte into an array element of 16-32 bytes: SPLIT, REGEXP_EXTRACT_ALL and TO_CODE_POINTS of
 * 60 KB built a row took a server to 1.4-2.3 GB. 4 KiB a row is 8 MiB a batch, some 256 MiB as
 * elements.
 */
export const maxBuiltBytes = 4_096;

/**
 * REPLACE and REGEXP_REPLACE in caller SQL: a replacement is a string literal of at most this many
 * bytes, and the factor by which calls nested in one another may grow a value (its replacement
 * against what it replaces, for each match) at most maxGrowth.
 * `replace(repeat('a', 20000), 'a', repeat('b', 20000))` built 400 MB in one call.
 */
export const maxReplacementBytes = 64;
export const maxGrowth = 64;

/** Calls that build text from literals, whose size the budget counts. */
const buildingCalls = new Set(['repeat', 'lpad', 'rpad', 'format']);

/**
 * Functions whose result grows with an argument: their size must be written as literals within
 * the bounds above, so it is known before anything runs. Date and timestamp arrays have no size
 * to read off literals and are refused.
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
    case 'repeat': {
      const text = stringLiteral(args[0]);
      const count = literal(1);
      if (text === undefined || count === undefined)
        throw tooMuchText(name, 'a string literal and a number literal', call);
      build(name, Buffer.byteLength(text) * Math.max(0, count), budget, call);
      return;
    }
    case 'lpad':
    case 'rpad': {
      const count = literal(1);
      if (count === undefined) throw tooMuchText(name, 'a number literal for its length', call);
      // A pattern's characters may take up to 4 bytes each in UTF-8.
      const pattern = args.length > 2 ? stringLiteral(args[2]) : ' ';
      const bytesPerCharacter =
        pattern !== undefined && Buffer.byteLength(pattern) === pattern.length ? 1 : 4;
      build(name, Math.max(0, count) * bytesPerCharacter, budget, call);
      return;
    }
    case 'format': {
      const format = stringLiteral(args[0]);
      if (format === undefined) throw tooMuchText(name, 'a string literal for its format', call);
      let widths = 0;
      for (const [spec, width, precision] of format.matchAll(formatSpecifier)) {
        if (spec === '%%') continue;
        if (width === '*' || precision === '*')
          throw tooMuchText(name, 'widths written in its format, not given by an argument (*)', call);
        widths += Number(width ?? 0) + Number(precision ?? 0);
      }
      build(name, widths, budget, call);
      return;
    }
    case 'replace':
    case 'regexp_replace': {
      const replacement = stringLiteral(args[2]);
      if (replacement === undefined || Buffer.byteLength(replacement) > maxReplacementBytes)
        throw tooMuchText(
          name,
          `a string literal of at most ${maxReplacementBytes} bytes as its replacement`,
          call,
        );
      // `call` is the Function node's content: growth reads it as the expression it is.
      const grows = growth({ Function: call });
      if (grows === 1) return;
      if (args[0] !== undefined && containsCall(args[0], buildingCalls))
        throw tooMuchText(name, 'a replacement that grows text REPEAT, LPAD, RPAD or FORMAT built', call);
      if (grows > maxGrowth)
        throw tooMuchText(
          name,
          `replacements that grow a value at most ${maxGrowth} times, nested ones together`,
          call,
        );
      return;
    }
    default:
  }
}

/** A FORMAT specifier: `%%`, or `%`, flags, width and precision (digits or `*`), then its type. */
const formatSpecifier = /%%|%[-+ #'0]*(\*|\d+)?(?:\.(\*|\d+))?/g;

function build(name: string, bytes: number, budget: Budget, call: Ast): void {
  budget.built += bytes;
  if (budget.built > maxBuiltBytes) throw tooMuchText(name, 'literals', call);
}

function tooMuchText(name: string, what: string, call: Ast): QuerygateError {
  return sandboxRefusal(
    'SANDBOX_TOO_EXPENSIVE',
    `sql may call ${String(name).toUpperCase()} only with ${what}, and REPEAT, LPAD, RPAD and FORMAT may build at most ${maxBuiltBytes} bytes a row in all`,
    call,
  );
}

/**
 * How many times a REPLACE or REGEXP_REPLACE call, and those nested in its text, may multiply
 * its text's length at most: each match's replacement against the match (REPLACE's pattern is
 * text, so its length; a regular expression may match a single character or none, between
 * every two), times the growth of the text it is given.
 */
function growth(node: Ast): number {
  if (Array.isArray(node)) return Math.max(1, ...node.map(growth));
  if (node === null || typeof node !== 'object') return 1;
  const call = node.Function;
  const name = functionName(call);
  if (name === 'replace' || name === 'regexp_replace') {
    const [text, pattern, replacement] = callArguments(call);
    const to = Buffer.byteLength(stringLiteral(replacement) ?? '');
    const from = name === 'replace' ? Buffer.byteLength(stringLiteral(pattern) ?? '') : 0;
    // REPLACE of an empty pattern gives its text back (BigQuery's documented rule).
    const factor = name === 'replace' ? (from === 0 ? 1 : Math.max(1, Math.ceil(to / from))) : 1 + to;
    return factor * growth(text);
  }
  return Math.max(1, ...Object.values(node).map(growth));
}

function containsCall(node: Ast, names: ReadonlySet<string>): boolean {
  if (Array.isArray(node)) return node.some((child) => containsCall(child, names));
  if (node === null || typeof node !== 'object') return false;
  const call = node.Function;
  if (names.has(functionName(call))) return true;
  return Object.values(node).some((child) => containsCall(child, names));
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

/** A call's function, lower-case: the last part of its name, so SAFE.REPLACE is REPLACE. */
function functionName(call: Ast): string {
  return Array.isArray(call?.name) ? String(variant(call.name.at(-1))[1].value).toLowerCase() : '';
}
