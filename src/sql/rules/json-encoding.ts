import { raiseSql } from '../raised-errors.js';
import { pathSteps } from './json.js';
import {
  type FunctionCall,
  type JsonShape,
  jsonEditFunctions,
  jsonTextFunction,
  literalArgument,
  quoteString,
  type RuleTable,
  raise,
  rule,
  unsupported,
} from './rule.js';

/**
 * TO_JSON_STRING: BigQuery's JSON text of a SQL value, written as DuckDB SQL from the value's type.
 *
 * The encoding is GoogleSQL's "JSON encodings" table
 * (https://cloud.google.com/bigquery/docs/reference/standard-sql/json_functions#json_encodings) as
 * its reference implementation writes it (ZetaSQL's zetasql/public/functions/json_format.cc,
 * JsonFromValue, and zetasql/common/json_util.cc, JsonEscapeString):
 * - INT64: a number within [-2^53, 2^53], a quoted string outside it (`"9007199254740993"`).
 * - FLOAT64: `%.15g`, or `%.17g` where 15 digits do not read back as the same double (C's %g:
 *   `1`, `1e+20`, `1.5e-07`, `0.33333333333333331`); -0 as `0`; NaN and ±inf as the quoted
 *   strings `"NaN"`, `"Infinity"`, `"-Infinity"`.
 * - NUMERIC: its shortest decimal text (`123.45`, not DuckDB's `123.450000000`), quoted when it
 *   has a fraction or lies outside [-2^53, 2^53].
 * - STRING: quoted; `"` and `\` escaped, U+0000-U+001F as `\b \t \n \f \r` or `\u00xx` (lower
 *   case hex), and U+2028, U+2029 as `\u2028`, `\u2029`; nothing else (`<`, `é` stay).
 * - BYTES: quoted RFC 4648 base64. DATE `"2017-03-06"`; TIMESTAMP in UTC, `T` and `Z`
 *   (`"2017-03-06T12:34:56.789012Z"`); DATETIME the same without `Z`; TIME `"12:34:56.789012"`.
 *   The fraction has 0, 3 or 6 digits, as few as hold it.
 * - ARRAY `[...]`, STRUCT `{"name":value,...}` in field order, an anonymous field named `""`;
 *   NULL is `null` at any depth. JSON is its text.
 * - pretty_print: a newline and two more spaces of indent before each element and field, `": "`
 *   after a field name, a newline before the closing bracket; `[]` and `{}` stay as they are.
 */

const shortEscapes: Record<number, string> = { 8: '\\b', 9: '\\t', 10: '\\n', 12: '\\f', 13: '\\r' };

/**
 * The characters a STRING's JSON text escapes, with their escapes, backslash first (stringJson
 * replaces in this order, so the backslashes it writes are not escaped again): the one table the
 * load-time quoting, the SQL's replaces and its RE2 class are made from.
 */
const jsonEscapes: ReadonlyMap<string, string> = new Map([
  ['\\', '\\\\'],
  ['"', '\\"'],
  ...[...Array(0x20).keys(), 0x2028, 0x2029].map((code): [string, string] => [
    String.fromCodePoint(code),
    shortEscapes[code] ?? `\\u${code.toString(16).padStart(4, '0')}`,
  ]),
]);

/** JSON's escaping of a text known when the query loads (a field name), as stringJson writes it. */
export function jsonQuoted(text: string): string {
  let out = '"';
  for (const char of text) out += jsonEscapes.get(char) ?? char;
  return `${out}"`;
}

/** The SQL of each escaped character and of its escape, for replace(). */
const escapes = [...jsonEscapes].map(([char, written]): [string, string] => [
  `chr(${char.codePointAt(0)})`,
  quoteString(written),
]);

/** An RE2 class of the escaped characters, `\x{hh}` each, for DuckDB's regexp_matches. */
const escapedClass = `[${[...jsonEscapes.keys()].map((char) => `\\x{${char.codePointAt(0)?.toString(16)}}`).join('')}]`;

