/**
 * An event as Logflare's clients write it, in the shape the log writer reads: the message from
 * `event_message`, else `message`, else `log_entry` (the JSON text of a value that is not a
 * string), and a 19-digit Unix time in nanoseconds as microseconds (the store's precision; the
 * rest is truncated). Anything else is left to the writer to check, by event index.
 */
export function fromLogflareEvent(event: unknown): unknown {
  if (typeof event !== 'object' || event === null || Array.isArray(event)) return event;
  const fields = event as Record<string, unknown>;
  const message = hasValue(fields.event_message) || hasValue(fields.message) ? undefined : fields.log_entry;
  const micros = nanosecondsAsMicroseconds(fields.timestamp);
  if (!hasValue(message) && micros === undefined) return event;
  // Copied key by key: V8 (Node 20) gives a spread copy that then gets a new key a hidden class
  // of its own, one per record.
  const fromLogEntry = hasValue(message);
  const copy: Record<string, unknown> = {};
  for (const key of Object.keys(fields)) if (!fromLogEntry || key !== 'log_entry') copy[key] = fields[key];
  if (fromLogEntry) copy.event_message = typeof message === 'string' ? message : JSON.stringify(message);
  if (micros !== undefined) copy.timestamp = micros;
  return copy;
}

function hasValue(value: unknown): boolean {
  return value !== undefined && value !== null;
}

// Nanoseconds since the epoch have 19 digits from 2001 to 2286; microseconds have 16.
const nanosecondDigits = /^\d{19}$/;

/** Microseconds for a timestamp given in nanoseconds (as digits, or as a JSON number); else undefined. */
function nanosecondsAsMicroseconds(value: unknown): string | undefined {
  if (typeof value === 'string' && nanosecondDigits.test(value)) return (BigInt(value) / 1000n).toString();
  // A JSON number this large kept only about 17 significant digits: good to the microsecond.
  if (typeof value === 'number' && Number.isInteger(value) && value >= 1e18 && value < 1e19) {
    return String(Math.trunc(value / 1000));
  }
  return undefined;
}
