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

// INT64 whose values may pass 2^31: a decimal string, exact to 64 bits in every JSON client.
// PostGraphile's BigInt is a string for this reason, and Hasura serializes its BigQuery backend's
// INT64 as strings (and Postgres bigint with stringify-numeric-types). graphql-scalars' BigInt
// (and its alias Long) answers a number up to 2^53 and a string beyond, so one field's JSON type
// would depend on its value, which no typed client can read; its SafeInt stops at 2^53, short
// of INT64 (GA4's microsecond timestamps are near 2^51 today, ids use all 64 bits).
const int64Range = { min: -(2n ** 63n), max: 2n ** 63n - 1n };

function int64Text(value: unknown): string {
  let integer: bigint | undefined;
  if (typeof value === 'bigint') integer = value;
  else if (typeof value === 'number' && Number.isSafeInteger(value)) integer = BigInt(value);
  else if (typeof value === 'string' && /^-?\d{1,20}$/.test(value)) integer = BigInt(value);
  if (integer === undefined || integer < int64Range.min || integer > int64Range.max)
    throw new TypeError(`BigInt cannot represent ${JSON.stringify(String(value))}: not a 64-bit integer`);
  return integer.toString();
}

export const BigIntScalar = new GraphQLScalarType<string, string>({
  name: 'BigInt',
  description:
    'A signed 64-bit integer (BigQuery INT64) as a decimal string, such as "1700000000000000": exact beyond 2^53, where JSON numbers are not. Arguments take the string or an integer literal.',
  serialize: int64Text,
  parseValue: int64Text,
  parseLiteral: (ast) => {
    if (ast.kind !== Kind.STRING && ast.kind !== Kind.INT)
      throw new TypeError(`BigInt cannot represent a non-integer value: ${print(ast)}`);
    return int64Text(ast.value);
  },
});

// NUMERIC and BIGNUMERIC: exact decimals, so their text. A GraphQL Float is a double, which
// holds 15-17 significant digits and integers only to 2^53: NUMERIC holds 38 digits (29 before
// the point, 9 after), so Float would round a sum of money. BigQuery's REST API sends these
// types as strings for the same reason; PostGraphile serves Postgres numeric as its string scalar
// BigFloat, and graphql-scalars has no exact decimal. The name says what it is, not whose.
const decimalForm = /^-?\d+(?:\.\d+)?$/;

function decimalText(value: unknown): string {
  if (typeof value === 'string' && decimalForm.test(value)) return value;
  // An integer literal or a number that prints as plain decimal digits is exact as written.
  if (typeof value === 'number' && Number.isFinite(value) && decimalForm.test(String(value)))
    return String(value);
  throw new TypeError(
    `Decimal cannot represent ${JSON.stringify(value)}: expected decimal text such as "1234.50"`,
  );
}

export const DecimalScalar = new GraphQLScalarType<string, string>({
  name: 'Decimal',
  description:
    'An exact decimal number (BigQuery NUMERIC or BIGNUMERIC) as its decimal text, such as "1234567890123456789.123456789": ' +
    'every digit kept, where a Float (a double) keeps 15 to 17. Read it with a decimal type, not a float, to stay exact.',
  serialize: decimalText,
  parseValue: decimalText,
  parseLiteral: (ast) => {
    if (ast.kind !== Kind.STRING && ast.kind !== Kind.INT && ast.kind !== Kind.FLOAT)
      throw new TypeError(`Decimal cannot represent a non-numeric value: ${print(ast)}`);
    return decimalText(ast.kind === Kind.STRING ? ast.value : Number(ast.value));
  },
});

/**
 * A scalar of text in one of BigQuery's JSON forms, checked both ways. Named as Hasura's BigQuery
 * backend names these types (Date, Time, Bytes). graphql-scalars' LocalDate has DATE's form,
 * but its LocalTime stops at milliseconds where TIME keeps microseconds, and its Byte turns
 * values into Buffers; one rule for the three keeps the text REST sends.
 */
function textScalar(name: string, description: string, form: RegExp, example: string) {
  const check = (value: unknown): string => {
    if (typeof value === 'string' && form.test(value)) return value;
    throw new TypeError(
      `${name} cannot represent ${JSON.stringify(value)}: expected text such as ${example}`,
    );
  };
  return new GraphQLScalarType<string, string>({
    name,
    description,
    serialize: check,
    parseValue: check,
    parseLiteral: (ast) => {
      if (ast.kind !== Kind.STRING)
        throw new TypeError(`${name} cannot represent a non-string value: ${print(ast)}`);
      return check(ast.value);
    },
  });
}

export const DateScalar = textScalar(
  'Date',
  'A calendar date (BigQuery DATE) as YYYY-MM-DD, such as 2024-01-02.',
  /^\d{4}-\d{2}-\d{2}$/,
  '2024-01-02',
);
export const TimeScalar = textScalar(
  'Time',
  'A time of day without a date or zone (BigQuery TIME) as HH:MM:SS with up to six fraction digits, such as 10:11:12.345678.',
  /^\d{2}:\d{2}:\d{2}(\.\d{1,6})?$/,
  '10:11:12.345678',
);
// BigQuery DATETIME is civil time: a calendar date and a wall-clock time with no zone, so no
// instant. Answering it as DateTime (RFC 3339, which needs an offset) would make up a zone. Named
// LocalDateTime, the name graphql-scalars and java.time give a zoneless date-time and the one
// GraphQL clients map to a local date-time type; written here rather than taken from
// graphql-scalars because its LocalDateTime also accepts a zone and stops short of saying how
// many fraction digits, where BigQuery's form is exact: six at most, no zone, as REST sends it.
const civilForm = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d{1,6})?$/;
export const LocalDateTimeScalar = textScalar(
  'LocalDateTime',
  'A civil date and time with no time zone (BigQuery DATETIME) as YYYY-MM-DDTHH:MM:SS with up to six fraction digits, such as 2024-01-02T03:04:05.5: a wall-clock reading, not an instant, so never with Z or an offset.',
  civilForm,
  '2024-01-02T03:04:05.5',
);
export const BytesScalar = textScalar(
  'Bytes',
  'Bytes (BigQuery BYTES) in standard base64, as BigQuery and REST send them, such as YWJj.',
  /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/,
  'YWJj',
);

/** Adds querygate's scalars to a schema's builder. */
export function addScalars(builder: QuerygateBuilder): void {
  builder.addScalarType('DateTime', DateTimeScalar);
  builder.addScalarType('LocalDateTime', LocalDateTimeScalar);
  builder.addScalarType('Date', DateScalar);
  builder.addScalarType('Time', TimeScalar);
  builder.addScalarType('Bytes', BytesScalar);
  builder.addScalarType('BigInt', BigIntScalar);
  builder.addScalarType('Decimal', DecimalScalar);
  builder.addScalarType('JSON', JSONResolver);
}

/**
 * The DateTime text of an engine timestamp: TIMESTAMP values are integer microseconds since the
 * epoch, DATETIME values civil `YYYY-MM-DDTHH:MM:SS[.ffffff]`, read as UTC only for a column whose
 * contract declares it computed in UTC (`graphql: { type: DateTime }`, as the shipped buckets'
 * `DATETIME(bucket, 'UTC')`). Either way the text is UTC (`Z`) and exact to the microsecond.
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
