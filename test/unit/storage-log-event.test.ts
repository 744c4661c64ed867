import { describe, expect, it } from 'vitest';
import { isQuerygateError } from '../../src/errors.js';
import { maxEventDepth, toLogEvent } from '../../src/storage/log-event.js';
import { logSources } from '../helpers/shipped-sources.js';

const source = logSources.find((s) => s.name === 'cloudflare.logs.prod');
if (!source) throw new Error('cloudflare.logs.prod is not a shipped source');
const now = 1_700_000_000_000_000n;

/** An object nesting `levels` objects below itself. */
function nested(levels: number): Record<string, unknown> {
  let value: Record<string, unknown> = { leaf: 'x' };
  for (let i = 1; i < levels; i += 1) value = { child: value };
  return value;
}

function refusal(event: unknown): string {
  try {
    toLogEvent(event, 3, source as NonNullable<typeof source>, now);
  } catch (error) {
    if (isQuerygateError(error)) return error.message;
    throw error;
  }
  return 'accepted';
}

describe('toLogEvent', () => {
  it('names the nesting depth before a number it cannot store, wherever each is in the event', () => {
    const event = {
      event_message: 'm',
      metadata: { big: 2 ** 60 },
      level: { big: 2 ** 60, deep: nested(maxEventDepth) },
    };
    expect(refusal(event)).toBe(`event 3: nests objects and arrays deeper than ${maxEventDepth} levels`);
  });

  it('names an unstorable number in metadata before one in a field beside it', () => {
    const event = { event_message: 'm', level: { big: -(2 ** 62) }, metadata: { a: [1, { b: 2 ** 60 }] } };
    expect(refusal(event)).toBe(
      `event 3: field metadata.a[1].b: integer ${2n ** 60n} is beyond ±${Number.MAX_SAFE_INTEGER}, ` +
        'where JSON numbers are exact; send it as a string to keep every digit',
    );
  });

  it('accepts a Unix time in microseconds beyond 2^53 as the timestamp it is', () => {
    const micros = 2 ** 53 + 2;
    const event = toLogEvent(
      { event_message: 'm', timestamp: micros },
      0,
      source as NonNullable<typeof source>,
      now,
    );
    expect(event.timestamp).toBe(BigInt(micros));
    expect(event.extra).toEqual({});
  });

  it('keeps fields without a column in extra and leaves the columns out of it', () => {
    const event = toLogEvent(
      { id: 'a', event_message: 'm', project: 'p', level: 'info', tags: ['x'] },
      0,
      source as NonNullable<typeof source>,
      now,
    );
    expect(event.extra).toEqual({ level: 'info', tags: ['x'] });
  });
});
