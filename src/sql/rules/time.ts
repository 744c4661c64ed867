import {
  type FunctionCall,
  literalArgument,
  nowParameter,
  quoteString,
  type RuleTable,
  raise,
  rule,
  unsupported,
} from './rule.js';
import { formatTime, parseFormat } from './time-format.js';
import { fromCivil, hasFixedOffset, once, toCivil, type Zone } from './time-zone.js';

/**
 * DATE, DATETIME and TIMESTAMP functions. The types map as: TIMESTAMP → TIMESTAMP holding UTC
 * (the session time zone is UTC), DATETIME → TIMESTAMPTZ, DATE → DATE. TIMESTAMPTZ is the one
 * DuckDB type that holds a DATETIME's microseconds over its range (0001 to 9999; TIMESTAMP_NS,
 * used before, ends in 2262) and that `typeof` and a result's column type tell from TIMESTAMP,
 * so results print as BigQuery's civil DATETIME; DuckDB reads it in the session zone, UTC, where
 * civil and instant arithmetic agree. A store's DATETIME column is a TIMESTAMPTZ too (a store
 * written before holds TIMESTAMP_NS, migrated at open: storage/table-migration.ts).
 */

/**
 * A DATETIME (TIMESTAMPTZ) from the SQL of a DATE or a TIMESTAMP (a civil time), and the civil
 * TIMESTAMP of a DATETIME (or a DATE or TIMESTAMP): through the microseconds since the epoch,
 * which DuckDB reads and writes without ICU's calendar. A CAST between TIMESTAMP and TIMESTAMPTZ,
 * and date_trunc or INTERVAL arithmetic on a TIMESTAMPTZ, go through that calendar even in UTC:
 * 5M rows cast 860 ms that way, 37 ms this (a TIMESTAMP_NS cast, before, 41 ms). Neither reads
 * text: a STRING literal or parameter is cast first (function-call.ts coerces those).
 */
export const datetimeOf = (civil: string) => `make_timestamptz(epoch_us(${civil}))`;
export const civilOf = (datetime: string) => `make_timestamp(epoch_us(${datetime}))`;

/**
 * The ranges of BigQuery's DATE and TIMESTAMP (data-types.md: 0001-01-01 to 9999-12-31, a TIMESTAMP
 * to 23:59:59.999999 UTC). DuckDB's reach far wider, so a value moved past them is checked here.
 */
const valueRange = {
  date: ["DATE '0001-01-01'", "DATE '9999-12-31'"],
  datetime: ["TIMESTAMPTZ '0001-01-01 00:00:00'", "TIMESTAMPTZ '9999-12-31 23:59:59.999999'"],
  timestamp: ["TIMESTAMP '0001-01-01 00:00:00'", "TIMESTAMP '9999-12-31 23:59:59.999999'"],
} as const;

type RangedKind = keyof typeof valueRange;

/**
 * DATE_ADD/SUB and TIMESTAMP_ADD/SUB's `result`, or BigQuery's error where it falls outside the
 * type's range, which DuckDB would answer as a value BigQuery never returns. The words are
 * ZetaSQL's (date_time_util.cc MakeAddDateOverflowError and its kin: "Adding 1 DAY to date
 * 9999-12-31 causes overflow"), the count and part read from an `INTERVAL n PART` literal; of an
 * INTERVAL computed or passed as a parameter the count is not at hand, and the message names the
 * range instead.
 */
function inRange(kind: RangedKind, sign: '+' | '-', result: string, call: FunctionCall): string {
  const literal = /^INTERVAL \((-?\d+)\) (\w+)$/.exec(call.args[1] ?? '');
  const message = literal
    ? `${quoteString(`${sign === '+' ? 'Adding' : 'Subtracting'} ${literal[1]} ${literal[2]} ${sign === '+' ? 'to' : 'from'} ${kind} `)} || ${movedText(kind, call.args[0] as string)} || ' causes overflow'`
    : quoteString(
        `${call.name.toUpperCase()} result is out of the ${kind.toUpperCase()} range (0001-01-01 to 9999-12-31)`,
      );
  return rangeChecked(kind, result, raise(call, message));
}

