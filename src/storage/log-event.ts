import { randomUUID } from 'node:crypto';
import { findLogSource, type LogSource } from '../endpoints/sources.js';
import { QuerygateError } from '../errors.js';
import { parseEventTimestamp } from './event-timestamp.js';
import { noExtra } from './schema-evolution.js';

/**
 * One incoming log event checked and split into its columns, before it meets the table's
 * current schema. Validation needs nothing from the database, so a request is refused whole
 * before any of it is queued for writing.
 */
export interface LogEvent {
  readonly id: string;
  /** Microseconds since the Unix epoch, UTC. */
  readonly timestamp: bigint;
  readonly eventMessage: string;
  /** Null where the event has none or the source has no `project` column. */
  readonly project: string | null;
  readonly metadata: Readonly<Record<string, unknown>> | null;
  /** Top-level fields without a column (e.g. `level`), kept for `_extra` under their own names. */
  readonly extra: Readonly<Record<string, unknown>>;
}

/**
 * How deep an event may nest objects and arrays. Deeper events are refused rather than risk the
 * recursive walks (and DuckDB's nested types) running out of stack; real logs stay far below.
 */
export const maxEventDepth = 32;

const columnFields = new Set(['id', 'timestamp', 'event_message', 'project', 'metadata']);

/**
 * Checks one request's events for a source, before anything is queued: the source must exist and
 * every event must be valid. Events without a timestamp all get the same `now`.
 */
export function checkLogEvents(
  sourceName: string,
  events: readonly unknown[],
  now: Date,
  sources: readonly LogSource[],
): { source: LogSource; events: LogEvent[] } {
  const source = findLogSource(sourceName, sources);
  if (!source) {
    const valid = sources.map((s) => s.name).join(', ');
    throw new QuerygateError(
      'BAD_PARAMETER',
      `Parameter 'source_name' names no log source: '${sourceName}'. Valid sources: ${valid}`,
      { details: { parameter: 'source_name' } },
    );
  }
  if (!Array.isArray(events)) throw new QuerygateError('BAD_REQUEST', 'Events must be an array');
  const nowMicros = BigInt(now.getTime()) * 1000n;
  return { source, events: events.map((event, index) => toLogEvent(event, index, source, nowMicros)) };
}

/**
 * Checks event number `index` of a request and splits it into columns. Accepts Logflare's
 * `message` where `event_message` is absent. Throws BAD_REQUEST naming the event and field.
 */
export function toLogEvent(event: unknown, index: number, source: LogSource, nowMicros: bigint): LogEvent {
  const refuse = (reason: string) =>
    new QuerygateError('BAD_REQUEST', `event ${index}: ${reason}`, { details: { index, reason } });
  if (typeof event !== 'object' || event === null || Array.isArray(event)) {
    throw refuse('must be a JSON object');
  }
  const fields = event as Record<string, unknown>;
  // One walk of the event answers both questions asked of every value: does it nest too deep,
  // and does it hold something that cannot be stored. Only a refused value is walked again, for
  // its path.
  let unstorable = false;
  for (const key in fields) {
    if (!Object.hasOwn(fields, key)) continue;
    const found = inspect(fields[key], maxEventDepth - 1);
    if (found === tooDeep) throw refuse(`nests objects and arrays deeper than ${maxEventDepth} levels`);
    if (found === notStorable) unstorable = true;
  }
  const messageField =
    fields.event_message === undefined || fields.event_message === null ? 'message' : 'event_message';
  const eventMessage = fields[messageField];
  if (eventMessage === undefined || eventMessage === null) {
    throw refuse('event_message is required (a string; Logflare\'s "message" is accepted too)');
  }
  if (typeof eventMessage !== 'string') throw refuse(`${messageField} must be a string`);

  const { id, timestamp, project, metadata } = fields;
  if (id !== undefined && id !== null && (typeof id !== 'string' || id === '')) {
    throw refuse('id must be a non-empty string');
  }
  let micros = nowMicros;
  if (timestamp !== undefined && timestamp !== null) {
    const parsed =
      typeof timestamp === 'string' || typeof timestamp === 'number'
        ? parseEventTimestamp(timestamp)
        : undefined;
    if (parsed === undefined) {
      throw refuse(
        `timestamp ${preview(timestamp)} is neither ISO 8601 (e.g. 2024-05-01T12:00:00.123456Z) ` +
          'nor a Unix time in seconds, milliseconds or microseconds, from 0001-01-01 to 9999-12-31 UTC',
      );
    }
    micros = parsed;
  }
  if (source.hasProject && project !== undefined && project !== null && typeof project !== 'string') {
    throw refuse('project must be a string');
  }
  if (
    metadata !== undefined &&
    metadata !== null &&
    (typeof metadata !== 'object' || Array.isArray(metadata))
  ) {
    throw refuse('metadata must be a JSON object');
  }

  if (unstorable) {
    const found = findUnstorable(metadata, 'metadata');
    if (found) throw refuseField(index, found);
  }
  // Most events have no field beyond the columns: they share one empty `extra`.
  let extra: Record<string, unknown> = noExtra;
  for (const key in fields) {
    if (!Object.hasOwn(fields, key)) continue;
    const value = fields[key];
    if (value === null || value === undefined || key === messageField) continue;
    if (columnFields.has(key) && (key !== 'project' || source.hasProject)) continue;
    const unstorableExtra = unstorable ? findUnstorable(value, key) : undefined;
    if (unstorableExtra) throw refuseField(index, unstorableExtra);
    if (extra === noExtra) extra = {};
    // Plain assignment of "__proto__" would set the prototype instead of keeping the field.
    if (key === '__proto__') Object.defineProperty(extra, key, { value, enumerable: true, writable: true });
    else extra[key] = value;
  }
  return {
    id: typeof id === 'string' ? id : randomUUID(),
    timestamp: micros,
    eventMessage,
    project: source.hasProject && typeof project === 'string' ? project : null,
    metadata: (metadata as Record<string, unknown> | null | undefined) ?? null,
    extra,
  };
}

