import { createHash } from 'node:crypto';
import { QuerygateError } from '../errors.js';
import { sandboxSql } from '../sql/sandbox.js';
import type { Endpoint } from './registry.js';
import { callerSqlParameter } from './sandboxable.js';

/**
 * A sandboxed endpoint called with the caller's `sql`: the endpoint with its final SELECT
 * replaced by the caller's (checked and merged, see sql/sandbox.ts). It is an endpoint of its
 * own to the resolver and the engines: its hash adds a digest of the caller's normalised SQL, so
 * its results are cached, warmed and coalesced apart from the saved query's and from other
 * callers' SQL, while two spellings of one query share them.
 */
export function sandboxedEndpoint(endpoint: Endpoint, callerSql: string): Endpoint {
  if (!endpoint.sandboxed) {
    throw new QuerygateError('BAD_PARAMETER', `Endpoint ${endpoint.name} is not sandboxed; it takes no sql`, {
      details: { parameter: callerSqlParameter },
    });
  }
  const declared = new Set(endpoint.parameters.map((parameter) => parameter.name));
  const merged = sandboxSql(endpoint.sql, callerSql, declared);
  const digest = createHash('sha256').update(merged.normalized).digest('hex').slice(0, 16);
  return {
    ...endpoint,
    sql: merged.sql,
    hash: `${endpoint.hash}.sql-${digest}`,
    callerLineOffset: merged.callerLineOffset,
  };
}
