import { format } from '@guanmingchiu/sqlparser-ts';
import { QuerygateError } from '../errors.js';
import {
  type Ast,
  parseBigQuery,
  parserText,
  parseStatements,
  queryParameters,
  withoutSpans,
} from './bigquery-ast.js';
import { checkCallerQuery, cteNames, sandboxRefusal } from './sandbox-checks.js';
import { createLocator } from './source-position.js';

/**
 * Logflare's sandboxed endpoints: the saved query is a WITH query whose CTEs are the tables a
 * caller may read; a caller's SELECT replaces its final SELECT (body, ORDER BY and LIMIT), and
 * the saved WITH is kept. The merge splices texts at the parser's spans, so both engines get
 * one BigQuery text (the translator and the name qualifier need a text), then parses the
 * result and compares it with the two parts it was made of: a splice that a comment or a
 * quote could turn into something else is refused, never run.
 */

/** The longest caller SQL accepted, in characters. */
export const maxCallerSqlLength = 100_000;

/**
 * The most operator tokens caller SQL may hold. sqlparser builds a chain of binary operators
 * (`a OR b OR c ...`, `1+1+...`, `x IS NULL IS NULL ...`, UNION after UNION) one level deeper per
 * operator without its recursion limit, and its WASM build then overflows its own stack turning
 * the tree into JSON: measured with the package as installed, 750 chained operators of any kind
 * traps with "memory access out of bounds" (5,000 exhausts V8's stack inside the parser) and
 * leaves the module's stack pointer broken, so every later parse in the process fails the same
 * way. Nothing can undo that but a restart, so the text is bounded before it reaches the parser.
 * The count covers the whole text, strings and comments included: an over-count refuses a rare
 * query, while a lexer that misread a quote could let a chain through.
 */
export const maxCallerOperators = 500;

const operatorTokens =
  /[-+*/%=<>!|&^~:]|\b(?:and|or|not|is|in|like|between|union|intersect|except|at|collate)\b/gi;

/** What a sandboxed call runs: the merged BigQuery text and where the caller's text sits in it. */
export interface SandboxedSql {
  /** The saved WITH, the caller's own CTEs after it, then the caller's SELECT. */
  readonly sql: string;
  /** Lines of `sql` before the caller's first line: a position in `sql` minus these is one in the caller's text. */
  readonly callerLineOffset: number;
  /** The caller's SQL as the parser prints it back: one text however it was spaced, commented or cased. */
  readonly normalized: string;
}

/** The saved query's WITH clause, as text, and the names of its CTEs (lower case). */
export interface SandboxTables {
  /** The saved text up to the closing parenthesis of its last CTE. */
  readonly withText: string;
  readonly names: ReadonlySet<string>;
}

/**
 * The tables of a sandboxed endpoint's saved SQL. Throws a message for the load report when the
 * SQL is not a WITH query: a sandboxed endpoint has nothing else to offer a caller.
 */
export function sandboxTables(savedSql: string): SandboxTables {
  const saved = parseBigQuery(savedSql);
  const ctes = (saved.with?.cte_tables ?? []) as Ast[];
  const last = ctes.at(-1);
  if (!last || saved.with.recursive) {
    throw new Error(
      'a sandboxed endpoint must be a WITH query (not RECURSIVE): its CTEs are what a caller may read',
    );
  }
  const end = last.closing_paren_token?.span?.end;
  if (typeof end?.line !== 'number' || end.line < 1) {
    throw new Error('the parser gave no position for the end of the last CTE');
  }
  return { withText: savedSql.slice(0, createLocator(savedSql)(end)), names: new Set(cteNames(saved)) };
}

/**
 * Merges a caller's SQL into a sandboxed endpoint's saved SQL after checking it (see
 * sandbox-checks.ts). `declared` are the endpoint's parameters: the caller's SQL may use those,
 * bound as always, and no other.
 */
