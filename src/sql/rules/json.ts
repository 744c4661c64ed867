import { jsonNumberFault } from '../json-numbers.js';
import {
  type FunctionCall,
  jsonEditFunctions,
  jsonKeysFunction,
  jsonNumbersFunction,
  jsonRoundNumbersFunction,
  literalArgument,
  quoteString,
  type RuleTable,
  raise,
  rule,
  unsupported,
} from './rule.js';
import { timestampTextSql, zoneArgument } from './time.js';

/**
 * JSON functions over JSON-formatted strings (the store keeps no JSON type). The JSONPath is
 * read here and written again in the form DuckDB reads: `$.a.b`, `$['a.b']` (legacy functions),
 * `$."a.b"` (standard ones) and `$.a[0]` all become `$."a"."b"`-style paths.
 */
/** One step of a JSONPath: its pattern and what it appends to the DuckDB path. */
const steps: Array<[RegExp, (match: RegExpExecArray) => string]> = [
  [/^\.([A-Za-z0-9_@$-]+)/, (m) => key(m[1] as string)],
  [/^\."((?:[^"\\]|\\.)*)"/, (m) => key((m[1] as string).replaceAll('\\"', '"'))],
  [/^\['((?:[^'\\]|\\.)*)'\]/, (m) => key((m[1] as string).replaceAll("\\'", "'"))],
  [/^\["((?:[^"\\]|\\.)*)"\]/, (m) => key(m[1] as string)],
  [/^\[(\d+)\]/, (m) => `[${m[1]}]`],
];

const key = (name: string) => `."${name.replaceAll('"', '\\"')}"`;

/**
 * The legacy functions' (JSON_EXTRACT...) bracketed name without quotes, `$[fruits]`: ZetaSQL's
 * legacy path reads `[` letters, digits, `_` or `-` `]` (json_internal.cc kOffsetLexer), a member
 * of an object; the standard functions' paths take digits only there. (All digits is an index,
 * matched before.)
 */
const legacyStep: [RegExp, (match: RegExpExecArray) => string] = [
  /^\[\s*([\p{L}\p{N}_-]+)\s*\]/u,
  (m) => key(m[1] as string),
];

/** The legacy JSON functions, whose paths take legacyStep. */
const legacyFunctions = new Set([
  'json_extract',
  'json_extract_scalar',
  'json_extract_array',
  'json_extract_string_array',
]);

export function duckdbJsonPath(path: string, legacy = false): string {
  if (!path.startsWith('$')) throw unsupported(`JSONPath ${path} (it must start with $)`);
  let out = '$';
  let rest = path.slice(1);
  const forms = legacy ? [...steps, legacyStep] : steps;
  while (rest.length > 0) {
    const step = forms.map(([pattern, write]) => ({ match: pattern.exec(rest), write })).find((s) => s.match);
    if (!step?.match) throw unsupported(`JSONPath ${path} (only keys and array indexes are supported)`);
    out += step.write(step.match);
    rest = rest.slice(step.match[0].length);
  }
  return out;
}

function path(call: FunctionCall): string {
  return call.args.length < 2
    ? "'$'"
    : quoteString(duckdbJsonPath(literalArgument(call, 1, 'JSONPath'), legacyFunctions.has(call.name)));
}

/**
 * Of a STRING that is not JSON, the extraction functions answer NULL in ZetaSQL ("Parse-failed OR
 * no-match-found OR null-Value", json_internal.h; compliance: JSON_QUERY('{"a": ', '$') is NULL),
 * where DuckDB's fail the query. DuckDB's try() runs the vectorised form and goes row by row only
 * where it fails, so text that is JSON costs nothing more; it goes around the extraction itself,
 * since around a nullif() of it DuckDB 1.5 lets the error through. (ZetaSQL's parser also answers
 * a match it reached before the text goes wrong; that value is NULL here.)
 */
const lenient = (call: FunctionCall, sql: string) => (call.isJson(0) ? sql : `try(${sql})`);

/**
 * JSON_VALUE: the scalar at the path as text; NULL for an object, an array, null, or nothing.
 * DuckDB's json_value gives the scalar as JSON (NULL for an object or array) from one parse of
 * the text; reading that small value as a string unquotes it. (json_type then
 * json_extract_string parsed the whole text twice per row and path.)
 */
const value = rule(
  1,
  2,
  ([json], call) => `json_extract_string(${lenient(call, `json_value(${json}, ${path(call)})`)}, '$')`,
);

/**
 * JSON_QUERY: the value at the path as JSON text; a JSON null is SQL NULL for string input. Of a
 * JSON value it is JSON, and a JSON null stays one.
 */
