import {
  type DocumentNode,
  type FieldNode,
  type FragmentDefinitionNode,
  type GraphQLField,
  type GraphQLLeafType,
  type GraphQLNamedType,
  type GraphQLSchema,
  getArgumentValues,
  getNamedType,
  getNullableType,
  getVariableValues,
  isLeafType,
  isNonNullType,
  type OperationDefinitionNode,
  type SelectionSetNode,
} from 'graphql';
import type { ParameterValues } from '../engines/query-engine.js';
import type { Encoding } from '../resolve/encodings.js';
import type { GraphQLContext } from './context.js';
import type { EndpointFieldCall } from './projection.js';
import { createRememberedSets, type MadeCall, type RememberedSets } from './remembered-calls.js';

// A cached result never changes, so the JSON of an endpoint field over it, for one selection of
// leaf fields, is the same text every time: it is made once, kept with the result (its
// `encoded`), and spliced into the response. This is what graphql-js (or graphql-jit) and
// JSON.stringify would write, done once per result instead of per request.

/** A leaf of a row: its response key, the column field read, its type. */
interface Leaf {
  readonly key: string;
  readonly field: string;
  readonly type: GraphQLLeafType;
  readonly nonNull: boolean;
}

interface SplicedField {
  readonly node: FieldNode;
  readonly definition: GraphQLField<unknown, unknown>;
  readonly call: EndpointFieldCall;
  /** The field's rows as JSON bytes for this selection; null when graphql-js would raise an error. */
  readonly encoding: Encoding<Buffer | null>;
}

/** An operation that is namespaces of endpoint fields selecting leaves: the dashboard's shape. */
export interface SplicedOperation {
  readonly operation: OperationDefinitionNode;
  /** The endpoint fields, in the order of the response. */
  readonly fields: readonly SplicedField[];
  /**
   * The body's bytes around the fields' rows, made once: `{"data":{"ns":{"field":` before the
   * first, what lies between each two, and the closing braces after the last.
   */
  readonly joints: readonly Buffer[];
  /** The calls made for the sets of variable values answered so far (see remembered-calls.ts). */
  readonly remembered: RememberedSets;
}

/**
 * The spliced form of an operation, or undefined unless every selection is a field, a fragment
 * spread or an inline fragment on the type selected (no directive, no `__typename`, no response
 * key given twice but a leaf's, which graphql-js merges into one): namespaces, their endpoint
 * fields, and those fields' scalar or enum columns.
 */
export function splicedOperationOf(
  schema: GraphQLSchema,
  document: DocumentNode,
  operationName: string | undefined,
): SplicedOperation | undefined {
  const operations = document.definitions.filter((d) => d.kind === 'OperationDefinition');
  const operation = operationName ? operations.find((o) => o.name?.value === operationName) : operations[0];
  if (operation?.operation !== 'query' || (!operationName && operations.length !== 1)) return undefined;
  if (operation.directives?.length) return undefined;
  const query = schema.getQueryType();
  if (!query) return undefined;
  const fragments = new Map<string, FragmentDefinitionNode>();
  for (const definition of document.definitions)
    if (definition.kind === 'FragmentDefinition') fragments.set(definition.name.value, definition);
  const fieldsOf = (selectionSet: SelectionSetNode | undefined, type: GraphQLNamedType) =>
    selectionSet && collectedFields(selectionSet, type.name, fragments);
  const fields: SplicedField[] = [];
  // The body as text between the rows, ended where each field's rows go.
  const joints: string[] = [];
  let joint = '{"data":{';
  const namespaces = fieldsOf(operation.selectionSet, query) ?? [];
  for (const [n, node] of namespaces.entries()) {
    const definition = query.getFields()[node.name.value];
    const type = definition && getNamedType(definition.type);
    if (
      !definition?.extensions?.querygateNamespace ||
      !type ||
      !('getFields' in type) ||
      node.arguments?.length
    ) {
      return undefined;
    }
    joint += `${n === 0 ? '' : ','}${JSON.stringify(responseKey(node))}:{`;
    const endpointFields = fieldsOf(node.selectionSet, type) ?? [];
    if (endpointFields.length === 0 || !distinctKeys(endpointFields)) return undefined;
    for (const [f, fieldNode] of endpointFields.entries()) {
      const endpointField = type.getFields()[fieldNode.name.value];
      const call = endpointField?.extensions?.querygateEndpointCall as EndpointFieldCall | undefined;
      const rowType = endpointField && getNamedType(endpointField.type);
      if (!endpointField || !call || !rowType || !('getFields' in rowType)) return undefined;
      const leaves = new Map<string, Leaf>();
      for (const leafNode of fieldsOf(fieldNode.selectionSet, rowType) ?? []) {
        const column = rowType.getFields()[leafNode.name.value];
        const leafType = column && getNullableType(column.type);
        if (!column || !leafType || !isLeafType(leafType) || leafNode.selectionSet) return undefined;
        // Validation lets a response key repeat only for the same field: one value, where it first stood.
        leaves.set(responseKey(leafNode), {
          key: JSON.stringify(responseKey(leafNode)),
          field: leafNode.name.value,
          type: leafType,
          nonNull: isNonNullType(column.type),
        });
      }
      if (leaves.size === 0) return undefined;
      joints.push(`${joint}${f === 0 ? '' : ','}${JSON.stringify(responseKey(fieldNode))}:`);
      joint = '';
      fields.push({
        node: fieldNode,
        definition: endpointField as GraphQLField<unknown, unknown>,
        call,
        encoding: rowsJson(call, [...leaves.values()]),
      });
    }
    joint += '}';
  }
  // A response key given twice merges its selections in graphql-js: left to it.
  if (fields.length === 0 || !distinctKeys(namespaces)) return undefined;
  joints.push(`${joint}}}`);
  return {
    operation,
    fields,
    joints: joints.map((text) => Buffer.from(text)),
    remembered: createRememberedSets(
      (operation.variableDefinitions ?? []).map((definition) => definition.variable.name.value),
    ),
  };
}

