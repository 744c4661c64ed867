import type { DuckDBConnection } from '@duckdb/node-api';
import { type JsonNode, readJson, writeJson } from '../sql/json-text.js';
import { jsonEditFunctions } from '../sql/rules/rule.js';
import { registerTextFunction } from './text-function.js';

/*
 * JSON_SET, JSON_REMOVE and JSON_STRIP_NULLS, which DuckDB has no form of, on the JSON values of
 * sql/json-text.ts (members by key, the first of duplicate keys, scalars as written), each as its
 * documented details say
 * (https://cloud.google.com/bigquery/docs/reference/standard-sql/json_functions).
 */

/**
 * JSON_REMOVE of one path, given as its steps (a JSON array of member names and element indexes,
 * which the translator reads from the JSONPath): the member or element the path matches is
 * removed; a path that matches nothing changes nothing, and an emptied object or array stays.
 */
export function jsonRemove(json: JsonNode, steps: readonly (string | number)[]): JsonNode {
  const last = steps.at(-1);
  let container: JsonNode | undefined = json;
  for (const step of steps.slice(0, -1)) container = childAt(container, step);
  if (container && 'object' in container && typeof last === 'string') container.object.delete(last);
  if (container && 'array' in container && typeof last === 'number' && last < container.array.length)
    container.array.splice(last, 1);
  return json;
}

function childAt(node: JsonNode | undefined, step: string | number): JsonNode | undefined {
  if (node && 'object' in node && typeof step === 'string') return node.object.get(step)?.value;
  if (node && 'array' in node && typeof step === 'number') return node.array[step];
  return undefined;
}

const isNull = (node: JsonNode) => 'scalar' in node && node.scalar === 'null';

/**
 * JSON_STRIP_NULLS of the value at the steps (all of it for none), as ZetaSQL's JsonStripNulls
 * (json.cc) and JSONValueRef's CleanupJsonObject/CleanupJsonArray do: depth first, an object's
 * members holding null removed and an array's null elements where `includeArrays`; under
 * `removeEmpty`, members and elements left as empty objects removed too, and empty arrays where
 * `includeArrays`, and the value at the steps becomes null if it is left so. A path that meets
 * nothing changes nothing.
 */
export function jsonStripNulls(
  json: JsonNode,
  steps: readonly (string | number)[] = [],
  includeArrays = true,
  removeEmpty = false,
): JsonNode {
  let target: JsonNode | undefined = json;
  for (const step of steps) target = childAt(target, step);
  if (target === undefined) return json;
  const removed = (node: JsonNode) =>
    isNull(node) ||
    (removeEmpty && 'object' in node && node.object.size === 0) ||
    (removeEmpty && includeArrays && 'array' in node && node.array.length === 0);
  const clean = (node: JsonNode): void => {
    if ('object' in node) {
      for (const { value } of node.object.values()) clean(value);
      for (const [key, { value }] of node.object) if (removed(value)) node.object.delete(key);
    }
    if ('array' in node) {
      for (const element of node.array) clean(element);
      if (includeArrays) node.array.splice(0, node.array.length, ...node.array.filter((e) => !removed(e)));
    }
  };
  clean(target);
  if (isNull(target) || !removed(target)) return json;
  return steps.length === 0 ? { scalar: 'null' } : replaceAt(json, steps, { scalar: 'null' }, false);
}

/**
 * JSON_SET of one path and value (the value's TO_JSON text, read), with create_if_missing TRUE:
 * what the path matches is replaced; a missing member, an index past an array's end (the array
 * padded with nulls) or a JSON null on the way is created as the rest of the path says; a path
 * that meets a value of another kind (a member of an array, an element of a number) changes
 * nothing. The root path (no steps) replaces the whole value.
 */
export function jsonSet(
  json: JsonNode,
  steps: readonly (string | number)[],
  value: JsonNode,
  createIfMissing = true,
): JsonNode {
  // create_if_missing => FALSE: only a value the whole path reaches is replaced (ZetaSQL's JsonSet).
  if (
    !createIfMissing &&
    steps.reduce<JsonNode | undefined>((at, step) => childAt(at, step), json) === undefined
  )
    return json;
  return setAt(json, steps, value) ?? json;
}

/** The node with the value set at the steps, or undefined where the path cannot be followed. */
function setAt(node: JsonNode, steps: readonly (string | number)[], value: JsonNode): JsonNode | undefined {
  const [step, ...rest] = steps;
  if (step === undefined) return value;
  const here: JsonNode = isNull(node)
    ? typeof step === 'string'
      ? { object: new Map() }
      : { array: [] }
    : node;
  if (typeof step === 'string' && 'object' in here) {
    const member = here.object.get(step);
    const set = setAt(member?.value ?? { scalar: 'null' }, rest, value);
    if (set === undefined) return undefined;
    here.object.set(step, { written: member?.written ?? JSON.stringify(step), value: set });
    return here;
  }
  if (typeof step === 'number' && 'array' in here) {
    const set = setAt(here.array[step] ?? { scalar: 'null' }, rest, value);
    if (set === undefined) return undefined;
    while (here.array.length < step) here.array.push({ scalar: 'null' });
    here.array[step] = set;
    return here;
  }
  return undefined;
}