/**
 * The DATE, DATETIME or TIMESTAMP moved, as BigQuery's CAST AS STRING writes it in the overflow
 * message: a DATE as DuckDB writes it too (0001-01-01); a DATETIME as its civil time, its fraction
 * cut to zero, three or six digits by its trailing zeros; a TIMESTAMP the same in UTC with `+00`.
 * value-forms.ts bigQueryTextSql writes any type so, in 1.6 KB of SQL (one in each checked call
 * made logs.all's retention CASE 10 KB; 3 KB now). Read once, as a lambda's argument: it may be
 * a correlated subquery. A DATETIME is a TIMESTAMPTZ at UTC, so its TIMESTAMP is its civil time.
 */
function movedText(kind: RangedKind, value: string): string {
  if (kind === 'date') return `CAST(${value} AS VARCHAR)`;
  const fraction = `CASE WHEN microsecond(v) % 1000000 = 0 THEN '' WHEN microsecond(v) % 1000 = 0 THEN strftime(v, '.%g') ELSE strftime(v, '.%f') END`;
  const zone = kind === 'timestamp' ? ` || '+00'` : '';
  return `list_transform([CAST(${value} AS TIMESTAMP)], v -> strftime(v, '%Y-%m-%d %H:%M:%S') || ${fraction}${zone})[1]`;
}

/**
 * `result` (SQL of a DATE or TIMESTAMP) where it lies in BigQuery's range, else `outside` (SQL:
 * an error() or NULL).
 */
export function rangeChecked(kind: RangedKind, result: string, outside: string): string {
  const [low, high] = valueRange[kind];
  // Written out thrice rather than bound once in a lambda: DuckDB folds this CASE of a constant
  // (`TIMESTAMP_SUB(CURRENT_TIMESTAMP(), INTERVAL 1 DAY)`) into one, so a filter on it stays a
  // constant comparison in the scan that prunes row groups (EXPLAIN: `ts>'...'`); the lambda kept
  // it an expression filter (`(ts > array_extract(list_transform(...`).
  return `CASE WHEN ${result} < ${low} OR ${result} > ${high} THEN ${outside} ELSE ${result} END`;
}

const weekdays = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'];

/**
 * BigQuery weeks start on Sunday (WEEK) or the named day (WEEK(<WEEKDAY>)); DuckDB's start on
 * Monday. Moving a value forward by this many days moves its week's first day onto a Monday.
 */
function weekShift(part: string): number | undefined {
  if (part === 'isoweek') return 0;
  if (part === 'week') return 1;
  const match = /^week\((\w+)\)$/.exec(part);
  if (!match) return undefined;
  const day = weekdays.indexOf(match[1] as string);
  if (day < 0) throw unsupported(`date part ${part.toUpperCase()}`);
  return (1 - day + 7) % 7;
}

const shifted = (value: string, days: number) => (days === 0 ? value : `(${value} + INTERVAL ${days} DAY)`);

const truncParts = new Set([
  'microsecond',
  'millisecond',
  'second',
  'minute',
  'hour',
  'day',
  'month',
  'quarter',
  'year',
  'isoyear',
]);

/** A civil time (or date) truncated to `part`. */
function truncCivil(value: string, part: string | undefined): string {
  if (part === undefined) throw unsupported('a TRUNC without a literal date part');
  if (truncParts.has(part)) return `date_trunc('${part}', ${value})`;
  const shift = weekShift(part);
  if (shift === undefined) throw unsupported(`truncating to ${part.toUpperCase()}`);
  if (shift === 0) return `date_trunc('week', ${value})`;
  return `(date_trunc('week', ${shifted(value, shift)}) - INTERVAL ${shift} DAY)`;
}

/** The parts ZetaSQL truncates a TIMESTAMP to by taking time off the instant. */
const elapsedParts = new Set(['hour', 'minute', 'second', 'millisecond', 'microsecond']);

