import { bigQueryValueFault, type ValueFaultOf } from '../../engines/parameter-value-errors.js';
import { raisedMessage } from '../../sql/raised-errors.js';

/**
 * DuckDB's own words for a run that fails on a value, in BigQuery's, where BigQuery has words for
 * the same failure: ZetaSQL's `Limit requires non-negative count and offset`, `int64 overflow:
 * a * b`, time_zone_util.cc's `Invalid time zone: Mars/Olympus`, and a string CAST cannot read
 * (convert_string.cc's `Bad int64 value: abc`, `Invalid NUMERIC value: abc`, date_time_util.cc's
 * `Invalid date: 'abc'`). Other messages as they are.
 */
export function inBigQueryWords(message: string): string {
  if (/LIMIT\/OFFSET cannot be negative/.test(message)) return 'Limit requires non-negative count and offset';
  const zone = /Unknown TimeZone '([^']*)'/.exec(message);
  if (zone) return `Invalid time zone: ${zone[1]}`;
  const overflow = /Overflow in \w+ of INT64 \((-?\d+) ([-+*]) (-?\d+)\)/.exec(message);
  if (overflow) return `int64 overflow: ${overflow[1]} ${overflow[2]} ${overflow[3]}`;
  const unread = /^Conversion Error: Could not convert string (["'])(.*)\1 to (\w+(?:\(\d+,\d+\))?)/.exec(
    message,
  );
  const words = unread?.[3] === undefined ? undefined : unreadStringWords[unread[3]];
  if (unread && words) return words(unread[2] as string);
  // A CAST to INT64 goes through NUMERIC (to round as BigQuery does), which may not fit INT64.
  const wide = /^Conversion Error: Failed to cast decimal value (-?\d+) to type INT64/.exec(message);
  if (wide) return `Bad int64 value: ${wide[1]}`;
  // A FLOAT64 no DECIMAL holds: past 1e28 or not finite, cast to INT64 (its detour's scale is
  // 10, value-forms.ts) or to NUMERIC (scale 9). ZetaSQL's words (convert.h, numeric_value.cc)
  // write the number as a C++ stream does, in six significant digits.
  const huge =
    /^Conversion Error: Could not cast value (-?(?:\d+\.\d+|inf|nan)) to DECIMAL\(38,(9|10)\)/.exec(message);
  if (huge) {
    const [, text, scale] = huge as unknown as [string, string, string];
    const target = scale === '10' ? 'int64' : 'numeric';
    if (/inf|nan/.test(text))
      return `Illegal conversion of non-finite floating point number to ${target === 'int64' ? 'an integer' : 'numeric'}: ${text.replace('-nan', 'nan')}`;
    return `${target} out of range: ${sixDigits(Number(text))}`;
  }
  // ABS and negation of INT64's least value: ZetaSQL's UnaryMinus (arithmetics.h), the only
  // INT64 whose negation overflows, which DuckDB's words for negation do not name.
  const absolute = /^Out of Range Error: Overflow on abs\((-\d+)\)/.exec(message);
  if (absolute) return `int64 overflow: -${absolute[1]}`;
  if (/^Out of Range Error: Overflow in negation of numeric value/.test(message))
    return 'int64 overflow: --9223372036854775808';
  // NTILE of a count of buckets that is not positive (ZetaSQL's NtileFunction, function.cc).
  if (/^Invalid Input Error: Argument for ntile must be greater than zero/.test(message))
    return 'The N value (number of buckets) for the NTILE function must be positive';
  // PARSE_JSON of text that is no JSON (the extractors of a STRING answer NULL, rules/json.ts):
  // ZetaSQL's words lead its parser's reason, which DuckDB's parser words in its own way.
  const json = /^Invalid Input Error: Malformed JSON at byte (\d+) of input: (.*?)\.\s+Input: /.exec(message);
  if (json) return `Invalid input to PARSE_JSON: ${json[2]} at byte ${json[1]}`;
  // Text that is no date or time, or one of a day or hour that does not exist ('2021-02-30').
  const civil =
    /^Conversion Error: (?:invalid (date|timestamp) field format: "(.*)", expected format|(date|timestamp) field value out of range: "(.*)")/.exec(
      message,
    );
  if (civil) return `Invalid ${civil[1] ?? civil[3]}: '${civil[2] ?? civil[4]}'`;
  // DATE(year, month, day) and TIME(hour, minute, second) of a day or time that does not exist
  // (rules/time.ts): ZetaSQL's ConstructDate and ConstructTime words, their numbers padded.
  const made = /^Conversion Error: (Date|Time) out of range: (-?\d+)([-:])(\d+)[-:](\d+)(?:\.\d+)?$/.exec(
    message,
  );
  if (made) {
    const [, kind, a, separator, b, c] = made as unknown as [string, string, string, string, string, string];
    const first = kind === 'Date' ? a.padStart(4, '0') : a.padStart(2, '0');
    return `Input calculates to invalid ${kind.toLowerCase()}: ${[first, b.padStart(2, '0'), c.padStart(2, '0')].join(separator)}`;
  }
  // PARSE_DATE, PARSE_DATETIME, PARSE_TIMESTAMP, PARSE_TIME run strptime (rules/time-format.ts);
  // ZetaSQL's words for text its format does not read (compliance testdata date.test).
  const unparsed = /^Invalid Input Error: Could not parse string "(.*)" according to format specifier "/.exec(
    message,
  );
  if (unparsed) return `Failed to parse input string "${unparsed[1]}"`;
  // A pattern from the data or a parameter RE2 cannot compile: DuckDB gives RE2's error text
  // alone, which ZetaSQL's regexp.cc puts after its own words.
  const pattern = re2Error.exec(message);
  if (pattern) return `Cannot parse regular expression: ${pattern[1]}`;
  return message;
}

