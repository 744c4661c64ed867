import { type FunctionCall, type RuleTable, rule, unsupported } from './rule.js';

/**
 * Both engines use RE2, so a pattern means the same on both. What differs is around the match:
 * DuckDB's regexp_extract returns '' where BigQuery returns NULL, and takes the group to return
 * as an argument where BigQuery infers it (the one capturing group, or the whole match).
 */
function capturingGroups(pattern: string): number {
  let groups = 0;
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i];
    if (char === '\\') {
      i++;
    } else if (inClass) {
      if (char === ']') inClass = false;
    } else if (char === '[') {
      inClass = true;
    } else if (char === '(' && pattern[i + 1] !== '?') {
      groups++;
    } else if (char === '(' && pattern.startsWith('(?P<', i)) {
      groups++;
    }
  }
  return groups;
}

function groupOf(call: FunctionCall): number {
  const pattern = call.literals[1];
  if (pattern === undefined) throw unsupported(`${call.name.toUpperCase()} needs a literal pattern`);
  const groups = capturingGroups(pattern);
  if (groups > 1) throw unsupported(`${call.name.toUpperCase()} with more than one capturing group`);
  return groups;
}

function extract(args: readonly string[], call: FunctionCall): string {
  if (args.length > 2) throw unsupported(`${call.name.toUpperCase()} with a position or occurrence`);
  const [value, pattern] = args;
  return `CASE WHEN regexp_matches(${value}, ${pattern}) THEN regexp_extract(${value}, ${pattern}, ${groupOf(call)}) END`;
}

export const regexRules: RuleTable = {
  // regexp_matches is a partial match like REGEXP_CONTAINS (regexp_full_match is not). A literal
  // pattern without metacharacters matches exactly where the text contains it, and a substring
  // search costs far less than a regex.
  regexp_contains: rule(2, 2, (args, call) => {
    const pattern = call.literals[1];
    return pattern !== undefined && pattern !== '' && !/[\\^$.|?*+()[\]{}]/.test(pattern)
      ? `contains(${args[0]}, ${args[1]})`
      : `regexp_matches(${args.join(', ')})`;
  }),
  regexp_extract: rule(2, 4, extract),
  regexp_substr: rule(2, 4, extract),
  regexp_extract_all: rule(
    2,
    2,
    ([value, pattern], call) => `regexp_extract_all(${value}, ${pattern}, ${groupOf(call)})`,
  ),
  // Every match is replaced in BigQuery ('g'); \1 and \0 are RE2 rewrite syntax on both.
  regexp_replace: rule(
    3,
    3,
    ([value, pattern, replacement]) => `regexp_replace(${value}, ${pattern}, ${replacement}, 'g')`,
  ),
};
