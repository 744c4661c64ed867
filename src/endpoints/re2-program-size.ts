import type { RE2JS } from 're2js';

/**
 * RE2 refuses a pattern whose compiled program is too large ("pattern too large - compile
 * failed"): RE2::Init compiles the forward program with two thirds of `max_mem` (8 MiB by
 * default, which DuckDB keeps), and the compiler allows `(max_mem - sizeof(Prog)) / 4 /
 * sizeof(Prog::Inst)` instructions, 8 bytes each: about 174,700. RE2JS, which checks syntax here,
 * has no such limit, and its program matches whole runes where RE2's matches UTF-8 bytes, so a
 * character class that is one RE2JS instruction is hundreds in RE2 (`\pL` is about 390: DuckDB
 * 1.5 compiles `\pL{448}` and refuses `\pL{449}`).
 *
 * `re2InstructionBound` counts RE2JS's program with every rune instruction priced as RE2 would
 * price it without sharing: its rune ranges split into same-length UTF-8 sequences as RE2's
 * `AddRuneRangeUTF8` splits them, one instruction per byte and one alternation per extra
 * sequence. RE2 shares common suffixes, so its count is lower: against DuckDB 1.5.6 on 29
 * classes (`\pL`, `(?i)\pL`, `.`, `\w`, `\p{Han}`, `[\x{80}-\x{10FFFF}]`, literals, ...)
 * repeated until refused, the bound was 1 to 12.5 times RE2's count, never below it. A pattern
 * under the bound compiles; one over it by less than that margin is refused here although RE2
 * would take it (`\pL{48}` to `\pL{448}`), a price paid only by patterns no caller needs.
 */
const re2MaxInstructions = Math.floor((Math.floor((8 * 1024 * 1024 * 2) / 3) - 1024) / 4 / 8);

/** A BAD_PARAMETER message when the pattern is over RE2's program size, else undefined. */
export function re2SizeProblem(compiled: RE2JS): string | undefined {
  const bound = re2InstructionBound(compiled);
  if (bound === undefined || bound <= re2MaxInstructions) return undefined;
  return `is too large for RE2: its compiled program would exceed RE2's limit of ${re2MaxInstructions} instructions; use fewer or smaller repetitions of character classes`;
}

/** Instructions RE2 adds around every program: the unanchored `.*?` prefix, the match, slack. */
const programOverhead = 16;

interface ProgInst {
  readonly op: number;
  readonly arg: number;
  readonly runes: ArrayLike<number>;
}

// RE2JS's instruction codes (Inst in re2js, from RE2/J).
const rune = 8;
const rune1 = 9;
const runeAny = 10;
const runeAnyNotNl = 11;
const foldCase = 1;

/** RE2's instruction count for the compiled pattern, at most; undefined when RE2JS's program cannot be read. */
function re2InstructionBound(compiled: RE2JS): number | undefined {
  const inst = (compiled as unknown as { re2Input?: { prog?: { inst?: unknown } } }).re2Input?.prog?.inst;
  if (!Array.isArray(inst)) return undefined;
  let total = programOverhead;
  for (const instruction of inst as ProgInst[]) total += instructionCost(instruction);
  return total;
}

function instructionCost({ op, arg, runes }: ProgInst): number {
  switch (op) {
    case rune:
      return rangesCost(runes, (arg & foldCase) !== 0);
    case rune1:
      return rangesCost([runes[0] ?? 0, runes[0] ?? 0], (arg & foldCase) !== 0);
    case runeAny:
      return rangesCost([0, 0x10ffff], false);
    case runeAnyNotNl:
      return rangesCost([0, 9, 11, 0x10ffff], false);
    default:
      return 1;
  }
}

/** RE2's instructions for a rune class given as [lo, hi] pairs, at most. */
function rangesCost(runes: ArrayLike<number>, folded: boolean): number {
  let bytes = 0;
  let sequences = 0;
  for (let i = 0; i + 1 < runes.length; i += 2) {
    splitUtf8(runes[i] as number, runes[i + 1] as number, (length) => {
      bytes += length;
      sequences += 1;
    });
  }
  // A folded class also matches the other cases of each rune: up to three forms of each.
  const cost = bytes + Math.max(0, sequences - 1);
  return folded ? 3 * cost + 2 : cost;
}

const maxRuneOfLength = [0x7f, 0x7ff, 0xffff];

/**
 * Splits [lo, hi] as RE2's `AddRuneRangeUTF8` does: first into ranges whose runes have one UTF-8
 * length, then into ranges whose sequences agree on all but trailing bytes that span 80-BF.
 */
function splitUtf8(lo: number, hi: number, emit: (length: number) => void): void {
  if (lo > hi) return;
  for (const max of maxRuneOfLength) {
    if (lo <= max && max < hi) {
      splitUtf8(lo, max, emit);
      splitUtf8(max + 1, hi, emit);
      return;
    }
  }
  if (hi < 0x80) {
    emit(1);
    return;
  }
  for (let i = 1; i < 4; i++) {
    const m = (1 << (6 * i)) - 1;
    if ((lo & ~m) !== (hi & ~m)) {
      if ((lo & m) !== 0) {
        splitUtf8(lo, lo | m, emit);
        splitUtf8((lo | m) + 1, hi, emit);
        return;
      }
      if ((hi & m) !== m) {
        splitUtf8(lo, (hi & ~m) - 1, emit);
        splitUtf8(hi & ~m, hi, emit);
        return;
      }
    }
  }
  emit(utf8Length(hi));
}

function utf8Length(codePoint: number): number {
  return codePoint < 0x80 ? 1 : codePoint < 0x800 ? 2 : codePoint < 0x10000 ? 3 : 4;
}
