import { LRUCache } from 'lru-cache';
import { RE2JS } from 're2js';
import type { ParameterValues } from '../engines/query-engine.js';
import { badParameter } from '../errors.js';
import type { ParameterContract } from './contract.js';
import { re2SizeProblem } from './re2-program-size.js';

/** Longer values are refused before they reach an engine; no contract needs more. */
export const maxParameterLength = 2048;

/**
 * Checks raw text values against an endpoint's parameter contract and returns the values to
 * bind. Absent and empty optional values take their default, or are unset (null) without one;
 * names outside the contract are not looked at here (see undeclared-parameters.ts). Every
 * failure is a BAD_PARAMETER naming the parameter.
 */
export function bindParameters(
  contract: readonly ParameterContract[],
  raw: (name: string) => readonly string[],
): ParameterValues {
  const bound: Record<string, string | null> = {};
  for (const parameter of contract) {
    const values = raw(parameter.name);
    if (values.length > 1) throw badParameter(parameter.name, 'is given more than once');
    const value = values[0] ?? '';
    if (value === '') {
      if (parameter.required) throw badParameter(parameter.name, 'is required');
      bound[parameter.name] = boundDefault(parameter) ?? null;
      continue;
    }
    bound[parameter.name] = boundValue(parameter, value);
  }
  return bound;
}

/** The text a given value of a parameter is bound as, once it passes every check of the contract. */
function boundValue(parameter: ParameterContract, value: string): string {
  if (value.length > maxParameterLength) {
    throw badParameter(parameter.name, `is longer than ${maxParameterLength} characters`);
  }
  checkValue(parameter, value);
  return fallsBack(parameter, value) ? (parameter.fallback as string) : typedText(parameter, value);
}

/**
 * What is wrong with a parameter's `default` when bound as a caller's value would be (outside its
 * values, its format or its range), in the words of a load refusal; undefined when nothing is.
 */
export function defaultProblem(parameter: ParameterContract): string | undefined {
  if (parameter.default === undefined) return undefined;
  try {
    boundValue(parameter, String(parameter.default));
    return undefined;
  } catch (error) {
    const reason = (error as Error).message.replace(`Parameter '${parameter.name}' `, '');
    return `${parameter.name}'s default ${JSON.stringify(parameter.default)} is refused: it ${reason}`;
  }
}

/** The default a parameter is bound with when absent, as its canonical text; undefined without one. */
export function boundDefault(parameter: ParameterContract): string | undefined {
  return parameter.default === undefined ? undefined : boundValue(parameter, String(parameter.default));
}

/**
 * Whether the value is one the contract accepts but does not declare: it behaves as the declared
 * fallback (the SQL's ELSE), and is bound as that, so `interval=weekly` and `interval=1day` are
 * one query and one cache entry rather than two.
 */
function fallsBack(parameter: ParameterContract, value: string): boolean {
  return (
    parameter.otherValues === 'fallback' &&
    parameter.values !== undefined &&
    !parameter.values.includes(value)
  );
}

function checkValue(parameter: ParameterContract, value: string): void {
  if (parameter.values && parameter.otherValues === 'reject' && !parameter.values.includes(value)) {
    throw badParameter(parameter.name, `must be one of ${parameter.values.join(', ')} (got '${value}')`);
  }
  if (parameter.format === 'iso8601' && !isIsoTimestamp(value)) throw badTimestamp(parameter.name, value);
  if (parameter.format === 're2') checkRe2(parameter.name, value);
}

const int64 = { min: -(2n ** 63n), max: 2n ** 63n - 1n };

/**
 * The canonical text of a typed value, which the engines bind with its type: `007` and `7` are
 * one integer, `1.50` and `1.5` one number, so they are one query and one cache entry.
 */
function typedText(parameter: ParameterContract, value: string): string {
  switch (parameter.type) {
    case 'integer': {
      const integer = /^[+-]?\d+$/.test(value) ? BigInt(value) : undefined;
      if (integer === undefined || integer < int64.min || integer > int64.max) {
        throw badParameter(parameter.name, `must be a whole number within INT64 (got '${value}')`);
      }
      checkRange(
        parameter,
        value,
        (bound) => integer < BigInt(bound),
        (bound) => integer > BigInt(bound),
      );
      return integer.toString();
    }
    case 'number': {
      const number = /^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(value) ? Number(value) : Number.NaN;
      if (!Number.isFinite(number))
        throw badParameter(parameter.name, `must be a finite number (got '${value}')`);
      checkRange(
        parameter,
        value,
        (bound) => number < bound,
        (bound) => number > bound,
      );
      return String(number);
    }
    case 'boolean': {
      const lower = value.toLowerCase();
      if (lower !== 'true' && lower !== 'false')
        throw badParameter(parameter.name, `must be true or false (got '${value}')`);
      return lower;
    }
    case 'timestamp':
      if (!isIsoTimestamp(value)) throw badTimestamp(parameter.name, value);
      return value;
    default:
      return value;
  }
}