/**
 * TIMESTAMP_TRUNC (and DATE_TRUNC of a TIMESTAMP) in `zone`, as ZetaSQL's TimestampTrunc
 * (date_time_util.cc): to HOUR or MINUTE (or a smaller part) the instant less what the civil time
 * it shows in the zone has past the part (so the second 01:30 of a day the clock goes back is
 * truncated to the second 01:00); to a larger part the instant at which the zone shows the
 * truncated civil time. In UTC or a fixed offset the two agree, and the civil time truncated is
 * the cheaper.
 *
 * The truncated civil time is read as ICU reads it, the later instant where it is repeated: only
 * in the zones whose clocks go back across midnight (America/Havana, Atlantic/Azores) does a day
 * start twice, and the earlier reading's second ICU conversion doubles the cost of the
 * `TIMESTAMP_TRUNC(ts, DAY, zone)` users group big tables by (5M rows on one thread: 10.4 s against
 * 19.2 s).
 */
function truncInstant(value: string, part: string | undefined, zone: Zone | undefined): string {
  if (part === undefined || !elapsedParts.has(part) || hasFixedOffset(zone))
    return fromCivil(truncCivil(toCivil(value, zone), part), zone, 'later');
  return once(value, '__trunc_instant', (instant) =>
    once(
      toCivil(instant, zone),
      '__trunc_civil',
      (civil) => `(${instant} - (${civil} - ${truncCivil(civil, part)}))`,
    ),
  );
}

/** The DuckDB type of an argument where the text or the store's schema tells it. */
function scalarType(call: FunctionCall, index: number): string | undefined {
  if (call.kinds[index] === 'date') return 'DATE';
  const shape = call.shapeOf(index);
  return 'scalar' in shape ? shape.scalar : undefined;
}

/**
 * BigQuery's text of a TIMESTAMP (STRING(ts[, zone]), CAST AS STRING): the civil time in the
 * zone (UTC by default), with zero, three or six fractional digits as the value needs, and the
 * zone's offset at that instant as ±HH, or ±HH:MM where it has minutes
 * (ZetaSQL's ConvertTimestampMicrosToStringWithTruncation). The instant is read once, as a
 * lambda's argument.
 */
export function timestampTextSql(instant: string, zone: Zone | undefined): string {
  const civil = toCivil('__text_instant', zone);
  const micros = `(microsecond(${civil}) % 1000000)`;
  const fraction = `CASE WHEN ${micros} = 0 THEN '' WHEN ${micros} % 1000 = 0 THEN '.' || lpad(CAST(${micros} // 1000 AS VARCHAR), 3, '0') ELSE '.' || lpad(CAST(${micros} AS VARCHAR), 6, '0') END`;
  const minutes = `((epoch_us(${civil}) - epoch_us(__text_instant)) // 60000000)`;
  const two = (sql: string) => `lpad(CAST(${sql} AS VARCHAR), 2, '0')`;
  const offset = `CASE WHEN ${minutes} < 0 THEN '-' ELSE '+' END || ${two(`abs(${minutes}) // 60`)} || CASE WHEN abs(${minutes}) % 60 = 0 THEN '' ELSE ':' || ${two(`abs(${minutes}) % 60`)} END`;
  return `list_transform([${instant}], __text_instant -> strftime(${civil}, '%Y-%m-%d %H:%M:%S') || ${fraction} || ${offset})[1]`;
}

export function zoneArgument(call: FunctionCall, index: number): Zone | undefined {
  const sql = call.args[index];
  return sql === undefined ? undefined : { sql, literal: call.literals[index] };
}

export const diffParts = new Set(['microsecond', 'millisecond', 'second', 'minute', 'hour', 'day']);

