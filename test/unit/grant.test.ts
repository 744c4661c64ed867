import { describe, expect, it } from 'vitest';
import type { ParameterContract } from '../../src/endpoints/contract.js';
import { grantOf, withPinnedValues } from '../../src/endpoints/grant.js';
import { isQuerygateError } from '../../src/errors.js';

const parameter = (name: string, type: ParameterContract['type']): ParameterContract => ({
  name,
  required: true,
  description: name,
  format: 'text',
  otherValues: 'reject',
  type,
  graphql: {},
});

const contract = [
  parameter('project', 'text'),
  parameter('customer_id', 'integer'),
  parameter('day', 'text'),
];
const sent =
  (values: Record<string, string>) =>
  (name: string): readonly string[] =>
    values[name] === undefined ? [] : [values[name] as string];

describe('the endpoints claim', () => {
  it.each([
    [['usage.api-counts'], 'usage.api-counts', true],
    [['usage.api-counts'], 'usage.api-counts-2', false],
    [['usage.*'], 'usage.api-counts', true],
    [['usage.*'], 'logs.all', false],
    [['checkout.*', 'logs.all'], 'logs.all', true],
    [['*'], 'functions.invocation-stats', true],
    [['logs*'], 'logs.all', true],
    [[], 'logs.all', false],
  ])('%j allows %s: %s', (endpoints, name, allowed) => {
    expect(grantOf({ endpoints, pinned: {}, ingest: false }).allows(name)).toBe(allowed);
  });
});

describe('pinned values', () => {
  const grant = grantOf({ endpoints: ['*'], pinned: { project: 'acme', customer_id: '7' }, ingest: false });
  const values = (given: Record<string, string>) => {
    const raw = withPinnedValues(grant, contract, sent(given));
    return Object.fromEntries(contract.map(({ name }) => [name, raw(name)]));
  };

  it('takes the pinned value when the caller leaves it out', () => {
    expect(values({ day: 'monday' })).toEqual({ project: ['acme'], customer_id: ['7'], day: ['monday'] });
  });

  it('accepts the same value, compared as the contract binds it (+007 is 7)', () => {
    expect(values({ project: 'acme', customer_id: '+007' })).toMatchObject({ customer_id: ['7'] });
  });

  it('refuses another value with a 403 naming the parameter', () => {
    let refusal: unknown;
    try {
      values({ project: 'globex' });
    } catch (error) {
      refusal = error;
    }
    expect(isQuerygateError(refusal) && [refusal.code, refusal.status, refusal.details]).toEqual([
      'FORBIDDEN',
      403,
      { parameter: 'project' },
    ]);
  });

  it('leaves parameters it does not pin as the caller sent them', () => {
    expect(values({ day: '' }).day).toEqual(['']);
  });
});
