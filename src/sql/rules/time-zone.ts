import { unsupported } from './rule.js';

/**
 * Time zones as BigQuery takes them: an IANA name ('America/Los_Angeles', 'UTC') or an offset
 * ('+05:30', '-08'). DuckDB's ICU knows the names but not bare offsets, so offsets become
 * interval arithmetic. The store keeps TIMESTAMP as UTC and the session time zone is UTC.
 */
export interface Zone {
  /** The zone argument as DuckDB SQL. */
  readonly sql: string;
  /** Its text when it is a literal. */
  readonly literal?: string | undefined;
}

function offsetMinutes(literal: string): number | undefined {
  const match = /^(?:UTC)?([+-])(\d{1,2})(?::?(\d{2}))?$/i.exec(literal.trim());
  if (!match) return undefined;
  const minutes = Number(match[2]) * 60 + Number(match[3] ?? 0);
  return match[1] === '-' ? -minutes : minutes;
}

function isUtc(zone: Zone | undefined): boolean {
  return zone === undefined || /^(utc|etc\/utc|z|gmt)$/i.test(zone.literal?.trim() ?? '');
}

/** The civil time (TIMESTAMP without zone) an instant shows in `zone`. */
export function toCivil(instant: string, zone: Zone | undefined): string {
  if (zone === undefined || isUtc(zone)) return instant;
  const offset = zone.literal === undefined ? undefined : offsetMinutes(zone.literal);
  if (offset !== undefined) return `(${instant} + INTERVAL (${offset}) MINUTE)`;
  return `timezone(${zone.sql}, CAST(${instant} AS TIMESTAMPTZ))`;
}

/**
 * The instant (UTC TIMESTAMP) at which `zone` shows the civil time `civil`, as BigQuery takes it:
 * absl's `TimeZone::At(civil).pre` (ZetaSQL's date_time_util.cc), the civil time read with the
 * offset in force before a change of offset. A civil time the change skips (spring forward) is
 * so read by ICU's `timezone()` too; one it repeats (fall back) ICU reads as the later instant,
 * where BigQuery takes the earlier: `TIMESTAMP('2023-11-05 01:30:00', 'America/New_York')` is
 * 05:30 UTC (EDT), not 06:30 (EST). `repeated: 'later'` keeps ICU's reading, a conversion cheaper
 * by half (see earlierOfRepeated), for a caller that accepts it.
 */
export function fromCivil(
  civil: string,
  zone: Zone | undefined,
  repeated: 'earlier' | 'later' = 'earlier',
): string {
  if (zone === undefined || isUtc(zone)) return civil;
  const offset = zone.literal === undefined ? undefined : offsetMinutes(zone.literal);
  if (offset !== undefined) return `(${civil} - INTERVAL (${offset}) MINUTE)`;
  if (repeated === 'later') return `CAST(timezone(${zone.sql}, CAST(${civil} AS TIMESTAMP)) AS TIMESTAMP)`;
  return earlierOfRepeated(`CAST(${civil} AS TIMESTAMP)`, zone.sql);
}

/**
 * The instant ICU gives for the civil time `civil` in the named zone `zone`, or, where that civil
 * time is repeated, the earlier one: the civil time less the offset in force a day before ICU's
 * instant, where that offset was greater (the clock has gone back since) and the zone showed the
 * civil time at it. The zone's offset a day before costs one more ICU conversion a value; the
 * check of the earlier instant runs only in the day after a change of offset.
 *
 * A civil time of literals and parameters is written out where it is used, so DuckDB folds the
 * whole into a constant (a filter on it prunes the scan); any other is bound once in a lambda.
 */
function earlierOfRepeated(civil: string, zone: string): string {
  const body = (c: string, t: string) => {
    const dayBefore = `(${t} - INTERVAL 1 DAY)`;
    const offsetBefore = `(epoch_us(timezone(${zone}, CAST(${dayBefore} AS TIMESTAMPTZ))) - epoch_us(${dayBefore}))`;
    const earlier = `make_timestamp(epoch_us(${c}) - ${offsetBefore})`;
    const shown = `timezone(${zone}, CAST(${earlier} AS TIMESTAMPTZ))`;
    return `CASE WHEN ${offsetBefore} > epoch_us(${c}) - epoch_us(${t}) THEN CASE WHEN ${shown} = ${c} THEN ${earlier} ELSE ${t} END ELSE ${t} END`;
  };
  const instant = (c: string) => `CAST(timezone(${zone}, ${c}) AS TIMESTAMP)`;
  return once(civil, '__civil', (c) => once(instant(c), '__instant', (t) => body(c, t)));
}

/**
 * `body` of `value`, which it reads more than once: written out there where `value` is of
 * literals and parameters only (no quoted column, subquery or `__` lambda argument), so DuckDB
 * folds the whole into a constant (a filter on it prunes the scan); else bound once, as a
 * lambda's argument, so a column's conversions run once a row.
 */
export function once(value: string, name: string, body: (value: string) => string): string {
  if (!/"|\(\s*SELECT\b|__/i.test(value)) return body(value);
  return `list_transform([${value}], ${name} -> ${body(name)})[1]`;
}

/** Whether the zone's offset is known when translating: UTC or a fixed offset ('+05:30'), no name. */
export function hasFixedOffset(zone: Zone | undefined): boolean {
  return isUtc(zone) || (zone?.literal !== undefined && offsetMinutes(zone.literal) !== undefined);
}

/**
 * The offset %z (`+HHMM`) or %Ez (`+HH:MM`) prints for a named zone ('Europe/Berlin'), whose
 * offset changes with the date: the civil time the zone shows less the UTC instant, per row
 * (BigQuery's FORMAT_TIMESTAMP('%Ez', TIMESTAMP '2024-03-31 15:00:00+00', 'Europe/Berlin') is
 * '+02:00', summer time; a day earlier '+01:00'). tzdata's offsets are whole minutes since 1972.
 */
export function zoneOffsetSql(civil: string, instant: string, colon: boolean): string {
  const minutes = `((epoch_us(${civil}) - epoch_us(${instant})) // 60000000)`;
  const part = (sql: string) => `lpad(CAST(${sql} AS VARCHAR), 2, '0')`;
  return `(CASE WHEN ${minutes} < 0 THEN '-' ELSE '+' END || ${part(`abs(${minutes}) // 60`)} || '${colon ? ':' : ''}' || ${part(`abs(${minutes}) % 60`)})`;
}

/** The name %Z prints and the offset %z prints, where the zone is known when translating. */
export function zoneLabels(zone: Zone | undefined): { name: string; offset: string } {
  if (isUtc(zone)) return { name: 'UTC', offset: '+0000' };
  const offset = zone?.literal === undefined ? undefined : offsetMinutes(zone.literal);
  if (offset === undefined) throw unsupported('%Z or %z with a time zone other than UTC or a fixed offset');
  const sign = offset < 0 ? '-' : '+';
  const hours = String(Math.floor(Math.abs(offset) / 60)).padStart(2, '0');
  const minutes = String(Math.abs(offset) % 60).padStart(2, '0');
  return { name: `UTC${sign}${hours}:${minutes}`, offset: `${sign}${hours}${minutes}` };
}