const query = rule(1, 2, ([json], call) =>
  call.isJson(0)
    ? `json_extract(${json}, ${path(call)})`
    : `nullif(CAST(${lenient(call, `json_extract(${json}, ${path(call)})`)} AS VARCHAR), 'null')`,
);

/**
 * The array at the path, as DuckDB's JSON[], read once as a lambda's argument `a`: NULL when the
 * path holds no array ("If the JSONPath doesn't refer to an array, then NULL is returned", where
 * DuckDB's cast to JSON[] fails).
 */
const arrayAt = (json: string, call: FunctionCall, body: string) =>
  `list_transform([${lenient(call, `json_extract(${json}, ${path(call)})`)}], a -> CASE WHEN json_type(a) = 'ARRAY' THEN ${body} END)[1]`;

/** JSON_QUERY_ARRAY: the array's elements as JSON texts, or as JSON values of a JSON value. */
const queryArray = rule(1, 2, ([json], call) =>
  arrayAt(json as string, call, call.isJson(0) ? 'CAST(a AS JSON[])' : 'CAST(a AS JSON[])::VARCHAR[]'),
);

/**
 * JSON_VALUE_ARRAY: the array's scalars as text (strings unquoted, a JSON null as SQL NULL); NULL
 * for an array holding an object or array, for no array, and for text that is not JSON ("If the
 * JSON-formatted string is invalid, then NULL is returned", where DuckDB's json_extract fails).
 */
const valueArray = rule(1, 2, ([json], call) => {
  const scalars = `CASE WHEN list_contains(list_transform(CAST(a AS JSON[]), e -> json_type(e) IN ('OBJECT', 'ARRAY')), TRUE) THEN NULL ELSE list_transform(CAST(a AS JSON[]), e -> json_extract_string(e, '$')) END`;
  const values = arrayAt(json as string, call, scalars);
  return call.isJson(0) ? values : `CASE WHEN json_valid(${json}) THEN ${values} END`;
});

export const jsonRules: RuleTable = {
  json_value: value,
  json_extract_scalar: value,
  json_query: query,
  json_extract: query,
  json_query_array: queryArray,
  json_extract_array: queryArray,
  json_value_array: valueArray,
  json_extract_string_array: valueArray,
};

/*
 * BigQuery's JSON type (json-values.ts): the converters from a JSON value to a SQL value, strict
 * (an error for a value of another kind, or for a JSON null) and lax (NULL instead), each written
 * from GoogleSQL's reference and its conversion rules. DuckDB's json_type names a JSON value's
 * kind: VARCHAR, BIGINT, UBIGINT, DOUBLE, BOOLEAN, NULL, OBJECT or ARRAY.
 */
const numberKinds = "'BIGINT', 'UBIGINT', 'DOUBLE'";
const text = (json: string) => `json_extract_string(${json}, '$')`;

/**
 * The conversions of a JSON value. The same names on other types are other functions: `other`
 * translates them where one is (STRING of a TIMESTAMP), else they are refused.
 */
function ofJson(
  translate: (json: string, call: FunctionCall) => string,
  arity: [number, number] = [1, 1],
  other?: (args: readonly string[], call: FunctionCall) => string,
) {
  return rule(
    arity[0],
    arity[1],
    (args, call) => {
      if (!call.isJson(0)) {
        if (other) return other(args, call);
        throw unsupported(`${call.name.toUpperCase()} of a value that is not JSON has no rule`);
      }
      if (args.length > 1) throw unsupported(`${call.name.toUpperCase()} of a JSON value takes one argument`);
      return translate(args[0] as string, call);
    },
    { ownSafeForm: true },
  );
}

/** A strict converter: `convert` for the accepted kinds, BigQuery's error for the others. */
function strict(
  kinds: string,
  convert: (json: string) => string,
  message: string,
  other?: (args: readonly string[], call: FunctionCall) => string,
) {
  return ofJson(
    (json, call) =>
      `CASE WHEN ${json} IS NULL THEN NULL WHEN json_type(${json}) IN (${kinds}) THEN ${convert(json)} ELSE ${raise(call, quoteString(message))} END`,
    [1, other ? 2 : 1],
    other,
  );
}

const float64Number = strict(
  numberKinds,
  (json) => `CAST(${text(json)} AS DOUBLE)`,
  'The provided JSON input is not a number',
);

