import { describe, expect, it } from 'vitest';
import { duckDbValueFault } from '../../src/backends/duckdb/value-errors.js';
import {
  parameterValueError,
  type ValueFault,
  type ValueFaultOf,
} from '../../src/engines/parameter-value-errors.js';
import type { SavedQuery } from '../../src/engines/query-engine.js';

const query: SavedQuery = {
  id: 'q',
  name: 'test.query',
  sql: 'select x * @scale as y, div(x, @per) as z, datetime(ts, @zone) as d from t where x >= @min_x and label = @label limit @top offset @skip',
  maxRows: 10,
  parameterTypes: {
    scale: 'INT64',
    per: 'INT64',
    min_x: 'INT64',
    top: 'INT64',
    skip: 'INT64',
    label: 'STRING',
    zone: 'STRING',
  },
};

/** An engine that reports this fault with this message for every error. */
const reports =
  (fault: ValueFault, message: string): ValueFaultOf =>
  () => ({ fault, message });

/** The parameter the refusal names and its code; undefined when there is no refusal. */
function refused(params: Record<string, string | null>, fault: ValueFault, message: string) {
  const error = parameterValueError(query, params, new Error(message), reports(fault, message));
  return error && { code: error.code, parameter: error.details?.parameter, message: error.message };
}

