import type { Endpoint } from '../endpoints/registry.js';
import type { ShapeColumn, Snapshot } from '../endpoints/snapshot.js';
import { camel, fieldNameOf, namespaceOf } from './projection.js';

/** An endpoint's first example as a GraphQL operation selecting every column. */
export function exampleOperation(endpoint: Endpoint, shape: readonly ShapeColumn[]): string {
  const example = endpoint.examples[0] ?? {};
  const args = endpoint.parameters
    .filter((parameter) => example[parameter.name] !== undefined)
    .map((parameter) => {
      const value = example[parameter.name] as string | number | boolean;
      const declared = parameter.enumValues?.find((entry) => entry.value === String(value));
      const literal = declared
        ? declared.name
        : typeof value === 'string'
          ? JSON.stringify(value)
          : String(value);
      return `${camel(parameter.name)}: ${literal}`;
    });
  const call = `${fieldNameOf(endpoint.name)}${args.length > 0 ? `(${args.join(', ')})` : ''}`;
  return [
    `# ${endpoint.description} (${endpoint.name})`,
    `query ${operationName(endpoint)} {`,
    `  ${namespaceOf(endpoint.name)} {`,
    `    ${call} {`,
    ...selection(shape, '      '),
    '    }',
    '  }',
    '}',
    '',
  ].join('\n');
}

/** `logs.all` → `LogsAll`: the example's operation name, and GraphiQL's tab title. */
export function operationName(endpoint: Pick<Endpoint, 'name'>): string {
  return camel(`${endpoint.name.replaceAll('.', '-')}`).replace(/^./, (first) => first.toUpperCase());
}

function selection(columns: readonly ShapeColumn[], indent: string): string[] {
  return columns.flatMap((column) =>
    column.type === 'RECORD' && column.fields?.length
      ? [`${indent}${camel(column.name)} {`, ...selection(column.fields, `${indent}  `), `${indent}}`]
      : [`${indent}${camel(column.name)}`],
  );
}

/** One example tab per endpoint, the first telling a newcomer where the key goes. */
export function exampleOperations(snapshot: Snapshot): string[] {
  return snapshot.endpoints.map((endpoint, index) => {
    const operation = exampleOperation(endpoint, snapshot.shapes.get(endpoint.name) ?? []);
    if (index > 0) return operation;
    const [title, ...rest] = operation.split('\n');
    return [
      title,
      '# Put your key in the Headers tab below and press the run button (Ctrl-Enter).',
      '# Re-fetch the schema (Shift-Ctrl-R) with the key for completion and the docs.',
      ...rest,
    ].join('\n');
  });
}
