import type { DocumentNode, ExecutionArgs, ExecutionResult, GraphQLSchema } from 'graphql';
import { type CompiledQuery, compileQuery, isCompiledQuery } from 'graphql-jit';
import { LRUCache } from 'lru-cache';
import type { Snapshot } from '../endpoints/snapshot.js';
import { type SplicedOperation, splicedOperationOf } from './encoded-fields.js';
import { schemaFor } from './schema.js';

/** The executor yoga ran a document with: it answers whatever the compiled plan cannot. */
export type Executor = (args: ExecutionArgs) => unknown;

/** A document yoga accepted, compiled. */
export interface CompiledOperation {
  readonly plan: CompiledQuery;
  readonly document: DocumentNode;
  readonly operationName: string | undefined;
  readonly execute: Executor;
  /** Its spliced form, where it has one (see encoded-fields.ts). */
  readonly spliced: SplicedOperation | undefined;
}

/** Operations compiled for one snapshot's schema, by document text and operation name. */
export interface CompiledOperations {
  /** The schema the operations were compiled for. */
  readonly schema: GraphQLSchema;
  /** The operation of a document yoga has accepted (parsed, validated, within the limits), if compiled. */
  find(query: string, operationName: string | null | undefined): CompiledOperation | undefined;
  /**
   * Compiles a document yoga has accepted and is about to execute with `execute`, once: later
   * calls for the same document and operation name change nothing. A document graphql-jit
   * cannot compile is remembered as such, and never found.
   */
  accept(
    document: DocumentNode,
    query: string,
    operationName: string | null | undefined,
    execute: Executor,
  ): void;
  /**
   * Runs a compiled operation. undefined when its variables were refused: graphql-jit coerces
   * them before any resolver runs, but words its refusals its own way, so the caller lets yoga
   * (graphql-js) refuse them with the messages clients (and our error codes) know.
   */
  run(
    operation: CompiledOperation,
    contextValue: unknown,
    variableValues: Readonly<Record<string, unknown>> | null | undefined,
  ): ExecutionResult | Promise<ExecutionResult> | undefined;
  /** Documents compiled so far (a document is compiled once while it stays in the cache). */
  readonly compilations: number;
  /** Operations run compiled so far (their variables accepted). */
  readonly runs: number;
  /** Counts an operation answered from its fields' kept encodings (see encoded-fields.ts). */
  countSpliced(): void;
  /** Operations answered from their fields' kept encodings so far. */
  readonly splices: number;
}

/** Distinct documents kept compiled per snapshot; the least recently used goes first. */
const maxCompiledOperations = 500;

/**
 * The compiled operations of a snapshot, kept with it (`Snapshot.derived`): a reload brings a new
 * schema and so new plans, and the old ones go with the old snapshot.
 */
export function compiledOperationsOf(snapshot: Snapshot): CompiledOperations {
  return snapshot.derived(createCompiledOperations);
}

function createCompiledOperations(snapshot: Snapshot): CompiledOperations {
  const schema = schemaFor(snapshot);
  // By document text, then operation name: the text JSON.parse made is hashed as it is, never
  // first copied into a key joined with the name. A document that failed to compile is
  // remembered as such, so it is not tried again.
  const plans = new LRUCache<string, Map<string, CompiledOperation | { failed: true }>>({
    max: maxCompiledOperations,
  });
  let compilations = 0;
  let runs = 0;
  let splices = 0;
  return {
    schema,
    find(query, operationName) {
      const kept = plans.get(query)?.get(operationName ?? '');
      return kept && 'plan' in kept ? kept : undefined;
    },
    accept(document, query, operationName, execute) {
      let byName = plans.get(query);
      if (byName?.has(operationName ?? '')) return;
      if (byName === undefined) {
        byName = new Map();
        plans.set(query, byName);
      }
      compilations++;
      // No stack captured per field error: field errors are executed again by `execute` (see
      // fast-operation.ts), so the compiled plan's own errors are never shown.
      const plan = compileQuery(schema, document, operationName ?? undefined, {
        disablingCapturingStackErrors: true,
      });
      byName.set(
        operationName ?? '',
        isCompiledQuery(plan)
          ? {
              plan,
              document,
              operationName: operationName ?? undefined,
              execute,
              spliced: splicedOperationOf(schema, document, operationName ?? undefined),
            }
          : { failed: true },
      );
    },
    run({ plan }, contextValue, variableValues) {
      const result = plan.query(undefined, contextValue, (variableValues ?? {}) as Record<string, unknown>);
      if (isRequestError(result)) return undefined;
      runs++;
      return result as ExecutionResult | Promise<ExecutionResult>;
    },
    get compilations() {
      return compilations;
    },
    get runs() {
      return runs;
    },
    countSpliced() {
      splices++;
    },
    get splices() {
      return splices;
    },
  };
}

/** An answer with no data at all: refused before execution began (its variables). */
function isRequestError(result: unknown): boolean {
  return typeof result === 'object' && result !== null && !(result instanceof Promise) && !('data' in result);
}
