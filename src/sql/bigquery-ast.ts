import { setFlagsFromString } from 'node:v8';
import { init, parse } from '@guanmingchiu/sqlparser-ts';
import { QuerygateError } from '../errors.js';
import { safeKeywordCalls, withQuotedSafeKeyword } from './safe-keyword-calls.js';
import { readStringEscapes } from './string-escapes.js';
import { inlineTempFunctions } from './temp-functions.js';
import { withTypedStructArrayHeader } from './typed-struct-array-header.js';

/**
 * The JSON AST of sqlparser-rs (the parser Logflare uses), through its WASM build. Its shape is
 * serde's: every enum node is an object with one key naming the variant, e.g.
 * `{ Identifier: { value: 'x' } }`. The package's own typings do not match the JSON it emits,
 * so the translator reads nodes through the small helpers below.
 */
// biome-ignore lint/suspicious/noExplicitAny: untyped JSON from WASM, narrowed by `variant` below
export type Ast = any;

/**
 * Loads the parser's WASM module; `parseBigQuery` needs it loaded. Each entry point (the CLI, the
 * server, the engines, the test setup) awaits it once at start; the library keeps the one module
 * and the one promise, so a second call costs nothing and no module of ours holds state for it.
 */
export function loadSqlParser(): Promise<void> {
  useMainThreadWasmCompiles();
  return init();
}

/**
 * Compiles the parser's WASM functions with V8's optimizing compiler on the main thread, each at
 * its first call, rather than with V8's baseline compiler and then again, once hot, on V8's four
 * background threads. Those background compiles of the parser's large functions take tens of MB of
 * compiler memory from glibc, which keeps what they free in each thread's own arena: serving
 * Studio's pages on the demo store, glibc held 95-110 MB freed and RSS peaked at 284-299 MiB on
 * the built server; compiled on the main thread, glibc held some 45 MB freed and RSS peaked at
 * 237-258 MiB (issue 18's target is 256). The optimized code is the same, so a parse costs the
 * same once compiled (sqlparser's parse and format of the supabase/ queries: 10-17 ms of CPU a
 * round either way); the first call of each function waits for its compile instead (the first
 * logs.all call of a fresh server measured 338-716 ms against 241-375). Only WASM compiles
 * change. V8 reads these flags when it compiles a module, so they are set before `init` compiles
 * the parser; a second call finds the module compiled and changes nothing.
 */
function useMainThreadWasmCompiles(): void {
  setFlagsFromString('--no-liftoff');
  setFlagsFromString('--wasm-num-compilation-tasks=0');
}

/**
 * Parses one saved BigQuery query: one SELECT, optionally after `CREATE TEMP FUNCTION` statements
 * with SQL bodies, whose calls come back inlined (see temp-functions.ts). Anything else is refused.
 */
export function parseBigQuery(sql: string): Ast {
  const statements = parseSavedStatements(sql);
  const query = (statements.at(-1) as Ast).Query;
  return inlineTempFunctions(
    statements.slice(0, -1).map((statement) => statement.CreateFunction),
    query,
  );
}

/**
 * What to write instead of a form BigQuery reads and the parser does not: a table named `table`
 * left unquoted.
 */