/** Refuses a number outside the contract's `min` and `max`, naming both where both are set. */
function checkRange(
  parameter: ParameterContract,
  value: string,
  below: (min: number) => boolean,
  above: (max: number) => boolean,
): void {
  const { min, max } = parameter;
  if ((min === undefined || !below(min)) && (max === undefined || !above(max))) return;
  const range =
    min !== undefined && max !== undefined
      ? `from ${min} to ${max}`
      : min !== undefined
        ? `at least ${min}`
        : `at most ${max}`;
  throw badParameter(parameter.name, `must be ${range} (got '${value}')`);
}

function badTimestamp(name: string, value: string) {
  return badParameter(
    name,
    `must be an ISO 8601 timestamp from 0001-01-01 to 9999-12-31 UTC, such as 2024-01-31T12:00:00Z or 2024-01-31T14:00:00+02:00 (got '${value}')`,
  );
}

// Compiling a pattern with RE2JS costs more than the rest of a cached call together, and callers
// repeat the same few patterns; the verdict depends on the pattern alone, so it is remembered.
// Bounded, so a client sending ever new patterns cannot grow it (2048 characters each at most).
const noProblem = '';
const re2Problems = new LRUCache<string, string>({ max: 1024 });

/**
 * Checks a pattern in the RE2 syntax both engines run. RE2JS follows current RE2, which also reads
 * `(?<name>...)`; DuckDB's bundled RE2 predates that form, so it is refused here with the spelling
 * every RE2 reads, rather than failing later inside the engine.
 */
function checkRe2(name: string, pattern: string): void {
  let problem = re2Problems.get(pattern);
  if (problem === undefined) {
    problem = re2Problem(pattern);
    re2Problems.set(pattern, problem);
  }
  if (problem !== noProblem) throw badParameter(name, problem);
}

/** What is wrong with a pattern, in the words of a BAD_PARAMETER message, or `noProblem`. */
function re2Problem(pattern: string): string {
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(pattern);
  } catch (error) {
    return `is not a valid RE2 regular expression: ${(error as Error).message}`;
  }
  if (/\(\?<[^=!]/.test(pattern)) return 'writes a named group as (?<name>...); write it as (?P<name>...)';
  return re2SizeProblem(compiled) ?? noProblem;
}

// The forms both engines read the same way: a date, or a date and time to at most microseconds,
// with an optional `Z` or `±hh:mm` offset (none means UTC).
const isoTimestamp =
  /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,6})?)?(?:Z|([+-])(\d{2}):(\d{2}))?)?$/;

// BigQuery's TIMESTAMP range in whole seconds, 0001-01-01 00:00:00 to 9999-12-31 23:59:59 UTC
// (https://cloud.google.com/bigquery/docs/reference/standard-sql/data-types#timestamp_type).
const earliestMs = -62_135_596_800_000;
const latestMs = 253_402_300_799_000;

/**
 * Whether `value` is an ISO 8601 timestamp of a real calendar day and time of day, within
 * BigQuery's TIMESTAMP range once its offset is applied (BigQuery refuses a value outside it).
 */
export function isIsoTimestamp(value: string): boolean {
  const match = isoTimestamp.exec(value);
  if (!match) return false;
  const sign = match[7] === '-' ? -1 : 1;
  const [year, month, day, hour = 0, minute = 0, second = 0, , offsetHours = 0, offsetMinutes = 0] = match
    .slice(1)
    .map((part) => (part === undefined ? undefined : Number(part)));
  // setUTCFullYear, unlike Date.UTC, keeps the years 0-99 as they are.
  const date = new Date(0);
  date.setUTCFullYear(year as number, (month as number) - 1, day as number);
  const valid =
    date.getUTCFullYear() === year &&
    date.getUTCMonth() === (month as number) - 1 &&
    date.getUTCDate() === day &&
    (hour as number) < 24 &&
    (minute as number) < 60 &&
    (second as number) < 60 &&
    (offsetHours as number) < 24 &&
    (offsetMinutes as number) < 60;
  if (!valid) return false;
  date.setUTCHours(
    hour as number,
    (minute as number) - sign * ((offsetHours as number) * 60 + (offsetMinutes as number)),
    second as number,
  );
  return date.getTime() >= earliestMs && date.getTime() <= latestMs;
}
