import { raiseSql } from '../raised-errors.js';
import { unsupported } from '../unsupported.js';

/**
 * One call of a BigQuery function, its arguments already translated to DuckDB SQL. Rules read
 * the raw facts they need (a literal pattern, a bare date part) from the other fields.
 */
export interface FunctionCall {
  readonly name: string;
  readonly args: readonly string[];
  /** Per argument, its value when it is a string literal. */
  readonly literals: readonly (string | undefined)[];
  /** Per argument, its value when it is a number literal. */
  readonly numbers: readonly (number | undefined)[];
  /**
   * Per argument, the date part written there (`MINUTE`, `WEEK(MONDAY)`), lower case: date parts
   * are keywords in BigQuery's grammar and parse as bare names or calls.
   */
  readonly parts: readonly (string | undefined)[];
  /** Per argument, DATE, DATETIME or TIMESTAMP where the text shows which (a literal, a cast, a function). */
  readonly kinds: readonly ('date' | 'datetime' | 'timestamp' | undefined)[];
  /**
   * Whether the argument at `index` is a record the store keeps as one STRUCT where BigQuery holds
   * a repeated record (see repeated-records.ts): an array of one, or none when NULL. Asked only by
   * the rules that read arrays, so no other argument's name is looked up twice.
   */
  readonly isRecord: (index: number) => boolean;
  /** Whether the argument at `index` is a BigQuery JSON value (json-values.ts), not JSON text. */
  readonly isJson: (index: number) => boolean;
  /** The argument's type as far as the text and the store's schema tell it (json-shapes.ts). */
  readonly shapeOf: (index: number) => JsonShape;
  /** The argument's SQL as BigQuery's STRING text of it (value-forms.ts bigQueryTextOf). */
  readonly asText: (index: number) => string;
  /** The argument's SQL as FORMAT's %t prints it (value-forms.ts formatTextSql). */
  readonly asFormatText: (index: number) => string;
  /**
   * The named arguments written (`mode => 'lax'`), by their lower-case names: each one's SQL and,
   * where it is a string literal, its value. A rule reads only those it lists in `named`.
   */
  readonly named: Readonly<Record<string, NamedArgument>>;
  /** Called as `SAFE.name(...)`: NULL where the function would raise an error. */
  readonly safe?: boolean;
  readonly distinct: boolean;
  /** `IGNORE NULLS`, `ORDER BY` and `LIMIT` written inside an aggregate's parentheses. */
  readonly clauses: AggregateClauses;
  /** What follows OVER (translated), for a rule that writes its own OVER (`ownOver`). */
  readonly over?: string | undefined;
}

/**
 * A value's type as far as TO_JSON_STRING needs it (json-shapes.ts reads it from the query): a
 * scalar by its DuckDB type where known, an array's element, a STRUCT's fields in order ('' for an
 * anonymous one).
 */
export type JsonShape =
  | { readonly scalar: string | undefined }
  | { readonly list: JsonShape }
  | { readonly fields: readonly { readonly name: string; readonly shape: JsonShape }[] };

export interface NamedArgument {
  readonly sql: string;
  readonly literal: string | undefined;
}

export interface AggregateClauses {
  readonly ignoreNulls?: boolean;
  /** The ORDER BY items, translated (`x DESC`). */
  readonly orderBy?: string;
  /**
   * The same as create_sort_key's arguments (`x, 'DESC NULLS LAST'`), for an aggregate without
   * OVER: aggregate.ts sorts a plain list by it.
   */
  readonly sortKey?: string;
  readonly limit?: number;
}

export interface FunctionRule {
  readonly arity: readonly [min: number, max: number];
  readonly translate: (args: readonly string[], call: FunctionCall) => string;
  /** Whether it is an aggregate or window function, so `OVER (...)` may follow it. */
  readonly windowed?: boolean;
  /** Whether it reads `IGNORE NULLS`/`ORDER BY`/`LIMIT` clauses; other rules refuse them. */
  readonly clauses?: boolean;
  /**
   * Whether it writes its own SAFE. form from `call.safe`: DuckDB's try() refuses an expression
   * that raises with error(), which rules use to raise BigQuery's own message.
   */
  readonly ownSafeForm?: boolean;
  /** The named arguments it reads (lower case); a call naming another is refused. */
  readonly named?: readonly string[];
  /**
   * Whether it writes `OVER (...)` after each aggregate it makes itself (from `call.over`): a
   * form of several aggregates cannot take one OVER at its end.
   */
  readonly ownOver?: boolean;
}

export type RuleTable = Readonly<Record<string, FunctionRule>>;

export const rule = (
  min: number,
  max: number,
  translate: (args: readonly string[], call: FunctionCall) => string,
  options: {
    windowed?: boolean;
    clauses?: boolean;
    ownSafeForm?: boolean;
    named?: readonly string[];
    ownOver?: boolean;
  } = {},
): FunctionRule => ({ arity: [min, max], translate, ...options });

/** A rule for a function whose DuckDB namesake (or `duckdbName`) means the same. */
export const same = (min: number, max: number, duckdbName?: string): FunctionRule =>
  rule(min, max, (args, call) => `${duckdbName ?? call.name}(${args.join(', ')})`);

/** Refusals carry UNSUPPORTED_SQL, and the translator adds their line and column (unsupported.ts). */
export { unsupported };

/** The instant `CURRENT_TIMESTAMP()` stands for, bound per call so tests can fix the clock. */
export const nowParameter = '$__now';

