import { quoteString, unsupported } from './rule.js';
import { hasFixedOffset, type Zone, zoneLabels, zoneOffsetSql } from './time-zone.js';

/**
 * BigQuery's format elements (the "Format elements for date and time parts" page) rendered on
 * DuckDB's strftime/strptime, which share most of them. Where an element means something else
 * in DuckDB (%g is milliseconds there, %n nanoseconds, %x and %c ISO forms) or is missing (%e,
 * %k, %l, %C, %Q, %P, %s, %E*S, ...) it is written as an expression; an element with no rule is
 * refused by name.
 */
const sameInDuckDb = new Set([
  'A',
  'a',
  'B',
  'b',
  'h',
  'd',
  'H',
  'I',
  'j',
  'm',
  'M',
  'p',
  'S',
  'u',
  'w',
  'y',
  'Y',
  'U',
  'W',
  'V',
  'T',
]);

/** Elements that are shorthands for others. */
const shorthands: Record<string, string> = {
  D: '%m/%d/%y',
  F: '%Y-%m-%d',
  R: '%H:%M',
  x: '%m/%d/%y',
  X: '%H:%M:%S',
  c: '%a %b %e %H:%M:%S %Y',
  E4Y: '%Y',
};

type Piece = { kind: 'strftime'; pattern: string } | { kind: 'sql'; sql: string };

const pad = (sql: string, width: number, fill: string) =>
  `lpad(CAST(${sql} AS VARCHAR), ${width}, '${fill}')`;

/** The elements of a format string: `%Y`, `%E3S`, `%E*S`, `%Ez`, `%E4Y`, and the text between. */
function elements(format: string): Array<{ element?: string; text?: string }> {
  const out: Array<{ element?: string; text?: string }> = [];
  const pattern = /%(E(?:\d|\*)S|Ez|E4Y|.)/gs;
  let last = 0;
  for (const match of format.matchAll(pattern)) {
    if ((match.index ?? 0) > last) out.push({ text: format.slice(last, match.index) });
    out.push({ element: match[1] });
    last = (match.index ?? 0) + match[0].length;
  }
  if (last < format.length) out.push({ text: format.slice(last) });
  return out;
}

/**
 * FORMAT_TIMESTAMP/DATE/DATETIME: `civil` is the value as civil time (already in the zone),
 * `instant` the UTC instant where there is one (for %s).
 */
export function formatTime(
  format: string,
  civil: string,
  options: { instant?: string; zone?: Zone },
): string {
  const pieces: Piece[] = [];
  const strftime = (pattern: string) => pieces.push({ kind: 'strftime', pattern });
  const sql = (text: string) => pieces.push({ kind: 'sql', sql: text });
  const expand = (format: string): void => {
    for (const { element, text } of elements(format)) {
      if (text !== undefined) {
        strftime(text.replaceAll('%', '%%'));
        continue;
      }
      const e = element as string;
      if (sameInDuckDb.has(e)) strftime(`%${e}`);
      else if (shorthands[e]) expand(shorthands[e]);
      else if (e === '%') strftime('%%');
      else if (e === 'n') strftime('\n');
      else if (e === 't') strftime('\t');
      else if (e === 'e') sql(pad(`day(${civil})`, 2, ' '));
      else if (e === 'k') sql(pad(`hour(${civil})`, 2, ' '));
      else if (e === 'l') sql(pad(`(hour(${civil}) + 11) % 12 + 1`, 2, ' '));
      else if (e === 'C') sql(pad(`year(${civil}) // 100`, 2, '0'));
      else if (e === 'G') sql(`CAST(isoyear(${civil}) AS VARCHAR)`);
      else if (e === 'g') sql(pad(`isoyear(${civil}) % 100`, 2, '0'));
      else if (e === 'Q') sql(`CAST(quarter(${civil}) AS VARCHAR)`);
      else if (e === 'P') sql(`lower(strftime(${civil}, '%p'))`);
      else if (e === 's') sql(`CAST(epoch_us(${options.instant ?? civil}) // 1000000 AS VARCHAR)`);
      else if (e === 'Z') strftime(zoneLabels(options.zone).name.replaceAll('%', '%%'));
      else if ((e === 'z' || e === 'Ez') && options.instant !== undefined && !hasFixedOffset(options.zone))
        sql(zoneOffsetSql(civil, options.instant, e === 'Ez'));
      else if (e === 'z') strftime(zoneLabels(options.zone).offset);
      else if (e === 'Ez') strftime(zoneLabels(options.zone).offset.replace(/(\d\d)$/, ':$1'));
      else if (e === 'E*S') strftime('%S.%f');
      else if (/^E\dS$/.test(e)) {
        const digits = Number(e[1]);
        if (digits === 0) strftime('%S');
        else sql(`strftime(${civil}, '%S.') || left(strftime(${civil}, '%f'), ${digits})`);
      } else throw unsupported(`format element %${e}`);
    }
  };
  expand(format);
  // Adjacent strftime pieces become one call.
  const parts: string[] = [];
  let pending = '';
  const flush = () => {
    if (pending !== '') parts.push(`strftime(${civil}, ${quoteString(pending)})`);
    pending = '';
  };
  for (const piece of pieces) {
    if (piece.kind === 'strftime') pending += piece.pattern;
    else {
      flush();
      parts.push(piece.sql);
    }
  }
  flush();
  if (parts.length === 0) return "''";
  return parts.length === 1 ? (parts[0] as string) : `(${parts.join(' || ')})`;
}