/**
 * A STRING's JSON text: replace() per escaped character, the backslash first, for a text that holds
 * one (one RE2 pass tells; most texts hold none, and 36 replaces cost 10 µs a text).
 */
function stringJson(text: string): string {
  const escaped = escapes.reduce((sql, [char, written]) => `replace(${sql}, ${char}, ${written})`, text);
  return `'"' || CASE WHEN regexp_matches(${text}, '${escapedClass}') THEN ${escaped} ELSE ${text} END || '"'`;
}

/**
 * TIMESTAMP, DATETIME and TIME text as BigQuery writes it, from DuckDB's text: its fraction with
 * 0, 3 or 6 digits (DuckDB writes as many as it needs).
 */
export function civilText(text: string): string {
  const fraction = `regexp_extract(${text}, '\\.([0-9]+)$', 1)`;
  return `regexp_replace(${text}, '\\.[0-9]+$', '') || CASE WHEN ${fraction} = '' THEN '' ELSE '.' || rpad(${fraction}, CASE WHEN length(${fraction}) <= 3 THEN 3 ELSE 6 END, '0') END`;
}

/** The same in JSON's form: `T` between the date and the time. */
function civilJson(text: string): string {
  return `replace(${civilText(text)}, ' ', 'T')`;
}

const lossless = '9007199254740992';

/**
 * A finite double as GoogleSQL writes it, in CAST AS STRING and JSON alike (ZetaSQL's
 * RoundTripDoubleToString): %.15g, or %.17g where 15 digits do not read back as the same double
 * (1/3 is 0.33333333333333331, where DuckDB's shortest text is 0.3333333333333333; 1e15 is 1e+15).
 */
export function roundTripDoubleText(double: string): string {
  const short = `printf('%.15g', ${double})`;
  return `CASE WHEN CAST(${short} AS DOUBLE) = ${double} THEN ${short} ELSE printf('%.17g', ${double}) END`;
}

/** A double as JSON: its round-trip text, 0 unsigned, NaN and the infinities as quoted names. */
function doubleJson(double: string): string {
  return `CASE WHEN isnan(${double}) THEN '"NaN"' WHEN isinf(${double}) THEN CASE WHEN ${double} > 0 THEN '"Infinity"' ELSE '"-Infinity"' END WHEN ${double} = 0 THEN '0' ELSE ${roundTripDoubleText(double)} END`;
}

/**
 * Which encoding a value is written in: TO_JSON_STRING's (`text`), TO_JSON's (`json`, also
 * JSON_OBJECT's, JSON_ARRAY's and JSON_SET's), or TO_JSON's with stringify_wide_numbers => TRUE.
 */
type Encoding = 'text' | 'json' | 'stringified';

/**
 * A NUMERIC as TO_JSON writes it (ZetaSQL's to_json.cc, ToJsonFromNumeric), from DuckDB's `text`
 * of the DECIMAL and its shortest form `numeric`: an integer within INT64's or UINT64's range as
 * that integer (quoted past ±2^53 under stringify_wide_numbers, as an INT64 is); otherwise the
 * DOUBLE that holds it exactly, if one does (the docs: 123.56 is 123.56); otherwise, under
 * stringify_wide_numbers, its text as a string, and else BigQuery's error ("If a numerical value
 * can't be stored in JSON without loss of precision, an error is thrown"). A value of up to 15
 * significant digits is always held by a DOUBLE, whose text (%.15g, as FLOAT64's) is then the
 * value's own digits; one of 18 or more never is, a DOUBLE's shortest text having at most 17.
 * One of 16 or 17 digits with a fraction or past UINT64 may be held by a DOUBLE, whose JSON text
 * BigQuery's docs give in two forms (`9007199254740993` in the encodings table,
 * `9.007199254740992e+15` in TO_JSON's example): it fails the query, naming it, rather than guess.
 */
