import { describe, expect, it } from 'vitest';
import { micros, translationOf, useTranslatedQueries } from '../helpers/translated-row.js';

// Expected values are the documented results of BigQuery's date, datetime and timestamp
// functions and format elements:
// https://cloud.google.com/bigquery/docs/reference/standard-sql/timestamp_functions
// https://cloud.google.com/bigquery/docs/reference/standard-sql/date_functions
// https://cloud.google.com/bigquery/docs/reference/standard-sql/datetime_functions
// https://cloud.google.com/bigquery/docs/reference/standard-sql/format-elements
// TIMESTAMP results come back as microseconds, DATE as 'YYYY-MM-DD', DATETIME as 'YYYY-MM-DDTHH:MM:SS'.
const { row, scratch } = useTranslatedQueries();
const refused = (sql: string) => () => translationOf(sql);

describe('BigQuery timestamp functions on DuckDB', () => {
  it('CURRENT_TIMESTAMP, CURRENT_DATE and CURRENT_DATETIME read the bound now, in a time zone when given', async () => {
    // now is 2026-03-10T12:34:56.789Z; Auckland is UTC+13 then, so its date is already the 11th.
    expect(
      await row(`select current_timestamp() as ts, current_timestamp as bare, current_date() as d,
        current_date('Pacific/Auckland') as auckland, current_datetime('+05:30') as kolkata`),
    ).toEqual({
      ts: micros('2026-03-10T12:34:56.789Z'),
      bare: micros('2026-03-10T12:34:56.789Z'),
      d: '2026-03-10',
      auckland: '2026-03-11',
      kolkata: '2026-03-10T18:04:56.789000',
    });
  });

  it('TIMESTAMP reads strings with offsets, in a time zone, and DATE and DATETIME values as UTC', async () => {
    // Docs: TIMESTAMP('2008-12-25 15:30:00+00') = 2008-12-25 15:30:00 UTC;
    // TIMESTAMP('2008-12-25 15:30:00', 'America/Los_Angeles') = 2008-12-25 23:30:00 UTC;
    // TIMESTAMP(DATETIME '2008-12-25 15:30:00') = 2008-12-25 15:30:00 UTC; TIMESTAMP(DATE '2008-12-25') = 2008-12-25 00:00:00 UTC.
    expect(
      await row(
        `select timestamp('2008-12-25 15:30:00+00') as a,
        timestamp('2008-12-25 15:30:00', 'America/Los_Angeles') as b,
        timestamp(datetime '2008-12-25 15:30:00') as c, timestamp(date '2008-12-25') as d,
        timestamp(@s, 'America/Los_Angeles') as e`,
        { s: '2008-12-25 15:30:00' },
      ),
    ).toEqual({
      a: micros('2008-12-25T15:30:00Z'),
      b: micros('2008-12-25T23:30:00Z'),
      c: micros('2008-12-25T15:30:00Z'),
      d: micros('2008-12-25T00:00:00Z'),
      e: micros('2008-12-25T23:30:00Z'),
    });
  });

  it('DATE builds a date from parts, a DATETIME, or a TIMESTAMP in a time zone', async () => {
    // Docs: DATE(2016, 12, 25) = 2016-12-25; DATE(DATETIME '2016-12-25 23:59:59') = 2016-12-25;
    // DATE(TIMESTAMP '2016-12-25 05:30:00+07', 'America/Los_Angeles') = 2016-12-24.
    expect(
      await row(`select date(2016, 12, 25) as a, date(datetime '2016-12-25 23:59:59') as b,
        date(timestamp '2016-12-25 05:30:00+07', 'America/Los_Angeles') as c`),
    ).toEqual({ a: '2016-12-25', b: '2016-12-25', c: '2016-12-24' });
  });

  it('DATE and DATETIME of a year outside 1 to 9999 fail in ZetaSQL words, NULL under SAFE.', async () => {
    // date_functions.md: DATE(year, month, day) builds a DATE in 0001-01-01 to 9999-12-31; the words
    // are date_time_util.cc's ConstructDate and ConstructDatetime (`%04d-%02d-%02d`, the hour `%04d`).
    await expect(row('select date(10000, 1, 1) as x')).rejects.toThrow(
      'Input calculates to invalid date: 10000-01-01',
    );
    await expect(row('select date(y, 1, 1) as x from unnest([2020, 0]) as y')).rejects.toThrow(
      'Input calculates to invalid date: 0000-01-01',
    );
    await expect(row('select datetime(10000, 1, 2, 3, 4, 5) as x')).rejects.toThrow(
      'Input calculates to invalid datetime: 10000-01-02 0003:04:05',
    );
    expect(
      await row(
        'select safe.date(10000, 1, 1) as a, safe.datetime(0, 1, 1, 0, 0, 0) as b, safe.date(2020, 2, 30) as c',
      ),
    ).toEqual({ a: null, b: null, c: null });
  });

  it('DATETIME builds a civil time from parts or from a TIMESTAMP in a time zone', async () => {
    // Docs: DATETIME(2008, 12, 25, 05, 30, 00) = 2008-12-25T05:30:00;
    // DATETIME(TIMESTAMP '2008-12-25 05:30:00+00', 'America/Los_Angeles') = 2008-12-24T21:30:00.
    expect(
      await row(`select datetime(2008, 12, 25, 05, 30, 00) as a,
        datetime(timestamp '2008-12-25 05:30:00+00', 'America/Los_Angeles') as b,
        datetime(timestamp '2008-12-25 05:30:00+00', '+05:30') as c`),
    ).toEqual({ a: '2008-12-25T05:30:00', b: '2008-12-24T21:30:00', c: '2008-12-25T11:00:00' });
  });

  it('DATETIME joins a DATE and a TIME into a civil time', async () => {
    // Docs (https://cloud.google.com/bigquery/docs/reference/standard-sql/datetime_functions#datetime):
    // "DATETIME(date_expression[, time_expression]) constructs a DATETIME object using a DATE
    // object and an optional TIME object": the day at that time of day.
    expect(
      await row(`select datetime(date '2008-12-25', time '05:30:00') as a,
        datetime(date '2008-12-25', time '23:59:59.25') as b, datetime(date '2008-12-25', cast(null as time)) as c`),
    ).toEqual({ a: '2008-12-25T05:30:00', b: '2008-12-25T23:59:59.250000', c: null });
  });

  it('STRING prints a TIMESTAMP as BigQuery does, in UTC or a time zone with its offset then', async () => {
    // Docs (https://cloud.google.com/bigquery/docs/reference/standard-sql/timestamp_functions#string):
    // STRING(TIMESTAMP "2008-12-25 15:30:00+00", "UTC") = '2008-12-25 15:30:00+00'. ZetaSQL's
    // ConvertTimestampMicrosToStringWithTruncation: zero, three or six fractional digits, the
    // offset as ±HH, with :MM only where it has minutes; Los Angeles is UTC-8 in December and
    // UTC-7 in July, Kolkata UTC+5:30.
    expect(
      await row(`select string(timestamp '2008-12-25 15:30:00+00', 'UTC') as a,
        string(timestamp '2008-12-25 15:30:00+00') as b,
        string(timestamp '2008-12-25 15:30:00.1+00', 'America/Los_Angeles') as c,
        string(timestamp '2008-07-01 12:00:00+00', 'America/Los_Angeles') as d,
        string(timestamp '2008-12-25 15:30:00.123456+00', 'Asia/Kolkata') as e,
        string(timestamp '2008-12-25 15:30:00.12+00', '-03:30') as f, string(cast(null as timestamp)) as g`),
    ).toEqual({
      a: '2008-12-25 15:30:00+00',
      b: '2008-12-25 15:30:00+00',
      c: '2008-12-25 07:30:00.100-08',
      d: '2008-07-01 05:00:00-07',
      e: '2008-12-25 21:00:00.123456+05:30',
      f: '2008-12-25 12:00:00.120-03:30',
      g: null,
    });
  });

  it('TIMESTAMP_ADD and TIMESTAMP_SUB move by an interval', async () => {
    // Docs: TIMESTAMP_ADD(TIMESTAMP '2008-12-25 15:30:00+00', INTERVAL 10 MINUTE) = 15:40:00;
    // TIMESTAMP_SUB(TIMESTAMP '2008-12-25 15:30:00+00', INTERVAL 60 MINUTE) = 14:30:00.
    expect(
      await row(`select timestamp_add(timestamp '2008-12-25 15:30:00+00', interval 10 minute) as later,
        timestamp_sub(timestamp '2008-12-25 15:30:00+00', interval 60 minute) as earlier`),
    ).toEqual({ later: micros('2008-12-25T15:40:00Z'), earlier: micros('2008-12-25T14:30:00Z') });
  });

  it('moves by an INTERVAL past 2^53 microseconds exactly, the epoch plus n microseconds being n', async () => {
    // BigQuery's INTERVAL holds 316,224,000,000,000,000 microseconds (ZetaSQL IntervalValue::kMaxMicros).
    expect(
      await row(`select cast(unix_micros(timestamp_add(timestamp '1970-01-01 00:00:00+00', interval 9007199254740993 microsecond)) as string) as us,
        cast(unix_micros(timestamp '1970-01-01 00:00:00+00' + interval 9007199254740993 microsecond) as string) as plus`),
    ).toEqual({ us: '9007199254740993', plus: '9007199254740993' });
  });

  it('answers a TIMESTAMP past 2^53 microseconds (after 2255) exactly, to the last microsecond BigQuery holds', async () => {
    // BigQuery's TIMESTAMP range ends at 9999-12-31 23:59:59.999999 UTC (data-types.md); a JS
    // number holds microseconds exactly only to 2^53, so the value comes back as a bigint there.
    const last = BigInt(Date.UTC(9999, 11, 31, 23, 59, 59)) * 1000n + 999999n;
    const past = BigInt(Date.UTC(2300, 0, 1)) * 1000n + 1n;
    expect(
      await row(`select timestamp '9999-12-31 23:59:59.999999+00' as last,
        timestamp '2300-01-01 00:00:00.000001+00' as past, timestamp '2024-01-01 00:00:00.000001+00' as near`),
    ).toEqual({ last, past, near: Date.UTC(2024, 0, 1) * 1000 + 1 });
  });

  it('TIMESTAMP_DIFF counts whole elapsed parts, negative when the first is earlier', async () => {
    // Docs: TIMESTAMP_DIFF(TIMESTAMP '2010-07-07 10:20:00+00', TIMESTAMP '2008-12-25 15:30:00+00', HOUR) = 13410;
    // TIMESTAMP_DIFF(TIMESTAMP '2018-08-14', TIMESTAMP '2018-10-14', DAY) = -61;
    // TIMESTAMP_DIFF(TIMESTAMP '2001-02-01 01:00:00', TIMESTAMP '2001-02-01 00:00:01', HOUR) = 0.
    expect(
      await row(`select timestamp_diff(timestamp '2010-07-07 10:20:00+00', timestamp '2008-12-25 15:30:00+00', hour) as a,
        timestamp_diff(timestamp '2018-08-14', timestamp '2018-10-14', day) as b,
        timestamp_diff(timestamp '2001-02-01 01:00:00', timestamp '2001-02-01 00:00:01', hour) as c`),
    ).toEqual({ a: 13410, b: -61, c: 0 });
  });

  it('TIMESTAMP_TRUNC truncates in UTC or the given zone, with WEEK(<day>) and ISOYEAR', async () => {
    // Docs: TIMESTAMP_TRUNC(TIMESTAMP '2008-12-25 15:30:00+00', DAY, 'UTC') = 2008-12-25 00:00:00 UTC, and
    // with 'America/Los_Angeles' = 2008-12-25 08:00:00 UTC;
    // TIMESTAMP_TRUNC(TIMESTAMP '2017-11-06 00:00:00+12', WEEK(MONDAY), 'Pacific/Auckland') = 2017-11-05 11:00:00 UTC;
    // TIMESTAMP_TRUNC('2015-06-15 00:00:00+00', ISOYEAR) = 2014-12-29 00:00:00 UTC.
    expect(
      await row(`select timestamp_trunc(timestamp '2008-12-25 15:30:00+00', day, 'UTC') as a,
        timestamp_trunc(timestamp '2008-12-25 15:30:00+00', day, 'America/Los_Angeles') as b,
        timestamp_trunc(timestamp '2017-11-06 00:00:00+12', week(monday), 'Pacific/Auckland') as c,
        timestamp_trunc(timestamp '2015-06-15 00:00:00+00', isoyear) as d,
        timestamp_trunc(timestamp '2017-11-08 10:00:00+00', week) as e`),
    ).toEqual({
      a: micros('2008-12-25T00:00:00Z'),
      b: micros('2008-12-25T08:00:00Z'),
      c: micros('2017-11-05T11:00:00Z'),
      d: micros('2014-12-29T00:00:00Z'),
      // WEEK starts on Sunday: 2017-11-08 is a Wednesday.
      e: micros('2017-11-05T00:00:00Z'),
    });
  });

  it('reads a civil time the clock repeats as the earlier instant and one it skips with the offset before, as BigQuery does', async () => {
    // BigQuery takes absl's TimeZone::At(civil).pre (ZetaSQL date_time_util.cc): the civil time
    // read with the offset in force before the change. New York went back from 02:00 EDT (-4) to
    // 01:00 EST (-5) on 2023-11-05, so 01:30 is 05:30 UTC (not 06:30); it went forward from 02:00
    // EST to 03:00 EDT on 2023-03-12, so the skipped 02:30 is read at -5: 07:30 UTC. Berlin went
    // back from 03:00 CEST (+2) on 2023-10-29 (02:30 is 00:30 UTC); Havana from 01:00 CDT (-4) to
    // midnight CST on 2023-11-05, so that day's midnight is 04:00 UTC; Santiago from midnight -03
    // to 23:00 -04 on 2023-04-01 (23:30 is 02:30 UTC); Lord Howe by half an hour, from 02:00 +11
    // to 01:30 +10:30 on 2023-04-02 (01:45 is 14:45 UTC the day before). Times either side stay.
    expect(
      await row(
        `select timestamp('2023-11-05 01:30:00', 'America/New_York') as fold,
        timestamp(datetime '2023-11-05 01:30:00', 'America/New_York') as datetime_fold,
        timestamp(@civil, 'America/New_York') as parameter_fold,
        timestamp '2023-11-05 01:30:00 America/New_York' as literal_fold,
        cast('2023-11-05 01:30:00 America/New_York' as timestamp) as cast_fold,
        parse_timestamp('%Y-%m-%d %H:%M', '2023-11-05 01:59', 'America/New_York') as parsed_fold,
        timestamp('2023-11-05 00:59:59', 'America/New_York') as before_fold,
        timestamp('2023-11-05 02:00:00', 'America/New_York') as after_fold,
        timestamp('2023-03-12 02:30:00', 'America/New_York') as gap,
        timestamp('2023-10-29 02:30:00', 'Europe/Berlin') as berlin,
        timestamp(date '2023-11-05', 'America/Havana') as havana_midnight,
        timestamp('2023-04-01 23:30:00', 'America/Santiago') as santiago,
        timestamp('2023-04-02 01:45:00', 'Australia/Lord_Howe') as lord_howe,
        timestamp(datetime '2008-12-25 15:30:00', 'America/Los_Angeles') as winter,
        (select timestamp(d, 'America/Los_Angeles') from (select datetime '2008-12-25 15:30:00' as d)) as computed`,
        { civil: '2023-11-05 01:30:00' },
      ),
    ).toEqual({
      fold: micros('2023-11-05T05:30:00Z'),
      datetime_fold: micros('2023-11-05T05:30:00Z'),
      parameter_fold: micros('2023-11-05T05:30:00Z'),
      literal_fold: micros('2023-11-05T05:30:00Z'),
      cast_fold: micros('2023-11-05T05:30:00Z'),
      parsed_fold: micros('2023-11-05T05:59:00Z'),
      before_fold: micros('2023-11-05T04:59:59Z'),
      after_fold: micros('2023-11-05T07:00:00Z'),
      gap: micros('2023-03-12T07:30:00Z'),
      berlin: micros('2023-10-29T00:30:00Z'),
      havana_midnight: micros('2023-11-05T04:00:00Z'),
      santiago: micros('2023-04-02T02:30:00Z'),
      lord_howe: micros('2023-04-01T14:45:00Z'),
      // TIMESTAMP(DATETIME, zone) reads the civil time in the zone: 15:30 PST is 23:30 UTC.
      winter: micros('2008-12-25T23:30:00Z'),
      computed: micros('2008-12-25T23:30:00Z'),
    });
  });

  it('TIMESTAMP_TRUNC takes HOUR and smaller parts off the instant, across the hour the clock repeats', async () => {
    // ZetaSQL's compliance tests (functions_testlib_timestamp.cc): Los Angeles went back at
    // 2016-11-06 09:00 UTC; 08:01:01.1234, 09:01:01.1234 (the second 01:01) and 10:01:01.1234 UTC
    // truncate by HOUR to 08:00, 09:00 and 10:00 UTC, by SECOND and MILLISECOND in place, and by
    // DAY to that day's midnight, 07:00 UTC; in Pacific/Chatham 1491055500 (the second 02:50 of
    // 2017-04-02, +12:45) truncates by HOUR to 1491052500.
    const at = (iso: string) => `timestamp '${iso}'`;
    expect(
      await row(`select timestamp_trunc(${at('2016-11-06 08:01:01.1234+00')}, hour, 'America/Los_Angeles') as first_hour,
        timestamp_trunc(${at('2016-11-06 09:01:01.1234+00')}, hour, 'America/Los_Angeles') as second_hour,
        timestamp_trunc(${at('2016-11-06 10:01:01.1234+00')}, hour, 'America/Los_Angeles') as after_hour,
        timestamp_trunc(${at('2016-11-06 09:01:01.1234+00')}, second, 'America/Los_Angeles') as second,
        timestamp_trunc(${at('2016-11-06 09:01:01.1234+00')}, millisecond, 'America/Los_Angeles') as milli,
        timestamp_trunc(${at('2016-11-06 09:01:01.1234+00')}, day, 'America/Los_Angeles') as day,
        date_trunc(${at('2016-11-06 09:01:01.1234+00')}, hour, 'America/Los_Angeles') as date_trunc_hour,
        timestamp_trunc(timestamp_seconds(1491055500), hour, 'Pacific/Chatham') as chatham`),
    ).toEqual({
      first_hour: micros('2016-11-06T08:00:00Z'),
      second_hour: micros('2016-11-06T09:00:00Z'),
      after_hour: micros('2016-11-06T10:00:00Z'),
      second: micros('2016-11-06T09:01:01Z'),
      milli: micros('2016-11-06T09:01:01.123Z'),
      day: micros('2016-11-06T07:00:00Z'),
      date_trunc_hour: micros('2016-11-06T09:00:00Z'),
      chatham: 1491052500 * 1_000_000,
    });
  });

  it('DATE_ADD and DATE_SUB move by days and clamp month arithmetic to the last day', async () => {
    // Docs: DATE_ADD(DATE '2008-12-25', INTERVAL 5 DAY) = 2008-12-30; DATE_SUB(DATE '2008-12-25', INTERVAL 5 DAY) = 2008-12-20;
    // "If the resulting month has fewer days than the original date's day, then the resulting date
    // is the last date of that month."
    expect(
      await row(`select date_add(date '2008-12-25', interval 5 day) as a, date_sub(date '2008-12-25', interval 5 day) as b,
        date_add(date '2008-12-31', interval 2 month) as c, date_add(date '2008-12-31', interval 1 quarter) as d`),
    ).toEqual({ a: '2008-12-30', b: '2008-12-20', c: '2009-02-28', d: '2009-03-31' });
  });

  it.each([
    [
      "select date_add(date '9999-12-31', interval 1 day) as d",
      'Adding 1 DAY to date 9999-12-31 causes overflow',
    ],
    [
      "select date_sub(date '0001-01-01', interval 1 month) as d",
      'Subtracting 1 MONTH from date 0001-01-01 causes overflow',
    ],
    [
      "select timestamp_add(timestamp '9999-12-31 23:59:59', interval 1 day) as t",
      'Adding 1 DAY to timestamp 9999-12-31 23:59:59+00 causes overflow',
    ],
    [
      "select timestamp_sub(timestamp '0001-01-01 00:00:00', interval 1 microsecond) as t",
      'Subtracting 1 MICROSECOND from timestamp 0001-01-01 00:00:00+00 causes overflow',
    ],
    // The current time is checked too when moved by 1000 years or more.
    [
      'select timestamp_add(current_timestamp(), interval 9000 year) as t',
      'Adding 9000 YEAR to timestamp 2026-',
    ],
    // The operators too, naming the range.
    ["select date '9999-12-31' + 1 as d", 'DATE + INT64 result is out of the DATE range'],
    ["select 1 + date '9999-12-31' as d", 'DATE + INT64 result is out of the DATE range'],
    [
      "select timestamp '0001-01-01 00:00:00' - interval 1 second as t",
      'TIMESTAMP - INTERVAL result is out of the TIMESTAMP range',
    ],
    // Of a count that is no literal the message names the range.
    [
      "select timestamp_add(timestamp '9999-12-31', interval x day) as t from unnest([1]) as x",
      'TIMESTAMP_ADD result is out of the TIMESTAMP range',
    ],
    // A DATETIME too (ZetaSQL's MakeAddDatetimeOverflowError, DatetimeValue::DebugString).
    [
      "select datetime_add(datetime '9999-12-31 23:00:00', interval 1 day) as d",
      'Adding 1 DAY to datetime 9999-12-31 23:00:00 causes overflow',
    ],
    [
      "select datetime_sub(datetime '0001-01-01 00:00:00', interval 1 microsecond) as d",
      'Subtracting 1 MICROSECOND from datetime 0001-01-01 00:00:00 causes overflow',
    ],
    [
      "select datetime '9999-12-31 23:00:00' + interval 1 hour as d",
      'DATETIME + INTERVAL result is out of the DATETIME range',
    ],
    // A count of seconds, milliseconds, microseconds or days past the range, checked as ZetaSQL's
    // reference implementation does (function.cc TimestampFromIntFunction, DATE_FROM_UNIX_DATE).
    [
      'select timestamp_seconds(253402300800) as t',
      'Input value 253402300800 cannot be converted into a TIMESTAMP, because it would be out of the allowed range between -62135596800000000 to 253402300799999999 (microseconds)',
    ],
    ['select timestamp_millis(-62135596800001) as t', 'Input value -62135596800001 cannot be converted'],
    [
      'select timestamp_micros(253402300800000000) as t',
      'Input value 253402300800000000 cannot be converted',
    ],
    [
      'select date_from_unix_date(2932897) as d',
      'DATE_FROM_UNIX_DATE range is -719162 to 2932896 but saw 2932897',
    ],
    // Text parsed past it: a year 0, or an offset past the last midnight UTC (parse_date_time.cc).
    ["select parse_date('%Y-%m-%d', '0000-12-31') as d", 'Invalid result from parsing function'],
    ["select parse_datetime('%Y-%m-%d %H', '0000-12-31 10') as d", 'Invalid result from parsing function'],
    [
      "select parse_timestamp('%Y-%m-%d %H:%M:%S%Ez', '9999-12-31 23:00:00-05:00') as t",
      'Invalid result from parsing function',
    ],
  ])(
    'refuses a DATE, DATETIME or TIMESTAMP moved or built past its range with BigQuery words: %s',
    async (sql, message) => {
      // data-types.md: DATE and TIMESTAMP range from 0001-01-01 to 9999-12-31 (23:59:59.999999 UTC);
      // ZetaSQL date_time_util.cc raises "Adding <n> <PART> to date <date> causes overflow" and kin.
      await expect(row(sql)).rejects.toThrow(message);
    },
  );

  it('builds a TIMESTAMP or DATE from a count or text up to the ends of the range, NULL past them under SAFE', async () => {
    // 253402300799 seconds and 2932896 days after 1970-01-01 are 9999-12-31 23:59:59 and
    // 9999-12-31, -62135596800 seconds and -719162 days 0001-01-01 (Python's datetime).
    expect(
      await row(`select cast(timestamp_seconds(253402300799) as string) as s,
        cast(timestamp_millis(-62135596800000) as string) as ms,
        cast(timestamp_micros(253402300799999999) as string) as us,
        date_from_unix_date(-719162) as first, date_from_unix_date(2932896) as last,
        parse_date('%Y-%m-%d', '9999-12-31') as parsed,
        safe.timestamp_seconds(253402300800) as safe_s, safe.date_from_unix_date(-719163) as safe_d,
        safe.parse_timestamp('%Y-%m-%d %H:%M:%S%Ez', '9999-12-31 23:00:00-05:00') as safe_p,
        safe.parse_date('%Y-%m-%d', 'no date') as unparsed`),
    ).toEqual({
      s: '9999-12-31 23:59:59+00',
      ms: '0001-01-01 00:00:00+00',
      us: '9999-12-31 23:59:59.999999+00',
      first: '0001-01-01',
      last: '9999-12-31',
      parsed: '9999-12-31',
      safe_s: null,
      safe_d: null,
      safe_p: null,
      unparsed: null,
    });
  });

  it('moves a DATE or TIMESTAMP onto the ends of its range, NULL past them under SAFE', async () => {
    expect(
      await row(`select date_add(date '9999-12-30', interval 1 day) as last, date_sub(date '0001-01-02', interval 1 day) as first,
        cast(timestamp_add(timestamp '9999-12-31 23:59:59.999998', interval 1 microsecond) as string) as t,
        safe.date_add(date '9999-12-31', interval 1 year) as safe_d, safe.timestamp_sub(timestamp '0001-01-01', interval 1 second) as safe_t`),
    ).toEqual({
      last: '9999-12-31',
      first: '0001-01-01',
      t: '9999-12-31 23:59:59.999999+00',
      safe_d: null,
      safe_t: null,
    });
  });

  // ZetaSQL interval_value.h: at most 10000 years (120000 months), 3660000 days and that many
  // days of time (87840000 hours); ValidateField's "Interval field <f> '<v>' is out of range".
  it.each([
    ['select interval 10001 year as i', "Interval field months '120012' is out of range -120000 to 120000"],
    [
      'select interval x day as i from unnest([-3660001]) as x',
      "Interval field days '-3660001' is out of range -3660000 to 3660000",
    ],
    [
      'select interval -120001 month as i',
      "Interval field months '-120001' is out of range -120000 to 120000",
    ],
    [
      'select interval 87840001 hour as i',
      "Interval field nanoseconds '316224003600000000000' is out of range -316224000000000000000 to 316224000000000000000",
    ],
  ])('refuses an INTERVAL past IntervalValue bounds with its error: %s', async (sql, message) => {
    await expect(row(sql)).rejects.toThrow(message);
  });

  it('keeps an INTERVAL at IntervalValue bounds', async () => {
    expect(
      await row(`select interval 10000 year as y, interval x day as d, interval 87840000 hour as h
        from unnest([-3660000]) as x`),
    ).toEqual({ y: '10000-0 0 0:0:0', d: '0-0 -3660000 0:0:0', h: '0-0 0 87840000:0:0' });
  });

  it('JUSTIFY_DAYS, JUSTIFY_HOURS and JUSTIFY_INTERVAL carry days into months and hours into days', async () => {
    // interval_functions.md, JUSTIFY_DAYS: 29 DAY = 0-0 29 0:0:0, -30 DAY = -0-1 0 0:0:0, -65 DAY = -0-2 -5 0:0:0,
    // 370 DAY = 1-0 10 0:0:0; JUSTIFY_HOURS: 47 HOUR = 0-0 1 23:0:0, -12345 MINUTE = 0-0 -8 -13:45:0;
    // JUSTIFY_INTERVAL(INTERVAL '29 49:00:00' DAY TO SECOND) = 0-1 1 1:0:0. Parts of mixed signs borrow
    // (ZetaSQL's interval_value_test.cc: JustifyInterval("1 -1 -1") = "0 28 23", ("-1 0 1") = "0 -29 -23").
    expect(
      await row(`select justify_days(interval 29 day) as a, justify_days(interval -30 day) as b,
        justify_days(interval -65 day) as c, justify_days(interval 370 day) as d,
        justify_hours(interval 47 hour) as e, justify_hours(interval -12345 minute) as f,
        justify_interval(interval 29 day + interval 49 hour) as g,
        justify_interval(interval 1 month - interval 1 day - interval 1 hour) as h,
        justify_interval(interval -1 month + interval 1 hour) as i`),
    ).toEqual({
      a: '0-0 29 0:0:0',
      b: '-0-1 0 0:0:0',
      c: '-0-2 -5 0:0:0',
      d: '1-0 10 0:0:0',
      e: '0-0 1 23:0:0',
      f: '0-0 -8 -13:45:0',
      g: '0-1 1 1:0:0',
      h: '0-0 28 23:0:0',
      i: '0-0 -29 -23:0:0',
    });
  });

  it("reads INTERVAL '<text>' <part> TO <part> literals, each part any count, years and months under one sign", async () => {
    // interval_functions.md, EXTRACT: INTERVAL '1-2 3 4:5:6.789999' YEAR TO SECOND is 1, 2, 3, 4, 5, 6, 789, 789999
    // (year to microsecond); '0-13 370 48:61:61' is 1, 1, 370, 49, 2, 1, 0, 0; INTERVAL '10 -12:30' DAY TO MINUTE
    // has hour -12 and minute -30; INTERVAL '-22-6 10 -12:30' YEAR TO MINUTE has year -22 and month -6.
    const parts = (i: string) =>
      row(`select extract(year from i) as y, extract(month from i) as mo, extract(day from i) as d,
        extract(hour from i) as h, extract(minute from i) as mi, extract(second from i) as s,
        extract(millisecond from i) as ms, extract(microsecond from i) as us from unnest([${i}]) as i`);
    expect(await parts("interval '1-2 3 4:5:6.789999' year to second")).toEqual({
      y: 1,
      mo: 2,
      d: 3,
      h: 4,
      mi: 5,
      s: 6,
      ms: 789,
      us: 789999,
    });
    expect(await parts("interval '0-13 370 48:61:61' year to second")).toEqual({
      y: 1,
      mo: 1,
      d: 370,
      h: 49,
      mi: 2,
      s: 1,
      ms: 0,
      us: 0,
    });
    expect(await parts("interval '10 -12:30' day to minute")).toMatchObject({ d: 10, h: -12, mi: -30 });
    expect(await parts("interval '-22-6 10 -12:30' year to minute")).toMatchObject({ y: -22, mo: -6, d: 10 });
    expect(await parts("interval '-4:5:6.5' hour to second")).toMatchObject({ h: -4, s: -6, ms: -500 });
    expect(() => translationOf("select interval '1-2 3' year to month")).toThrow(/does not match the range/);
  });

  it('MAKE_INTERVAL builds an INTERVAL from parts by position or by name, the rest 0', async () => {
    // interval_functions.md, MAKE_INTERVAL: MAKE_INTERVAL(1, 6, 15) = 1-6 15 0:0:0;
    // MAKE_INTERVAL(hour => 10, second => 20) = 0-0 0 10:0:20; MAKE_INTERVAL(1, minute => 5, day => 2) = 1-0 2 0:5:0.
    expect(
      await row(`select make_interval(1, 6, 15) as a, make_interval(hour => 10, second => 20) as b,
        make_interval(1, minute => 5, day => 2) as c`),
    ).toEqual({ a: '1-6 15 0:0:0', b: '0-0 0 10:0:20', c: '1-0 2 0:5:0' });
    await expect(row('select make_interval(day => 3660001) as x')).rejects.toThrow(
      "Interval field days '3660001' is out of range -3660000 to 3660000",
    );
  });

  it('DATE_DIFF counts part boundaries, weeks starting on Sunday unless named', async () => {
    // Docs: DATE_DIFF(DATE '2010-07-07', DATE '2008-12-25', DAY) = 559;
    // DATE_DIFF(DATE '2017-10-15', DATE '2017-10-14', DAY) = 1 and WEEK = 1;
    // DATE_DIFF('2017-12-30', '2014-12-30', YEAR) = 3 and ISOYEAR = 2;
    // DATE_DIFF('2017-12-18', '2017-12-17', WEEK) = 0, WEEK(MONDAY) = 1, ISOWEEK = 1.
    expect(
      await row(`select date_diff(date '2010-07-07', date '2008-12-25', day) as a,
        date_diff(date '2017-10-15', date '2017-10-14', day) as b, date_diff(date '2017-10-15', date '2017-10-14', week) as c,
        date_diff(date '2017-12-30', date '2014-12-30', year) as d, date_diff(date '2017-12-30', date '2014-12-30', isoyear) as e,
        date_diff(date '2017-12-18', date '2017-12-17', week) as f, date_diff(date '2017-12-18', date '2017-12-17', week(monday)) as g,
        date_diff(date '2017-12-18', date '2017-12-17', isoweek) as h`),
    ).toEqual({ a: 559, b: 1, c: 1, d: 3, e: 2, f: 0, g: 1, h: 1 });
  });

  it('DATE_DIFF of TIMESTAMPs counts elapsed parts as TIMESTAMP_DIFF does, of DATETIMEs boundaries as DATETIME_DIFF', async () => {
    // date_functions.md, DATE_DIFF: "DATE_DIFF(TIMESTAMP, TIMESTAMP, PART) behaves like TIMESTAMP_DIFF(TIMESTAMP,
    // TIMESTAMP, PART)": two hours apart across midnight is 0 days and 2 hours elapsed. 23:30 to 01:00 crosses
    // two hour boundaries as DATETIMEs (datetime_functions.md, DATETIME_DIFF counts boundaries).
    expect(
      await row(`select date_diff(timestamp '2020-03-02 01:00:00+00', timestamp '2020-03-01 23:00:00+00', day) as d,
        date_diff(timestamp '2020-03-02 01:00:00+00', timestamp '2020-03-01 23:30:00+00', hour) as h,
        date_diff(datetime '2020-03-02 01:00:00', datetime '2020-03-01 23:30:00', hour) as dh`),
    ).toEqual({ d: 0, h: 1, dh: 2 });
  });

  it('DATE_TRUNC truncates to a month, WEEK, WEEK(MONDAY) or ISOYEAR', async () => {
    // Docs: DATE_TRUNC(DATE '2008-12-25', MONTH) = 2008-12-01; DATE_TRUNC(DATE '2017-11-05', WEEK(MONDAY)) = 2017-10-30;
    // DATE_TRUNC('2015-06-15', ISOYEAR) = 2014-12-29.
    expect(
      await row(`select date_trunc(date '2008-12-25', month) as a, date_trunc(date '2017-11-05', week(monday)) as b,
        date_trunc(date '2015-06-15', isoyear) as c, date_trunc(date '2017-11-08', week) as d`),
    ).toEqual({ a: '2008-12-01', b: '2017-10-30', c: '2014-12-29', d: '2017-11-05' });
  });

  it('DATE_TRUNC of a TIMESTAMP or DATETIME returns that type, truncated in the zone for a TIMESTAMP', async () => {
    // Docs: DATE_TRUNC(date_value | datetime_value | timestamp_value, granularity [, time_zone]) returns
    // the type it is given; DATE_TRUNC(TIMESTAMP '2008-12-25 15:30:00+00', DAY, 'America/Los_Angeles')
    // truncates in Los Angeles, as TIMESTAMP_TRUNC does: 2008-12-25 08:00:00 UTC.
    expect(
      await row(`select date_trunc(timestamp '2008-12-25 15:30:00+00', month) as a,
        date_trunc(timestamp '2008-12-25 15:30:00+00', day, 'America/Los_Angeles') as b,
        date_trunc(datetime '2008-12-25 15:30:00', hour) as c, date_trunc(current_date(), year) as d`),
    ).toEqual({
      a: micros('2008-12-01T00:00:00Z'),
      b: micros('2008-12-25T08:00:00Z'),
      c: '2008-12-25T15:00:00',
      d: '2026-01-01',
    });
    // A TIMESTAMP column (the store's schema says so) truncates to a TIMESTAMP too.
    await scratch().duckdb(
      `INSERT INTO "postgres.logs" (id, timestamp, event_message) VALUES ('trunc', TIMESTAMP '2008-12-25 15:30:00', 'x')`,
    );
    expect(
      await row("select date_trunc(t.timestamp, month) as m from `postgres.logs` as t where t.id = 'trunc'"),
    ).toEqual({
      m: micros('2008-12-01T00:00:00Z'),
    });
  });

  it('DATETIME_ADD, DATETIME_SUB, DATETIME_DIFF and DATETIME_TRUNC keep civil time', async () => {
    // Docs: DATETIME_ADD(DATETIME '2008-12-25 15:30:00', INTERVAL 10 MINUTE) = 2008-12-25T15:40:00;
    // DATETIME_SUB(DATETIME '2008-12-25 15:30:00', INTERVAL 10 MINUTE) = 2008-12-25T15:20:00;
    // DATETIME_DIFF(DATETIME '2010-07-07 10:20:00', DATETIME '2008-12-25 15:30:00', DAY) = 559;
    // DATETIME_TRUNC(DATETIME '2008-12-25 15:30:00', DAY) = 2008-12-25T00:00:00.
    expect(
      await row(`select datetime_add(datetime '2008-12-25 15:30:00', interval 10 minute) as a,
        datetime_sub(datetime '2008-12-25 15:30:00', interval 10 minute) as b,
        datetime_diff(datetime '2010-07-07 10:20:00', datetime '2008-12-25 15:30:00', day) as c,
        datetime_trunc(datetime '2008-12-25 15:30:00', day) as d`),
    ).toEqual({ a: '2008-12-25T15:40:00', b: '2008-12-25T15:20:00', c: 559, d: '2008-12-25T00:00:00' });
  });

  it("reaches every DATETIME of BigQuery's range, 0001-01-01 00:00:00 to 9999-12-31 23:59:59.999999", async () => {
    // data-types.md: DATETIME ranges over those, to the microsecond. 3652058 is the days from
    // 0001-01-01 to 9999-12-31 (Python: (date(9999, 12, 31) - date(1, 1, 1)).days).
    expect(
      await row(`select datetime '9999-12-31 23:59:59.999999' as top, datetime '0001-01-01 00:00:00' as bottom,
        datetime(9999, 12, 31, 23, 0, 0) as built, datetime(date '9999-12-31', time '23:59:59') as joined,
        datetime(timestamp '9999-12-31 22:00:00+00', 'UTC') as of_instant,
        datetime_add(datetime '9999-12-30 23:00:00', interval 1 day) as added,
        datetime_sub(datetime '0001-01-02 00:00:00', interval 1 day) as subtracted,
        datetime_trunc(datetime '9999-12-31 23:59:59.5', hour) as truncated,
        datetime_diff(datetime '9999-12-31 00:00:00', datetime '0001-01-01 00:00:00', day) as days,
        cast(datetime '9999-12-31 23:59:59.5' as string) as text,
        cast('9999-12-31 23:59:59.999999' as datetime) as parsed,
        safe.datetime_add(datetime '9999-12-31 23:00:00', interval 1 day) as past,
        to_json_string(datetime '9999-12-31 23:59:59.5') as json`),
    ).toEqual({
      top: '9999-12-31T23:59:59.999999',
      bottom: '0001-01-01T00:00:00',
      built: '9999-12-31T23:00:00',
      joined: '9999-12-31T23:59:59',
      of_instant: '9999-12-31T22:00:00',
      added: '9999-12-31T23:00:00',
      subtracted: '0001-01-01T00:00:00',
      truncated: '9999-12-31T23:00:00',
      days: 3652058,
      text: '9999-12-31 23:59:59.500',
      parsed: '9999-12-31T23:59:59.999999',
      past: null,
      json: '"9999-12-31T23:59:59.500"',
    });
  });

  it('EXTRACT numbers DAYOFWEEK from 1 (Sunday), WEEK from the first Sunday, and ISO weeks and years', async () => {
    // Docs (EXTRACT for DATE): 2016-01-03 is ISOYEAR 2015, ISOWEEK 53, YEAR 2016, WEEK 1;
    // 2015-12-31 is ISOYEAR 2015, ISOWEEK 53, YEAR 2015, WEEK 52; DAYOFWEEK is 1 (Sunday) to 7.
    expect(
      await row(`select extract(isoyear from date '2016-01-03') as iy, extract(isoweek from date '2016-01-03') as iw,
        extract(year from date '2016-01-03') as y, extract(week from date '2016-01-03') as w,
        extract(week from date '2015-12-31') as w2, extract(dayofweek from date '2016-01-03') as dow,
        extract(dayofyear from date '2016-02-01') as doy, extract(quarter from date '2016-05-01') as q`),
    ).toEqual({ iy: 2015, iw: 53, y: 2016, w: 1, w2: 52, dow: 1, doy: 32, q: 2 });
  });

  it("EXTRACT(WEEK(<day>)) numbers weeks from the year's first <day>, the days before it in week 0", async () => {
    // Docs (EXTRACT for TIMESTAMP): for 2017-11-05 00:00:00+00, a Sunday, WEEK(SUNDAY) is 45 and
    // WEEK(MONDAY) 44. "Dates prior to the first WEEKDAY of the year are in the 0th week": 2024-01-01
    // is a Monday, so WEEK(MONDAY) 1 there and WEEK(TUESDAY) 0, then 1 on the 2nd; 2024-12-31, a
    // Tuesday, is WEEK(SATURDAY) 52 (the 52nd Saturday was the 28th); 2024's first Sunday is the 7th. AT TIME ZONE counts in the
    // zone: 2024-01-01 02:00 UTC is Sunday 2023-12-31 in Los Angeles, after 2023's 52nd Monday.
    expect(
      await row(`select extract(week(sunday) from timestamp '2017-11-05 00:00:00+00') as sun,
        extract(week(monday) from timestamp '2017-11-05 00:00:00+00') as mon,
        extract(week(monday) from date '2024-01-01') as a, extract(week(tuesday) from date '2024-01-01') as b,
        extract(week(tuesday) from date '2024-01-02') as c, extract(week(saturday) from date '2024-12-31') as d,
        extract(week(sunday) from date '2016-01-03') as e, extract(week(sunday) from date '2024-01-06') as g,
        extract(week(sunday) from date '2024-01-07') as h,
        extract(week(monday) from timestamp '2024-01-01 02:00:00+00' at time zone 'America/Los_Angeles') as f`),
    ).toEqual({ sun: 45, mon: 44, a: 1, b: 0, c: 1, d: 52, e: 1, f: 52, g: 0, h: 1 });
  });

  it('EXTRACT reads sub-second parts without the seconds, and in a time zone with AT TIME ZONE', async () => {
    // Docs: EXTRACT(DAY FROM TIMESTAMP '2008-12-25 05:30:00+00' AT TIME ZONE 'UTC') = 25, and 24 in
    // 'America/Los_Angeles'. MILLISECOND is 0-999 and MICROSECOND 0-999999 within the second.
    expect(
      await row(`select extract(day from timestamp '2008-12-25 05:30:00+00' at time zone 'UTC') as utc,
        extract(day from timestamp '2008-12-25 05:30:00+00' at time zone 'America/Los_Angeles') as la,
        extract(second from timestamp '2008-12-25 05:30:45.123456+00') as s,
        extract(millisecond from timestamp '2008-12-25 05:30:45.123456+00') as ms,
        extract(microsecond from timestamp '2008-12-25 05:30:45.123456+00') as us,
        extract(date from timestamp '2008-12-25 05:30:00+00' at time zone 'America/Los_Angeles') as d`),
    ).toEqual({ utc: 25, la: 24, s: 45, ms: 123, us: 123456, d: '2008-12-24' });
  });

  it('FORMAT_TIMESTAMP, FORMAT_DATE and FORMAT_DATETIME print the documented examples', async () => {
    // Docs: FORMAT_TIMESTAMP('%c', TIMESTAMP '2050-12-25 15:30:55+00', 'UTC') = 'Sun Dec 25 15:30:55 2050';
    // FORMAT_TIMESTAMP('%b-%d-%Y', ...) = 'Dec-25-2050'; FORMAT_TIMESTAMP('%b %Y', ...) = 'Dec 2050';
    // FORMAT_TIMESTAMP('%Y-%m-%dT%H:%M:%SZ', TIMESTAMP '2050-12-25 15:30:55', 'UTC') = '2050-12-25T15:30:55Z';
    // FORMAT_DATE('%x', DATE '2008-12-25') = '12/25/08'; FORMAT_DATE('%b-%d-%Y', DATE '2008-12-25') = 'Dec-25-2008';
    // FORMAT_DATETIME('%c', DATETIME '2008-12-25 15:30:00') = 'Thu Dec 25 15:30:00 2008'.
    expect(
      await row(`select format_timestamp('%c', timestamp '2050-12-25 15:30:55+00', 'UTC') as a,
        format_timestamp('%b-%d-%Y', timestamp '2050-12-25 15:30:55+00') as b,
        format_timestamp('%b %Y', timestamp '2050-12-25 15:30:55+00') as c,
        format_timestamp('%Y-%m-%dT%H:%M:%SZ', timestamp '2050-12-25 15:30:55', 'UTC') as d,
        format_date('%x', date '2008-12-25') as e, format_date('%b-%d-%Y', date '2008-12-25') as f,
        format_datetime('%c', datetime '2008-12-25 15:30:00') as g,
        format_timestamp('%H:%M', timestamp '2008-12-25 15:30:00+00', 'America/Los_Angeles') as h`),
    ).toEqual({
      a: 'Sun Dec 25 15:30:55 2050',
      b: 'Dec-25-2050',
      c: 'Dec 2050',
      d: '2050-12-25T15:30:55Z',
      e: '12/25/08',
      f: 'Dec-25-2008',
      g: 'Thu Dec 25 15:30:00 2008',
      h: '07:30',
    });
  });

  it('prints %z and %Ez in a named time zone with the offset it has at that instant', async () => {
    // Format elements: %z is "the offset from the Prime Meridian in the format +HHMM or -HHMM",
    // %Ez the RFC 3339 form +HH:MM. Europe/Berlin is UTC+1 until 2024-03-31 01:00 UTC and UTC+2
    // after (tzdata); America/St_Johns is UTC-2:30 in summer time; Asia/Kolkata UTC+5:30 always.
    expect(
      await row(
        `select format_timestamp('%Y-%m-%dT%H:%M:%S%Ez', timestamp '2024-03-31 15:04:05+00', 'Europe/Berlin') as a,
        format_timestamp('%Y-%m-%dT%H:%M:%S%Ez', timestamp '2024-03-30 15:04:05+00', 'Europe/Berlin') as b,
        format_timestamp('%H:%M %z', timestamp '2024-07-01 15:04:05+00', 'America/St_Johns') as c,
        format_timestamp('%z|%Ez', timestamp '2024-03-31 15:04:05+00', @zone) as d`,
        { zone: 'Asia/Kolkata' },
      ),
    ).toEqual({
      a: '2024-03-31T17:04:05+02:00',
      b: '2024-03-30T16:04:05+01:00',
      c: '12:34 -0230',
      d: '+0530|+05:30',
    });
  });

  it('prints every format element of the format-elements page as described there', async () => {
    // The page's examples are for Wednesday 2021-01-20 21:47:00; each value below follows the
    // element's description (e.g. %e and %l pad single digits with a space, %g is the ISO year's
    // last two digits, %Q the quarter, %s seconds since the epoch).
    const elements = [
      'A',
      'a',
      'B',
      'b',
      'C',
      'c',
      'D',
      'd',
      'e',
      'F',
      'G',
      'g',
      'H',
      'h',
      'I',
      'j',
      'k',
      'l',
      'M',
      'm',
      'P',
      'p',
      'Q',
      'R',
      'S',
      's',
      'T',
      'U',
      'u',
      'V',
      'W',
      'w',
      'X',
      'x',
      'Y',
      'y',
      'Z',
      'z',
      'Ez',
      'E3S',
      'E*S',
      'E4Y',
      '%',
    ];
    const select = elements
      .map(
        (element, i) => `format_timestamp('%${element}', timestamp '2021-01-20 21:47:00.123456+00') as e${i}`,
      )
      .join(', ');
    const result = await row(`select ${select}`);
    const expected = [
      'Wednesday',
      'Wed',
      'January',
      'Jan',
      '20',
      'Wed Jan 20 21:47:00 2021',
      '01/20/21',
      '20',
      '20',
      '2021-01-20',
      '2021',
      '21',
      '21',
      'Jan',
      '09',
      '020',
      '21',
      ' 9',
      '47',
      '01',
      'pm',
      'PM',
      '1',
      '21:47',
      '00',
      '1611179220',
      '21:47:00',
      '03',
      '3',
      '03',
      '03',
      '3',
      '21:47:00',
      '01/20/21',
      '2021',
      '21',
      'UTC',
      '+0000',
      '+00:00',
      '00.123',
      '00.123456',
      '2021',
      '%',
    ];
    expect(Object.fromEntries(elements.map((element, i) => [element, result[`e${i}`]]))).toEqual(
      Object.fromEntries(elements.map((element, i) => [element, expected[i]])),
    );
  });

  it('PARSE_TIMESTAMP, PARSE_DATE and PARSE_DATETIME read the documented examples', async () => {
    // Docs: PARSE_TIMESTAMP('%c', 'Thu Dec 25 07:30:00 2008') = 2008-12-25 07:30:00 UTC, and
    // 2008-12-25 15:30:00 UTC in 'America/Los_Angeles'; PARSE_DATE('%A %b %e %Y', 'Thursday Dec 25 2008') = 2008-12-25;
    // PARSE_DATE('%Y%m%d', '20081225') = 2008-12-25; PARSE_DATE('%x', '12/25/08') = 2008-12-25;
    // PARSE_DATETIME('%m/%d/%Y %I:%M:%S %p', '8/30/2018 2:23:38 pm') = 2018-08-30T14:23:38.
    // Fields the format leaves out are 1970-01-01 00:00:00.
    expect(
      await row(`select parse_timestamp('%c', 'Thu Dec 25 07:30:00 2008') as a,
        parse_timestamp('%c', 'Thu Dec 25 07:30:00 2008', 'America/Los_Angeles') as b,
        parse_date('%A %b %e %Y', 'Thursday Dec 25 2008') as c, parse_date('%Y%m%d', '20081225') as d,
        parse_date('%x', '12/25/08') as e, parse_datetime('%m/%d/%Y %I:%M:%S %p', '8/30/2018 2:23:38 pm') as f,
        parse_timestamp('%H:%M', '05:30') as g, parse_timestamp('%Y-%m-%d %H:%M:%S%z', '2008-12-25 07:30:00+0100') as h`),
    ).toEqual({
      a: micros('2008-12-25T07:30:00Z'),
      b: micros('2008-12-25T15:30:00Z'),
      c: '2008-12-25',
      d: '2008-12-25',
      e: '2008-12-25',
      f: '2018-08-30T14:23:38',
      g: micros('1970-01-01T05:30:00Z'),
      h: micros('2008-12-25T06:30:00Z'),
    });
  });

  it('PARSE_TIMESTAMP reads seconds with %E*S and %E<n>S and offsets with %Ez and %z, a Z offset included', async () => {
    // Docs (format elements for date and time parts): %E#S "Seconds with # digits of fractional
    // precision"; %E*S "Seconds with full fractional precision (a literal '*')"; %Ez "RFC
    // 3339-compatible numeric time zone (+HH:MM or -HH:MM)"; %z "The offset from the Prime Meridian
    // in the format +HHMM or -HHMM". RFC 3339 writes a zero offset `Z`, as Studio's auth reports
    // send it: PARSE_TIMESTAMP('%Y-%m-%dT%H:%M:%E*S%Ez', '2026-11-23T12:00:00.000Z').
    expect(
      await row(`select parse_timestamp('%Y-%m-%dT%H:%M:%E*S%Ez', '2026-11-23T12:00:00.000Z') as a,
        parse_timestamp('%Y-%m-%dT%H:%M:%E*S%Ez', '2026-11-23T12:00:07.123456+02:00') as b,
        parse_timestamp('%Y-%m-%dT%H:%M:%E*S%Ez', '2026-11-23T12:00:07-05:30') as c,
        parse_timestamp('%Y-%m-%d %H:%M:%E3S', '2026-11-23 12:00:07.250') as d,
        parse_timestamp('%Y-%m-%d %H:%M:%E0S%z', '2026-11-23 12:00:07+0100') as e,
        parse_timestamp('%Y-%m-%d %H:%M:%E*S', '2026-11-23 12:00:07.5', 'America/New_York') as f,
        parse_timestamp('%Y-%m-%d %H:%M:%E9S', '2026-11-23 12:00:07.123456000') as g`),
    ).toEqual({
      a: micros('2026-11-23T12:00:00Z'),
      b: micros('2026-11-23T10:00:07Z') + 123_456,
      c: micros('2026-11-23T17:30:07Z'),
      d: micros('2026-11-23T12:00:07.250Z'),
      e: micros('2026-11-23T11:00:07Z'),
      f: micros('2026-11-23T17:00:07.500Z'),
      g: micros('2026-11-23T12:00:07Z') + 123_456,
    });
  });

  it('SAFE.PARSE_DATE returns NULL for text that does not parse', async () => {
    // Docs (SAFE. prefix): "If you begin a function with the SAFE. prefix, it will return NULL instead of an error."
    expect(await row("select safe.parse_date('%Y-%m-%d', 'not a date') as d")).toEqual({ d: null });
  });

  it('UNIX_SECONDS, UNIX_MILLIS and UNIX_MICROS count from the epoch, rounding down', async () => {
    // Docs: UNIX_SECONDS(TIMESTAMP '2008-12-25 15:30:00+00') = 1230219000; UNIX_MILLIS(...) = 1230219000000;
    // UNIX_MICROS(...) = 1230219000000000; UNIX_MILLIS(TIMESTAMP '1970-01-01 00:00:00.0018+00') = 1.
    // "Truncates higher levels of precision by rounding down": half a millisecond before the epoch is -1.
    expect(
      await row(`select unix_seconds(timestamp '2008-12-25 15:30:00+00') as s, unix_millis(timestamp '2008-12-25 15:30:00+00') as ms,
        unix_micros(timestamp '2008-12-25 15:30:00+00') as us, unix_millis(timestamp '1970-01-01 00:00:00.0018+00') as small,
        unix_millis(timestamp '1969-12-31 23:59:59.9995+00') as before, unix_date(date '2008-12-25') as days`),
    ).toEqual({ s: 1230219000, ms: 1230219000000, us: 1230219000000000, small: 1, before: -1, days: 14238 });
  });

  it('TIMESTAMP_SECONDS, TIMESTAMP_MILLIS, TIMESTAMP_MICROS and DATE_FROM_UNIX_DATE build values from epoch counts', async () => {
    // Docs: TIMESTAMP_SECONDS(1230219000) = TIMESTAMP_MILLIS(1230219000000) = TIMESTAMP_MICROS(1230219000000000)
    // = 2008-12-25 15:30:00 UTC; DATE_FROM_UNIX_DATE(14238) = 2008-12-25.
    expect(
      await row(`select timestamp_seconds(1230219000) as s, timestamp_millis(1230219000000) as ms,
        timestamp_micros(1230219000000000) as us, date_from_unix_date(14238) as d`),
    ).toEqual({
      s: micros('2008-12-25T15:30:00Z'),
      ms: micros('2008-12-25T15:30:00Z'),
      us: micros('2008-12-25T15:30:00Z'),
      d: '2008-12-25',
    });
  });

  it('TIME, TIME_ADD, TIME_SUB, TIME_DIFF, TIME_TRUNC, FORMAT_TIME, PARSE_TIME and CURRENT_TIME', async () => {
    // Docs: TIME(15, 30, 00) = 15:30:00; TIME(TIMESTAMP '2008-12-25 15:30:00+08', 'America/Los_Angeles') = 23:30:00;
    // TIME_ADD(TIME '15:30:00', INTERVAL 10 MINUTE) = 15:40:00, and adding an hour to 23:30:00 gives 00:30:00;
    // TIME_SUB(TIME '15:30:00', INTERVAL 10 MINUTE) = 15:20:00; TIME_DIFF(TIME '15:30:00', TIME '14:35:00', MINUTE) = 55;
    // TIME_TRUNC(TIME '15:30:00', HOUR) = 15:00:00; FORMAT_TIME('%R', TIME '15:30:00') = '15:30';
    // PARSE_TIME('%H', '15') = 15:00:00; PARSE_TIME('%I:%M:%S %p', '2:23:38 pm') = 14:23:38.
    expect(
      await row(`select time(15, 30, 00) as a, time(timestamp '2008-12-25 15:30:00+08', 'America/Los_Angeles') as b,
        time_add(time '15:30:00', interval 10 minute) as c, time_add(time '23:30:00', interval 1 hour) as d,
        time_sub(time '15:30:00', interval 10 minute) as e, time_diff(time '15:30:00', time '14:35:00', minute) as f,
        time_trunc(time '15:30:00', hour) as g, format_time('%R', time '15:30:00') as h, parse_time('%H', '15') as i,
        parse_time('%I:%M:%S %p', '2:23:38 pm') as j, current_time() as k`),
    ).toEqual({
      a: '15:30:00',
      b: '23:30:00',
      c: '15:40:00',
      d: '00:30:00',
      e: '15:20:00',
      f: 55,
      g: '15:00:00',
      h: '15:30',
      i: '15:00:00',
      j: '14:23:38',
      k: '12:34:56.789',
    });
  });

  it('TIME and CAST AS TIME take the time of day of a DATETIME, a literal or a subquery column', async () => {
    // time_functions.md, TIME: TIME(DATETIME "2008-12-25 15:30:00.000000") = 15:30:00; CAST of a
    // DATETIME to TIME keeps its time part (conversion_rules.md).
    expect(
      await row(`select time(datetime '2008-12-25 15:30:00.000000') as a,
        cast(datetime '2008-12-25 15:30:00.25' as time) as b, time(t) as c, cast(t as time) as d,
        cast(tm as time) as e, time(ts) as f
        from (select datetime '2008-12-25 15:30:00' as t, time '10:00:00' as tm,
          timestamp '2008-12-25 07:30:00+00' as ts)`),
    ).toEqual({
      a: '15:30:00',
      b: '15:30:00.25',
      c: '15:30:00',
      d: '15:30:00',
      e: '10:00:00',
      f: '07:30:00',
    });
  });

  it('reads a STRING literal or parameter as the DATE, TIMESTAMP or DATETIME a date or time function takes', async () => {
    // Conversion rules: a STRING literal and a "STRING parameter" coerce to DATE, DATETIME, TIME
    // and TIMESTAMP, so DATE_SUB(@end_date, INTERVAL 2 DAY) is valid with a STRING parameter; a
    // TIMESTAMP's text may carry an offset (10:00+02:00 is 08:00 UTC), one without is UTC.
    expect(
      await row(
        `select date_sub(@d, interval 2 day) as a, date_add('2024-01-31', interval 1 month) as b,
          date_trunc(@d, month) as c, last_day(@d) as d, date_diff(@d, '2024-03-01', day) as e,
          timestamp_sub(@t, interval 1 hour) as f, timestamp_trunc('2024-04-01 10:20:00', hour) as g,
          datetime_add(@dt, interval 30 minute) as h`,
        { d: '2024-04-17', t: '2024-04-01T10:00:00+02:00', dt: '2024-04-01 10:00:00' },
      ),
    ).toEqual({
      a: '2024-04-15',
      b: '2024-02-29',
      c: '2024-04-01',
      d: '2024-04-30',
      e: 47,
      f: micros('2024-04-01T07:00:00Z'),
      g: micros('2024-04-01T10:00:00Z'),
      h: '2024-04-01T10:30:00',
    });
  });

  it('reads a STRING literal as the TIMESTAMP or DATE that FORMAT_TIMESTAMP, FORMAT_DATE and UNIX_* take', async () => {
    // data-types.md, "Daylight saving time": FORMAT_TIMESTAMP("%c %Z", "2024-03-10 02:30:00
    // America/Los_Angeles", "UTC") is Sun Mar 10 10:30:00 2024 UTC; UNIX_SECONDS of 2008-12-25
    // 15:30:00+00 is 1230219000 and UNIX_DATE of 2008-12-25 is 14238 (the functions' docs).
    expect(
      await row(`select format_timestamp("%c %Z", "2024-03-10 02:30:00 America/Los_Angeles", "UTC") as a,
        unix_seconds("2008-12-25 15:30:00+00") as b, unix_millis("2008-12-25 15:30:00+00") as c,
        unix_micros("2008-12-25 15:30:00+00") as d, unix_date("2008-12-25") as e, format_date("%x", "2008-12-25") as f`),
    ).toEqual({
      a: 'Sun Mar 10 10:30:00 2024 UTC',
      b: 1230219000,
      c: 1230219000000,
      d: 1230219000000000,
      e: 14238,
      f: '12/25/08',
    });
  });

  it('a DATE or DATETIME plus or minus an INTERVAL is a DATETIME, a TIMESTAMP stays a TIMESTAMP', async () => {
    // Operators (interval arithmetic): "date_expression + interval_expression = DATETIME",
    // datetime ± interval DATETIME, timestamp ± interval TIMESTAMP; DATE "2021-04-20" + INTERVAL
    // 25 HOUR is 2021-04-21 01:00:00, TIMESTAMP "2021-05-02 00:01:02.345+00" - INTERVAL 10 SECOND
    // 2021-05-02 00:00:52.345+00. A DATE plus an INT64 stays a DATE.
    expect(
      await row(`select date '2021-04-20' + interval 25 hour as a, datetime '2024-01-31 12:00:00' - interval 1 hour as b,
        date_trunc(date '2024-04-17', month) - interval 1 day as c, interval 1 month + parse_date('%Y%m%d', '20240131') as d,
        timestamp '2021-05-02 00:01:02.345+00' - interval 10 second as e, date '2021-04-20' + 1 as f`),
    ).toEqual({
      a: '2021-04-21T01:00:00',
      b: '2024-01-31T11:00:00',
      c: '2024-03-31T00:00:00',
      d: '2024-02-29T00:00:00',
      e: micros('2021-05-02T00:00:52.345Z'),
      f: '2021-04-21',
    });
  });

  it('LAST_DAY gives the last day of the month', async () => {
    // Docs: LAST_DAY(DATE '2008-11-25', MONTH) = 2008-11-30.
    expect(
      await row("select last_day(date '2008-11-25', month) as a, last_day(date '2008-02-03') as b"),
    ).toEqual({
      a: '2008-11-30',
      b: '2008-02-29',
    });
  });

  it('LAST_DAY by YEAR, QUARTER, WEEK, WEEK(<day>), ISOWEEK and ISOYEAR gives the last day of that part', async () => {
    // Docs: LAST_DAY(DATE '2008-11-25', YEAR) = 2008-12-31; LAST_DAY(DATE '2008-11-10',
    // WEEK(SUNDAY)) = 2008-11-15; WEEK(MONDAY) = 2008-11-16. WEEK is WEEK(SUNDAY); an ISO week ends
    // on Sunday; ISO year 2008 ends on 2008-12-28 (2009-W01 starts Monday 2008-12-29) and ISO year
    // 2020, of 53 weeks, on 2021-01-03; a DATETIME gives a DATE.
    expect(
      await row(`select last_day(date '2008-11-25', year) as a, last_day(date '2008-11-10', week(sunday)) as b,
        last_day(date '2008-11-10', week(monday)) as c, last_day(date '2008-11-10', week) as d,
        last_day(date '2008-11-10', isoweek) as e, last_day(date '2008-11-10', quarter) as f,
        last_day(date '2024-02-10', quarter) as g, last_day(date '2008-11-10', isoyear) as h,
        last_day(date '2021-01-03', isoyear) as i, last_day(datetime '2008-11-25 15:30:00', week(monday)) as j,
        last_day(date '2024-03-31', week) as k`),
    ).toEqual({
      a: '2008-12-31',
      b: '2008-11-15',
      c: '2008-11-16',
      d: '2008-11-15',
      e: '2008-11-16',
      f: '2008-12-31',
      g: '2024-03-31',
      h: '2008-12-28',
      i: '2021-01-03',
      j: '2008-11-30',
      k: '2024-04-06',
    });
  });

  it.each([
    [
      'TIMESTAMP_DIFF by MONTH, which BigQuery does not define for TIMESTAMP',
      'select timestamp_diff(current_timestamp(), current_timestamp(), month)',
    ],
    ['a format element DuckDB cannot parse', "select parse_date('%U', '01')"],
    ['%Z for a named time zone', "select format_timestamp('%Z', current_timestamp(), 'America/Los_Angeles')"],
    ['a format string that is not a literal', 'select format_timestamp(@f, current_timestamp())'],
    ['AT TIME ZONE outside EXTRACT', "select current_timestamp() at time zone 'UTC'"],
    [
      'DATETIME of two values of unknown types (a TIME, or a time zone?)',
      'select datetime(x.a, x.b) as d from (select current_date() as a, current_time() as b) as x',
    ],
  ])('refuses %s', (_what, sql) => {
    expect(refused(sql)).toThrow(/Cannot translate to DuckDB/);
  });
});