/** DATE_DIFF and DATETIME_DIFF count the part boundaries between the two, as DuckDB's date_diff does but for weeks. */
function boundaryDiff(later: string, earlier: string, part: string | undefined, call: FunctionCall): string {
  if (part === undefined) throw unsupported(`${call.name.toUpperCase()} needs a literal date part`);
  if (truncParts.has(part)) return `date_diff('${part}', ${earlier}, ${later})`;
  if (weekShift(part) === undefined) throw unsupported(`${call.name.toUpperCase()} by ${part.toUpperCase()}`);
  // DuckDB's date_diff('week') counts whole weeks elapsed, not week boundaries: the boundaries
  // are counted as the days between the two weeks' first days, over 7.
  return `(date_diff('day', ${truncCivil(earlier, part)}, ${truncCivil(later, part)}) // 7)`;
}

/** TIMESTAMP_DIFF counts whole elapsed parts (truncating toward zero), DuckDB's date_sub. */
function elapsedDiff(later: string, earlier: string, call: FunctionCall): string {
  const part = call.parts[2];
  if (part === undefined || !diffParts.has(part))
    throw unsupported(
      `${call.name === 'date_diff' ? 'DATE_DIFF of TIMESTAMPs' : 'TIMESTAMP_DIFF'} by ${(part ?? 'a non-literal part').toUpperCase()}`,
    );
  return `date_sub('${part}', ${earlier}, ${later})`;
}

/** Offsets in a timestamp string, which win over a time zone argument. */
const offsetSuffix = String.raw`\d:\d\d(:\d\d(\.\d+)?)?\s*([zZ]|[+-]\d{1,2}(:?\d\d)?)$`;

function timestamp(args: readonly string[], call: FunctionCall): string {
  const [value] = args;
  const zone = zoneArgument(call, 1);
  if (zone === undefined) return `CAST(CAST(${value} AS TIMESTAMPTZ) AS TIMESTAMP)`;
  const civil = fromCivil(`CAST(${value} AS TIMESTAMP)`, zone);
  const literal = call.literals[0];
  if (literal !== undefined) {
    return new RegExp(offsetSuffix).test(literal)
      ? `CAST(CAST(${value} AS TIMESTAMPTZ) AS TIMESTAMP)`
      : civil;
  }
  // A DATETIME is a civil time read in the zone: it is a TIMESTAMPTZ here, whose text ends in the
  // session zone's `+00`, no offset of its own (DuckDB folds typeof when it plans the query).
  return `CASE WHEN typeof(${value}) <> 'TIMESTAMP WITH TIME ZONE' AND regexp_matches(CAST(${value} AS VARCHAR), '${offsetSuffix}') THEN CAST(CAST(${value} AS TIMESTAMPTZ) AS TIMESTAMP) ELSE ${civil} END`;
}

/**
 * PARSE_TIMESTAMP/DATE/DATETIME(format, text [, zone]): the value parsed, or, past BigQuery's
 * range (a year 0, or an offset moving 9999-12-31 past midnight UTC, which DuckDB answers), the
 * error ZetaSQL's ParseTime raises for a time !IsValidTime ("Invalid result from parsing
 * function", parse_date_time.cc). SAFE. answers NULL for both that and text that does not parse.
 */
function parseInRange(kind: RangedKind) {
  const parsed = parse(kind);
  return (args: readonly string[], call: FunctionCall): string => {
    const value = call.safe ? `try(${parsed(args, call)})` : parsed(args, call);
    return rangeChecked(kind, value, raise(call, "'Invalid result from parsing function'"));
  };
}

/**
 * TIMESTAMP_SECONDS/MILLIS/MICROS: `unit` microseconds a count, past BigQuery's range the error
 * ZetaSQL's TimestampFromIntFunction raises (reference_impl/function.cc: the count is checked
 * against kTimestampMin and kTimestampMax, -62135596800000000 and 253402300799999999 microseconds,
 * divided by the unit), read off the count, so no multiplication overflows first.
 */