/** A number as absl::StrCat writes a double: %g, six significant digits, `1e+300`. */
function sixDigits(value: number): string {
  const [mantissa, exponent] = value.toPrecision(6).split('e') as [string, string | undefined];
  const trimmed = mantissa.includes('.') ? mantissa.replace(/\.?0+$/, '') : mantissa;
  if (exponent === undefined) return trimmed;
  const power = Number(exponent);
  return `${trimmed}e${power < 0 ? '-' : '+'}${String(Math.abs(power)).padStart(2, '0')}`;
}

/** RE2's error texts (re2.cc's CodeText), with the part of the pattern they quote. */
const re2Error =
  /^Invalid Input Error: ((?:missing \]|missing \)|unexpected \)|invalid escape sequence|invalid character class(?: range)?|trailing \\|no argument for repetition operator|invalid repetition size|bad repetition operator|invalid perl operator|invalid UTF-8|invalid named capture group|pattern too large - compile failed)(?:: .*)?)$/;

/** ZetaSQL's words for a string its CAST to the DuckDB type cannot read (convert_string.cc). */
const unreadStringWords: Readonly<Record<string, (text: string) => string>> = {
  INT64: (text) => `Bad int64 value: ${text}`,
  DOUBLE: (text) => `Bad double value: ${text}`,
  BOOL: (text) => `Bad bool value: ${text}`,
  'DECIMAL(38,9)': (text) => `Invalid NUMERIC value: ${text}`,
  // A value of a type the translation does not know, cast to INT64 (value-forms.ts).
  'DECIMAL(38,10)': (text) => `Bad int64 value: ${text}`,
};

/**
 * What a value can cause, from a DuckDB run's error: every error the translation raises in
 * BigQuery's words (sql/raised-errors.ts: a division by zero, an array index out of bounds, a
 * time moved past its range), and DuckDB's own for a negative LIMIT, an INT64 overflow, an INT64
 * an INTEGER argument cannot hold (a count of days or months, expression-sql.ts), a zone ICU does
 * not know and a time past DuckDB's range; each told in BigQuery's words where it has them.
 */
export const duckDbValueFault: ValueFaultOf = (error) => {
  const raised = raisedMessage(error);
  if (raised !== undefined) {
    const fault = bigQueryValueFault(raised);
    return fault === undefined ? undefined : { fault, message: raised };
  }
  const own = ((error as Error)?.message ?? '').split('\n', 1)[0] ?? '';
  const message = inBigQueryWords(own);
  const fault = bigQueryValueFault(message);
  if (fault !== undefined) return { fault, message };
  if (
    /^Conversion Error: Type INT64 with value -?\d+ can't be cast because the value is out of range/.test(own)
  )
    return { fault: 'overflow', message: own };
  if (/^Conversion Error: Date and time not in timestamp range/.test(own))
    return { fault: 'time-range', message: own };
  return undefined;
};
