import { QuerygateError } from '../errors.js';
import type { ParameterValues, SavedQuery } from './query-engine.js';

/**
 * The failures of a run that a value the caller sent can cause, whatever the engine's words:
 * a negative LIMIT or OFFSET, an INT64 overflow, a division by zero, an array position outside
 * the array (numbers), a time zone neither engine knows (text, as `DATETIME(ts, @time_zone)`
 * takes it), JSON text with a number BigQuery's JSON cannot hold (`PARSE_JSON(@doc)`), a count
 * of seconds, milliseconds, microseconds or days past the range of times (`TIMESTAMP_SECONDS(@s)`),
 * a string a CAST cannot read as its type (`CAST(@s AS INT64)`, `Bad int64 value: abc`), text
 * PARSE_DATE's format does not read (`PARSE_DATE('%Y-%m-%d', @day)`), a pattern RE2 cannot
 * compile (`REGEXP_CONTAINS(x, @pattern)`), text that is no IP address (`NET.IP_FROM_STRING(@ip)`).
 */
export type ValueFault =
  | 'negative-count'
  | 'overflow'
  | 'division-by-zero'
  | 'array-index'
  | 'time-zone'
  | 'time-range'
  | 'json-number'
  | 'unix-range'
  | 'unread-string'
  | 'ip-address'
  | 'unparsed-time'
  | 'bad-pattern'
  | 'query-only';

/** Which failure of a run, in an engine's own terms, is one of these (undefined: none is). */
export type ValueFaultOf = (error: unknown) => { fault: ValueFault; message: string } | undefined;

/**
 * Which of these faults a message in BigQuery's words reports: BigQuery's own (ZetaSQL's
 * `Limit requires non-negative count and offset`, `int64 overflow: a + b`, `division by zero: a / b`,
 * time_zone_util.cc's `Invalid time zone: Mars/Olympus`), and the same words the DuckDB
 * translation raises (sql/raised-errors.ts): an array index out of bounds (value-forms.ts), a
 * DATE or TIMESTAMP moved past its range or an INTERVAL past IntervalValue's bounds (rules/time.ts,
 * expression-sql.ts), PARSE_JSON's number BigQuery's JSON cannot hold (storage/bigquery-json-text.ts),
 * a count of seconds or days past the range of times (rules/time.ts).
 */