function timestampFromCount(unit: number) {
  return ([value]: readonly string[], call: FunctionCall): string => {
    const count = `CAST(${value} AS BIGINT)`;
    const low = BigInt('-62135596800000000') / BigInt(unit);
    const high = BigInt('253402300799999999') / BigInt(unit);
    const message = `'Input value ' || ${count} || ' cannot be converted into a TIMESTAMP, because it would be out of the allowed range between -62135596800000000 to 253402300799999999 (microseconds)'`;
    const scaled = unit === 1 ? count : `${count} * ${unit}`;
    return `CASE WHEN ${count} < ${low} OR ${count} > ${high} THEN ${raise(call, message)} ELSE make_timestamp(${scaled}) END`;
  };
}

/** PARSE_TIMESTAMP/DATE/DATETIME/TIME(format, text [, zone]). */
export function parse(kind: 'timestamp' | 'date' | 'datetime' | 'time') {
  return (args: readonly string[], call: FunctionCall): string => {
    const { patterns, hasOffset, hasYear } = parseFormat(literalArgument(call, 0, 'format string'));
    // An offset may be written `Z` (as RFC 3339 and BigQuery's parser allow), which DuckDB's %z
    // does not read: it is given as +00 instead.
    const given = hasOffset ? `regexp_replace(${args[1]}, '([0-9])[Zz]', '\\1+00')` : args[1];
    const text = hasYear ? given : `('1970 ' || ${given})`;
    const formats = patterns.map((pattern) => quoteString(hasYear ? pattern : `%Y ${pattern}`));
    const parsed = `strptime(${text}, ${formats.length === 1 ? formats[0] : `[${formats.join(', ')}]`})`;
    if (kind === 'date') return `CAST(${parsed} AS DATE)`;
    if (kind === 'datetime') return datetimeOf(parsed);
    if (kind === 'time') return `CAST(${parsed} AS TIME)`;
    // %n (nanoseconds, for %E7S to %E9S) parses to TIMESTAMP_NS: a TIMESTAMP holds microseconds.
    const civil = patterns.some((pattern) => pattern.includes('%n'))
      ? `CAST(${parsed} AS TIMESTAMP)`
      : parsed;
    return hasOffset ? `CAST(${parsed} AS TIMESTAMP)` : fromCivil(civil, zoneArgument(call, 2));
  };
}

function formatRule(kind: 'timestamp' | 'date' | 'datetime') {
  return (args: readonly string[], call: FunctionCall): string => {
    const format = literalArgument(call, 0, 'format string');
    const value = args[1] as string;
    // A DATETIME (a STRING literal or parameter is cast to one first, function-call.ts) as its
    // civil TIMESTAMP without ICU's calendar (see datetimeOf).
    if (kind === 'datetime') return formatTime(format, civilOf(value), {});
    if (kind !== 'timestamp') return formatTime(format, `CAST(${value} AS TIMESTAMP)`, {});
    const zone = zoneArgument(call, 2);
    return formatTime(format, toCivil(value, zone), { instant: value, ...(zone ? { zone } : {}) });
  };
}

/**
 * DATE(year, month, day) or DATETIME(year, ..., second) as `made`, failing a year outside 1 to
 * 9999 in ZetaSQL's words (date_time_util.cc's ConstructDate and ConstructDatetime: `Input
 * calculates to invalid date: 10000-01-01`), where DuckDB makes year 10000 or 0; NULL under SAFE.
 * A literal year inside the range is not checked per row. DuckDB's own error for a month or day
 * (or hour) that does not exist is told in the same words (backends/duckdb/value-errors.ts).
 */
function constructed(
  args: readonly string[],
  call: FunctionCall,
  kind: 'date' | 'datetime',
  made: string,
): string {
  const year = call.numbers[0];
  if (year !== undefined && year >= 1 && year <= 9999) return made;
  const shape = kind === 'date' ? '%04d-%02d-%02d' : '%04d-%02d-%02d %04d:%02d:%02d';
  const words = `printf('Input calculates to invalid ${kind}: ${shape}', ${args.join(', ')})`;
  return `CASE WHEN (${args[0]}) < 1 OR (${args[0]}) > 9999 THEN ${raise(call, words)} ELSE ${made} END`;
}