export function sandboxSql(savedSql: string, callerSql: string, declared: ReadonlySet<string>): SandboxedSql {
  if (callerSql.length > maxCallerSqlLength) {
    throw sandboxRefusal('SANDBOX_INVALID_SQL', `sql is longer than ${maxCallerSqlLength} characters`);
  }
  if (callerSql.trim() === '') throw sandboxRefusal('SANDBOX_INVALID_SQL', 'sql is empty');
  const operators = callerSql.match(operatorTokens)?.length ?? 0;
  if (operators > maxCallerOperators) {
    throw sandboxRefusal(
      'SANDBOX_INVALID_SQL',
      `sql holds ${operators} operators and set operations (+, =, AND, OR, IS, UNION, ...), more than the ${maxCallerOperators} querygate parses; write a long list of alternatives as IN (...) or IN UNNEST([...])`,
    );
  }
  const tables = sandboxTables(savedSql);
  const caller = checkCallerQuery(parseCaller(callerSql), tables.names);
  for (const name of queryParameters(caller)) {
    if (!declared.has(name)) {
      throw new QuerygateError(
        'BAD_PARAMETER',
        `Parameter 'sql' uses @${name}, which this endpoint does not declare`,
        { details: { parameter: 'sql' } },
      );
    }
  }
  // The caller's own CTEs join the saved ones in one WITH: visible to each other as nesting
  // would make them (each sees the saved ones and the caller's before it). The caller's WITH
  // keyword becomes spaces, so every position after it keeps its line and column.
  let callerText = callerSql;
  const withToken = caller.with?.with_token?.span;
  if (withToken) {
    const locate = createLocator(callerSql);
    const start = locate(withToken.start);
    const end = locate(withToken.end);
    callerText = callerSql.slice(0, start) + ' '.repeat(end - start) + callerSql.slice(end);
  }
  const joint = withToken ? ',\n' : '\n';
  const sql = `${tables.withText}${joint}${callerText}`;
  assertMergedAsMeant(sql, parseBigQuery(savedSql), caller);
  return {
    sql,
    callerLineOffset: countLines(tables.withText) + 1,
    normalized: normalize(callerSql, caller),
  };
}

/**
 * The caller's text as the parser prints it. The printer writes a string's value as the parser
 * read it, not as BigQuery reads its escapes (`'\x41'` and `'x41'` print alike): a text with a
 * backslash is keyed by its whole tree too, whose values are BigQuery's (string-escapes.ts).
 */
function normalize(callerSql: string, caller: Ast): string {
  // A typed array of STRUCTs is printed as the parser read it (typed-struct-array-header.ts).
  const printed = format(parserText(callerSql), 'bigquery');
  return callerSql.includes('\\') ? `${printed}\n-- ${withoutSpans(caller)}` : printed;
}

function parseCaller(callerSql: string): Ast[] {
  try {
    return parseStatements(callerSql);
  } catch (error) {
    throw sandboxRefusal('SANDBOX_INVALID_SQL', `sql does not parse: ${(error as Error).message}`);
  }
}

/** The merged text must parse to the saved CTEs, the caller's CTEs and the caller's query, nothing else. */
function assertMergedAsMeant(sql: string, saved: Ast, caller: Ast): void {
  let merged: Ast;
  try {
    merged = parseBigQuery(sql);
  } catch {
    throw sandboxRefusal('SANDBOX_INVALID_SQL', "sql cannot be combined with the endpoint's query");
  }
  const expectedCtes = [...saved.with.cte_tables, ...(caller.with?.cte_tables ?? [])];
  const same =
    merged.with?.recursive === false &&
    withoutSpans(merged.with.cte_tables) === withoutSpans(expectedCtes) &&
    Object.keys({ ...merged, ...caller })
      .filter((key) => key !== 'with')
      .every((key) => withoutSpans(merged[key]) === withoutSpans(caller[key]));
  if (!same) throw sandboxRefusal('SANDBOX_INVALID_SQL', "sql cannot be combined with the endpoint's query");
}

function countLines(text: string): number {
  let lines = 0;
  for (let i = text.indexOf('\n'); i !== -1; i = text.indexOf('\n', i + 1)) lines += 1;
  return lines;
}
