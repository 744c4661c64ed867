import type { DuckDBConnection } from '@duckdb/node-api';
import { type JsonNode, readJson, utf8Order } from '../sql/json-text.js';
import { jsonQuoted } from '../sql/rules/json-encoding.js';
import { jsonKeysFunction } from '../sql/rules/rule.js';
import { registerTextFunction } from './text-function.js';

/** JSON_KEYS's mode: how it descends through arrays. */
export type JsonKeysMode = 'strict' | 'lax' | 'lax recursive';

/**
 * JSON_KEYS as GoogleSQL's reference implementation walks a JSON value (ZetaSQL's
 * zetasql/public/functions/json.cc, JsonKeysTreeWalker): every member of every object reached,
 * as its path of keys joined by `.`, a key holding `.` or a character JSON escapes written as
 * its JSON string (`"a.b".c`); deduplicated and sorted byte by byte (a btree_set of strings).
 * Each object descended into takes one level of `maxDepth`; an object's members are listed
 * however deep, their values descended into only while levels remain. `strict` descends into no
 * array; `lax` into the objects that are elements of an array met; `lax recursive` into arrays
 * within arrays too. Arrays take no level.
 */
export function jsonKeys(root: JsonNode, maxDepth: number, mode: JsonKeysMode): string[] {
  const keys = new Set<string>();
  const stack: { node: JsonNode; remaining: number; path: string }[] = [
    { node: root, remaining: maxDepth, path: '' },
  ];
  for (let top = stack.pop(); top !== undefined; top = stack.pop()) {
    const { node, remaining, path } = top;
    if ('object' in node) {
      for (const [key, { value }] of node.object) {
        // ZetaSQL's EscapeKey: the JSON string where JSON escapes a character or the key holds a dot.
        const quoted = jsonQuoted(key);
        const escaped = key.includes('.') || quoted !== `"${key}"` ? quoted : key;
        const keyPath = path === '' ? escaped : `${path}.${escaped}`;
        keys.add(keyPath);
        if (remaining - 1 > 0) stack.push({ node: value, remaining: remaining - 1, path: keyPath });
      }
    }
    if ('array' in node && mode !== 'strict') {
      for (const element of node.array) {
        if ('object' in element || ('array' in element && mode === 'lax recursive'))
          stack.push({ node: element, remaining, path });
      }
    }
  }
  return [...keys].sort(utf8Order);
}

/**
 * Makes `bigquery_json_keys(json, max_depth, mode)` (VARCHAR: the JSON value's text, the depth
 * as digits or '' for no limit, a mode of JsonKeysMode) known to the connection's whole DuckDB
 * instance; it returns the keys as a JSON array of strings, which the translation casts to
 * VARCHAR[] (a registered text function returns VARCHAR).
 */
export function registerJsonKeys(connection: DuckDBConnection): void {
  registerTextFunction(connection, jsonKeysFunction, (json: string, maxDepth: string, mode: string) => {
    const value = readJson(json);
    const depth = maxDepth === '' ? Number.POSITIVE_INFINITY : Number(maxDepth);
    return JSON.stringify(value === undefined ? [] : jsonKeys(value, depth, mode as JsonKeysMode));
  });
}