export const timeRules: RuleTable = {
  current_timestamp: rule(0, 0, () => nowParameter),
  current_date: rule(0, 1, (_args, call) => `CAST(${toCivil(nowParameter, zoneArgument(call, 0))} AS DATE)`),
  current_datetime: rule(0, 1, (_args, call) => datetimeOf(toCivil(nowParameter, zoneArgument(call, 0)))),
  timestamp: rule(1, 2, timestamp),
  // DATE(timestamp[, zone]), DATE(datetime), DATE(year, month, day).
  date: rule(1, 3, (args, call) => {
    if (args.length === 3) return constructed(args, call, 'date', `make_date(${args.join(', ')})`);
    if (args.length === 2) return `CAST(${toCivil(args[0] as string, zoneArgument(call, 1))} AS DATE)`;
    return `CAST(${args[0]} AS DATE)`;
  }),
  // DATETIME(timestamp[, zone]), DATETIME(date[, time]) or DATETIME(year, month, day, hour,
  // minute, second).
  datetime: rule(1, 6, (args, call) => {
    if (args.length === 6)
      return datetimeOf(constructed(args, call, 'datetime', `make_timestamp(${args.join(', ')})`));
    if (args.length > 2) throw unsupported('DATETIME takes 1, 2 or 6 arguments');
    // The second argument is a TIME after a DATE and a zone after a TIMESTAMP: told by the
    // first argument's type, or the second's, where the text or the store's schema says it.
    if (args.length === 2 && (scalarType(call, 0) === 'DATE' || scalarType(call, 1) === 'TIME'))
      return datetimeOf(`CAST(${args[0]} AS DATE) + CAST(${args[1]} AS TIME)`);
    // A zone is taken when it is a literal or a parameter (parameters are strings).
    if (args.length === 2 && call.literals[1] === undefined && !args[1]?.startsWith('$'))
      throw unsupported(
        'DATETIME of two values neither known as a DATE and a TIME nor a TIMESTAMP and a literal or parameter time zone',
      );
    // Of a DATE or TIMESTAMP, or a TIMESTAMP read in a named zone (a TIMESTAMP), without ICU's
    // cast; of anything else (text, a value of no known kind) with it.
    const civil = toCivil(args[0] as string, zoneArgument(call, 1));
    const known = call.kinds[0] === 'timestamp' || call.kinds[0] === 'date' || civil.startsWith('timezone(');
    return known ? datetimeOf(civil) : `CAST(${civil} AS TIMESTAMPTZ)`;
  }),
  timestamp_add: rule(2, 2, (args, call) => inRange('timestamp', '+', `(${args[0]} + ${args[1]})`, call), {
    ownSafeForm: true,
  }),
  timestamp_sub: rule(2, 2, (args, call) => inRange('timestamp', '-', `(${args[0]} - ${args[1]})`, call), {
    ownSafeForm: true,
  }),
  datetime_add: rule(
    2,
    2,
    (args, call) => inRange('datetime', '+', datetimeOf(`${civilOf(args[0] as string)} + ${args[1]}`), call),
    { ownSafeForm: true },
  ),
  datetime_sub: rule(
    2,
    2,
    (args, call) => inRange('datetime', '-', datetimeOf(`${civilOf(args[0] as string)} - ${args[1]}`), call),
    { ownSafeForm: true },
  ),
  // DuckDB clamps month arithmetic to the month's last day as BigQuery does.
  date_add: rule(2, 2, (args, call) => inRange('date', '+', `CAST(${args[0]} + ${args[1]} AS DATE)`, call), {
    ownSafeForm: true,
  }),
  date_sub: rule(2, 2, (args, call) => inRange('date', '-', `CAST(${args[0]} - ${args[1]} AS DATE)`, call), {
    ownSafeForm: true,
  }),
  timestamp_diff: rule(3, 3, ([later, earlier], call) =>
    elapsedDiff(later as string, earlier as string, call),
  ),
  // "DATE_DIFF(TIMESTAMP, TIMESTAMP, PART) behaves like TIMESTAMP_DIFF(TIMESTAMP, TIMESTAMP, PART)"
  // (date_functions.md, DATE_DIFF): the arguments' type, where the text or schema shows it, decides.
  date_diff: rule(3, 3, ([later, earlier], call) => {
    const kind = call.kinds[0] ?? call.kinds[1];
    if (kind === 'timestamp') return elapsedDiff(later as string, earlier as string, call);
    if (kind === 'datetime')
      return boundaryDiff(civilOf(later as string), civilOf(earlier as string), call.parts[2], call);
    return boundaryDiff(`CAST(${later} AS DATE)`, `CAST(${earlier} AS DATE)`, call.parts[2], call);
  }),
  datetime_diff: rule(3, 3, ([later, earlier], call) =>
    boundaryDiff(civilOf(later as string), civilOf(earlier as string), call.parts[2], call),
  ),
  timestamp_trunc: rule(2, 3, ([value], call) =>
    truncInstant(value as string, call.parts[1], zoneArgument(call, 2)),
  ),
  // DATE_TRUNC also takes DATETIME and TIMESTAMP (with a zone) and returns the same type; DuckDB's
  // date_trunc always returns TIMESTAMP. The type is taken from the store's schema for a column,
  // or from the text (a literal, a cast, a function); any other value is taken as a DATE,
  // DATE_TRUNC's first signature.
  date_trunc: rule(2, 3, ([value], call) => {
    const kind = call.kinds[0];
    if (kind === 'timestamp') return truncInstant(value as string, call.parts[1], zoneArgument(call, 2));
    if (call.args.length === 3)
      throw unsupported('DATE_TRUNC with a time zone of a value not known to be a TIMESTAMP');
    if (kind === 'datetime') return datetimeOf(truncCivil(civilOf(value as string), call.parts[1]));
    return `CAST(${truncCivil(value as string, call.parts[1])} AS DATE)`;
  }),
  datetime_trunc: rule(2, 2, ([value], call) =>
    datetimeOf(truncCivil(civilOf(value as string), call.parts[1])),
  ),
  // LAST_DAY(d, part) is a DATE: the last day of the part holding d. A week (WEEK is WEEK(SUNDAY),
  // ISOWEEK starts on Monday) ends six days after it starts; an ISO year (364 or 371 days) the day
  // before the next one starts, which holds the day 371 days after this one's start.
  last_day: rule(1, 2, ([value], call) => {
    const part = call.args.length === 2 ? call.parts[1] : 'month';
    const v = value as string;
    if (part === 'month') return `last_day(${v})`;
    if (part === 'year' || part === 'quarter') {
      const length = part === 'year' ? 'INTERVAL 1 YEAR' : 'INTERVAL 3 MONTH';
      return `CAST(date_trunc('${part}', ${v}) + ${length} - INTERVAL 1 DAY AS DATE)`;
    }
    if (part === 'isoyear')
      return `CAST(date_trunc('isoyear', date_trunc('isoyear', ${v}) + INTERVAL 371 DAY) - INTERVAL 1 DAY AS DATE)`;
    if (part !== undefined && weekShift(part) !== undefined)
      return `CAST(${truncCivil(v, part)} + INTERVAL 6 DAY AS DATE)`;
    throw unsupported(`LAST_DAY by ${(part ?? 'a part that is not written out').toUpperCase()}`);
  }),
  format_timestamp: rule(2, 3, formatRule('timestamp')),
  format_date: rule(2, 2, formatRule('date')),
  format_datetime: rule(2, 2, formatRule('datetime')),
  parse_timestamp: rule(2, 3, parseInRange('timestamp'), { ownSafeForm: true }),
  parse_date: rule(2, 2, parseInRange('date'), { ownSafeForm: true }),
  parse_datetime: rule(2, 2, parseInRange('datetime'), { ownSafeForm: true }),
  // UNIX_* round down to whole units (toward the past); DuckDB's epoch_ms truncates toward zero.
  unix_seconds: rule(1, 1, ([value]) => `fdiv(epoch_us(${value}), 1000000)::BIGINT`),
  unix_millis: rule(1, 1, ([value]) => `fdiv(epoch_us(${value}), 1000)::BIGINT`),
  unix_micros: rule(1, 1, ([value]) => `epoch_us(${value})`),
  unix_date: rule(1, 1, ([value]) => `date_diff('day', DATE '1970-01-01', ${value})`),
  timestamp_seconds: rule(1, 1, timestampFromCount(1000000), { ownSafeForm: true }),
  timestamp_millis: rule(1, 1, timestampFromCount(1000), { ownSafeForm: true }),
  timestamp_micros: rule(1, 1, timestampFromCount(1), { ownSafeForm: true }),
  // Past 0001-01-01 to 9999-12-31 (days -719162 to 2932896), ZetaSQL's words (function.cc).
  date_from_unix_date: rule(
    1,
    1,
    ([value], call) =>
      rangeChecked(
        'date',
        `CAST(DATE '1970-01-01' + CAST(${value} AS INTEGER) AS DATE)`,
        raise(call, `'DATE_FROM_UNIX_DATE range is -719162 to 2932896 but saw ' || CAST(${value} AS BIGINT)`),
      ),
    { ownSafeForm: true },
  ),
};

