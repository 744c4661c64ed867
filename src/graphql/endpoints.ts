import { boundDefault } from '../endpoints/bind-parameters.js';
import type { ParameterContract } from '../endpoints/contract.js';
import type { Endpoint } from '../endpoints/registry.js';
import type { QuerygateBuilder } from './builder.js';

/** Adds the `Endpoint` type (an endpoint's contract as the `endpoints` field lists it) to a schema's builder. */
export function addEndpointTypes(builder: QuerygateBuilder): void {
  const ParameterFormat = builder.enumType('ParameterFormat', {
    description: 'How a parameter value is checked.',
    values: {
      TEXT: { value: 'text', description: 'Any text.' },
      ISO8601: { value: 'iso8601', description: 'An ISO 8601 timestamp.' },
      RE2: { value: 're2', description: 'An RE2 regular expression.' },
    } as const,
  });

  const OtherValues = builder.enumType('OtherValues', {
    description: 'What a value outside the declared values does.',
    values: {
      REJECT: { value: 'reject', description: 'It is refused as a bad parameter.' },
      FALLBACK: { value: 'fallback', description: 'It is accepted and the query falls back to its default.' },
    } as const,
  });

  const EndpointParameter = builder.objectRef<ParameterContract>('EndpointParameter').implement({
    description: 'One parameter of an endpoint contract, as the REST face names it.',
    fields: (t) => ({
      name: t.exposeString('name', { description: 'Name in the REST query string.' }),
      required: t.exposeBoolean('required', { description: 'Whether a call must set it.' }),
      description: t.exposeString('description', { description: 'What the parameter means.' }),
      format: t.field({
        type: ParameterFormat,
        description: 'How a value is checked.',
        resolve: (p) => p.format,
      }),
      values: t.stringList({
        nullable: true,
        description: 'The declared values, where the parameter has a set of them.',
        resolve: (p) => p.values ?? null,
      }),
      otherValues: t.field({
        type: OtherValues,
        nullable: true,
        description: 'What a value outside the declared values does; null where none are declared.',
        resolve: (p) => (p.values ? p.otherValues : null),
      }),
      fallback: t.string({
        nullable: true,
        description: 'The declared value every other value behaves as, where other values fall back.',
        resolve: (p) => p.fallback ?? null,
      }),
      default: t.string({
        nullable: true,
        description: 'The value an absent or empty parameter takes, as REST text; null where it has none.',
        resolve: (p) => boundDefault(p) ?? null,
      }),
      min: t.float({
        nullable: true,
        description: 'The least value a call may send (integer and number parameters).',
        resolve: (p) => p.min ?? null,
      }),
      max: t.float({
        nullable: true,
        description: 'The greatest value a call may send (integer and number parameters).',
        resolve: (p) => p.max ?? null,
      }),
    }),
  });

  builder.objectRef<Endpoint>('Endpoint').implement({
    description: 'A saved, parameterised analytics query.',
    fields: (t) => ({
      id: t.exposeID('id', { description: 'UUID, used in the by-UUID path /api/endpoints/query/<id>.' }),
      name: t.exposeString('name', {
        description: 'Dotted name, used in the by-name path /api/endpoints/<name>.',
      }),
      description: t.exposeString('description', { description: 'What the query answers.' }),
      parameters: t.field({
        type: [EndpointParameter],
        description: 'The parameter contract: every parameter the query takes.',
        resolve: (endpoint) => endpoint.parameters,
      }),
      maxRows: t.exposeInt('maxRows', { description: 'Upper bound of rows returned.' }),
      cacheSeconds: t.exposeInt('cacheSeconds', {
        description: 'How long a result is cached, in seconds; 0 means caching is disabled.',
      }),
      warmSeconds: t.exposeInt('warmSeconds', {
        nullable: true,
        description:
          'Interval at which the cache is refreshed ahead of use, in seconds; null where there is none.',
      }),
    }),
  });
}
