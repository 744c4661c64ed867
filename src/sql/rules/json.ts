import {
  type FunctionCall,
  literalArgument,
  quoteString,
  type RuleTable,
  rule,
  unsupported,
} from './rule.js';

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

export function duckdbJsonPath(path: string): string {
  if (!path.startsWith('$')) throw unsupported(`JSONPath ${path} (it must start with $)`);
  let out = '$';
  let rest = path.slice(1);
  while (rest.length > 0) {
    const step = steps.map(([pattern, write]) => ({ match: pattern.exec(rest), write })).find((s) => s.match);
    if (!step?.match) throw unsupported(`JSONPath ${path} (only keys and array indexes are supported)`);
    out += step.write(step.match);
    rest = rest.slice(step.match[0].length);
  }
  return out;
}

function path(call: FunctionCall): string {
  return call.args.length < 2 ? "'$'" : quoteString(duckdbJsonPath(literalArgument(call, 1, 'JSONPath')));
}

/** JSON_VALUE: the scalar at the path as text; NULL for an object, an array, null, or nothing. */
const value = rule(1, 2, ([json], call) => {
  const at = path(call);
  return `CASE WHEN json_type(${json}, ${at}) NOT IN ('OBJECT', 'ARRAY') THEN json_extract_string(${json}, ${at}) END`;
});

/** JSON_QUERY: the value at the path as JSON text; a JSON null is SQL NULL for string input. */
const query = rule(
  1,
  2,
  ([json], call) => `nullif(CAST(json_extract(${json}, ${path(call)}) AS VARCHAR), 'null')`,
);

/** JSON_QUERY_ARRAY: the array's elements as JSON texts. */
const queryArray = rule(
  1,
  2,
  ([json], call) => `CAST(json_extract(${json}, ${path(call)}) AS JSON[])::VARCHAR[]`,
);

export const jsonRules: RuleTable = {
  json_value: value,
  json_extract_scalar: value,
  json_query: query,
  json_extract: query,
  json_query_array: queryArray,
  json_extract_array: queryArray,
};
