import { GraphQLScalarType, Kind, print } from 'graphql';
import { DateTimeResolver, JSONResolver } from 'graphql-scalars';
import type { ColumnType, EngineValue } from '../engines/query-engine.js';
import type { QuerygateBuilder } from './builder.js';

// graphql-scalars' DateTime checks RFC 3339 but turns values into Dates, which keep only
// milliseconds. Log timestamps carry microseconds (REST returns them whole), so this DateTime
// validates with graphql-scalars and keeps the text, normalised to at most six fraction digits.
const fullPrecision = /^(\d{4}-\d{2}-\d{2})[Tt](\d{2}:\d{2}:\d{2})(?:\.(\d+))?([Zz]|[+-]\d{2}:\d{2})$/;

function parseDateTime(value: unknown): string {
  // graphql-scalars refuses invalid Dates and non-strings with its own messages.
  if (typeof value !== 'string') return (DateTimeResolver.parseValue(value) as Date).toISOString();
  // Throws graphql-scalars' own message for anything that is not an RFC 3339 date-time.
  DateTimeResolver.parseValue(value);
  const match = fullPrecision.exec(value);
  if (!match) return DateTimeResolver.parseValue(value).toISOString();
  const [, date, time, fraction, offset = 'Z'] = match;
  const micros = fraction ? `.${fraction.slice(0, 6)}` : '';
  return `${date}T${time}${micros}${offset.toUpperCase()}`;
}

export const DateTimeScalar = new GraphQLScalarType<string, string>({
  name: 'DateTime',
  description:
    'A date and time in ISO 8601 (RFC 3339), such as 2007-12-03T10:15:30Z or 2007-12-03T10:15:30.123456+02:00. ' +
    'Results are always in UTC with up to six fraction digits (microseconds).',
  // Results are already normalised by dateTimeText; only other values need the full check.
  serialize: (value) =>
    typeof value === 'string' && fullPrecision.test(value) ? value : parseDateTime(value),
  parseValue: (value) => parseDateTime(value),
  // A plain Error (not a GraphQLError) lets graphql-js say where and which type: 'Expected value
  // of type "DateTime", found ...' with the literal's location.
  parseLiteral: (ast) => {
    if (ast.kind !== Kind.STRING)
      throw new TypeError(`DateTime cannot represent a non-string value: ${print(ast)}`);
    try {
      return parseDateTime(ast.value);
    } catch (error) {
      throw new TypeError((error as Error).message);
    }
  },
});

/** Adds the DateTime and JSON scalars to a schema's builder. */
export function addScalars(builder: QuerygateBuilder): void {
  builder.addScalarType('DateTime', DateTimeScalar);
  builder.addScalarType('JSON', JSONResolver);
}

/**
 * The DateTime text of an engine timestamp: TIMESTAMP values are integer microseconds since the
 * epoch, DATETIME values civil `YYYY-MM-DDTHH:MM:SS[.ffffff]` that the saved queries compute in UTC.
 * Either way the text is UTC (`Z`) and exact to the microsecond.
 */
export function dateTimeText(value: EngineValue, type: ColumnType | undefined): string {
  if (type === 'DATETIME' && typeof value === 'string') return `${value}Z`;
  if (typeof value === 'number' || typeof value === 'bigint') {
    const micros = BigInt(value);
    const seconds = micros / 1_000_000n - (micros % 1_000_000n < 0n ? 1n : 0n);
    const fraction = micros - seconds * 1_000_000n;
    const whole = new Date(Number(seconds) * 1000).toISOString().slice(0, 19);
    // Only the fraction digits that carry information: .5, .123, .000001.
    const digits = String(fraction).padStart(6, '0').replace(/0+$/, '');
    return digits === '' ? `${whole}Z` : `${whole}.${digits}Z`;
  }
  throw new TypeError(`Cannot read ${JSON.stringify(String(value))} of type ${type} as a timestamp`);
}

/** A JSON-safe copy of an engine value: INT64 beyond 2^53 (bigint) becomes its decimal string. */
export function jsonValue(value: EngineValue): unknown {
  if (typeof value === 'bigint') return value.toString();
  if (Array.isArray(value)) return value.map(jsonValue);
  if (value !== null && typeof value === 'object') {
    const copy: Record<string, unknown> = {};
    // defineProperty, so a metadata field named __proto__ stays a field.
    for (const [key, item] of Object.entries(value)) {
      Object.defineProperty(copy, key, {
        value: jsonValue(item),
        enumerable: true,
        writable: true,
        configurable: true,
      });
    }
    return copy;
  }
  return value;
}
