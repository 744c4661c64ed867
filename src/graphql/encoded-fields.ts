import {
  type DocumentNode,
  type FieldNode,
  type GraphQLField,
  type GraphQLLeafType,
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
import type { Encoding } from '../resolve/encodings.js';
import type { GraphQLContext } from './context.js';
import type { EndpointFieldCall } from './projection.js';

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
  /** The response key, as JSON. */
  readonly key: string;
  readonly node: FieldNode;
  readonly definition: GraphQLField<unknown, unknown>;
  readonly call: EndpointFieldCall;
  /** The field's rows as JSON for this selection; null when graphql-js would raise an error. */
  readonly encoding: Encoding<string | null>;
}

interface SplicedNamespace {
  readonly key: string;
  readonly fields: readonly SplicedField[];
}

/** An operation that is namespaces of endpoint fields selecting leaves: the dashboard's shape. */
export interface SplicedOperation {
  readonly operation: OperationDefinitionNode;
  readonly namespaces: readonly SplicedNamespace[];
}

/**
 * The spliced form of an operation, or undefined unless every selection is a plain field (no
 * fragment, directive or `__typename`): namespaces, their endpoint fields, and those fields'
 * scalar or enum columns.
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
  const namespaces: SplicedNamespace[] = [];
  for (const node of plainFields(operation.selectionSet) ?? []) {
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
    const fields: SplicedField[] = [];
    for (const fieldNode of plainFields(node.selectionSet) ?? []) {
      const endpointField = type.getFields()[fieldNode.name.value];
      const call = endpointField?.extensions?.querygateEndpointCall as EndpointFieldCall | undefined;
      const rowType = endpointField && getNamedType(endpointField.type);
      if (!endpointField || !call || !rowType || !('getFields' in rowType)) return undefined;
      const leaves: Leaf[] = [];
      for (const leafNode of plainFields(fieldNode.selectionSet) ?? []) {
        const column = rowType.getFields()[leafNode.name.value];
        const leafType = column && getNullableType(column.type);
        if (!column || !leafType || !isLeafType(leafType) || leafNode.selectionSet) return undefined;
        leaves.push({
          key: JSON.stringify(responseKey(leafNode)),
          field: leafNode.name.value,
          type: leafType,
          nonNull: isNonNullType(column.type),
        });
      }
      if (leaves.length === 0) return undefined;
      fields.push({
        key: JSON.stringify(responseKey(fieldNode)),
        node: fieldNode,
        definition: endpointField as GraphQLField<unknown, unknown>,
        call,
        encoding: rowsJson(call, leaves),
      });
    }
    if (fields.length === 0) return undefined;
    namespaces.push({ key: JSON.stringify(responseKey(node)), fields });
  }
  if (namespaces.length === 0) return undefined;
  // A response key given twice merges its selections in graphql-js: left to it.
  const keys = namespaces.map((n) => n.key);
  if (new Set(keys).size !== keys.length) return undefined;
  for (const namespace of namespaces) {
    const fieldKeys = namespace.fields.map((f) => f.key);
    if (new Set(fieldKeys).size !== fieldKeys.length) return undefined;
  }
  return { operation, namespaces };
}

/**
 * The response body's `data` JSON, spliced from the fields' kept encodings; undefined when
 * anything needs graphql-js's answer instead (variables refused, an argument or call failing, a
 * value it would refuse): the caller then executes as usual, and the calls made here are answered
 * again by the operation's loader, not run again.
 */
export async function runSpliced(
  spliced: SplicedOperation,
  schema: GraphQLSchema,
  context: GraphQLContext,
  variables: Readonly<Record<string, unknown>> | null | undefined,
): Promise<string | undefined> {
  const coerced = getVariableValues(schema, spliced.operation.variableDefinitions ?? [], variables ?? {});
  if (coerced.errors) return undefined;
  const loads: Promise<string | null>[] = [];
  try {
    for (const namespace of spliced.namespaces) {
      for (const field of namespace.fields) {
        const values = getArgumentValues(field.definition, field.node, coerced.coerced);
        loads.push(field.call.load(values, context).then((resolved) => resolved.encoded(field.encoding)));
      }
    }
  } catch {
    // Execution raises the same error; the calls already started are answered to it then.
    for (const load of loads) load.catch(() => undefined);
    return undefined;
  }
  const settled = await Promise.allSettled(loads);
  const json: string[] = [];
  for (const one of settled) {
    if (one.status !== 'fulfilled' || one.value === null) return undefined;
    json.push(one.value);
  }
  let index = 0;
  const parts = spliced.namespaces.map(
    (namespace) =>
      `${namespace.key}:{${namespace.fields.map((field) => `${field.key}:${json[index++]}`).join(',')}}`,
  );
  return `{${parts.join(',')}}`;
}

/** The rows of a result as JSON for a selection of leaves, as graphql-js completes them. */
function rowsJson(call: EndpointFieldCall, leaves: readonly Leaf[]): Encoding<string | null> {
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
      return `${json}]`;
    },
    sizeOf: (json) => (json === null ? 8 : 2 * json.length),
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

/** The fields of a selection set, or undefined when it holds anything else or any directive. */
function plainFields(selectionSet: SelectionSetNode | undefined): FieldNode[] | undefined {
  if (!selectionSet) return undefined;
  const fields: FieldNode[] = [];
  for (const selection of selectionSet.selections) {
    if (selection.kind !== 'Field' || selection.directives?.length || selection.name.value.startsWith('__')) {
      return undefined;
    }
    fields.push(selection);
  }
  return fields;
}
