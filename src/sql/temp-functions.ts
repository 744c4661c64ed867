import { QuerygateError } from '../errors.js';

// biome-ignore lint/suspicious/noExplicitAny: untyped JSON from sqlparser's WASM (see bigquery-ast.ts)
type Ast = any;

/**
 * `CREATE TEMP FUNCTION name(args) AS (expression); SELECT ...`, as GA4 users write helpers such
 * as GetParamValue. BigQuery runs the text as written; for the embedded engine each call is
 * replaced by the function's body with its parameters replaced by the call's arguments (in
 * parentheses, so precedence holds), which is what a SQL UDF means. A JavaScript UDF, a
 * function that calls itself, or a call with the wrong number of arguments is refused.
 *
 * Argument and return types are not coerced: an argument is used with its own type, so a body
 * that relies on BigQuery's coercion to a declared parameter type may read differently.
 */
export function inlineTempFunctions(definitions: readonly Ast[], query: Ast): Ast {
  const functions = new Map<string, { params: string[]; body: Ast; name: string }>();
  for (const definition of definitions) {
    const name = (definition.name as Ast[]).map((part) => part?.Identifier?.value).join('.');
    if (!definition.temporary)
      throw refuse(
        `CREATE FUNCTION ${name} without TEMP (a saved query may only define temporary functions)`,
      );
    if (definition.language)
      throw refuse(
        `the ${definition.language.value} function ${name} (only SQL functions can run on DuckDB)`,
      );
    const body =
      definition.function_body?.AsBeforeOptions?.body ?? definition.function_body?.AsAfterOptions?.body;
    if (!body) throw refuse(`the body of function ${name}`);
    const params = ((definition.args ?? []) as Ast[]).map((arg) => String(arg.name?.value).toLowerCase());
    functions.set(name.toLowerCase(), { params, body, name });
  }
  return functions.size === 0 ? query : replaceCalls(query, functions, []);
}

function replaceCalls(
  node: Ast,
  functions: ReadonlyMap<string, { params: string[]; body: Ast; name: string }>,
  expanding: readonly string[],
): Ast {
  if (Array.isArray(node)) return node.map((child) => replaceCalls(child, functions, expanding));
  if (!node || typeof node !== 'object') return node;
  const call = node.Function;
  const name = Array.isArray(call?.name)
    ? (call.name as Ast[])
        .map((part) => part?.Identifier?.value)
        .join('.')
        .toLowerCase()
    : undefined;
  const definition = name === undefined ? undefined : functions.get(name);
  if (definition && name !== undefined) {
    if (expanding.includes(name)) throw refuse(`the recursive function ${definition.name}`);
    const args = ((call.args?.List?.args ?? []) as Ast[]).map((arg) => arg?.Unnamed?.Expr);
    if (args.length !== definition.params.length || args.some((arg) => arg === undefined))
      throw refuse(
        `the call of ${definition.name} with ${args.length} arguments (it takes ${definition.params.length})`,
      );
    const bound = new Map(
      definition.params.map((param, i) => [param, replaceCalls(args[i], functions, expanding)]),
    );
    return { Nested: replaceCalls(substitute(definition.body, bound), functions, [...expanding, name]) };
  }
  return Object.fromEntries(
    Object.entries(node).map(([key, child]) => [key, replaceCalls(child, functions, expanding)]),
  );
}

/** The body with each bare parameter name (an Identifier, or the head of a path) replaced. */
function substitute(node: Ast, bound: ReadonlyMap<string, Ast>): Ast {
  if (Array.isArray(node)) return node.map((child) => substitute(child, bound));
  if (!node || typeof node !== 'object') return node;
  const identifier = node.Identifier?.value;
  if (typeof identifier === 'string' && Object.keys(node).length === 1) {
    const argument = bound.get(identifier.toLowerCase());
    if (argument !== undefined) return isName(argument) || argument.Value ? argument : { Nested: argument };
  }
  const path = node.CompoundIdentifier;
  if (Array.isArray(path) && typeof path[0]?.value === 'string' && bound.has(path[0].value.toLowerCase())) {
    // `param.field`: the argument's field, as a field access on the (parenthesised) argument.
    const argument = bound.get(path[0].value.toLowerCase());
    // A name stays a name (`event_params` → `event_params.key`), so the translator knows its type.
    if (isName(argument)) return { CompoundIdentifier: [...nameParts(argument), ...path.slice(1)] };
    return {
      CompoundFieldAccess: {
        root: { Nested: argument },
        access_chain: path.slice(1).map((part: Ast) => ({ Dot: { Identifier: part } })),
      },
    };
  }
  return Object.fromEntries(Object.entries(node).map(([key, child]) => [key, substitute(child, bound)]));
}

function isName(node: Ast): boolean {
  return Boolean(node?.Identifier || node?.CompoundIdentifier);
}

function nameParts(node: Ast): Ast[] {
  return node.Identifier ? [node.Identifier] : node.CompoundIdentifier;
}

function refuse(construct: string): QuerygateError {
  return new QuerygateError('UNSUPPORTED_SQL', `Cannot translate to DuckDB: ${construct}`, {
    details: { construct },
  });
}