function numericJson(text: string, numeric: string, stringify: boolean): string {
  const integer = `CAST(${text} AS DECIMAL(38, 9))`;
  const inIntegerRange = `NOT contains(${numeric}, '.') AND ${integer} BETWEEN -9223372036854775808 AND 18446744073709551615`;
  const digits = `length(trim(replace(replace(${numeric}, '-', ''), '.', ''), '0'))`;
  const quoted = `'"' || ${numeric} || '"'`;
  const asInteger = stringify
    ? `CASE WHEN abs(${integer}) > ${lossless} THEN ${quoted} ELSE ${numeric} END`
    : numeric;
  const ambiguous = raiseSql(
    `'TO_JSON of the NUMERIC ' || ${numeric} || ' is not translated: BigQuery writes it as the DOUBLE that holds it exactly, and its docs write such a DOUBLE of 16 or 17 digits in two ways'`,
  );
  const tooWide = stringify ? quoted : raiseSql("'Failed to convert type NUMERIC to JSON'");
  return `CASE WHEN ${inIntegerRange} THEN ${asInteger} WHEN ${digits} <= 15 THEN ${doubleJson(`CAST(${text} AS DOUBLE)`)} WHEN ${digits} >= 18 THEN ${tooWide} ELSE ${ambiguous} END`;
}

/** TO_JSON's stringify_wide_numbers: a literal TRUE or FALSE (FALSE when not given). */
function stringifyWideNumbers(call: FunctionCall): boolean {
  const written = call.named.stringify_wide_numbers?.sql;
  if (written === undefined || written === 'FALSE') return false;
  if (written === 'TRUE') return true;
  throw unsupported('TO_JSON with a stringify_wide_numbers that is not the literal TRUE or FALSE');
}

const integerTypes = [
  'TINYINT',
  'SMALLINT',
  'INTEGER',
  'BIGINT',
  'HUGEINT',
  'UTINYINT',
  'USMALLINT',
  'UINTEGER',
  'UBIGINT',
  'UHUGEINT',
];

/**
 * The JSON text of a scalar `v` (a lambda parameter, so read once) of the DuckDB type `type`, which
 * stands for BigQuery's (BIGINT and DuckDB's other integers INT64, DOUBLE FLOAT64, DECIMAL NUMERIC,
 * TIMESTAMPTZ DATETIME, stored or computed, as does TIMESTAMP_NS, a store's DATETIME before its migration at open). Each branch reads `v` through its text, so each binds for every type.
 */
function scalarBranch(v: string, type: string, pretty: boolean, encoding: Encoding): string | undefined {
  const text = `CAST(${v} AS VARCHAR)`;
  // TO_JSON keeps every INT64 a number (a JSON value holds it exactly); TO_JSON_STRING, and TO_JSON
  // with stringify_wide_numbers, quote the ones a double cannot hold.
  if (integerTypes.includes(type))
    return encoding === 'json'
      ? text
      : `CASE WHEN abs(CAST(${text} AS HUGEINT)) > ${lossless} THEN '"' || ${text} || '"' ELSE ${text} END`;
  if (type === 'DOUBLE' || type === 'FLOAT') return doubleJson(`CAST(${text} AS DOUBLE)`);
  if (type.startsWith('DECIMAL')) {
    const numeric = `CASE WHEN contains(${text}, '.') THEN rtrim(rtrim(${text}, '0'), '.') ELSE ${text} END`;
    if (encoding !== 'text') return numericJson(text, numeric, encoding === 'stringified');
    return `CASE WHEN contains(${numeric}, '.') OR abs(CAST(${text} AS DECIMAL(38, 9))) > ${lossless} THEN '"' || ${numeric} || '"' ELSE ${numeric} END`;
  }
  if (type === 'BOOLEAN') return text;
  if (type === 'VARCHAR') return stringJson(text);
  if (type === 'BLOB') return `'"' || to_base64(CAST(${text} AS BLOB)) || '"'`;
  if (type === 'DATE') return `'"' || ${text} || '"'`;
  if (type === 'TIMESTAMP') return `'"' || ${civilJson(text)} || 'Z"'`;
  if (type === 'TIMESTAMP_NS' || type === 'TIME') return `'"' || ${civilJson(text)} || '"'`;
  // A DATETIME's DuckDB text ends in the session zone's offset, '+00', which it has not.
  if (type === 'TIMESTAMPTZ' || type === 'TIMESTAMP WITH TIME ZONE')
    return `'"' || ${civilJson(`left(${text}, -3)`)} || '"'`;
  // A JSON value's text as BigQuery's JSON type writes it: members ordered by key (json-text.ts).
  if (type === 'JSON')
    return pretty
      ? raiseSql(
          "'TO_JSON_STRING with pretty_print of a JSON value is not translated: how BigQuery lays out a JSON value is not documented'",
        )
      : `${jsonTextFunction}(${text})`;
  return undefined;
}

