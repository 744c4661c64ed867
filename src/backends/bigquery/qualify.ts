import { type Ast, parseSavedStatements, queryParameters } from '../../sql/bigquery-ast.js';
import { createLocator, type Position } from '../../sql/source-position.js';
import { dottedName, tablesNamed } from '../../sql/tables-named.js';

/**
 * Renaming tables and functions in saved BigQuery SQL without touching anything else: the text
 * is parsed by sqlparser-rs, the names are found as AST nodes (a table in FROM/JOIN, the name of
 * a function call), and each replacement is spliced into the original text at the span the
 * parser reports. Comments, layout and every other token stay byte for byte, and a name inside a
 * string literal, a comment or a column path is never touched, as a textual search would.
 */

export interface ObjectRenames {
  /** Replacement text by table name as written, dotted (`cloudflare.logs.prod`), compared case-insensitively. */
  readonly tables: ReadonlyMap<string, string>;
  /** Replacement text by function name as written (`generate_timestamp_trunc_array`), case-insensitively. */
  readonly functions: ReadonlyMap<string, string>;
  /**
   * Keep the name a table without an alias gives its columns: `FROM edge_logs` becomes
   * `` FROM `p.d.t` AS `edge_logs` ``, so `edge_logs.timestamp` still resolves. @default false
   */
  readonly keepRangeNames?: boolean;
}

interface Span {
  readonly start: Position;
  readonly end: Position;
}

interface Edit {
  readonly start: number;
  readonly end: number;
  readonly text: string;
}

/**
 * Of a wildcard family renamed as a whole (`a.events_*` → `b.events_*`), a name within it: one
 * table (`a.events_20240101`) or a longer prefix (`a.events_2024*`) moves with its suffix.
 */
function familyMember(name: string, replacements: ReadonlyMap<string, string>): string | undefined {
  const lower = name.toLowerCase();
  for (const [family, text] of replacements) {
    const stem = family.slice(0, -1);
    // The replacement's own `*`, before its closing backtick when quoted.
    const star = text.lastIndexOf('*');
    if (!family.endsWith('*') || star < text.length - 2 || !lower.startsWith(stem) || lower === stem)
      continue;
    return `${text.slice(0, star)}${name.slice(stem.length)}${text.slice(star + 1)}`;
  }
  return undefined;
}

/**
 * `sql` with every table and function named in `renames` replaced. A name that is also a CTE of
 * the query is the CTE there and stays. Throws when the parser's span of a name does not hold
 * that name in the text: a splice at the wrong place would change the query's meaning.
 */
export function renameObjects(sql: string, renames: ObjectRenames): string {
  // Every statement as written: a table named in a temporary function's body is renamed there.
  const query = parseSavedStatements(sql);
  const tables = lowerCaseKeys(renames.tables);
  const functions = lowerCaseKeys(renames.functions);
  const cteNames = new Set<string>();
  visit(query, (node) => {
    for (const cte of node.with?.cte_tables ?? []) cteNames.add(String(cte.alias.name.value).toLowerCase());
  });
  const locate = createLocator(sql);
  const edits: Edit[] = [];
  const rename = (parts: Ast[], replacements: Map<string, string>, rangeName?: string) => {
    const name = dottedName(parts);
    if (name === undefined) return;
    if (parts.length === 1 && cteNames.has(name.toLowerCase())) return;
    const text = replacements.get(name.toLowerCase()) ?? familyMember(name, replacements);
    if (text === undefined) return;
    edits.push(nameEdit(sql, locate, parts, rangeName ? `${text} AS \`${rangeName}\`` : text));
  };
  visit(query, (node) => {
    const table = node.Table;
    if (table && Array.isArray(table.name)) {
      // A dotted name's implicit alias is its last part (`prod`), which nobody writes; only
      // single names such as `edge_logs` or `deno-relay-logs` are kept.
      const written = dottedName(table.name);
      const implicit =
        renames.keepRangeNames && !table.alias && written && !written.includes('.') ? written : undefined;
      rename(table.name, tables, implicit);
    }
    const call = node.Function;
    if (call && Array.isArray(call.name)) rename(call.name, functions);
  });
  return applyEdits(sql, edits);
}