/**
 * JSON_ARRAY_APPEND and JSON_ARRAY_INSERT of one path and its items (the value's TO_JSON text, or
 * each element's of an array value), as ZetaSQL's JsonAddArrayElement (json.cc) does: the path is
 * followed through existing members and elements only (for an insert, all but its last step,
 * which must be an element index, the place to insert at); an array found there gets the items
 * (appended, or inserted at the index, the array padded with nulls up to it), a JSON null
 * becomes such an array, and anything else, or a path that cannot be followed, changes nothing.
 */
export function jsonArrayAdd(
  json: JsonNode,
  steps: readonly (string | number)[],
  items: readonly JsonNode[],
  insertion: boolean,
): JsonNode {
  const at = insertion ? steps.at(-1) : undefined;
  if (insertion && typeof at !== 'number') return json;
  let target: JsonNode | undefined = json;
  for (const step of insertion ? steps.slice(0, -1) : steps) target = childAt(target, step);
  if (target === undefined) return json;
  const array = isNull(target) ? [] : 'array' in target ? target.array : undefined;
  if (array === undefined) return json;
  if (typeof at === 'number') {
    while (array.length < at) array.push({ scalar: 'null' });
    array.splice(at, 0, ...items);
  } else array.push(...items);
  if (!isNull(target)) return json;
  // A JSON null is replaced by the array made in its place.
  return steps.length - (insertion ? 1 : 0) === 0 ? { array } : replaceAt(json, steps, { array }, insertion);
}

/** The value with the node at the steps (less the last for an insert) replaced by `node`. */
function replaceAt(
  json: JsonNode,
  steps: readonly (string | number)[],
  node: JsonNode,
  insertion: boolean,
): JsonNode {
  const path = insertion ? steps.slice(0, -1) : steps;
  const parent = path.slice(0, -1).reduce<JsonNode | undefined>((at, step) => childAt(at, step), json);
  const last = path.at(-1);
  if (parent && 'object' in parent && typeof last === 'string') {
    const member = parent.object.get(last);
    if (member) parent.object.set(last, { written: member.written, value: node });
  }
  if (parent && 'array' in parent && typeof last === 'number') parent.array[last] = node;
  return json;
}

/** JSON_ARRAY_APPEND/INSERT of a JSON array of items; anything else adds nothing. */
const addItems = (json: JsonNode, steps: (string | number)[], items: JsonNode, insertion: boolean) =>
  'array' in items ? jsonArrayAdd(json, steps, items.array, insertion) : json;

/**
 * Makes `bigquery_json_set(json, steps, value)`, `bigquery_json_set_existing(json, steps, value)`
 * (create_if_missing => FALSE), `bigquery_json_remove(json, steps)`,
 * `bigquery_json_array_append(json, steps, items)` and `bigquery_json_array_insert(json, steps,
 * items)` (items: a JSON array of what to add) and `bigquery_json_strip_nulls(json, steps,
 * 'include_arrays,remove_empty')` (the options as `true`/`false`), all VARCHAR, known to the
 * connection's whole DuckDB instance. A text that is not JSON is returned as it is (the
 * translator gives them JSON values only).
 */
export function registerJsonEdits(connection: DuckDBConnection): void {
  registerTextFunction(connection, jsonEditFunctions.remove, (json: string, steps: string) => {
    const value = readJson(json);
    return value === undefined ? json : writeJson(jsonRemove(value, JSON.parse(steps)));
  });
  // Each of these reads its JSON value, the path's steps and a JSON argument (the value to set,
  // or the array of items to add), and answers the value as it was where either is not JSON.
  const edits: [string, (json: JsonNode, steps: (string | number)[], value: JsonNode) => JsonNode][] = [
    [jsonEditFunctions.set, (json, steps, value) => jsonSet(json, steps, value)],
    [jsonEditFunctions.replace, (json, steps, value) => jsonSet(json, steps, value, false)],
    [jsonEditFunctions.arrayAppend, (json, steps, items) => addItems(json, steps, items, false)],
    [jsonEditFunctions.arrayInsert, (json, steps, items) => addItems(json, steps, items, true)],
  ];
  for (const [name, edit] of edits)
    registerTextFunction(connection, name, (json: string, steps: string, argument: string) => {
      const read = readJson(json);
      const value = readJson(argument);
      return read === undefined || value === undefined
        ? json
        : writeJson(edit(read, JSON.parse(steps), value));
    });
  registerTextFunction(
    connection,
    jsonEditFunctions.stripNulls,
    (json: string, steps: string, options: string) => {
      const value = readJson(json);
      if (value === undefined) return json;
      const [includeArrays, removeEmpty] = options.split(',').map((option) => option === 'true');
      return writeJson(jsonStripNulls(value, JSON.parse(steps), includeArrays, removeEmpty));
    },
  );
}
