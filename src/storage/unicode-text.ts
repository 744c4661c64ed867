import type { DuckDBConnection } from '@duckdb/node-api';
import { caseFold } from 'unicode-case-folding';
import { unicodeTextFunctions } from '../sql/rules/rule.js';
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
}