/**
 * The DuckDB function FARM_FINGERPRINT is written as: FarmHash Fingerprint64, which DuckDB lacks,
 * registered on every store the server opens (storage/farm-fingerprint.ts).
 */
export const farmFingerprintFunction = 'bigquery_farm_fingerprint';

/**
 * The DuckDB function that writes a JSON value's text as BigQuery's JSON type does (members ordered
 * by key, the first of duplicate keys; sql/json-text.ts), registered on every store the server
 * opens (storage/bigquery-json-text.ts).
 */
export const jsonTextFunction = 'bigquery_json_text';

/**
 * The DuckDB functions INITCAP of text with a character outside ASCII is written as, with the
 * default delimiters or given ones: ZetaSQL's Utf8Capitalizer on Unicode's simple case mappings
 * (VARCHAR → VARCHAR), registered on every store the server opens (storage/unicode-text.ts).
 */
export const initcapFunctions = {
  byDefault: 'bigquery_initcap',
  byDelimiters: 'bigquery_initcap_delimited',
} as const;

/**
 * The DuckDB function PARSE_JSON's text goes through: the text as it is, or BigQuery's error for
 * a number its JSON cannot hold exactly (sql/json-numbers.ts), registered on every store the
 * server opens (storage/bigquery-json-text.ts).
 */
export const jsonNumbersFunction = 'bigquery_json_exact_numbers';

/**
 * The DuckDB function PARSE_JSON(text, wide_number_mode => 'round') goes through: the text as it
 * is, or a refusal where a number would be rounded (rules/json.ts roundRefusal), registered with
 * jsonNumbersFunction.
 */
export const jsonRoundNumbersFunction = 'bigquery_json_round_numbers';

/**
 * The DuckDB functions JSON_SET, JSON_REMOVE, JSON_ARRAY_APPEND and JSON_ARRAY_INSERT (of one path,
 * given as its steps) and JSON_STRIP_NULLS are
 * written as, registered on every store the server opens (storage/json-edits.ts).
 */
export const jsonEditFunctions = {
  set: 'bigquery_json_set',
  replace: 'bigquery_json_set_existing',
  remove: 'bigquery_json_remove',
  stripNulls: 'bigquery_json_strip_nulls',
  arrayAppend: 'bigquery_json_array_append',
  arrayInsert: 'bigquery_json_array_insert',
} as const;

/**
 * The DuckDB function JSON_KEYS is written as: the keys of a JSON value's text as a JSON array
 * (storage/json-keys.ts), registered on every store the server opens.
 */
export const jsonKeysFunction = 'bigquery_json_keys';

/**
 * The DuckDB function EDIT_DISTANCE of two STRINGs is written as (VARCHAR, VARCHAR → VARCHAR, the
 * distance as text): the Levenshtein distance between their code points, registered on every
 * store the server opens (storage/edit-distance.ts).
 */
export const editDistanceFunction = 'bigquery_edit_distance';

/**
 * The DuckDB function REGEXP_EXTRACT_ALL of a pattern that can match empty text is written as:
 * the reference implementation's steps, registered on every store the server opens
 * (storage/regexp-extract-all.ts).
 */
export const regexpExtractAllFunction = 'bigquery_regexp_extract_all';

/**
 * The DuckDB functions BigQuery's Unicode case mapping, normalization and case folding are written
 * as (VARCHAR → VARCHAR), registered on every store the server opens (storage/unicode-text.ts):
 * DuckDB's lower/upper map one code point to one and it normalizes to NFC only.
 */
export const unicodeTextFunctions = {
  lower: 'bigquery_lower',
  upper: 'bigquery_upper',
  nfd: 'bigquery_normalize_nfd',
  nfkc: 'bigquery_normalize_nfkc',
  nfkd: 'bigquery_normalize_nfkd',
  casefoldNfc: 'bigquery_casefold_nfc',
  casefoldNfd: 'bigquery_casefold_nfd',
  casefoldNfkc: 'bigquery_casefold_nfkc',
  casefoldNfkd: 'bigquery_casefold_nfkd',
} as const;

/**
 * A SQL string literal. A newline is written as an escape (`E'...\\n...'`): the translator indents
 * its output line by line (translation-context.ts indent), which would put spaces into the text.
 */
export function quoteString(text: string): string {
  if (!text.includes('\n')) return `'${text.replaceAll("'", "''")}'`;
  return `E'${text.replaceAll('\\', '\\\\').replaceAll("'", "''").replaceAll('\n', '\\n')}'`;
}

/** Whether a list holds a NULL element: it has more elements than non-NULL ones (NULL of a NULL list). */
export function hasNullElement(list: string): string {
  return `(len(${list}) > list_count(${list}))`;
}

/**
 * BigQuery's runtime error `message` (SQL text), or NULL under SAFE.: DuckDB's try() refuses
 * error(), so a rule that raises writes its SAFE. form itself (`ownSafeForm`).
 */
export const raise = (call: FunctionCall, message: string): string =>
  call.safe ? 'NULL' : raiseSql(message);

/** A literal argument a rule needs to decide its DuckDB form, or a refusal naming it. */
export function literalArgument(call: FunctionCall, index: number, what: string): string {
  const value = call.literals[index];
  if (value === undefined) throw unsupported(`${call.name.toUpperCase()} needs a literal ${what}`);
  return value;
}
