import { describe, expect, it } from 'vitest';
import { bindParameters, isIsoTimestamp, maxParameterLength } from '../../src/endpoints/bind-parameters.js';
import type { ParameterContract } from '../../src/endpoints/contract.js';
import { isQuerygateError } from '../../src/errors.js';

const contract: ParameterContract[] = [
  {
    name: 'project',
    required: true,
    description: 'p',
    format: 'text',
    otherValues: 'reject',
    type: 'text',
    graphql: {},
  },
  {
    name: 'tier',
    required: true,
    description: 't',
    format: 'text',
    values: ['FREE', 'PRO'],
    otherValues: 'fallback',
    type: 'text',
    graphql: {},
    fallback: 'FREE',
  },
  {
    name: 'interval',
    required: false,
    description: 'i',
    format: 'text',
    values: ['hourly', 'daily'],
    otherValues: 'reject',
    type: 'text',
    graphql: {},
  },
  {
    name: 'start',
    required: false,
    description: 's',
    format: 'iso8601',
    otherValues: 'reject',
    type: 'text',
    graphql: {},
  },
  {
    name: 'pattern',
    required: false,
    description: 'r',
    format: 're2',
    otherValues: 'reject',
    type: 'text',
    graphql: {},
  },
];

const lookup = (query: string) => {
  const params = new URLSearchParams(query);
  return (name: string) => params.getAll(name);
};

function failure(query: string) {
  try {
    bindParameters(contract, lookup(query));
  } catch (error) {
    if (isQuerygateError(error))
      return { code: error.code, message: error.message, parameter: error.details?.parameter };
    throw error;
  }
  throw new Error(`expected ${query} to be refused`);
}