/** The types scalarJson tells apart when the translator cannot tell a value's type. */
const runtimeTypes = [
  ...integerTypes,
  'DOUBLE',
  'FLOAT',
  'DECIMAL',
  'BOOLEAN',
  'VARCHAR',
  'BLOB',
  'DATE',
  'TIMESTAMP',
  'TIMESTAMP_NS',
  'TIMESTAMP WITH TIME ZONE',
  'TIME',
  'JSON',
];

/**
 * A scalar's JSON text: the branch of its type where the translator knows it (the store's schema, a
 * literal); otherwise every branch, `typeof` picking the one that runs (the translator cannot always
 * tell a computed value's type). A STRUCT or ARRAY whose type the translator cannot tell is an
 * error when the query runs, naming it.
 */
function scalarJson(v: string, type: string | undefined, pretty: boolean, encoding: Encoding): string {
  const known = type === undefined ? undefined : scalarBranch(v, type, pretty, encoding);
  if (known !== undefined) return `CASE WHEN ${v} IS NULL THEN 'null' ELSE ${known} END`;
  const branches = runtimeTypes.map((name) => {
    const test = name === 'DECIMAL' ? `typeof(${v}) LIKE 'DECIMAL%'` : `typeof(${v}) = '${name}'`;
    return `WHEN ${test} THEN ${scalarBranch(v, name, pretty, encoding)}`;
  });
  return `CASE WHEN ${v} IS NULL THEN 'null' ${branches.join(' ')} ELSE ${raiseSql(`'TO_JSON_STRING of a value of DuckDB type ' || typeof(${v}) || ' is not translated: the translator could not tell its BigQuery type'`)} END`;
}

/** The indent of pretty_print at a depth, and what comes before an element or field there. */
const newline = (depth: number) => `chr(10) || '${' '.repeat(depth * 2)}'`;

/** The JSON text of `value`, of this shape, `depth` levels down (for pretty_print's indent). */
export function jsonTextSql(
  value: string,
  shape: JsonShape,
  pretty: boolean,
  depth = 0,
  encoding: Encoding = 'text',
): string {
  // A level reads its value once: a column, a lambda's argument or a field of one is read where it
  // is used (a field costs little); anything else (a subquery, a call) becomes the argument of a
  // lambda named for its depth, whose one-element list costs some 3 µs a row.
  const simple = depth > 0 || /^(?:"(?:[^"]|"")*"|\w+)(?:\.(?:"(?:[^"]|"")*"|\w+))*$/.test(value);
  const v = simple ? value : `__json${depth}`;
  const once = (body: string) => (simple ? body : `list_transform([${value}], ${v} -> ${body})[1]`);
  if ('scalar' in shape) return once(scalarJson(v, shape.scalar, pretty, encoding));
  const open = (bracket: string) => (pretty ? `'${bracket}' || ${newline(depth + 1)}` : `'${bracket}'`);
  const close = (bracket: string) => (pretty ? `${newline(depth)} || '${bracket}'` : `'${bracket}'`);
  const separator = pretty ? `',' || ${newline(depth + 1)}` : "','";
  if ('list' in shape) {
    const element = jsonTextSql(`__element${depth}`, shape.list, pretty, depth + 1, encoding);
    const items = `array_to_string(list_transform(${v}, __element${depth} -> ${element}), ${separator})`;
    return once(
      `CASE WHEN ${v} IS NULL THEN 'null' WHEN len(${v}) = 0 THEN '[]' ELSE ${open('[')} || ${items} || ${close(']')} END`,
    );
  }
  if (shape.fields.length === 0) return once(`CASE WHEN ${v} IS NULL THEN 'null' ELSE '{}' END`);
  const colon = pretty ? ': ' : ':';
  const fields = shape.fields.map(({ name, shape: field }, i) => {
    const read =
      name === '' ? `struct_extract_at(${v}, ${i + 1})` : `struct_extract(${v}, ${quoteString(name)})`;
    return `${quoteString(`${jsonQuoted(name)}${colon}`)} || ${jsonTextSql(read, field, pretty, depth + 1, encoding)}`;
  });
  return once(
    `CASE WHEN ${v} IS NULL THEN 'null' ELSE ${open('{')} || ${fields.join(` || ${separator} || `)} || ${close('}')} END`,
  );
}