describe('a run that fails on a value the caller sent', () => {
  it('blames a time out of range only on an INT64 parameter the SQL uses as an INTERVAL count', () => {
    const message = 'Conversion Error: Date and time not in timestamp range';
    // The query above has INT64 parameters but none in an INTERVAL: the data may be the cause.
    expect(refused({ scale: '9', top: '5' }, 'time-range', message)).toBeUndefined();
    const moving = {
      ...query,
      sql: 'select timestamp_add(ts, interval @scale microsecond) as t from t limit @top',
    };
    const error = parameterValueError(
      moving,
      { scale: '9', top: '5' },
      new Error(message),
      reports('time-range', message),
    );
    expect(error?.details?.parameter).toBe('scale');
  });

  it('names the negative parameter the SQL uses as a LIMIT or OFFSET', () => {
    // min_x is negative too, but it is no count: the one after OFFSET is named.
    expect(
      refused({ min_x: '-3', top: '5', skip: '-1' }, 'negative-count', 'LIMIT/OFFSET cannot be negative'),
    ).toEqual({
      code: 'BAD_PARAMETER',
      parameter: 'skip',
      message: "Parameter 'skip' is -1, which test.query cannot run with: LIMIT/OFFSET cannot be negative",
    });
  });

  it('names the zero parameter the SQL divides by', () => {
    expect(
      refused({ min_x: '0', per: '0' }, 'division-by-zero', 'division by zero: 3000 / 0')?.parameter,
    ).toBe('per');
  });

  it('names the parameter written as the OFFSET or ORDINAL the error names', () => {
    const subscripted: SavedQuery = {
      ...query,
      sql: 'select parts[offset(@first)] as a, parts[ordinal(@second)] as b from t limit @top',
      parameterTypes: { first: 'INT64', second: 'INT64', top: 'INT64' },
    };
    const message = 'Array index 4 is out of bounds (overflow)';
    const error = parameterValueError(
      subscripted,
      // top is 4 too, but no subscript: the one written as ORDINAL(@second) is named.
      { top: '4', first: '0', second: '4' },
      new Error(message),
      reports('array-index', message),
    );
    expect(error?.details?.parameter).toBe('second');
    // A position the caller did not send is the data's, not the caller's.
    expect(
      parameterValueError(
        subscripted,
        { first: '0', second: '1' },
        new Error(message),
        reports('array-index', message),
      ),
    ).toBeUndefined();
  });

  it('names the parameter whose value the overflow message shows', () => {
    const message = 'int64 overflow: 1250 * 9223372036854775807';
    expect(refused({ min_x: '1250', scale: '9223372036854775807' }, 'overflow', message)?.parameter).toBe(
      'scale',
    );
  });

  it('names the text parameter holding the time zone the engine does not know', () => {
    // DuckDB (ICU): "Unknown TimeZone 'Mars/Olympus'!"; the other text parameter is not in it.
    expect(
      refused({ label: 'Europe', zone: 'Mars/Olympus' }, 'time-zone', "Unknown TimeZone 'Mars/Olympus'!"),
    ).toEqual({
      code: 'BAD_PARAMETER',
      parameter: 'zone',
      message:
        "Parameter 'zone' is Mars/Olympus, which test.query cannot run with: Unknown TimeZone 'Mars/Olympus'!",
    });
    // A number is never a time zone, even when its digits are in the message.
    expect(refused({ top: '5' }, 'time-zone', "Unknown TimeZone '5'!")).toBeUndefined();
  });

  it('names the text parameter PARSE_DATE could not read, or read as a pattern RE2 cannot compile', () => {
    const parsing = {
      ...query,
      sql: "select parse_date('%Y-%m-%d', @day) as d, regexp_contains(name, @pattern) as p from t",
    };
    const blamed = (params: Record<string, string>, message: string) =>
      parameterValueError(parsing, params, new Error(message), duckDbValueFault)?.details?.parameter;
    // DuckDB's own words, told in ZetaSQL's (`Failed to parse input string "nope"`, regexp.cc's
    // `Cannot parse regular expression: missing ): (`).
    expect(
      blamed(
        { day: 'nope', pattern: 'a' },
        'Invalid Input Error: Could not parse string "nope" according to format specifier "%Y-%m-%d"',
      ),
    ).toBe('day');
    expect(blamed({ day: '2024-01-01', pattern: '(' }, 'Invalid Input Error: missing ): (')).toBe('pattern');
    // A pattern that is not a parameter's: no parameter is blamed.
    const column = { ...parsing, sql: 'select regexp_contains(name, pattern) as p from t where day = @day' };
    expect(
      parameterValueError(
        column,
        { day: '(' },
        new Error('Invalid Input Error: missing ): ('),
        duckDbValueFault,
      ),
    ).toBeUndefined();
  });

  it("tells DuckDB's error for a DATE or TIME of parts that do not exist in ZetaSQL words, the query's own", () => {
    // date_time_util.cc's ConstructDate and ConstructTime: `Input calculates to invalid date: 2020-02-30`.
    const fault = (message: string) => duckDbValueFault(new Error(message));
    expect(fault('Conversion Error: Date out of range: 2020-2-30')).toEqual({
      fault: 'time-range',
      message: 'Input calculates to invalid date: 2020-02-30',
    });
    expect(fault('Conversion Error: Time out of range: 25:0:0.0')?.message).toBe(
      'Input calculates to invalid time: 25:00:00',
    );
  });

  it('names the text parameter a CAST could not read, in the words of either engine', () => {
    const casting = { ...query, sql: 'select cast(@label as date) as d, cast(@zone as int64) as z from t' };
    const blamed = (params: Record<string, string>, message: string) =>
      parameterValueError(casting, params, new Error(message), duckDbValueFault)?.details?.parameter;
    // DuckDB's own words, and BigQuery's (convert_string.cc, date_time_util.cc).
    expect(
      blamed(
        { label: '2024-01-01', zone: 'abc' },
        'Conversion Error: Could not convert string "abc" to DECIMAL(38,9)',
      ),
    ).toBe('zone');
    expect(
      blamed(
        { label: 'soon', zone: '5' },
        'Conversion Error: invalid date field format: "soon", expected format is (YYYY-MM-DD) when casting from source column x',
      ),
    ).toBe('label');
    expect(
      parameterValueError(
        casting,
        { label: 'x', zone: 'abc' },
        new Error('Bad int64 value: abc'),
        (error) => ({
          fault: 'unread-string',
          message: (error as Error).message,
        }),
      )?.message,
    ).toBe("Parameter 'zone' is abc, which test.query cannot run with: Bad int64 value: abc");
    // Text of the data: no parameter's value is the one quoted.
    expect(
      blamed({ label: 'x', zone: 'y' }, "Conversion Error: Could not convert string 'abc' to DOUBLE"),
    ).toBe(undefined);
  });

  it('names no parameter, leaving the engine error as it is, when no value explains the fault', () => {
    // An overflow of the data itself: neither value is in the message.
    expect(
      refused({ scale: '2', min_x: '0' }, 'overflow', 'int64 overflow: 9223372036854775807 + 1'),
    ).toBeUndefined();
    // A text parameter is never a count, whatever its text.
    expect(refused({ label: '-1' }, 'negative-count', 'LIMIT/OFFSET cannot be negative')).toBeUndefined();
  });

  it('leaves alone a failure the engine does not call a value fault', () => {
    expect(
      parameterValueError(query, { top: '-1' }, new Error('Catalog Error'), () => undefined),
    ).toBeUndefined();
  });
});