describe('parameter contracts', () => {
  it('binds given values as text and unset optional ones as null', () => {
    expect(
      bindParameters(contract, lookup('project=p&tier=PRO&interval=&start=2026-01-01T00:00:00Z')),
    ).toEqual({
      project: 'p',
      tier: 'PRO',
      interval: null,
      start: '2026-01-01T00:00:00Z',
      pattern: null,
    });
  });

  it('ignores parameters outside the contract', () => {
    expect(bindParameters(contract, lookup('project=p&tier=FREE&debug=1'))).not.toHaveProperty('debug');
  });

  it('binds an undeclared value as the declared fallback where the contract falls back', () => {
    expect(bindParameters(contract, lookup('project=p&tier=GOLD')).tier).toBe('FREE');
    expect(bindParameters(contract, lookup('project=p&tier=PRO')).tier).toBe('PRO');
  });

  it.each([
    ['tier=FREE', 'project', /is required/],
    ['project=&tier=FREE', 'project', /is required/],
    ['project=p&tier=FREE&interval=weekly', 'interval', /must be one of hourly, daily/],
    ['project=p&tier=FREE&start=yesterday', 'start', /ISO 8601/],
    ['project=p&tier=FREE&pattern=(', 'pattern', /RE2/],
    ['project=p&tier=FREE&pattern=(%3F%3Da)', 'pattern', /RE2/],
    ['project=p&tier=FREE&pattern=(%3F<ref>a)', 'pattern', /\(\?P<name>/],
    ['project=a&project=b&tier=FREE', 'project', /more than once/],
    [`project=${'x'.repeat(maxParameterLength + 1)}&tier=FREE`, 'project', /longer than/],
  ])('refuses %s with a 400 naming %s', (query, parameter, message) => {
    const refused = failure(query);
    expect(refused.code).toBe('BAD_PARAMETER');
    expect(refused.parameter).toBe(parameter);
    expect(refused.message).toContain(`'${parameter}'`);
    expect(refused.message).toMatch(message);
  });
});

describe('RE2 patterns checked before', () => {
  it('get the same verdict again, naming the parameter of the call at hand', () => {
    const other: ParameterContract[] = [
      {
        name: 'url_pattern',
        required: true,
        description: 'u',
        format: 're2',
        otherValues: 'reject',
        type: 'text',
        graphql: {},
      },
    ];
    const first = failure('project=p&tier=FREE&pattern=a(b');
    let second: unknown;
    try {
      bindParameters(other, lookup('url_pattern=a(b'));
    } catch (error) {
      second = error;
    }
    expect(isQuerygateError(second) && second.message).toBe(
      first.message.replace("'pattern'", "'url_pattern'"),
    );
    expect(bindParameters(contract, lookup('project=p&tier=FREE&pattern=a%5Bb%5D')).pattern).toBe('a[b]');
    expect(bindParameters(contract, lookup('project=p&tier=FREE&pattern=a%5Bb%5D')).pattern).toBe('a[b]');
  });
});

describe('ISO 8601 timestamps', () => {
  it.each([
    '2026-01-31',
    '2026-01-31T12:00',
    '2026-01-31T12:00:00Z',
    '2026-01-31 12:00:00',
    '2026-01-31T12:00:00.123456+02:00',
    '2024-02-29T23:59:59-11:30',
    '0001-01-01T00:00:00Z',
    '0001-01-01T00:30:00+00:30',
    '9999-12-31T23:59:59.999999Z',
    '9999-12-31T23:00:00-00:59',
  ])('accepts %s', (value) => {
    expect(isIsoTimestamp(value)).toBe(true);
  });

  it.each([
    'yesterday',
    '2026-02-30T00:00:00Z',
    '2025-02-29',
    '2026-13-01',
    '2026-01-31T24:00:00Z',
    '2026-01-31T12:60:00Z',
    '2026-01-31T12:00:00+0200',
    '2026-01-31T12:00:00.1234567Z',
    '1706702400',
    '2026-01-31T12:00:00Zjunk',
    // Outside BigQuery's TIMESTAMP range, 0001-01-01 to 9999-12-31 UTC
    // (https://cloud.google.com/bigquery/docs/reference/standard-sql/data-types#timestamp_type).
    '0000-12-31T23:59:59Z',
    '0001-01-01T00:00:00+00:01',
    '9999-12-31T23:59:59-00:01',
  ])('refuses %s', (value) => {
    expect(isIsoTimestamp(value)).toBe(false);
  });
});

describe('typed parameters', () => {
  const typed = (type: ParameterContract['type']): ParameterContract[] => [
    {
      name: 'value',
      required: true,
      description: 'v',
      type,
      format: 'text',
      otherValues: 'reject',
      graphql: {},
    },
  ];
  const bind = (type: ParameterContract['type'], value: string) =>
    bindParameters(typed(type), () => [value]).value;
  const refusal = (type: ParameterContract['type'], value: string) => {
    try {
      bind(type, value);
    } catch (error) {
      return isQuerygateError(error) ? [error.code, error.message] : ['other', String(error)];
    }
    return ['accepted'];
  };

  it('binds integers, numbers and booleans as their canonical text, so spellings share a cache entry', () => {
    expect(bind('integer', '+007')).toBe('7');
    expect(bind('integer', '-9223372036854775808')).toBe('-9223372036854775808');
    expect(bind('number', '1.50')).toBe('1.5');
    expect(bind('number', '2e3')).toBe('2000');
    expect(bind('boolean', 'TRUE')).toBe('true');
    expect(bind('timestamp', '2024-01-31T12:00:00Z')).toBe('2024-01-31T12:00:00Z');
  });

  it.each([
    ['integer', '1.5', 'must be a whole number within INT64'],
    ['integer', '9223372036854775808', 'must be a whole number within INT64'],
    ['number', 'NaN', 'must be a finite number'],
    ['number', '1e999', 'must be a finite number'],
    ['boolean', 'yes', 'must be true or false'],
    ['timestamp', '2024-02-30', 'must be an ISO 8601 timestamp'],
  ] as const)('answers 400 naming the parameter when a %s is %s', (type, value, problem) => {
    const [code, message] = refusal(type, value);
    expect(code).toBe('BAD_PARAMETER');
    expect(message).toContain("Parameter 'value'");
    expect(message).toContain(problem);
  });
});