/** Whether a shape holds a scalar of a type `is` picks somewhere. */
function holds(shape: JsonShape, is: (type: string | undefined) => boolean): boolean {
  if ('scalar' in shape) return is(shape.scalar);
  if ('list' in shape) return holds(shape.list, is);
  return shape.fields.some((field) => holds(field.shape, is));
}

/** Whether a shape holds a JSON value somewhere (pretty_print of JSON is not translated). */
const holdsJson = (shape: JsonShape) => holds(shape, (type) => type === 'JSON');

/**
 * The JSON text of TO_JSON, JSON_OBJECT, JSON_ARRAY and JSON_SET of argument `index` (the "JSON
 * encodings" table's TO_JSON column), with stringify_wide_numbers where `stringify`.
 */
function toJsonText(call: FunctionCall, index: number, stringify = false): string {
  return jsonTextSql(
    call.args[index] as string,
    call.shapeOf(index),
    false,
    0,
    stringify ? 'stringified' : 'json',
  );
}

/**
 * A JSON value made from its text. BigQuery's JSON type orders an object's members by key and keeps
 * the first of duplicate keys: the text is written so when it is answered or given to
 * TO_JSON_STRING (sql/json-text.ts), so the members are left in the order made here.
 */
const jsonOf = (text: string) => `CAST(${text} AS JSON)`;

/** A key of JSON_OBJECT: a STRING; NULL is an error ("A key can't be NULL"). */
function keyText(call: FunctionCall, index: number): string {
  const literal = call.literals[index];
  if (literal !== undefined) return quoteString(jsonQuoted(literal));
  const shape = call.shapeOf(index);
  if (!('scalar' in shape) || (shape.scalar !== undefined && shape.scalar !== 'VARCHAR'))
    throw unsupported('JSON_OBJECT with a key that is not a STRING');
  const written = call.args[index] as string;
  const key = `CAST(${written} AS VARCHAR)`;
  // The errors typed, or DuckDB folds `'{' || error(...)` to NULL for a NULL literal key.
  const fail = (message: string) => `CAST(${raise(call, quoteString(message))} AS VARCHAR)`;
  // A key of a type not known here is checked as the query runs: the first of two arguments may
  // also be an array of keys (JSON_OBJECT(keys, values)), which is then not translated.
  const typed =
    shape.scalar === undefined
      ? `WHEN typeof(${written}) NOT IN ('VARCHAR', '"NULL"') THEN ${fail("JSON_OBJECT's key is not a STRING, or it is JSON_OBJECT of two arrays whose type is not known when the query loads, which is not translated")} `
      : '';
  return `CASE ${typed}WHEN ${key} IS NULL THEN ${fail("A key can't be NULL")} ELSE ${stringJson(key)} END`;
}

/**
 * JSON_OBJECT(key, value, ...): the keys with their values' TO_JSON texts, the first of a key
 * kept and the members ordered by key where the value is answered. JSON_OBJECT(keys, values) of
 * two arrays pairs their elements; a NULL array, a NULL key or arrays of different lengths are
 * errors (the docs' words).
 */
