import { bigQueryValueFault, type ValueFaultOf } from '../../engines/parameter-value-errors.js';
import { raisedMessage } from '../../sql/raised-errors.js';

/**
 * DuckDB's own words for a run that fails on a value, in BigQuery's, where BigQuery has words for
 * the same failure: ZetaSQL's `Limit requires non-negative count and offset`, `int64 overflow:
 * a * b`, and time_zone_util.cc's `Invalid time zone: Mars/Olympus`. Other messages as they are.
 */
export function inBigQueryWords(message: string): string {
  if (/LIMIT\/OFFSET cannot be negative/.test(message)) return 'Limit requires non-negative count and offset';
  const zone = /Unknown TimeZone '([^']*)'/.exec(message);
  if (zone) return `Invalid time zone: ${zone[1]}`;
  const overflow = /Overflow in \w+ of INT64 \((-?\d+) ([-+*]) (-?\d+)\)/.exec(message);
  if (overflow) return `int64 overflow: ${overflow[1]} ${overflow[2]} ${overflow[3]}`;
  return message;
}

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