/**
 * FLOAT64(json[, wide_number_mode => 'exact' | 'round']): under 'exact' an integer outside
 * [-2^53, 2^53] is ZetaSQL's error (ConvertJsonToDouble), where 'round' (the default) rounds it;
 * the mode is case-sensitive, another one an error (the docs' examples).
 */
function float64(args: readonly string[], call: FunctionCall): string {
  const converted = float64Number.translate(args, call);
  const mode = call.named.wide_number_mode;
  if (mode === undefined || mode.literal === 'round') return converted;
  if (mode.literal === undefined) throw unsupported('FLOAT64 needs a literal wide_number_mode');
  if (mode.literal !== 'exact')
    return `CAST(${raise(call, quoteString(`Invalid \`wide_number_mode\` specified: ${mode.literal}`))} AS DOUBLE)`;
  const json = args[0] as string;
  const wide = `json_type(${json}) IN ('BIGINT', 'UBIGINT') AND abs(TRY_CAST(${text(json)} AS HUGEINT)) > 9007199254740992`;
  return `CASE WHEN ${wide} THEN ${raise(call, `'JSON number: ' || ${text(json)} || ' cannot be converted to FLOAT64 without loss of precision'`)} ELSE ${converted} END`;
}

/** INT64: an integer, or a double with no fractional part inside INT64's range. */
const int64 = ofJson((json, call) => {
  const number = `CAST(${text(json)} AS DOUBLE)`;
  const lossy = raise(
    call,
    `'The provided JSON number: ' || ${text(json)} || ' cannot be converted to an int64'`,
  );
  return `CASE WHEN ${json} IS NULL THEN NULL WHEN json_type(${json}) IN ('BIGINT', 'UBIGINT') THEN coalesce(TRY_CAST(${text(json)} AS BIGINT), ${lossy}) WHEN json_type(${json}) = 'DOUBLE' THEN CASE WHEN ${number} = trunc(${number}) AND ${number} >= -9223372036854775808 AND ${number} < 9223372036854775808 THEN CAST(${number} AS BIGINT) ELSE ${lossy} END ELSE ${raise(call, "'The provided JSON input is not an integer'")} END`;
});

/**
 * A double as BigQuery writes it: an integral value below 1e15 without a fraction (`10`, not
 * DuckDB's `10.0`), others in DuckDB's shortest form (`1e+100`, `0.1`), and -0 as `0`.
 */
const doubleText = (number: string) =>
  `CASE WHEN ${number} = trunc(${number}) AND abs(${number}) < 1e15 THEN CAST(CAST(${number} AS BIGINT) AS VARCHAR) ELSE CAST(${number} AS VARCHAR) END`;

/** The steps of a JSONPath: member names and element indexes (`$.a[0]` is ["a", 0]). */
export function pathSteps(path: string): (string | number)[] {
  const steps: (string | number)[] = [];
  for (const [, name, index] of duckdbJsonPath(path).matchAll(/\."((?:[^"\\]|\\.)*)"|\[(\d+)\]/g))
    steps.push(index === undefined ? (name as string).replaceAll('\\"', '"') : Number(index));
  return steps;
}

/**
 * JSON_REMOVE(json, path, ...): each path's member or element removed in turn (storage/json-edits.ts);
 * a NULL path is skipped. The paths must be literals; `$` is refused (an error in BigQuery).
 */
function jsonRemove(args: readonly string[], call: FunctionCall): string {
  if (!call.isJson(0)) throw unsupported('JSON_REMOVE of a value that is not JSON');
  let text = `CAST(${args[0]} AS VARCHAR)`;
  for (let i = 1; i < args.length; i++) {
    if (args[i] === 'NULL') continue;
    const steps = pathSteps(literalArgument(call, i, 'JSONPath'));
    if (steps.length === 0)
      throw unsupported("JSON_REMOVE of the JSONPath '$' (BigQuery: The JSONPath can't be '$')");
    text = `${jsonEditFunctions.remove}(${text}, ${quoteString(JSON.stringify(steps))})`;
  }
  return `CAST(${text} AS JSON)`;
}

/**
 * JSON_STRIP_NULLS(json[, path][, include_arrays => ...][, remove_empty => ...]): nulls removed
 * under the path (storage/json-edits.ts); a NULL path or option gives the value as it is (the
 * docs' details). The path and options must be literals.
 */
function jsonStripNulls(args: readonly string[], call: FunctionCall): string {
  if (!call.isJson(0)) throw unsupported('JSON_STRIP_NULLS of a value that is not JSON');
  const option = (name: string, byDefault: boolean): boolean | null => {
    const written = call.named[name]?.sql;
    if (written === undefined) return byDefault;
    if (written === 'NULL') return null;
    if (written === 'TRUE' || written === 'FALSE') return written === 'TRUE';
    throw unsupported(`JSON_STRIP_NULLS with an ${name} that is not the literal TRUE or FALSE`);
  };
  const includeArrays = option('include_arrays', true);
  const removeEmpty = option('remove_empty', false);
  if (args[1] === 'NULL' || includeArrays === null || removeEmpty === null) return args[0] as string;
  const steps = args.length > 1 ? pathSteps(literalArgument(call, 1, 'JSONPath')) : [];
  return `CAST(${jsonEditFunctions.stripNulls}(CAST(${args[0]} AS VARCHAR), ${quoteString(JSON.stringify(steps))}, '${includeArrays},${removeEmpty}') AS JSON)`;
}

/**
 * PARSE_JSON with wide_number_mode => 'round' of a number no DOUBLE holds exactly: BigQuery keeps
 * the DOUBLE nearest it, whose JSON text its docs show once (`9.223372036854776e+20`), not by a
 * rule; so it is refused, where the other texts are the same value under 'round' as under 'exact'.
 */
export const roundRefusal =
  "PARSE_JSON with wide_number_mode => 'round' of a number no DOUBLE holds exactly is not translated (how BigQuery writes the rounded number is not documented)";

/** JSON_KEYS's modes, as ZetaSQL's JsonKeysFunction reads them (in any case). */
const jsonKeysModes = ['strict', 'lax', 'lax recursive'];

/**
 * JSON_KEYS(json[, max_depth][, mode => ...]): the keys of every object reached, dotted paths,
 * deduplicated and sorted (storage/json-keys.ts walks the value as ZetaSQL does). Its checks are
 * ZetaSQL's JsonKeysFunction's, in its order: a max_depth of 0 or less is an error, an unknown
 * mode one too, each even for a NULL value; a NULL max_depth means no limit, a NULL mode gives
 * NULL. The mode must be a literal (BigQuery requires a constant).
 */
function jsonKeys(args: readonly string[], call: FunctionCall): string {
  if (!call.isJson(0) && args[0] !== 'NULL')
    throw unsupported("JSON_KEYS of a value that is not JSON (BigQuery's JSON_KEYS takes a JSON value)");
  const mode = call.named.mode;
  if (mode !== undefined && mode.sql !== 'NULL' && mode.literal === undefined)
    throw unsupported('JSON_KEYS needs a literal mode');
  const depth = args[1] ?? 'NULL';
  const literalDepth = call.numbers[1];
  const depthCheck =
    depth === 'NULL' || (literalDepth !== undefined && literalDepth > 0)
      ? ''
      : `WHEN (${depth}) <= 0 THEN ${raise(call, "'max_depth must be positive.'")} `;
  const modeName = mode?.literal?.toLowerCase() ?? 'strict';
  const keys = !jsonKeysModes.includes(modeName)
    ? raise(call, "'Invalid JSON mode specified'")
    : mode?.sql === 'NULL'
      ? 'NULL'
      : `${jsonKeysFunction}(CAST(${args[0]} AS VARCHAR), coalesce(CAST(${depth} AS VARCHAR), ''), ${quoteString(modeName)})`;
  return `CAST(${depthCheck ? `CASE ${depthCheck}ELSE ${keys} END` : keys} AS VARCHAR[])`;
}

export const jsonValueRules: RuleTable = {
  json_keys: rule(1, 2, jsonKeys, { ownSafeForm: true, named: ['mode'] }),
  // STRING(json), or STRING(timestamp[, zone]): the TIMESTAMP's text, in the zone when given.
  string: strict("'VARCHAR'", text, 'The provided JSON input is not a string', (args, call) => {
    const kind = call.kinds[0];
    if (kind === 'date' || kind === 'datetime')
      throw unsupported(
        `STRING of a ${kind.toUpperCase()} (BigQuery's STRING takes a TIMESTAMP or a JSON value)`,
      );
    return timestampTextSql(args[0] as string, zoneArgument(call, 1));
  }),
  bool: strict(
    "'BOOLEAN'",
    (json) => `CAST(${text(json)} AS BOOLEAN)`,
    'The provided JSON input is not a boolean',
  ),
  float64: rule(1, 1, float64, { ownSafeForm: true, named: ['wide_number_mode'] }),
  int64,
  // A string is `true`/`false` in any case; a number is TRUE unless it is 0.
  lax_bool: ofJson(
    (json) =>
      `CASE json_type(${json}) WHEN 'BOOLEAN' THEN CAST(${text(json)} AS BOOLEAN) WHEN 'VARCHAR' THEN CASE lower(${text(json)}) WHEN 'true' THEN TRUE WHEN 'false' THEN FALSE END WHEN 'BIGINT' THEN CAST(${text(json)} AS DOUBLE) <> 0 WHEN 'UBIGINT' THEN CAST(${text(json)} AS DOUBLE) <> 0 WHEN 'DOUBLE' THEN CAST(${text(json)} AS DOUBLE) <> 0 END`,
  ),
  // A double rounds half away from zero (through DECIMAL, as DuckDB rounds it); a string is read
  // as a number (BigQuery reads a BIGNUMERIC), and what does not fit INT64 is NULL.
  lax_int64: ofJson(
    (json) =>
      `CASE json_type(${json}) WHEN 'BOOLEAN' THEN CASE WHEN CAST(${text(json)} AS BOOLEAN) THEN 1 ELSE 0 END WHEN 'BIGINT' THEN CAST(${text(json)} AS BIGINT) WHEN 'UBIGINT' THEN TRY_CAST(${text(json)} AS BIGINT) WHEN 'DOUBLE' THEN TRY_CAST(TRY_CAST(${text(json)} AS DECIMAL(38, 9)) AS BIGINT) WHEN 'VARCHAR' THEN TRY_CAST(TRY_CAST(${text(json)} AS DECIMAL(38, 9)) AS BIGINT) END`,
  ),
  // Booleans are not numbers here (unlike LAX_INT64).
  lax_float64: ofJson(
    (json) =>
      `CASE WHEN json_type(${json}) IN (${numberKinds}) THEN CAST(${text(json)} AS DOUBLE) WHEN json_type(${json}) = 'VARCHAR' THEN TRY_CAST(${text(json)} AS DOUBLE) END`,
  ),
  lax_string: ofJson(
    (json) =>
      `CASE json_type(${json}) WHEN 'VARCHAR' THEN ${text(json)} WHEN 'BOOLEAN' THEN ${text(json)} WHEN 'BIGINT' THEN CAST(CAST(${text(json)} AS BIGINT) AS VARCHAR) WHEN 'UBIGINT' THEN CAST(CAST(${text(json)} AS UBIGINT) AS VARCHAR) WHEN 'DOUBLE' THEN ${doubleText(`CAST(${text(json)} AS DOUBLE)`)} END`,
  ),
  json_type: ofJson(
    (json) =>
      `CASE json_type(${json}) WHEN 'VARCHAR' THEN 'string' WHEN 'BIGINT' THEN 'number' WHEN 'UBIGINT' THEN 'number' WHEN 'DOUBLE' THEN 'number' WHEN 'BOOLEAN' THEN 'boolean' WHEN 'OBJECT' THEN 'object' WHEN 'ARRAY' THEN 'array' WHEN 'NULL' THEN 'null' END`,
  ),
  json_remove: rule(2, Number.POSITIVE_INFINITY, jsonRemove),
  json_strip_nulls: rule(1, 2, jsonStripNulls, { named: ['include_arrays', 'remove_empty'] }),
  // BigQuery keeps a parsed value in its normal form, as DuckDB's json() does; malformed text is an error on both.
  // Numbers no INT64, UINT64 or DOUBLE holds exactly are BigQuery's error under the default
  // wide_number_mode 'exact' (json-numbers.ts): a literal's are checked here, other text's by
  // the registered function, which raises the same words.
  parse_json: rule(
    1,
    1,
    ([textValue], call) => {
      const mode = call.named.wide_number_mode;
      if (mode?.sql === 'NULL') return 'CAST(NULL AS JSON)';
      if (mode !== undefined && mode.literal === undefined)
        throw unsupported('PARSE_JSON needs a literal wide_number_mode');
      const round = mode?.literal === 'round';
      if (mode !== undefined && !round && mode.literal !== 'exact')
        return `CAST(${raise(call, quoteString(`Invalid \`wide_number_mode\` specified for PARSE_JSON: ${mode.literal}`))} AS JSON)`;
      const literal = call.literals[0];
      if (literal === undefined) {
        const checked = `json(${round ? jsonRoundNumbersFunction : jsonNumbersFunction}(${textValue}))`;
        return call.safe ? `try(${checked})` : checked;
      }
      const fault = jsonNumberFault(literal);
      if (fault && round) throw unsupported(roundRefusal);
      return fault ? `CAST(${raise(call, quoteString(fault))} AS JSON)` : `json(${textValue})`;
    },
    { ownSafeForm: true, named: ['wide_number_mode'] },
  ),
};