function jsonObject(args: readonly string[], call: FunctionCall): string {
  const keysShape = args.length === 2 ? call.shapeOf(0) : undefined;
  if (keysShape && 'list' in keysShape) return jsonObjectOfArrays(args as [string, string], call);
  if (args.length % 2 !== 0) throw unsupported('JSON_OBJECT with a key without a value');
  const members: string[] = [];
  for (let i = 0; i < args.length; i += 2)
    members.push(`${keyText(call, i)} || ':' || ${toJsonText(call, i + 1)}`);
  return jsonOf(members.length === 0 ? "'{}'" : `'{' || ${members.join(" || ',' || ")} || '}'`);
}

/** pretty_print: a literal TRUE or FALSE; NULL makes the result NULL. */
function prettyPrint(call: FunctionCall): boolean | null {
  const written = call.args[1];
  if (written === undefined || written === 'FALSE') return false;
  if (written === 'TRUE') return true;
  if (written === 'NULL') return null;
  throw unsupported('TO_JSON_STRING with a pretty_print that is not the literal TRUE or FALSE');
}

/** JSON_OBJECT(keys, values): the n-th key with the TO_JSON text of the n-th value. */
function jsonObjectOfArrays([keys, values]: [string, string], call: FunctionCall): string {
  const shape = call.shapeOf(1);
  if (!('list' in shape) && !('scalar' in shape && shape.scalar === undefined))
    throw unsupported('JSON_OBJECT of a key array and a value that is not an array');
  // Values of a type not known here are written by their DuckDB type as the query runs.
  const valuesShape = 'list' in shape ? shape : { list: { scalar: undefined } };
  const key = `CAST((${keys})[__json_at] AS VARCHAR)`;
  const value = jsonTextSql(`(${values})[__json_at]`, valuesShape.list, false, 1, 'json');
  const members = `list_transform(range(1, len(${keys}) + 1), __json_at -> ${stringJson(key)} || ':' || ${value})`;
  const fail = (message: string) => `CAST(${raise(call, quoteString(message))} AS VARCHAR)`;
  return jsonOf(
    `CASE WHEN (${keys}) IS NULL THEN ${fail("The keys array can't be NULL")} WHEN (${values}) IS NULL THEN ${fail("The values array can't be NULL")} WHEN len(${keys}) <> len(${values}) THEN ${fail('The number of keys and values must match')} WHEN list_contains(list_transform(${keys}, __json_key -> __json_key IS NULL), TRUE) THEN ${fail("A key can't be NULL")} ELSE '{' || array_to_string(${members}, ',') || '}' END`,
  );
}

/**
 * JSON_SET(json, path, value, ...): each value's TO_JSON text set at its path in turn
 * (storage/json-edits.ts); under create_if_missing => FALSE only what the path already reaches is
 * replaced, and a NULL create_if_missing leaves the value as it is;
 * a NULL path skips its pair. The paths must be literals.
 */
function jsonSet(args: readonly string[], call: FunctionCall): string {
  if (!call.isJson(0)) throw unsupported('JSON_SET of a value that is not JSON');
  if (args.length % 2 === 0) throw unsupported('JSON_SET with a path without a value');
  const create = call.named.create_if_missing?.sql ?? 'TRUE';
  // "If create_if_missing is SQL NULL, the set operation is ignored."
  if (create === 'NULL') return args[0] as string;
  if (create !== 'TRUE' && create !== 'FALSE')
    throw unsupported('JSON_SET with a create_if_missing that is not the literal TRUE or FALSE');
  const udf = create === 'TRUE' ? jsonEditFunctions.set : jsonEditFunctions.replace;
  let text = `CAST(${args[0]} AS VARCHAR)`;
  for (let i = 1; i < args.length; i += 2) {
    if (args[i] === 'NULL') continue;
    const steps = pathSteps(literalArgument(call, i, 'JSONPath'));
    text = `${udf}(${text}, ${quoteString(JSON.stringify(steps))}, ${toJsonText(call, i + 1)})`;
  }
  return jsonOf(text);
}

