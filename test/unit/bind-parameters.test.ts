import { describe, expect, it } from 'vitest';
import { bindParameters, isIsoTimestamp, maxParameterLength } from '../../src/endpoints/bind-parameters.js';
import type { ParameterContract } from '../../src/endpoints/manifest.js';
import { isQuerygateError } from '../../src/errors.js';

const contract: ParameterContract[] = [
  { name: 'project', required: true, description: 'p', format: 'text', otherValues: 'reject' },
  {
    name: 'tier',
    required: true,
    description: 't',
    format: 'text',
    values: ['FREE', 'PRO'],
    otherValues: 'fallback',
    fallback: 'FREE',
  },
  {
    name: 'interval',
    required: false,
    description: 'i',
    format: 'text',
    values: ['hourly', 'daily'],
    otherValues: 'reject',
  },
  { name: 'start', required: false, description: 's', format: 'iso8601', otherValues: 'reject' },
  { name: 'pattern', required: false, description: 'r', format: 're2', otherValues: 'reject' },
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
      { name: 'url_pattern', required: true, description: 'u', format: 're2', otherValues: 'reject' },
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
  ])('refuses %s', (value) => {
    expect(isIsoTimestamp(value)).toBe(false);
  });
});
