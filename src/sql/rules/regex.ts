import { RE2JS } from 're2js';
import {
  type FunctionCall,
  quoteString,
  type RuleTable,
  raise,
  regexpExtractAllFunction,
  rule,
  unsupported,
} from './rule.js';

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

/**
 * A match whose group took no part (`(z)?b` on 'ab') is NULL in BigQuery (ZetaSQL's docs:
 * REGEXP_EXTRACT('ab', '(z)?b') is NULL) and '' in DuckDB, which does not tell it from a group
 * that matched empty text. A group that cannot match empty text took no part exactly where it
 * gives '', so '' becomes NULL; a group that can match empty is translated only where every
 * match passes through it.
 */
function extract(args: readonly string[], call: FunctionCall): string {
  const name = call.name.toUpperCase();
  const [value, pattern, position, occurrence] = args as [string, string, string?, string?];
  const group = groupOf(call);
  const literal = call.literals[1] as string;
  let taken = (found: string) => found;
  if (group === 1) {
    const program = programOf(literal, name);
    if (!groupMatchesEmpty(program)) taken = (found) => `nullif(${found}, '')`;
    else if (groupMaySkip(program))
      throw unsupported(
        `${name} of a group that may take no part in the match and may match empty text (NULL and '' are not told apart)`,
      );
  }
  if (position === undefined)
    return `CASE WHEN regexp_matches(${value}, ${pattern}) THEN ${taken(`regexp_extract(${value}, ${pattern}, ${group})`)} END`;
  return occurrenceFrom(call, [value, position, occurrence ?? '1'], (rest) =>
    taken(`regexp_extract_all(${rest}, ${pattern}, ${group})[${occurrence ?? '1'}]`),
  );
}

/**
 * REGEXP_EXTRACT(value, regexp, position[, occurrence]): the occurrence-th match of the text from
 * `position` on, each search starting after the last match (the docs), as DuckDB's
 * regexp_extract_all steps for a pattern that cannot match empty text; NULL past the end of the
 * value or past the last match; a position or occurrence below 1 an error (as REGEXP_INSTR). A
 * pattern that can match empty text (where the steps differ, see matchesEmptyText), one that
 * looks before the match from a position other than 1 (the cut text would change what it sees)
 * and BYTES are refused.
 */
function occurrenceFrom(
  call: FunctionCall,
  [value, position, occurrence]: readonly [string, string, string],
  nth: (rest: string) => string,
): string {
  const name = call.name.toUpperCase();
  const literal = call.literals[1] as string;
  const shape = call.shapeOf(0);
  if ('scalar' in shape && shape.scalar === 'BLOB')
    throw unsupported(`${name} of BYTES with a position or occurrence`);
  if (matchesEmptyText(literal, name))
    throw unsupported(`${name} with a position or occurrence of a pattern that can match empty text`);
  if (readsBefore(literal) && call.numbers[2] !== 1)
    throw unsupported(
      `${name} from a position other than 1 of a pattern with ^, \\A, \\b or \\B (what it sees before the position is not translated)`,
    );
  const nulls = [value, position, occurrence].map((arg) => `(${arg}) IS NULL`).join(' OR ');
  return `CASE WHEN ${nulls} THEN NULL WHEN (${position}) < 1 THEN ${raise(call, "'Position must be positive'")} WHEN (${occurrence}) < 1 THEN ${raise(call, "'Occurrence must be positive'")} WHEN (${position}) > length(${value}) THEN NULL ELSE ${nth(`substring(${value}, ${position})`)} END`;
}

/** Whether the pattern reads what comes before a match (`^`, `\\A`, `\\b`, `\\B` outside a class). */
function readsBefore(pattern: string): boolean {
  let inClass = false;
  for (let i = 0; i < pattern.length; i++) {
    const char = pattern[i];
    if (char === '\\') {
      if (!inClass && 'AbB'.includes(pattern[i + 1] ?? '')) return true;
      i++;
    } else if (inClass) {
      if (char === ']') inClass = false;
    } else if (char === '[') {
      inClass = true;
    } else if (char === '^') {
      return true;
    }
  }
  return false;
}