/**
 * JSON_ARRAY_APPEND and JSON_ARRAY_INSERT(json, path, value, ...[, append_each_element |
 * insert_each_element => TRUE | FALSE]): each pair in turn (storage/json-edits.ts), the value's
 * TO_JSON text added as one item, or an array value's elements each (the default); a NULL path
 * skips its pair, a NULL array added element by element changes nothing, and a NULL
 * *_each_element gives the JSON value as it is (the docs' details). The paths must be literals.
 */
function jsonArrayAddition(kind: 'append' | 'insert') {
  const each = `${kind}_each_element`;
  const udf = kind === 'append' ? jsonEditFunctions.arrayAppend : jsonEditFunctions.arrayInsert;
  return rule(
    3,
    Number.POSITIVE_INFINITY,
    (args, call) => {
      const name = call.name.toUpperCase();
      if (!call.isJson(0)) throw unsupported(`${name} of a value that is not JSON`);
      if (args.length % 2 === 0) throw unsupported(`${name} with a path without a value`);
      const written = call.named[each]?.sql;
      if (written === 'NULL') return args[0] as string;
      if (written !== undefined && written !== 'TRUE' && written !== 'FALSE')
        throw unsupported(`${name} with an ${each} that is not the literal TRUE or FALSE`);
      let text = `CAST(${args[0]} AS VARCHAR)`;
      for (let i = 1; i < args.length; i += 2) {
        if (args[i] === 'NULL') continue;
        const steps = pathSteps(literalArgument(call, i, 'JSONPath'));
        const value = toJsonText(call, i + 1);
        const shape = call.shapeOf(i + 1);
        // A value of a type not known here may be an array (a NULL one among them), which would be
        // added element by element: it fails the query rather than be added as one item.
        const single =
          'scalar' in shape && shape.scalar === undefined && written !== 'FALSE'
            ? `CASE WHEN typeof(${args[i + 1]}) LIKE '%[]' THEN ${raise(call, quoteString(`${name} of an array whose type is not known when the query loads is not translated`))} ELSE '[' || ${value} || ']' END`
            : `'[' || ${value} || ']'`;
        const items = written !== 'FALSE' && 'list' in shape ? value : single;
        text = `${udf}(${text}, ${quoteString(JSON.stringify(steps))}, ${items})`;
      }
      return jsonOf(text);
    },
    { named: [each] },
  );
}

export const jsonEncodingRules: RuleTable = {
  json_array_append: jsonArrayAddition('append'),
  json_array_insert: jsonArrayAddition('insert'),
  json_set: rule(3, Number.POSITIVE_INFINITY, jsonSet, { named: ['create_if_missing'] }),
  // TO_JSON(value[, stringify_wide_numbers => TRUE | FALSE]): a JSON value of the value's TO_JSON
  // encoding.
  to_json: rule(1, 1, (_args, call) => jsonOf(toJsonText(call, 0, stringifyWideNumbers(call))), {
    named: ['stringify_wide_numbers'],
  }),
  json_object: rule(0, Number.POSITIVE_INFINITY, jsonObject, { ownSafeForm: true }),
  // JSON_ARRAY(value, ...): the values' TO_JSON texts in order.
  json_array: rule(0, Number.POSITIVE_INFINITY, (args, call) =>
    jsonOf(
      args.length === 0
        ? "'[]'"
        : `'[' || ${args.map((_, i) => toJsonText(call, i)).join(" || ',' || ")} || ']'`,
    ),
  ),
  // SAFE.TO_JSON_STRING is the same text: the encoding raises no error of BigQuery's (but for its
  // output size limit, which is not enforced here), and DuckDB's try() refuses the error() the
  // text of a value of unknown type carries.
  to_json_string: rule(
    1,
    2,
    ([value], call) => {
      const pretty = prettyPrint(call);
      if (pretty === null) return 'CAST(NULL AS VARCHAR)';
      const shape = call.shapeOf(0);
      if (pretty && holdsJson(shape))
        throw unsupported(
          'TO_JSON_STRING with pretty_print of a JSON value (how BigQuery lays out a JSON value is not documented)',
        );
      return jsonTextSql(value as string, shape, pretty);
    },
    { ownSafeForm: true },
  ),
};