function parseHint(sql: string): string {
  // BigQuery does not reserve TABLE, and its date and time docs name a CTE `table`
  // (`WITH table AS (...) ... FROM table`); the parser reads `FROM table` as a TABLE(...) call.
  if (/\b(FROM|JOIN)\s+table\b(?!\s*\()/i.test(sql))
    return '. A table or CTE named table is read by the parser as TABLE(...): quote the name, `table`';
  return '';
}

/**
 * The statements of a saved query as written (its temporary functions, then its query), for
 * what reads the text itself rather than its meaning (renaming tables at their spans).
 */
export function parseSavedStatements(sql: string): Ast[] {
  let statements: Ast[];
  try {
    statements = parseStatements(sql);
  } catch (error) {
    // A missing `await loadSqlParser()` is our defect, not a fault of the caller's SQL.
    if ((error as Error).name === 'WasmInitError')
      throw new Error('The SQL parser is not loaded: await loadSqlParser() before parsing', { cause: error });
    throw new QuerygateError(
      'BAD_REQUEST',
      `SQL does not parse: ${(error as Error).message}${parseHint(sql)}`,
      {
        cause: error,
      },
    );
  }
  const last = statements.at(-1);
  const leading = statements.slice(0, -1);
  if (!last?.Query || leading.some((statement) => !statement?.CreateFunction)) {
    throw new QuerygateError(
      'BAD_REQUEST',
      `A saved query must be exactly one SELECT statement (optionally after CREATE TEMP FUNCTION statements)${scriptVariablesHint(statements)}`,
    );
  }
  return statements;
}

/**
 * What to write instead of a script's variables: Google's GA4 sample queries declare their date
 * range and items with `DECLARE x ... DEFAULT ...` (developers.google.com/analytics/bigquery);
 * a saved query takes them as parameters.
 */
function scriptVariablesHint(statements: readonly Ast[]): string {
  const names = statements.flatMap((statement): string[] => {
    if (statement?.Declare)
      return (statement.Declare.stmts as Ast[]).flatMap((declared) =>
        (declared.names as Ast[]).map((name) => String(name.value)),
      );
    const variables = statement?.Set?.SingleAssignment?.variable as Ast[] | undefined;
    return (variables ?? []).map((variable) => String(variant(variable)[1].value));
  });
  if (names.length === 0) return '';
  const unique = [...new Set(names)];
  return `. BigQuery scripting variables (DECLARE or SET ${unique.join(', ')}) are not read: make each a query parameter, written @${unique[0]} in the query and declared in the endpoint's contract (querygate query --param ${unique[0]}=...)`;
}

/** sqlparser's statements of `sql`, with the quoted strings' values as BigQuery reads their escapes. */
export function parseStatements(sql: string): Ast[] {
  return parsedAs(sql).statements;
}

/**
 * The text as the parser reads it: `sql` with each typed array of STRUCTs and each SAFE. call of a
 * keyword's name rewritten in place (typed-struct-array-header.ts, safe-keyword-calls.ts), for
 * what hands the text to the parser's printer.
 */
export function parserText(sql: string): string {
  return /\bARRAY\s*<\s*STRUCT\s*</i.test(sql) || safeKeywordCalls(sql) > 0 ? parsedAs(sql).text : sql;
}

function parsedAs(sql: string): { statements: Ast[]; text: string } {
  let text = sql;
  // Each typed array of STRUCTs (typed-struct-array-header.ts) and each SAFE. call of a name the
  // parser takes for a keyword (safe-keyword-calls.ts) it stops at is rewritten in place, at most
  // as many times as the text has `ARRAY<` and such calls; any other error is the text's.
  const rewrites = (sql.match(/\bARRAY\s*</gi)?.length ?? 0) + safeKeywordCalls(sql);
  for (let left = rewrites; ; left--) {
    try {
      const statements = parse(text, 'bigquery') as Ast[];
      readStringEscapes(text, statements);
      return { statements, text };
    } catch (error) {
      const message = (error as Error).message;
      const rewritten =
        left > 0
          ? (withTypedStructArrayHeader(text, message) ?? withQuotedSafeKeyword(text, message))
          : undefined;
      if (rewritten === undefined) throw error;
      text = rewritten;
    }
  }
}

/**
 * The `[kind, payload]` pairs of an enum type declared in ast.ts, one per variant, so that a
 * switch on `kind` narrows `payload`; a bare string is a unit variant without payload.
 */
type VariantOf<T> = T extends string
  ? readonly [T, undefined]
  : { [K in keyof T & string]: readonly [K, T[K]] }[keyof T & string];

/** What `variant` returns: typed pairs for a declared node, `[string, Ast]` for an untyped one. */
type Variant<T> = 0 extends 1 & T ? [string, Ast] : VariantOf<T>;

/** The variant name and payload of an enum node; a bare string is a unit variant. */
export function variant<T extends object | string>(node: T): Variant<T>;
export function variant(node: Ast): [string, Ast] {
  if (typeof node === 'string') return [node, undefined];
  const keys = Object.keys(node);
  if (keys.length !== 1) throw new Error(`Not an enum node: ${JSON.stringify(node).slice(0, 120)}`);
  const key = keys[0] as string;
  return [key, node[key]];
}

/** The `@name` query parameters a parsed query uses, found in the AST rather than the text. */
export function queryParameters(query: Ast): Set<string> {
  const found = new Set<string>();
  visitNodes(query, (node) => {
    const value = node.Identifier?.value;
    if (typeof value === 'string' && value.startsWith('@')) found.add(value.slice(1));
  });
  return found;
}

/** The lower-case names of the functions a parsed query calls. */
export function queryFunctions(query: Ast): Set<string> {
  const found = new Set<string>();
  visitNodes(query, (node) => {
    const name = node.Function?.name;
    if (Array.isArray(name))
      found.add(
        name
          .map((part: Ast) => variant(part)[1].value)
          .join('.')
          .toLowerCase(),
      );
  });
  return found;
}

/** The AST as JSON without where each node was written: equal for the same SQL written anywhere. */
export function withoutSpans(node: Ast): string {
  return JSON.stringify(node ?? null, (key, value) => (key === 'span' ? undefined : value));
}

/** Calls `visit` on every object node of the AST, depth first. */
export function visitNodes(node: Ast, visit: (node: Ast) => void): void {
  if (Array.isArray(node)) {
    for (const child of node) visitNodes(child, visit);
  } else if (node && typeof node === 'object') {
    visit(node);
    for (const child of Object.values(node)) visitNodes(child, visit);
  }
}

/** The lower-cased name of a call of a one-part name (`coalesce`, not `net.host`), else undefined. */
export function calledName(expression: Ast): string | undefined {
  const call = expression.Function;
  return call?.name.length === 1 ? variant(call.name[0])[1].value.toLowerCase() : undefined;
}

/** The text of a string literal (quoted, triple-quoted or raw), or undefined. */
export function stringLiteral(expression: Ast): string | undefined {
  const value = expression?.Value?.value;
  if (!value || typeof value !== 'object') return undefined;
  const [kind, payload] = variant(value);
  return /String/.test(kind) && typeof payload === 'string' ? payload : undefined;
}

/** An integer literal's value (`3`, `-3`; not `3.0` or `3e0`, which are FLOAT64), else undefined. */
export function integerLiteral(expression: Ast): number | undefined {
  const number = expression?.Value?.value?.Number?.[0];
  if (number !== undefined) return /^\d+$/.test(String(number)) ? Number(number) : undefined;
  const negated = expression?.UnaryOp;
  if (negated?.op !== 'Minus') return undefined;
  const inner = integerLiteral(negated.expr);
  return inner === undefined ? undefined : -inner;
}

/** The value of a number literal, a negated one included, or undefined. */
export function numberLiteral(expression: Ast): number | undefined {
  const number = expression?.Value?.value?.Number?.[0];
  if (number !== undefined) return Number(number);
  const negated = expression?.UnaryOp;
  if (negated?.op !== 'Minus') return undefined;
  const inner = numberLiteral(negated.expr);
  return inner === undefined ? undefined : -inner;
}