/**
 * `sql` with the object name whose parts (`{Identifier}` nodes of the parsed `sql`) are given
 * replaced by `text`, e.g. the name a CREATE FUNCTION statement creates.
 */
export function replaceName(sql: string, parts: readonly Ast[], text: string): string {
  return applyEdits(sql, [nameEdit(sql, createLocator(sql), parts, text)]);
}

function nameEdit(
  sql: string,
  locate: (position: Position) => number,
  parts: readonly Ast[],
  text: string,
): Edit {
  const name = dottedName(parts);
  const spans = parts.map((part) => part?.Identifier?.span as Span | undefined);
  if (name === undefined || spans.some((span) => !span))
    throw new Error('The parser gave no position for a name');
  const start = Math.min(...spans.map((span) => locate((span as Span).start)));
  const end = Math.max(...spans.map((span) => locate((span as Span).end)));
  // Backticks may quote the whole name (`a.b.c`) or each part (`a`.`b`.c); what is left once
  // they are gone must be the name itself.
  const written = sql.slice(start, end);
  if (written.replaceAll('`', '') !== name) {
    throw new Error(`The parser placed ${name} at text '${written}'; refusing to rename it`);
  }
  return { start, end, text };
}

/** What a saved query becomes on BigQuery: its text with qualified names, and its parameters. */
export interface QualifiedQuery {
  readonly sql: string;
  /** The `@name` parameters of the query, sorted; each goes as a named STRING parameter. */
  readonly parameters: readonly string[];
  /** The tables the saved text names (not its CTEs), lower case, as written: `edge_logs`, `p.d.events_*`. */
  readonly tables: readonly string[];
}

export interface BigQueryNaming {
  /** `project.dataset.table` by logical source name, and by each alias of a source (`edge_logs`). */
  readonly tables: Readonly<Record<string, string>>;
  /** `project.dataset.routine` by UDF name. */
  readonly routines: Readonly<Record<string, string>>;
}

/**
 * The saved SQL as BigQuery runs it: logical source names and UDF calls become backticked
 * fully-qualified names (`cloudflare.logs.prod` → `my-project.logs.cloudflare_logs_prod`).
 */
export function qualifyForBigQuery(sql: string, naming: BigQueryNaming): QualifiedQuery {
  const quoted = (entries: Record<string, string>) =>
    new Map(Object.entries(entries).map(([name, qualified]) => [name, `\`${qualified}\``]));
  return {
    sql: renameObjects(sql, {
      tables: quoted(naming.tables),
      functions: quoted(naming.routines),
      keepRangeNames: true,
    }),
    parameters: [...queryParameters(parseSavedStatements(sql))].sort(),
    tables: tablesNamed(sql),
  };
}

function lowerCaseKeys(map: ReadonlyMap<string, string>): Map<string, string> {
  return new Map([...map].map(([key, value]) => [key.toLowerCase(), value]));
}

function applyEdits(sql: string, edits: readonly Edit[]): string {
  const ordered = [...edits].sort((a, b) => a.start - b.start);
  let result = '';
  let cursor = 0;
  for (const edit of ordered) {
    if (edit.start < cursor) throw new Error('Two renamed names overlap in the SQL text');
    result += sql.slice(cursor, edit.start) + edit.text;
    cursor = edit.end;
  }
  return result + sql.slice(cursor);
}

function visit(node: Ast, callback: (node: Ast) => void): void {
  if (Array.isArray(node)) {
    for (const child of node) visit(child, callback);
  } else if (node && typeof node === 'object') {
    callback(node);
    for (const child of Object.values(node)) visit(child, callback);
  }
}