const parseable = new Set([
  'Y',
  'm',
  'd',
  'H',
  'M',
  'S',
  'j',
  'b',
  'B',
  'h',
  'a',
  'A',
  'p',
  'I',
  'y',
  'z',
  'T',
]);
const parseShorthands: Record<string, string> = {
  F: '%Y-%m-%d',
  D: '%m/%d/%y',
  R: '%H:%M',
  x: '%m/%d/%y',
  X: '%H:%M:%S',
  c: '%a %b %d %H:%M:%S %Y',
  e: '%d',
  E4Y: '%Y',
};

/**
 * Elements DuckDB reads with other words, each as the strptime patterns to try in turn: %E*S is
 * seconds with or without a fraction (full precision: DuckDB's %f reads up to the microseconds a
 * TIMESTAMP holds), %E<n>S seconds with n digits of fraction, %Ez an RFC 3339 offset (+HH:MM),
 * which DuckDB's %z reads as it reads +HHMM.
 */
function parseAlternatives(element: string): readonly string[] | undefined {
  if (element === 'E*S') return ['%S.%f', '%S'];
  if (element === 'Ez') return ['%z'];
  const digits = /^E(\d)S$/.exec(element)?.[1];
  if (digits === undefined) return undefined;
  if (digits === '0') return ['%S'];
  return [Number(digits) <= 6 ? '%S.%f' : '%S.%n'];
}

/**
 * PARSE_TIMESTAMP/DATE/DATETIME formats as DuckDB strptime formats to try in turn (one unless an
 * element has alternatives, as %E*S has), and whether the text carries its own offset (%z, %Ez).
 * Fields the format leaves out default to 1970-01-01 00:00:00 in BigQuery and to 1900-01-01 in
 * DuckDB, so a format without a year reads '1970 ' in front.
 */
export function parseFormat(format: string): { patterns: string[]; hasOffset: boolean; hasYear: boolean } {
  let patterns = [''];
  let hasOffset = false;
  let hasYear = false;
  const append = (...alternatives: readonly string[]) => {
    patterns = patterns.flatMap((pattern) => alternatives.map((alternative) => pattern + alternative));
  };
  const expand = (format: string): void => {
    for (const { element, text } of elements(format)) {
      if (text !== undefined) {
        append(text.replaceAll('%', '%%'));
        continue;
      }
      const e = element as string;
      if (e === 'z' || e === 'Ez') hasOffset = true;
      if (e === 'Y' || e === 'y' || e === 'E4Y') hasYear = true;
      const alternatives = parseAlternatives(e);
      if (alternatives) append(...alternatives);
      else if (parseShorthands[e]) expand(parseShorthands[e]);
      else if (e === '%') append('%%');
      else if (parseable.has(e)) append(`%${e}`);
      else throw unsupported(`format element %${e} in PARSE_`);
    }
  };
  expand(format);
  return { patterns, hasOffset, hasYear };
}
