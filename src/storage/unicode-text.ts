import type { DuckDBConnection } from '@duckdb/node-api';
import { caseFold } from 'unicode-case-folding';
import { initcapFunctions, unicodeTextFunctions } from '../sql/rules/rule.js';
import { registerTextFunction } from './text-function.js';

/*
 * BigQuery's Unicode text functions that DuckDB has no exact form of, run in JavaScript as the
 * reference implementation (ZetaSQL's functions/string.cc) runs them on ICU:
 * - LOWER and UPPER are icu::CaseMap::utf8ToLower/utf8ToUpper in the root locale: full case
 *   mapping, with the final sigma ('ΣΑΣ' is 'σας') and 'ß' upper-cased to 'SS'. JavaScript's
 *   toLowerCase/toUpperCase are the same mappings (the Unicode Default Case Conversion, on ICU in
 *   Node); DuckDB's lower/upper map one code point to one ('ß' to 'ẞ'), so they are kept for
 *   ASCII text only (rules/string.ts).
 * - NORMALIZE is ICU's Normalizer2 in the mode (String.prototype.normalize is Unicode
 *   normalization); DuckDB has only nfc_normalize.
 * - NORMALIZE_AND_CASEFOLD normalizes and then folds case with UnicodeString::foldCase
 *   (U_FOLD_CASE_DEFAULT): full case folding, CaseFolding.txt's C and F mappings, which
 *   unicode-case-folding applies ('ß' folds to 'ss'; toLowerCase is no case folding).
 */
const conversions: Record<keyof typeof unicodeTextFunctions, (text: string) => string> = {
  lower: (text) => text.toLowerCase(),
  upper: (text) => text.toUpperCase(),
  nfd: (text) => text.normalize('NFD'),
  nfkc: (text) => text.normalize('NFKC'),
  nfkd: (text) => text.normalize('NFKD'),
  casefoldNfc: (text) => caseFold(text.normalize('NFC')),
  casefoldNfd: (text) => caseFold(text.normalize('NFD')),
  casefoldNfkc: (text) => caseFold(text.normalize('NFKC')),
  casefoldNfkd: (text) => caseFold(text.normalize('NFKD')),
};

/** Makes each of `unicodeTextFunctions` (VARCHAR → VARCHAR) known to the connection's whole DuckDB instance. */
export function registerUnicodeText(connection: DuckDBConnection): void {
  for (const [key, convert] of Object.entries(conversions))
    registerTextFunction(connection, unicodeTextFunctions[key as keyof typeof unicodeTextFunctions], convert);
  registerTextFunction(connection, initcapFunctions.byDefault, (text) => initcap(text));
  registerTextFunction(connection, initcapFunctions.byDelimiters, (text, delimiters) =>
    initcap(text, delimiters),
  );
}

/*
 * INITCAP is ZetaSQL's Utf8Capitalizer (functions/string.cc): code point by code point, a delimiter
 * kept and the next one capitalized, ICU's u_toupper for the first of a word and u_tolower for the
 * rest. Those are Unicode's simple case mappings, one code point to one, which JavaScript has no
 * function for: its full mappings are the simple ones wherever they give one code point. Where the
 * full mapping gives more, the simple one is, for upper case, the titlecase letter that lower-cases
 * to the character ('ᾳ' to 'ᾼ', UnicodeData.txt), or none ('ß' stays 'ß', where DuckDB's upper
 * gives 'ẞ'); for lower case only U+0130 'İ' has such a full mapping ('i' and a combining dot),
 * and its simple one is the 'i'.
 */

/** ZetaSQL's kDefaultDelimiters, to which Utf8Capitalizer adds ICU's White_Space set. */
const defaultDelimiters = /[[\](){}/|\\<>!?@"#$&~_,.:;*%+\-^]|\p{White_Space}/u;

/** Each lower-case letter whose simple upper-case mapping is a titlecase letter (all are in the BMP). */
const titlecaseOf: ReadonlyMap<string, string> = new Map(
  Array.from({ length: 0x10000 }, (_, point) => String.fromCodePoint(point))
    .filter((character) => /\p{Lt}/u.test(character) && character.toLowerCase() !== character)
    .map((character) => [character.toLowerCase(), character]),
);

function simpleUpper(character: string): string {
  const full = character.toUpperCase();
  return [...full].length === 1 ? full : (titlecaseOf.get(character) ?? character);
}

function simpleLower(character: string): string {
  const full = character.toLowerCase();
  return [...full].length === 1 ? full : ([...full][0] ?? character);
}

/** INITCAP(text[, delimiters]) as BigQuery answers it. */
export function initcap(text: string, delimiters?: string): string {
  const given = delimiters === undefined ? undefined : new Set(delimiters);
  const isDelimiter = (character: string) =>
    given === undefined ? defaultDelimiters.test(character) : given.has(character);
  let capitalize = true;
  let out = '';
  for (const character of text) {
    if (isDelimiter(character)) {
      out += character;
      capitalize = true;
    } else {
      out += capitalize ? simpleUpper(character) : simpleLower(character);
      capitalize = false;
    }
  }
  return out;
}
