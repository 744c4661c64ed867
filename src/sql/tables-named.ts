import { type Ast, parseSavedStatements, visitNodes } from './bigquery-ast.js';

/**
 * The tables a saved text names (not its CTEs), lower case, dotted as written: `edge_logs`,
 * `p.d.events_*`, `p.d.events_20240725`.
 */
export function tablesNamed(sql: string): string[] {
  const query = parseSavedStatements(sql);
  const cteNames = new Set<string>();
  const names = new Set<string>();
  visitNodes(query, (node) => {
    for (const cte of node.with?.cte_tables ?? []) cteNames.add(String(cte.alias.name.value).toLowerCase());
    const name = Array.isArray(node.Table?.name) ? dottedName(node.Table.name) : undefined;
    if (name !== undefined) names.add(name.toLowerCase());
  });
  return [...names].filter((name) => !cteNames.has(name)).sort();
}

/** The dotted name of identifier parts, or undefined when a part is not a plain identifier. */
export function dottedName(parts: readonly Ast[]): string | undefined {
  const identifiers = parts.map((part) => part?.Identifier);
  if (identifiers.some((identifier) => typeof identifier?.value !== 'string')) return undefined;
  return identifiers.map((identifier) => identifier.value).join('.');
}