/** A value that cannot be stored as sent, and where it is (`metadata.a.b[2]`). */
interface Unstorable {
  readonly field: string;
  readonly reason: string;
}

// Integers whose magnitude lies between 2^53 and 2^64 are 64-bit integers that JSON.parse has
// already rounded (-9223372036854775808 arrives as -2^63, 18446744073709551615 as 2^64): storing
// them would keep a number the client never sent, so they are refused. Beyond 2^64 a number is
// taken for the floating-point value it is (1e300 is stored as DOUBLE).
const largestExactInteger = Number.MAX_SAFE_INTEGER;
const largest64BitInteger = 2 ** 64;

/**
 * The first value under `value` that cannot be stored as sent: a 64-bit integer beyond JSON's
 * exact range, a number that is not finite, or something that is not JSON at all (a BigInt or a
 * function from a programmatic caller). Strings are never refused: a lone UTF-16 surrogate, which
 * UTF-8 cannot hold, is stored as U+FFFD as any UTF-8 decoder would (log-batch.ts). The event's
 * nesting was bounded before this runs, so the walk is too.
 */
export function findUnstorable(value: unknown, field: string): Unstorable | undefined {
  const found = unstorableIn(value);
  if (!found) return undefined;
  // The path is built only for the value refused: every event is walked, few are refused.
  let path = field;
  for (let i = found.path.length - 1; i >= 0; i -= 1) {
    const step = found.path[i] as string | number;
    path += typeof step === 'number' ? `[${step}]` : `.${step}`;
  }
  return { field: path, reason: found.reason };
}

/** What is refused and where, its path innermost step first. */
interface Refused {
  readonly path: (string | number)[];
  readonly reason: string;
}

function unstorableIn(value: unknown): Refused | undefined {
  switch (typeof value) {
    case 'number': {
      if (!Number.isFinite(value)) return { path: [], reason: `${value} is not a finite number` };
      const magnitude = Math.abs(value);
      if (Number.isInteger(value) && magnitude > largestExactInteger && magnitude <= largest64BitInteger) {
        return {
          path: [],
          reason:
            `integer ${BigInt(value)} is beyond ±${largestExactInteger}, where JSON numbers are exact; ` +
            'send it as a string to keep every digit',
        };
      }
      return undefined;
    }
    case 'bigint':
    case 'function':
    case 'symbol':
      return { path: [], reason: `a ${typeof value} is not a JSON value` };
    case 'object': {
      if (value === null) return undefined;
      if (Array.isArray(value)) {
        for (let i = 0; i < value.length; i += 1) {
          const found = unstorableIn(value[i]);
          if (found) {
            found.path.push(i);
            return found;
          }
        }
        return undefined;
      }
      const record = value as Record<string, unknown>;
      for (const key in record) {
        if (!Object.hasOwn(record, key)) continue;
        const found = unstorableIn(record[key]);
        if (found) {
          found.path.push(key);
          return found;
        }
      }
      return undefined;
    }
    default:
      return undefined;
  }
}

function refuseField(index: number, { field, reason }: Unstorable): QuerygateError {
  const shown = field.length > 200 ? `${field.slice(0, 197)}...` : field;
  return new QuerygateError('BAD_REQUEST', `event ${index}: field ${shown}: ${reason}`, {
    details: { index, field: shown, reason },
  });
}

const tooDeep = 1;
const notStorable = 2;

/**
 * What one walk of `value` finds: `tooDeep` once it nests deeper than `levels` (it stops there,
 * so it never recurses deeper), else `notStorable` when something under it cannot be stored
 * (findUnstorable then says what and where), else 0.
 */
function inspect(value: unknown, levels: number): number {
  if (typeof value !== 'object' || value === null) {
    return typeof value === 'string' || typeof value === 'boolean' || unstorableIn(value) === undefined
      ? 0
      : notStorable;
  }
  if (levels === 0) return tooDeep;
  let found = 0;
  // Indexes and keys walked in place: this runs on every value of every event.
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i += 1) {
      const child = inspect(value[i], levels - 1);
      if (child === tooDeep) return tooDeep;
      found |= child;
    }
    return found;
  }
  const record = value as Record<string, unknown>;
  for (const key in record) {
    if (!Object.hasOwn(record, key)) continue;
    const child = inspect(record[key], levels - 1);
    if (child === tooDeep) return tooDeep;
    found |= child;
  }
  return found;
}

/** A value as it appears in an error message, cut short so a huge value cannot flood the log. */
function preview(value: unknown): string {
  let text: string;
  try {
    text = JSON.stringify(value) ?? String(value);
  } catch {
    text = String(value);
  }
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