export function bigQueryValueFault(message: string): ValueFault | undefined {
  if (/requires non-negative count and offset/i.test(message)) return 'negative-count';
  if (
    /^(?:(?:int64|numeric) (?:overflow|out of range: )|Illegal conversion of non-finite floating point number to )/i.test(
      message,
    )
  )
    return 'overflow';
  if (/^division by zero/.test(message)) return 'division-by-zero';
  if (/^Array index -?\d+ is out of bounds/.test(message)) return 'array-index';
  if (/invalid time zone/i.test(message)) return 'time-zone';
  if (
    /^(?:(?:Adding|Subtracting) .* causes overflow|Input calculates to invalid (?:date|time|datetime): |[\w +-]+ result is out of the \w+ range |Interval field \w+ '-?\d+' is out of range )/.test(
      message,
    )
  )
    return 'time-range';
  if (/^Input number:? \S+ (?:cannot round-trip through string representation|is too long\.)/.test(message))
    return 'json-number';
  if (
    /^(?:Input value -?\d+ cannot be converted into a TIMESTAMP|DATE_FROM_UNIX_DATE range is )/.test(message)
  )
    return 'unix-range';
  if (
    /^(?:Bad \w+ value: |Invalid (?:NUMERIC|BIGNUMERIC) value: |Invalid (?:date|timestamp): '|Failed to decode invalid (?:base64|hexadecimal) string|Invalid input to PARSE_JSON: )/.test(
      message,
    )
  )
    return 'unread-string';
  // ZetaSQL's net.cc: `NET.IP_FROM_STRING() encountered an unparseable IP-address: <text>`.
  if (/encountered an unparseable IP-address: /.test(message)) return 'ip-address';
  if (/^Failed to parse input string "/.test(message)) return 'unparsed-time';
  if (/^Cannot parse regular expression: /.test(message)) return 'bad-pattern';
  // The query's own, blamed on no parameter: a result BigQuery fails to write (an array with a
  // NULL element, as REGEXP_EXTRACT_ALL of a group that took no part gives; two columns of one
  // name), NTILE's count of buckets or a percentile out of its range.
  if (
    /^(?:Array cannot have a null element; |Duplicate column names in the result |The N value \(number of buckets\) for the NTILE function must be positive|Percentile argument must be in \[0, 1\])/.test(
      message,
    )
  )
    return 'query-only';
  return undefined;
}

/** Whether a parameter's value can have caused the fault the engine reported in `message`. */
const causes: Readonly<Record<ValueFault, (value: string, message: string) => boolean>> = {
  // A LIMIT or OFFSET is a literal or a parameter (BigQuery allows nothing else), so a negative
  // count at run time is a negative parameter.
  'negative-count': (value) => value.startsWith('-'),
  'division-by-zero': (value) => Number(value) === 0,
  // Both engines name the position as written: `Array index 7 is out of bounds (overflow)`.
  'array-index': (value, message) =>
    new RegExp(`^Array index ${escaped(value)} is out of bounds`).test(message),
  // Both engines name the operands of an overflow: the parameter is the one whose value is there.
  overflow: (value, message) => new RegExp(`(^|[^\\d.])${escaped(value)}($|[^\\d.])`).test(message),
  // Both engines quote the zone they do not know.
  'time-zone': (value, message) => value !== '' && message.includes(value),
  // A time moved out of the range of times by an INTERVAL: neither engine names the count, so
  // only a parameter the SQL uses as the count is taken for the cause (see placementOnly); a
  // count of 0 moves nothing and makes no INTERVAL too long.
  'time-range': (value) => !/^-?0+$/.test(value),
  // The number is quoted from the text: the parameter whose text holds it.
  // BigQuery's words quote the count: `Input value 253402300800 cannot be converted into a TIMESTAMP`.
  'unix-range': (value, message) => new RegExp(`(^|[^\\d])${escaped(value)}($|[^\\d])`).test(message),
  // BigQuery's words end with the text: `NET.IP_FROM_STRING() encountered an unparseable IP-address: 1.2.3`.
  'ip-address': (value, message) => message.endsWith(`unparseable IP-address: ${value}`),
  'json-number': (value, message) => {
    const number = /^Input number:? (\S+)/.exec(message)?.[1];
    return number !== undefined && value.includes(number);
  },
  // Both engines quote the text a CAST could not read: `Bad int64 value: abc`.
  'unread-string': (value, message) =>
    value !== '' && (message.endsWith(`: ${value}`) || message.endsWith(`: '${value}'`)),
  // ZetaSQL quotes the text PARSE_DATE (or its kin) could not read.
  'unparsed-time': (value, message) => message.endsWith(`"${value}"`),
  // RE2 quotes only the part of the pattern it stopped at: the parameter the SQL reads as a pattern.
  'bad-pattern': (value) => value !== '',
  // The query's own: no value sent is blamed.
  'query-only': () => false,
};

/** The faults blamed on a parameter only where the SQL uses it where the fault arises. */
const placementOnly = new Set<ValueFault>(['time-range', 'bad-pattern']);

const numericTypes = new Set(['INT64', 'FLOAT64']);
/** The parameter types whose values can cause each fault. */
const typesFor: Readonly<Record<ValueFault, ReadonlySet<string>>> = {
  'negative-count': numericTypes,
  overflow: numericTypes,
  'division-by-zero': numericTypes,
  'array-index': new Set(['INT64']),
  'time-zone': new Set(['STRING']),
  'time-range': new Set(['INT64']),
  'json-number': new Set(['STRING']),
  'unix-range': new Set(['INT64']),
  'unread-string': new Set(['STRING']),
  'ip-address': new Set(['STRING']),
  'unparsed-time': new Set(['STRING']),
  'bad-pattern': new Set(['STRING']),
  'query-only': new Set(),
};

/**
 * A run's failure that a numeric parameter's value caused, as the caller's 400 naming that
 * parameter: `top=-1` where the SQL says `LIMIT @top` is a request the caller got wrong, not the
 * engine failing. Undefined when the failure is no such fault, or no parameter's value explains
 * it (an overflow of the data itself stays the engine's error).
 */
export function parameterValueError(
  query: SavedQuery,
  params: ParameterValues,
  error: unknown,
  faultOf: ValueFaultOf,
): QuerygateError | undefined {
  const found = faultOf(error);
  if (found === undefined) return undefined;
  const candidates = Object.entries(params).filter(
    (entry): entry is [string, string] =>
      entry[1] !== null &&
      typesFor[found.fault].has(query.parameterTypes?.[entry[0]] ?? 'STRING') &&
      causes[found.fault](entry[1], found.message),
  );
  // Of two that could have, the one the SQL uses where the fault arises (`LIMIT @top`, `/ @d`).
  const placed = candidates.find(([name]) => placedFor[found.fault](name).test(query.sql));
  const culprit = placed ?? (placementOnly.has(found.fault) ? undefined : candidates[0]);
  if (culprit === undefined) return undefined;
  const [name, value] = culprit;
  return new QuerygateError(
    'BAD_PARAMETER',
    `Parameter '${name}' is ${value}, which ${query.name} cannot run with: ${found.message}`,
    { details: { parameter: name }, cause: error },
  );
}

/** Where in the SQL a parameter stands when it is the one a fault comes from. */
const placedFor: Readonly<Record<ValueFault, (name: string) => RegExp>> = {
  'negative-count': (name) => new RegExp(`\\b(limit|offset)\\s+@${name}\\b`, 'i'),
  'division-by-zero': (name) => new RegExp(`(/\\s*|\\b(div|mod)\\s*\\([^()]*,\\s*)@${name}\\b`, 'i'),
  overflow: (name) => new RegExp(`[*+-]\\s*@${name}\\b|@${name}\\s*[*+-]`),
  'array-index': (name) => new RegExp(`\\[\\s*(?:(?:safe_)?(?:offset|ordinal)\\s*\\(\\s*)?@${name}\\b`, 'i'),
  'time-zone': (name) => new RegExp(`@${name}\\b`),
  'time-range': (name) => new RegExp(`\\binterval\\s+@${name}\\b`, 'i'),
  'json-number': (name) => new RegExp(`\\bparse_json\\s*\\(\\s*@${name}\\b`, 'i'),
  'ip-address': (name) => new RegExp(`\\bip_from_string\\s*\\(\\s*@${name}\\b`, 'i'),
  'unix-range': (name) =>
    new RegExp(`\\b(timestamp_(seconds|millis|micros)|date_from_unix_date)\\s*\\(\\s*@${name}\\b`, 'i'),
  'unread-string': (name) => new RegExp(`\\b(safe_)?cast\\s*\\(\\s*@${name}\\b`, 'i'),
  'unparsed-time': (name) =>
    new RegExp(`\\bparse_(date|datetime|timestamp|time)\\s*\\([^(),]*,\\s*@${name}\\b`, 'i'),
  'bad-pattern': (name) => new RegExp(`\\bregexp_\\w+\\s*\\([^(),]*,\\s*@${name}\\b`, 'i'),
  // No parameter's place: the fault is the query's own.
  'query-only': () => /$^/,
};

function escaped(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
