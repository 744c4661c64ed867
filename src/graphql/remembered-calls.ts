import type { Endpoint } from '../endpoints/registry.js';
import type { ParameterValues, QueryResult } from '../engines/query-engine.js';
import type { Metrics } from '../metrics/metrics.js';
import type { Resolver } from '../resolve/resolver.js';
import { KeptReplayCall, keptCallsReuser } from './response-replay.js';
import type { ReplayRecording } from './use-response-replay.js';

// Dashboards send the same few operations with arguments rotating over a few dozen sets, and
// variables that change on every request but that no field reads (issue 31). For one operation
// the endpoint calls, and so the response, are a pure function of the values of the variables
// it declares: graphql-js's coercion of them, the field arguments made of them, their binding to
// the endpoints' parameters and the canonical keys involve no clock and no caller (a token's
// operations never take this path). So the calls an operation made for a set of values are
// remembered, and the same values later answered from them while every result they were made
// of is still the cached, fresh one: `resolver.reuse`, all or nothing, each call counted as the
// hit it would have been, as a replayed answer is. A variable the operation does not declare
// takes no part; a set whose values are not all plain JSON scalars is never remembered.

/**
 * Argument sets remembered per operation; the oldest goes first. A set holds keys and parameters
 * only (results weakly), some hundred bytes: 64 sets of each of the 500 operations kept compiled
 * stay within a few MiB, and cover the few dozen sets a dashboard rotates over.
 */
const maxRememberedSets = 64;

/** One field's piece of a remembered answer: its call, and its rows' bytes as last made. */
interface RememberedPiece {
  /** Index into the set's distinct calls. */
  readonly call: number;
  /** Held weakly: the cached result keeps its encodings alive as long as it stands. */
  readonly rows: WeakRef<Buffer>;
}

/** What an operation made for one set of its variables' values. */
interface RememberedSet {
  /** The distinct calls (by canonical key), as the operation's loader ran them. */
  readonly calls: readonly KeptReplayCall[];
  /** The fields' pieces, in the order of the response. */
  readonly pieces: readonly RememberedPiece[];
}

/** A call a field made, with the result and the rows' bytes it was answered with. */
export interface MadeCall {
  readonly endpoint: Endpoint;
  readonly params: ParameterValues;
  readonly result: QueryResult;
  readonly rows: Buffer;
}

/** The argument sets of one operation (see `createRememberedCalls`). */
export interface RememberedSets {
  /** The variables the operation declares, in order. */
  readonly variables: readonly string[];
  readonly sets: Map<string, RememberedSet>;
}

export function createRememberedSets(variables: readonly string[]): RememberedSets {
  return { variables, sets: new Map() };
}

/**
 * The key of the values `variables` gives the declared variables, each as JSON gave it (a
 * string, number, boolean, null or absent), written so that no two sets of values share one;
 * undefined when a value is an object or a list.
 */
export function valuesKey(
  declared: readonly string[],
  variables: Readonly<Record<string, unknown>> | null | undefined,
): string | undefined {
  let key = '';
  for (const name of declared) {
    // As graphql-js reads them: an inherited property (`constructor`) is no value given.
    const value = variables != null && Object.hasOwn(variables, name) ? variables[name] : undefined;
    switch (typeof value) {
      case 'string':
        key += `s${value.length}:${value}`;
        break;
      case 'number':
        // Number-to-text gives every double its own text but -0 that of 0.
        key += Object.is(value, -0) ? 'n-0;' : `n${value};`;
        break;
      case 'boolean':
        key += value ? 't' : 'f';
        break;
      case 'undefined':
        key += 'u';
        break;
      default:
        if (value !== null) return undefined;
        key += 'z';
    }
  }
  return key;
}

export interface RememberedCallsOptions {
  readonly resolver: Resolver;
  readonly metrics?: Pick<Metrics, 'endpoint'> | undefined;
}

export function createRememberedCalls(options: RememberedCallsOptions) {
  const { resolver, metrics } = options;
  const reuse = keptCallsReuser(resolver, metrics !== undefined);

  return {
    /**
     * The rows' bytes of each field, in order, for values answered before while every result
     * they were made of is still fresh in the cache (its calls then counted and recorded);
     * undefined otherwise, nothing counted.
     */
    again(
      remembered: RememberedSets,
      key: string,
      recording: ReplayRecording | undefined,
    ): Buffer[] | undefined {
      const set = remembered.sets.get(key);
      if (set === undefined) return undefined;
      const rows: Buffer[] = [];
      for (const piece of set.pieces) {
        const bytes = piece.rows.deref();
        if (bytes === undefined) return undefined;
        rows.push(bytes);
      }
      if (!reuse(set.calls)) return undefined;
      if (recording) {
        for (const call of set.calls) {
          const result = call.result;
          if (result === undefined) return rows;
          recording.calls.set(call.key, { endpoint: call.endpoint, params: call.params, result });
        }
        recording.clean = true;
      }
      return rows;
    },

    /** Remembers the calls the fields made (one each, in order) for the values of `key`. */
    remember(remembered: RememberedSets, key: string, made: readonly MadeCall[]): void {
      const calls: KeptReplayCall[] = [];
      const indexOf = new Map<string, number>();
      const pieces: RememberedPiece[] = [];
      for (const call of made) {
        if (call.endpoint.cacheSeconds <= 0) return;
        // The kept call works out the canonical key the calls are told apart by.
        const kept = new KeptReplayCall(
          call.endpoint,
          call.params,
          call.result,
          metrics?.endpoint(call.endpoint.name),
        );
        let index = indexOf.get(kept.key);
        if (index === undefined) {
          index = calls.length;
          indexOf.set(kept.key, index);
          calls.push(kept);
        }
        pieces.push({ call: index, rows: new WeakRef(call.rows) });
      }
      const { sets } = remembered;
      if (!sets.has(key) && sets.size >= maxRememberedSets) sets.delete(sets.keys().next().value as string);
      sets.set(key, { calls, pieces });
    },
  };
}