/**
 * EXTRACT(part FROM value [AT TIME ZONE zone]). `field` is the parser's name of the part;
 * `weekStart` the day of WEEK(<day>).
 */
export function extract(field: string, value: string, zone: Zone | undefined, weekStart?: string): string {
  const civil = toCivil(value, zone);
  if (weekStart !== undefined) return weekNumber(civil, weekStart);
  switch (field.toLowerCase()) {
    case 'year':
    case 'quarter':
    case 'month':
    case 'day':
    case 'hour':
    case 'minute':
    case 'second':
    case 'dayofyear':
    case 'isoyear':
      return `${field.toLowerCase()}(${civil})`;
    // BigQuery numbers days 1 (Sunday) to 7; DuckDB's dayofweek is 0 (Sunday) to 6.
    case 'dayofweek':
      return `(dayofweek(${civil}) + 1)`;
    // DuckDB's millisecond and microsecond include the seconds; BigQuery's do not.
    case 'millisecond':
      return `(millisecond(${civil}) % 1000)`;
    case 'microsecond':
      return `(microsecond(${civil}) % 1000000)`;
    case 'isoweek':
      return `week(${civil})`;
    // WEEK: weeks starting on Sunday, days before the year's first Sunday in week 0 (strftime %U).
    case 'week':
      return `CAST(strftime(${civil}, '%U') AS BIGINT)`;
    case 'date':
      return `CAST(${civil} AS DATE)`;
    case 'datetime':
      return `CAST(${civil} AS TIMESTAMPTZ)`;
    case 'time':
      return `CAST(${civil} AS TIME)`;
    default:
      throw unsupported(`EXTRACT(${field.toUpperCase()} ...)`);
  }
}

/**
 * EXTRACT(WEEK(<day>)): "the week number of the date in the range [0, 53]. Weeks begin on
 * WEEKDAY. Dates prior to the first WEEKDAY of the year are in the 0th week" (BigQuery's date
 * functions). That is the count of <day>s from 1 January to the date: the last <day> on or before
 * it falls `back` days earlier, and the <day>s up to that day of the year are (that day + 6) / 7,
 * none when it falls in the year before. WEEK(SUNDAY) is strftime's %U.
 */
function weekNumber(civil: string, weekStart: string): string {
  const day = weekdays.indexOf(weekStart.toLowerCase());
  if (day < 0) throw unsupported(`EXTRACT(WEEK(${weekStart.toUpperCase()}) ...)`);
  const back = `((dayofweek(${civil}) + ${7 - day}) % 7)`;
  return `((dayofyear(${civil}) - ${back} + 6) // 7)`;
}
