import { createHook } from 'node:async_hooks';
import { describe, expect, it } from 'vitest';
import { nextTickRecord } from '../../src/http/tick-record.js';

describe('nextTickRecord', () => {
  it("resolves to the very record Node built for a process.nextTick (its async hooks' TickObject)", async () => {
    const ticks: object[] = [];
    const hook = createHook({
      init(_id, type, _trigger, resource) {
        if (type === 'TickObject') ticks.push(resource);
      },
    }).enable();
    let record: Promise<object>;
    try {
      record = nextTickRecord();
    } finally {
      hook.disable();
    }
    const kept = await record;
    expect(ticks).toContain(kept);
    // The shape V8 is to keep: two symbol-keyed ids, then the callback and its arguments.
    expect(Object.getOwnPropertySymbols(kept)).toHaveLength(2);
    expect(Object.keys(kept)).toEqual(['callback', 'args']);
  });
});