/**
 * REGEXP_INSTR(value, regexp[, position[, occurrence[, occurrence_position]]]), as ZetaSQL's
 * RegExp::Instr: the matches of the text from `position` on, one after another (each search
 * starts where the last match ended, one character further after an empty match, and none
 * follows a match that reaches the end); the start of the occurrence-th (occurrence_position 0)
 * or the position after it (1), counted in characters from the start of `value`. 0 past the end,
 * for an empty pattern or too few matches; NULL when an argument is; a position or occurrence
 * below 1 is an error.
 *
 * DuckDB has no regex position function, so each step reads the rest of the text: the match's
 * start is the length of what `(?:regexp)(?s:.*)` leaves when it removes the first match and all
 * after it (both start where the pattern first matches), its length that of regexp_extract.
 * Cutting the text changes what the pattern sees before the cut, so a pattern that looks there
 * (`^`, `\\A`, `\\b`, `\\B`) is translated only for the first occurrence. A capturing group's
 * position is not translated (ZetaSQL returns the group's); BYTES neither.
 */
function regexpInstr(args: readonly string[], call: FunctionCall): string {
  const pattern = call.literals[1];
  if (pattern === undefined) throw unsupported('REGEXP_INSTR needs a literal pattern');
  if (capturingGroups(pattern) > 0)
    throw unsupported('REGEXP_INSTR with a capturing group (the position of a (?:...) group is translated)');
  const shape = call.shapeOf(0);
  if ('scalar' in shape && shape.scalar === 'BLOB') throw unsupported('REGEXP_INSTR of BYTES');
  const [value, regexp, position = '1', occurrence = '1'] = args as [string, string, string?, string?];
  const returned = args[4] === undefined ? 0 : call.numbers[4];
  if (returned !== 0 && returned !== 1)
    throw unsupported('REGEXP_INSTR needs an occurrence_position of 0 or 1, written as a number');
  if (readsBefore(pattern) && call.numbers[3] !== 1 && args[3] !== undefined)
    throw unsupported(
      'REGEXP_INSTR of a later occurrence of a pattern with ^, \\A, \\b or \\B (what it sees before a match is not translated)',
    );
  const nulls = [value, position, occurrence].map((arg) => `(${arg}) IS NULL`).join(' OR ');
  const checks = `WHEN (${position}) < 1 THEN ${raise(call, "'Position must be positive'")} WHEN (${occurrence}) < 1 THEN ${raise(call, "'Occurrence must be positive'")}`;
  if (pattern === '') return `CASE WHEN ${nulls} THEN NULL ${checks} ELSE 0 END`;
  // The state of the search, [next offset (-1 when no match may follow), start, end], offsets in
  // characters from `position`, 0-based.
  const rest = 'substring(__rinstr_text, __rinstr_state[1] + 1)';
  const start = `__rinstr_state[1] + length(regexp_replace(${rest}, ${quoteString(`(?:${pattern})(?s:.*)`)}, ''))`;
  const length = `length(regexp_extract(${rest}, ${regexp}))`;
  const next = `${start} + ${length} + CASE WHEN ${length} = 0 THEN 1 ELSE 0 END`;
  const step = `CASE WHEN __rinstr_state[1] < 0 OR NOT regexp_matches(${rest}, ${regexp}) THEN [-1, -1, -1] ELSE [CASE WHEN ${next} >= length(__rinstr_text) THEN -1 ELSE ${next} END, ${start}, ${start} + ${length}] END`;
  const found = `list_reduce(list_transform(range(${occurrence}), __rinstr_i -> [0, -1, -1]), (__rinstr_state, __rinstr_i) -> ${step}, [0, -1, -1])`;
  const answer = `list_transform([${found}], __rinstr_found -> CASE WHEN __rinstr_found[2] < 0 THEN 0 ELSE (${position}) + __rinstr_found[${returned + 2}] END)[1]`;
  return `CASE WHEN ${nulls} THEN NULL ${checks} WHEN (${position}) > length(${value}) THEN 0 ELSE list_transform([substring(${value}, ${position})], __rinstr_text -> ${answer})[1] END`;
}

interface Program {
  readonly start: number;
  readonly inst: ReadonlyArray<{ op: number; out: number; arg: number }>;
}

/** The pattern's program, as RE2 compiles it (RE2JS's). */
function programOf(pattern: string, functionName: string): Program {
  let program: Program | undefined;
  try {
    program = (RE2JS.compile(pattern) as unknown as { re2Input: { prog: Program } }).re2Input.prog;
  } catch (error) {
    throw unsupported(`${functionName} with a pattern RE2 does not read (${(error as Error).message})`);
  }
  if (!program) throw unsupported(`${functionName} with a pattern whose program cannot be read`);
  return program;
}

