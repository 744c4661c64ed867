import type { QueryResult } from '../engines/query-engine.js';
import { toJson } from './respond.js';

// A cached result is answered many times but never changes, so its REST body is encoded once,
// on first use, and kept as long as the result itself is reachable (the cache entry holds it).
// Serialising with toJson's bigint replacer was the largest single cost of a cached hit. The
// body is not counted in the cache's byte bound; it is about as large as the rows it encodes.
const bodies = new WeakMap<QueryResult, Buffer>();

/** The REST body of a result, `{"result": rows}`, as the bytes sent. */
export function resultBody(result: QueryResult): Buffer {
  let body = bodies.get(result);
  if (!body) {
    body = Buffer.from(toJson({ result: result.rows }));
    bodies.set(result, body);
  }
  return body;
}