/**
 * The response body spliced from the rows' bytes of each field, in order: bytes whose length is
 * summed from its pieces', written once.
 */
export function splicedBody(spliced: SplicedOperation, rows: readonly Buffer[]): Buffer {
  const pieces: Buffer[] = [];
  const { joints } = spliced;
  let length = 0;
  for (let i = 0; i < rows.length; i++) {
    const joint = joints[i] as Buffer;
    const bytes = rows[i] as Buffer;
    pieces.push(joint, bytes);
    length += joint.length + bytes.length;
  }
  const last = joints[rows.length] as Buffer;
  pieces.push(last);
  return Buffer.concat(pieces, length + last.length);
}

/**
 * The rows' bytes of each field of a spliced operation, in order, with the call each made.
 * undefined when anything needs graphql-js's answer instead (variables refused, an argument or
 * call failing, a value it would refuse): the caller then executes as usual, and the calls made
 * here are answered again by the operation's loader, not run again.
 */
export async function runSpliced(
  spliced: SplicedOperation,
  schema: GraphQLSchema,
  context: GraphQLContext,
  variables: Readonly<Record<string, unknown>> | null | undefined,
): Promise<MadeCall[] | undefined> {
  const coerced = getVariableValues(schema, spliced.operation.variableDefinitions ?? [], variables ?? {});
  if (coerced.errors) return undefined;
  const loads: Promise<MadeCall | null>[] = [];
  try {
    for (const { call, definition, node, encoding } of spliced.fields) {
      const values = getArgumentValues(definition, node, coerced.coerced);
      let params: ParameterValues;
      try {
        params = call.bind(values, context);
      } catch (refused) {
        // Counted where it was refused; execution refuses it again, as graphql-js words it.
        loads.push(Promise.reject(refused));
        continue;
      }
      const { endpoint } = call;
      loads.push(
        context.loadEndpoint(endpoint, params).then((resolved) => {
          const rows = resolved.encoded(encoding);
          return rows === null ? null : { endpoint, params, result: resolved.result, rows };
        }),
      );
    }
  } catch {
    // Execution raises the same error; the calls already started are answered to it then.
    for (const load of loads) load.catch(() => undefined);
    return undefined;
  }
  const settled = await Promise.allSettled(loads);
  const made: MadeCall[] = [];
  for (const one of settled) {
    if (one.status !== 'fulfilled' || one.value === null) return undefined;
    made.push(one.value);
  }
  return made;
}

/** The rows of a result as JSON for a selection of leaves, as graphql-js completes them. */
function rowsJson(call: EndpointFieldCall, leaves: readonly Leaf[]): Encoding<Buffer | null> {
  return {
    make(result) {
      const rows = call.rows.make(result);
      let json = '[';
      for (let r = 0; r < rows.length; r++) {
        const row = rows[r] as Readonly<Record<string, unknown>>;
        json += r === 0 ? '{' : ',{';
        for (let l = 0; l < leaves.length; l++) {
          const leaf = leaves[l] as Leaf;
          const value = leafJson(leaf, row[leaf.field]);
          if (value === null) return null;
          json += l === 0 ? `${leaf.key}:${value}` : `,${leaf.key}:${value}`;
        }
        json += '}';
      }
      return Buffer.from(`${json}]`);
    },
    sizeOf: (json) => (json === null ? 8 : json.length + 96),
  };
}

/** A leaf as JSON, or null where graphql-js would raise a field error. */
function leafJson(leaf: Leaf, value: unknown): string | null {
  if (value === null || value === undefined) return leaf.nonNull ? null : 'null';
  try {
    const serialized = leaf.type.serialize(value);
    return serialized === null || serialized === undefined ? null : (JSON.stringify(serialized) ?? null);
  } catch {
    return null;
  }
}

function responseKey(node: FieldNode): string {
  return node.alias?.value ?? node.name.value;
}

/**
 * The fields of a selection set on `typeName`, its fragments' spread in place as graphql-js
 * collects them, or undefined when it holds a directive, `__typename`, or a fragment on another
 * type (an interface's, which graphql-js would test against the type).
 */
function collectedFields(
  selectionSet: SelectionSetNode,
  typeName: string,
  fragments: ReadonlyMap<string, FragmentDefinitionNode>,
  fields: FieldNode[] = [],
): FieldNode[] | undefined {
  for (const selection of selectionSet.selections) {
    if (selection.directives?.length) return undefined;
    if (selection.kind === 'Field') {
      if (selection.name.value.startsWith('__')) return undefined;
      fields.push(selection);
      continue;
    }
    const fragment = selection.kind === 'FragmentSpread' ? fragments.get(selection.name.value) : selection;
    if (
      !fragment ||
      fragment.directives?.length ||
      (fragment.typeCondition !== undefined && fragment.typeCondition.name.value !== typeName) ||
      !collectedFields(fragment.selectionSet, typeName, fragments, fields)
    ) {
      return undefined;
    }
  }
  return fields;
}

/** Whether no two fields share a response key. */
function distinctKeys(fields: readonly FieldNode[]): boolean {
  return new Set(fields.map(responseKey)).size === fields.length;
}