// RE2JS's Inst ops: ALT 1 and ALT_MATCH 2 go on to `out` and `arg`; CAPTURE 3 (arg 2n opens group
// n, 2n + 1 closes it), EMPTY_WIDTH 4, NOP 7 and the lookbehind marks 12 and 13 to `out`; MATCH 6
// is the match; FAIL 5 ends the path; the rune instructions (8 to 11) read a character, then `out`.
const CAPTURE = 3;
const MATCH = 6;

/**
 * Whether the program reaches an instruction `isEnd` accepts from `from`, without reading a
 * character unless `readsCharacters`, and never through one `isBlocked` refuses. Each character
 * read is taken as readable, so the answer is "may reach".
 */
function reaches(
  program: Program,
  from: number,
  isEnd: (op: number, arg: number) => boolean,
  options: { readsCharacters?: boolean; isBlocked?: (op: number, arg: number) => boolean } = {},
): boolean {
  const { readsCharacters = false, isBlocked = () => false } = options;
  const seen = new Set<number>();
  const next = [from];
  for (let at = next.pop(); at !== undefined; at = next.pop()) {
    const instruction = program.inst[at];
    if (instruction === undefined || seen.has(at)) continue;
    seen.add(at);
    if (isBlocked(instruction.op, instruction.arg)) continue;
    if (isEnd(instruction.op, instruction.arg)) return true;
    if (instruction.op === 1 || instruction.op === 2) next.push(instruction.out, instruction.arg);
    else if ([3, 4, 7, 12, 13].includes(instruction.op)) next.push(instruction.out);
    else if (readsCharacters && instruction.op >= 8 && instruction.op <= 11) next.push(instruction.out);
  }
  return false;
}

/** Whether the first capturing group can match empty text. */
function groupMatchesEmpty(program: Program): boolean {
  const open = program.inst.findIndex((i) => i.op === CAPTURE && i.arg === 2);
  return open >= 0 && reaches(program, open, (op, arg) => op === CAPTURE && arg === 3);
}

/** Whether a match may end without entering the first capturing group (`(z)?b`, `(a)|b`). */
function groupMaySkip(program: Program): boolean {
  return reaches(program, program.start, (op) => op === MATCH, {
    readsCharacters: true,
    isBlocked: (op, arg) => op === CAPTURE && arg === 2,
  });
}

/**
 * Whether the pattern can match empty text somewhere: its program (RE2JS's, as RE2 compiles it)
 * reaches its match without reading a character, taking every assertion (`^`, `\\b`, ...) as met.
 * DuckDB's regexp_extract_all answers as BigQuery's only for patterns that cannot; the others run
 * the reference implementation's steps (storage/regexp-extract-all.ts).
 */
function matchesEmptyText(pattern: string, functionName = 'REGEXP_EXTRACT_ALL'): boolean {
  const program = programOf(pattern, functionName);
  return reaches(program, program.start, (op) => op === MATCH);
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
  regexp_extract: rule(2, 4, extract, { ownSafeForm: true }),
  regexp_substr: rule(2, 4, extract, { ownSafeForm: true }),
  regexp_instr: rule(2, 5, regexpInstr, { ownSafeForm: true }),
  regexp_extract_all: rule(2, 2, ([value, pattern], call) => {
    const group = groupOf(call);
    return matchesEmptyText(call.literals[1] as string)
      ? `${regexpExtractAllFunction}(${value}, ${pattern})`
      : `regexp_extract_all(${value}, ${pattern}, ${group})`;
  }),
  // Every match is replaced in BigQuery ('g'); \1 and \0 are RE2 rewrite syntax on both. DuckDB's
  // 'g' is RE2::GlobalReplace, whose steps ZetaSQL's RegExp::Replace repeats: an empty match right
  // after a match is skipped, and one at the end of the text replaced (REGEXP_REPLACE('abc', 'b*',
  // '-') is '-a-c-').
  regexp_replace: rule(
    3,
    3,
    ([value, pattern, replacement]) => `regexp_replace(${value}, ${pattern}, ${replacement}, 'g')`,
  ),
};
